// MemoryClient: one promise-returning method per RPC of powercontext.memory.v1.MemoryService,
// plus update() and follow(). Every call has a deadline; failures are PowerContextError
// subclasses. A call that reaches no server is tried again for the connect window, then fails
// with an Unavailable naming the endpoint and the cause. Reads are retried on transient
// failures; writes carry a request id and are sent again, with it, when their answer is lost
// (the server commits each id once). Merge, Restore and UndoMerge have no request id, so once
// a server may have seen them they are never sent again.
import { randomUUID } from 'node:crypto';

import { status as GrpcStatus, type ClientReadableStream } from '@grpc/grpc-js';

import { abortReason, pause } from './abort';
import { backoffDelay, resolveBackoff } from './backoff';
import type { CallOptions } from './call-options';
import {
  isLoopbackEndpoint,
  resolveConfig,
  type ClientOptions,
  type ResolvedConfig,
} from './config';
import type { ConnectPolicy } from './connect';
import { callMetadata, channelCredentials } from './credentials';
import { fromGrpcError, Internal, RevisionConflict } from './errors';
import { followRevisions, type FollowOptions } from './follow';
import { createServiceClient, type MemoryServiceClient } from './proto';
import { walkPages } from './pages';
import { readWholeSource } from './source-chunks';
import type * as pb from './types';
import { callUnary, retryRead, retryWrite, type UnaryInvocation, type UnaryMethod } from './unary';
import type { Change, WriteRequest, WriteResponse } from './write-request';

/** A memory named by its id, or by any ref to it (where the revision is not used). */
export type MemorySelector = string | { readonly artifactId?: string };

export const DEFAULT_UPDATE_ATTEMPTS = 8;
/** Sends of one write in all when its answer is lost (UNAVAILABLE, DEADLINE_EXCEEDED). */
export const WRITE_ATTEMPTS = 4;

export interface UpdateOptions extends CallOptions {
  /** Tries before the last RevisionConflict is thrown. Default 8. */
  readonly attempts?: number;
  /**
   * Sends every attempt with this request id instead of a new one per attempt (an ABORTED
   * attempt records nothing, so the id stays free): running the same update twice with one
   * id commits at most once.
   */
  readonly requestId?: string;
}

/** A fresh idempotency key for one write (AIP-155). */
export function newRequestId(): string {
  return randomUUID();
}

export class MemoryClient {
  readonly config: ResolvedConfig;
  readonly #service: MemoryServiceClient;
  // close() aborts this: grpc-js lets open streams run on after a close, follow() must not.
  readonly #closing = new AbortController();

  constructor(options: ClientOptions = {}) {
    this.config = resolveConfig(options);
    if (this.config.token && !this.config.tls && !isLoopbackEndpoint(this.config.endpoint)) {
      process.emitWarning(
        `a bearer token is configured for ${this.config.endpoint} without TLS: it travels in clear`,
        { code: 'POWERCONTEXT_PLAINTEXT_TOKEN' },
      );
    }
    this.#service = createServiceClient(
      this.config.endpoint,
      channelCredentials(this.config.tls),
      this.config.channelOptions,
    );
  }

  // -- writes: sent again, same request id, when the answer is lost (UNAVAILABLE, ------------
  // -- DEADLINE_EXCEEDED), WRITE_ATTEMPTS sends at most ---------------------------------------

  /**
   * Persists an immutable Source (the same record always gets the same source_id, so it is
   * safe to send again without a request id). `memoryId` records it for that memory: a token
   * limited to memories must name one of them, and then reads the source back through it.
   */
  putSource(request: pb.PutSourceRequest, options?: CallOptions): Promise<pb.PutSourceResponse> {
    return this.#write(this.#service.putSource, request, options);
  }

  /**
   * Adds or revises entries on `memory` (the head); without `memory` it creates a memory.
   * Like every write it is sent with `request.requestId`, or a fresh UUID4 when unset: give
   * your own to make the write safe to repeat across runs of your program.
   */
  remember(request: pb.RememberRequest, options?: CallOptions): Promise<pb.RememberResponse> {
    return this.#write(this.#service.remember, withRequestId(request), options);
  }

  /** Marks entries inactive in a new revision. */
  forget(request: pb.ForgetRequest, options?: CallOptions): Promise<pb.ForgetResponse> {
    return this.#write(this.#service.forget, withRequestId(request), options);
  }

  /** Makes inactive entries active again. */
  reactivate(request: pb.ReactivateRequest, options?: CallOptions): Promise<pb.ReactivateResponse> {
    return this.#write(this.#service.reactivate, withRequestId(request), options);
  }

  /** Dedupe then normalize, in a new revision when anything changes. */
  organize(request: pb.OrganizeRequest, options?: CallOptions): Promise<pb.OrganizeResponse> {
    return this.#write(this.#service.organize, withRequestId(request), options);
  }

  // -- merge and restore: no request id, so each is sent once and never re-sent (a lost answer
  // -- may hide a commit: re-read the head, or Changes, to learn what happened) -------------

  /**
   * Folds two or more active entries (each at its current version) into one new entry, in one
   * revision on `memory` (the head); the inputs become merged. A stale input version is
   * `Aborted` (ENTRY_VERSION_STALE), a stale head a RevisionConflict.
   */
  merge(request: pb.MergeRequest, options?: CallOptions): Promise<pb.MergeResponse> {
    return this.#writeOnce(this.#service.merge, request, options);
  }

  /**
   * Brings an entry back: a forgotten one is reactivated, a merged one by undoing the merges
   * that froze it; with `entryVersionId`, as that historical version (a new version). With a
   * `previewToken` from previewRestore(), `memory.revision` may be 0 and a change since the
   * preview is `Aborted` (PREVIEW_STALE).
   */
  restore(request: pb.RestoreRequest, options?: CallOptions): Promise<pb.RestoreResponse> {
    return this.#writeOnce(this.#service.restore, request, options);
  }

  /** Undoes the merge that produced `entryId` (and the later merges that froze it). */
  undoMerge(request: pb.UndoMergeRequest, options?: CallOptions): Promise<pb.UndoMergeResponse> {
    return this.#writeOnce(this.#service.undoMerge, request, options);
  }

  /**
   * Reads the head, lets `change(head)` build a write, and commits it on that head. When
   * another writer moved the head first (RevisionConflict), the head is read again and
   * `change` runs again on it, after a jittered backoff, up to `attempts` times; then the last
   * RevisionConflict is thrown. Returns undefined when `change` finds nothing to do. Each
   * application is a new request with a new request id, unless `options.requestId` (or the
   * built request's own) is given.
   */
  async update(
    memory: MemorySelector,
    change: Change,
    options: UpdateOptions = {},
  ): Promise<WriteResponse | undefined> {
    const attempts = options.attempts ?? DEFAULT_UPDATE_ATTEMPTS;
    const artifactId = artifactIdOf(memory);
    for (let attempt = 1; ; attempt++) {
      const head = await this.getMemory({ memory: { artifactId, revision: 0 } }, options);
      if (!head.memory) {
        // Without a base the write would create a new memory instead of updating this one.
        throw new Internal({ grpcCode: GrpcStatus.INTERNAL, details: 'GetMemory returned no ref' });
      }
      const write = await change(head);
      if (write === undefined) {
        return undefined;
      }
      try {
        return await this.#commit(write, head.memory, options.requestId ?? '', options);
      } catch (error) {
        if (!(error instanceof RevisionConflict) || attempt >= attempts) {
          throw error;
        }
      }
      await pause(backoffDelay(attempt, this.config.backoff), options.signal);
    }
  }

  // -- reads: retried on UNAVAILABLE within the deadline ------------------------------------

  /**
   * The whole source, however large: a source bigger than one answer (3 MiB of content) is
   * read chunk after chunk, each chunk a read of its own (its own deadline and retries), and
   * the reassembled content is checked against content_hash (DataLoss if it does not match).
   * The answer has the whole content, `contentSize`, and `contentTruncated` false.
   */
  getSource(
    request: Omit<pb.GetSourceRequest, 'contentOffset' | 'contentLimit'>,
    options?: CallOptions,
  ): Promise<pb.GetSourceResponse> {
    return readWholeSource((contentOffset) =>
      this.getSourceChunk({ ...request, contentOffset, contentLimit: 0 }, options),
    );
  }

  /**
   * One GetSource answer: at most `contentLimit` bytes of content (0: the largest chunk,
   * 3 MiB) from `contentOffset` on, with `contentSize` and `contentTruncated`; every other
   * field of its source describes the whole source.
   */
  getSourceChunk(
    request: pb.GetSourceRequest,
    options?: CallOptions,
  ): Promise<pb.GetSourceResponse> {
    return this.#read(this.#service.getSource, request, options);
  }

  /** Reads the head (revision 0) or an exact revision. */
  getMemory(request: pb.GetMemoryRequest, options?: CallOptions): Promise<pb.GetMemoryResponse> {
    return this.#read(this.#service.getMemory, request, options);
  }

  /** Searches the active entries of the given head revisions. */
  search(request: pb.SearchRequest, options?: CallOptions): Promise<pb.SearchResponse> {
    return this.#read(this.#service.search, request, options);
  }

  /** Reads and verifies the entry versions named by citations. */
  expand(request: pb.ExpandRequest, options?: CallOptions): Promise<pb.ExpandResponse> {
    return this.#read(this.#service.expand, request, options);
  }

  /**
   * The context block for an agent's next task: active rules and preferences, entries relevant
   * to `query`, recent working notes, one line each with its citation, within `budgetBytes`
   * UTF-8 bytes (0: 8192). A memory at revision 0 means its head.
   */
  prepareContext(
    request: pb.PrepareContextRequest,
    options?: CallOptions,
  ): Promise<pb.PrepareContextResponse> {
    return this.#read(this.#service.prepareContext, request, options);
  }

  /**
   * One page of the active entries' metadata (citation, kind, description, tags; never text),
   * by entry id. `code` tells an empty memory (RECALL_MANIFEST_CODE_EMPTY_MEMORY) from a page.
   */
  getRecallManifest(
    request: pb.GetRecallManifestRequest,
    options?: CallOptions,
  ): Promise<pb.GetRecallManifestResponse> {
    return this.#read(this.#service.getRecallManifest, request, options);
  }

  /**
   * Every page of the recall manifest from `request.pageToken` (usually none) on, each one
   * read when the previous one has been consumed; each is a read of its own (deadline, retries).
   */
  recallManifestPages(
    request: pb.GetRecallManifestRequest,
    options?: CallOptions,
  ): AsyncGenerator<pb.GetRecallManifestResponse, void, undefined> {
    return walkPages((page) => this.getRecallManifest(page, options), request);
  }

  /** One page of entries filtered by status (default active), kind and tags; text on request. */
  listEntries(
    request: pb.ListEntriesRequest,
    options?: CallOptions,
  ): Promise<pb.ListEntriesResponse> {
    return this.#read(this.#service.listEntries, request, options);
  }

  /** Every page of listEntries from `request.pageToken` on, as recallManifestPages(). */
  listEntryPages(
    request: pb.ListEntriesRequest,
    options?: CallOptions,
  ): AsyncGenerator<pb.ListEntriesResponse, void, undefined> {
    return walkPages((page) => this.listEntries(page, options), request);
  }

  /**
   * One page of the memories this client's token may see, in artifact id order: each with
   * its head, entry counts, newest change and label.
   */
  listMemories(
    request: pb.ListMemoriesRequest = {},
    options?: CallOptions,
  ): Promise<pb.ListMemoriesResponse> {
    return this.#read(this.#service.listMemories, request, options);
  }

  /** Every page of listMemories from `request.pageToken` on, as recallManifestPages(). */
  listMemoryPages(
    request: pb.ListMemoriesRequest = {},
    options?: CallOptions,
  ): AsyncGenerator<pb.ListMemoriesResponse, void, undefined> {
    return walkPages((page) => this.listMemories(page, options), request);
  }

  /**
   * Sets (empty: clears) a memory's label, replacing `labelVersion` (0: none yet; the current
   * one is in listMemories()). A stale version is `Aborted` (LABEL_CONFLICT) and changes
   * nothing; sent once, never re-sent.
   */
  setMemoryLabel(
    request: pb.SetMemoryLabelRequest,
    options?: CallOptions,
  ): Promise<pb.SetMemoryLabelResponse> {
    return this.#writeOnce(this.#service.setMemoryLabel, request, options);
  }

  /**
   * What restore() or undoMerge() would do at the head, and a signed token that applies
   * exactly that while nothing relevant changes (it expires). Writes nothing.
   */
  previewRestore(
    request: pb.PreviewRestoreRequest,
    options?: CallOptions,
  ): Promise<pb.PreviewRestoreResponse> {
    return this.#read(this.#service.previewRestore, request, options);
  }

  getCapabilities(options?: CallOptions): Promise<pb.GetCapabilitiesResponse> {
    return this.#read(this.#service.getCapabilities, {}, options);
  }

  /**
   * The recorded changes of revisions (sinceRevision, memory.revision], ascending; without a
   * `since`, only memory.revision's own. A finite read under the call deadline: follow() is
   * the open-ended form.
   */
  async changes(
    request: Omit<pb.ChangesRequest, 'follow'>,
    options?: CallOptions,
  ): Promise<pb.RevisionChanges[]> {
    const invocation = await this.#invocation(options);
    return retryRead(() => this.#collectChanges(request, invocation), this.#readRetry, invocation);
  }

  /**
   * Every revision of `memory` after `sinceRevision` (exclusive; 0 = its whole history), then
   * each new one as it is committed, in order, each exactly once. Survives server restarts and
   * UNAVAILABLE by reopening after the last revision delivered, with bounded jittered backoff,
   * telling `onRetry` before each reconnection and `onResume` when the stream is back.
   * No deadline: it ends when the consumer stops iterating, the signal aborts, reconnecting
   * fails for `reconnectForMs`, or a non-retryable error (e.g. NotFound) is thrown. A follow
   * that never reached a server fails like any call after the connect window.
   */
  follow(
    memory: MemorySelector,
    sinceRevision = 0,
    options: FollowOptions & Pick<CallOptions, 'metadata'> = {},
  ): AsyncGenerator<pb.RevisionChanges, never, undefined> {
    const artifactId = artifactIdOf(memory);
    const backoff = options.backoff ? resolveBackoff(options.backoff) : this.config.backoff;
    const signal = options.signal
      ? AbortSignal.any([options.signal, this.#closing.signal])
      : this.#closing.signal;
    const open = async (since: number): Promise<ClientReadableStream<pb.ChangesResponse>> => {
      const metadata = await callMetadata(this.config.token, options.metadata);
      // revision 0 = the current head at every (re)connection; since is the resume point.
      return this.#service.changes(
        { memory: { artifactId, revision: 0 }, sinceRevision: since, follow: true },
        metadata,
      );
    };
    return followRevisions(open, sinceRevision, backoff, { ...options, signal }, this.#connect);
  }

  /** Resolves once the channel is connected; rejects if that takes longer than `timeoutMs`. */
  waitForReady(timeoutMs = this.config.deadlineMs): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#service.waitForReady(Date.now() + timeoutMs, (error) =>
        error ? reject(error) : resolve(),
      );
    });
  }

  /** Closes the channel: follow() iterators end with an AbortError, unary calls may finish. */
  close(): void {
    this.#closing.abort(new DOMException('the client was closed', 'AbortError'));
    this.#service.close();
  }

  get #connect(): ConnectPolicy {
    return { endpoint: this.config.endpoint, connectTimeoutMs: this.config.connectTimeoutMs };
  }

  get #readRetry(): {
    retries: number;
    backoff: ResolvedConfig['backoff'];
    connect: ConnectPolicy;
  } {
    return {
      retries: this.config.readRetries,
      backoff: this.config.backoff,
      connect: this.#connect,
    };
  }

  #commit(
    write: WriteRequest,
    head: pb.ArtifactRef,
    requestId: string,
    options: CallOptions,
  ): Promise<WriteResponse> {
    // A new request per application: a fresh id unless the caller fixed one.
    const id = (given: string | undefined): string => requestId || given || newRequestId();
    if ('remember' in write) {
      const request = { ...write.remember, memory: head };
      return this.remember({ ...request, requestId: id(request.requestId) }, options);
    }
    if ('forget' in write) {
      const request = { ...write.forget, memory: head };
      return this.forget({ ...request, requestId: id(request.requestId) }, options);
    }
    if ('reactivate' in write) {
      const request = { ...write.reactivate, memory: head };
      return this.reactivate({ ...request, requestId: id(request.requestId) }, options);
    }
    const request = { ...write.organize, memory: head };
    return this.organize({ ...request, requestId: id(request.requestId) }, options);
  }

  async #write<Request, Response>(
    method: UnaryMethod<Request, Response>,
    request: Request,
    options: CallOptions | undefined,
  ): Promise<Response> {
    const bound = method.bind(this.#service);
    return retryWrite(
      async () => callUnary(bound, request, await this.#invocation(options)),
      { attempts: WRITE_ATTEMPTS, backoff: this.config.backoff, connect: this.#connect },
      options?.signal,
    );
  }

  async #writeOnce<Request, Response>(
    method: UnaryMethod<Request, Response>,
    request: Request,
    options: CallOptions | undefined,
  ): Promise<Response> {
    // Sent again only while it reaches no server; once a server may have seen it, never.
    const bound = method.bind(this.#service);
    return retryWrite(
      async () => callUnary(bound, request, await this.#invocation(options)),
      { attempts: 1, backoff: this.config.backoff, connect: this.#connect },
      options?.signal,
    );
  }

  async #read<Request, Response>(
    method: UnaryMethod<Request, Response>,
    request: Request,
    options: CallOptions | undefined,
  ): Promise<Response> {
    const invocation = await this.#invocation(options);
    const bound = method.bind(this.#service);
    return retryRead(() => callUnary(bound, request, invocation), this.#readRetry, invocation);
  }

  async #collectChanges(
    request: Omit<pb.ChangesRequest, 'follow'>,
    invocation: UnaryInvocation,
  ): Promise<pb.RevisionChanges[]> {
    const stream = this.#service.changes({ ...request, follow: false }, invocation.metadata, {
      deadline: invocation.deadline,
    });
    const cancel = (): void => stream.cancel();
    invocation.signal?.addEventListener('abort', cancel, { once: true });
    const revisions: pb.RevisionChanges[] = [];
    try {
      for await (const message of stream as AsyncIterable<pb.ChangesResponse>) {
        if (message.revision) {
          revisions.push(message.revision);
        }
      }
      return revisions;
    } catch (error) {
      const { signal } = invocation;
      throw signal?.aborted ? abortReason(signal) : fromGrpcError(error);
    } finally {
      invocation.signal?.removeEventListener('abort', cancel);
    }
  }

  async #invocation(options: CallOptions | undefined): Promise<UnaryInvocation> {
    const deadlineMs = options?.deadlineMs ?? this.config.deadlineMs;
    return {
      deadline: new Date(Date.now() + deadlineMs),
      metadata: await callMetadata(this.config.token, options?.metadata),
      signal: options?.signal,
    };
  }
}

/** A copy of a write request with its request id, a fresh UUID4 when it has none. */
function withRequestId<Request extends { readonly requestId?: string }>(request: Request): Request {
  return request.requestId ? request : { ...request, requestId: newRequestId() };
}

function artifactIdOf(memory: MemorySelector): string {
  return typeof memory === 'string' ? memory : (memory.artifactId ?? '');
}
