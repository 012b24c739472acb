"""The client's calls, written once for AsyncClient and Client (see transport.py): every RPC of
powercontext.memory.v1.MemoryService.

Requests and responses are the generated wire messages (see requests.py for helpers). What the
client adds to the raw stub:

* a deadline on every call (ClientConfig.timeout, or `timeout=` per call);
* failures raised as PowerContextError subclasses parsed from the status details (errors.py);
* a call that reaches no server (refused, not resolved) is tried again for the connect
  window (ClientConfig.connect_timeout), so a restarting server is found again, then fails
  with Unavailable naming the endpoint and the cause (attempts.py);
* reads answered UNAVAILABLE are retried with jittered backoff, inside the call's deadline;
* every write carries a request id (a fresh UUID4 unless the caller gives one), so it is safe
  to send again: a write that fails with UNAVAILABLE or DEADLINE_EXCEEDED — it may have
  committed before the answer was lost — is re-sent with the same id, and the server answers
  a repeat with the first outcome instead of committing twice (AIP-155);
* Merge, Restore and UndoMerge carry no request id, so once a server may have seen one it is
  never sent again: a lost answer is raised (read the head to see whether it committed);
* `update()`: read the head, apply your change, commit; on ABORTED re-read and re-apply (each
  re-application is a new request, with a new id);
* `follow()`: every new revision, in order, across server restarts, without gap or duplicate,
  telling `on_reconnect` when it lost the server and when it is back.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeAlias, TypeVar

import grpc
from grpc_health.v1 import health_pb2

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from .attempts import never
from .call_core import _UNSET, READ_ATTEMPTS
from .catalog_calls import CatalogCalls
from .config import ClientConfig
from .curation_calls import CurationCalls
from .errors import (
    DeadlineExceeded,
    InternalError,
    PowerContextError,
    RevisionConflict,
    Unavailable,
    retryable,
)
from .reconnects import OnReconnect, Reconnects
from .requests import as_ref, ref
from .source_calls import SourceCalls
from .transport import OPENED

T = TypeVar("T")

WriteRequest: TypeAlias = (  # noqa: UP040 (the generated classes are not typing-friendly)
    pb.RememberRequest | pb.ForgetRequest | pb.ReactivateRequest | pb.OrganizeRequest
)
WriteResponse: TypeAlias = (  # noqa: UP040
    pb.RememberResponse | pb.ForgetResponse | pb.ReactivateResponse | pb.OrganizeResponse
)
Change: TypeAlias = Callable[  # noqa: UP040
    [pb.GetMemoryResponse], WriteRequest | None | Awaitable[WriteRequest | None]
]

_WRITE_METHODS: dict[type[Any], str] = {
    pb.RememberRequest: "Remember",
    pb.ForgetRequest: "Forget",
    pb.ReactivateRequest: "Reactivate",
    pb.OrganizeRequest: "Organize",
}
# A write whose answer was lost is re-sent with its request id at most this many times in all;
# each attempt has the call's whole timeout (the one that timed out had used it up).
WRITE_ATTEMPTS = 4
UPDATE_ATTEMPTS = 8
FOLLOW_RECONNECT_SECONDS = 60.0


def _lost(error: PowerContextError) -> bool:
    """A write's answer that may have been lost after it committed."""
    return isinstance(error, Unavailable | DeadlineExceeded)


def new_request_id() -> str:
    """A fresh idempotency key for one write (random: never shared by two requests)."""
    return str(uuid.uuid4())


def resolve_config(endpoint: str | None, config: ClientConfig | None) -> ClientConfig:
    if endpoint is not None and config is not None:
        raise ValueError("give an endpoint or a config, not both")
    return config or ClientConfig.from_env(endpoint=endpoint)


class ClientCore(SourceCalls, CurationCalls, CatalogCalls):
    """The calls, over a transport; AsyncClient and Client are its two faces."""

    # -- writes (idempotent: each carries a request id, re-sent after a lost answer) -----------

    async def remember(
        self,
        memory: types.ArtifactRef | None,
        entries: Iterable[types.EntryInput] = (),
        *,
        sources: Iterable[types.SourceRef] = (),
        artifacts: Iterable[types.ArtifactRef] = (),
        mode: pb.RememberMode = pb.REMEMBER_MODE_UNSPECIFIED,
        request_id: str = "",
        timeout: float | None = _UNSET,
    ) -> pb.RememberResponse:
        """Add or revise entries on the head `memory`; None creates a memory.

        `request_id` (every write takes one): give your own to make a write safe to repeat
        across runs of your program; by default each call gets a fresh UUID4 (see write()).
        """
        request = pb.RememberRequest(
            entries=entries, sources=sources, artifacts=artifacts, mode=mode, request_id=request_id
        )
        if memory is not None:
            request.memory.CopyFrom(memory)
        return await self.write(request, timeout=timeout)

    async def forget(
        self,
        memory: types.ArtifactRef,
        entries: Iterable[types.EntryRef],
        *,
        reason: str | None = None,
        request_id: str = "",
        timeout: float | None = _UNSET,
    ) -> pb.ForgetResponse:
        request = pb.ForgetRequest(
            memory=memory, entries=entries, reason=reason, request_id=request_id
        )
        return await self.write(request, timeout=timeout)

    async def reactivate(
        self,
        memory: types.ArtifactRef,
        entries: Iterable[types.EntryRef],
        *,
        reason: str | None = None,
        request_id: str = "",
        timeout: float | None = _UNSET,
    ) -> pb.ReactivateResponse:
        request = pb.ReactivateRequest(
            memory=memory, entries=entries, reason=reason, request_id=request_id
        )
        return await self.write(request, timeout=timeout)

    async def organize(
        self,
        memory: types.ArtifactRef,
        steps: Iterable[pb.OrganizeStep] = (),
        *,
        request_id: str = "",
        timeout: float | None = _UNSET,
    ) -> pb.OrganizeResponse:
        request = pb.OrganizeRequest(memory=memory, steps=steps, request_id=request_id)
        return await self.write(request, timeout=timeout)

    async def write(
        self, request: WriteRequest, *, timeout: float | None = _UNSET
    ) -> WriteResponse:
        """Send any write request message (Remember, Forget, Reactivate, Organize).

        It goes with its `request_id`, or with a fresh UUID4 when it has none (a copy is sent:
        `request` is not changed). A write that reaches no server is tried again for the
        connect window, then raised as Unavailable naming the endpoint and the cause. When
        the answer is lost — UNAVAILABLE (the connection or the server went away) or
        DEADLINE_EXCEEDED — the write may or may not have committed, so the same message,
        same id, is sent again, after a jittered backoff, up to WRITE_ATTEMPTS times in all,
        each with the whole `timeout`: the server commits it at most once and answers a
        repeat with the first outcome, even if the memory has moved on since. Other failures
        (ABORTED, INVALID_ARGUMENT, ...) are raised at once: a failed write records nothing,
        so its id may be used again.
        """
        method = getattr(self.stub, _WRITE_METHODS[type(request)])
        sent = type(request)()
        sent.CopyFrom(request)
        if not sent.request_id:
            sent.request_id = new_request_id()
        whole = self._timeout(timeout)

        async def send(_: float | None) -> Any:
            # Each send has the whole timeout: the one that timed out had used it up.
            return await self._transport.unary(method, sent, timeout=whole, metadata=self._metadata)

        attempts = self._attempts(attempts=WRITE_ATTEMPTS, again=_lost, deadline=None)
        return await self._send(send, attempts, None)

    def _timeout(self, timeout: float | None) -> float | None:
        return self.config.timeout if timeout is _UNSET else timeout

    async def update(
        self,
        memory_id: str,
        change: Change,
        *,
        attempts: int = UPDATE_ATTEMPTS,
        request_id: str = "",
        timeout: float | None = _UNSET,
    ) -> WriteResponse | None:
        """Read the head, let `change(head)` build a write request, commit it on that head.

        `change` gets the head's GetMemoryResponse (ref, manifest, counts) and returns a
        RememberRequest / ForgetRequest / ReactivateRequest / OrganizeRequest — its `memory` is
        set here to the head it was built from — or None when there is nothing to do (then
        update returns None). When another writer moves the head first (ABORTED), the head it
        reports is read and `change` runs again on it, after a jittered backoff, up to
        `attempts` times; then the last RevisionConflict is raised. `change` may be a plain
        or an async function and must not have side effects beyond building the request.

        Each application is a new request with a new request id (a lost answer is retried
        inside write() with the id of its own attempt). `request_id` instead sends every
        attempt with that id, which is free again after an ABORTED one: running the same
        update twice with one id commits once, and the second gets ALREADY_EXISTS
        (REQUEST_ID_REUSED) if the first did commit, since it is built on a newer head.
        """
        delays = self._backoff.delays()
        revision = 0  # the head
        for attempt in range(1, attempts + 1):
            head = await self.get_memory(ref(memory_id, revision))
            built = change(head)
            request = await built if inspect.isawaitable(built) else built
            if request is None:
                return None
            sent = type(request)()
            sent.CopyFrom(request)
            sent.memory.CopyFrom(head.memory)
            sent.request_id = request_id or request.request_id or new_request_id()
            try:
                return await self.write(sent, timeout=timeout)
            except RevisionConflict as conflict:
                if attempt == attempts:
                    raise
                revision = conflict.head_revision or 0
            await self._transport.sleep(next(delays))
        raise AssertionError("unreachable: the last attempt returns or raises")

    # -- reads (retried on UNAVAILABLE) ---------------------------------------------------------

    async def get_memory(
        self,
        memory: str | types.ArtifactRef,
        *,
        metadata_only: bool = False,
        timeout: float | None = _UNSET,
    ) -> pb.GetMemoryResponse:
        """A memory id (its head) or an exact revision: ref, content, hash, lineage, counts.
        `metadata_only` leaves the manifest and changes out (content_omitted); the server also
        leaves them out of a response too large to receive: page those with list_entries()."""
        request = pb.GetMemoryRequest(memory=as_ref(memory), metadata_only=metadata_only)
        return await self._call(self.stub.GetMemory, request, timeout=timeout, read=True)

    async def get_recall_manifest(
        self,
        memory: str | types.ArtifactRef,
        *,
        page_size: int = 0,
        page_token: str = "",
        kinds: Iterable[str] = (),
        tags: Iterable[str] = (),
        tag_match: types.TagMatch = types.TAG_MATCH_UNSPECIFIED,
        timeout: float | None = _UNSET,
    ) -> pb.GetRecallManifestResponse:
        """One page (1..100 items, 0: 50) of the active entries' citations, kinds, descriptions
        and tags — never their text. Pass next_page_token back with the same filters; `code`
        tells an empty memory from an empty page."""
        request = pb.GetRecallManifestRequest(
            memory=as_ref(memory),
            page_size=page_size,
            page_token=page_token,
            kinds=kinds,
            tags=tags,
            tag_match=tag_match,
        )
        return await self._call(self.stub.GetRecallManifest, request, timeout=timeout, read=True)

    async def recall_manifest_items(
        self,
        memory: str | types.ArtifactRef,
        *,
        page_size: int = 0,
        kinds: Iterable[str] = (),
        tags: Iterable[str] = (),
        tag_match: types.TagMatch = types.TAG_MATCH_UNSPECIFIED,
        timeout: float | None = _UNSET,
    ) -> AsyncIterator[types.ListedEntry]:
        """Every item of the recall manifest, page after page (each page one retried read)."""
        kinds, tags = list(kinds), list(tags)
        token = ""
        while True:
            page = await self.get_recall_manifest(
                memory,
                page_size=page_size,
                page_token=token,
                kinds=kinds,
                tags=tags,
                tag_match=tag_match,
                timeout=timeout,
            )
            for item in page.items:
                yield item
            token = page.next_page_token
            if not token:
                return

    async def list_entries(
        self,
        memory: str | types.ArtifactRef,
        *,
        page_size: int = 0,
        page_token: str = "",
        statuses: Iterable[types.EntryStatus] = (),
        kinds: Iterable[str] = (),
        tags: Iterable[str] = (),
        tag_match: types.TagMatch = types.TAG_MATCH_UNSPECIFIED,
        include_text: bool = False,
        timeout: float | None = _UNSET,
    ) -> pb.ListEntriesResponse:
        """One page of entries in entry id order, by status (empty: active only), kind and
        tags; their text only with `include_text`."""
        request = pb.ListEntriesRequest(
            memory=as_ref(memory),
            page_size=page_size,
            page_token=page_token,
            statuses=statuses,
            kinds=kinds,
            tags=tags,
            tag_match=tag_match,
            include_text=include_text,
        )
        return await self._call(self.stub.ListEntries, request, timeout=timeout, read=True)

    async def list_entries_items(
        self,
        memory: str | types.ArtifactRef,
        *,
        page_size: int = 0,
        statuses: Iterable[types.EntryStatus] = (),
        kinds: Iterable[str] = (),
        tags: Iterable[str] = (),
        tag_match: types.TagMatch = types.TAG_MATCH_UNSPECIFIED,
        include_text: bool = False,
        timeout: float | None = _UNSET,
    ) -> AsyncIterator[types.ListedEntry]:
        """Every entry list_entries() selects, page after page."""
        statuses, kinds, tags = list(statuses), list(kinds), list(tags)
        token = ""
        while True:
            page = await self.list_entries(
                memory,
                page_size=page_size,
                page_token=token,
                statuses=statuses,
                kinds=kinds,
                tags=tags,
                tag_match=tag_match,
                include_text=include_text,
                timeout=timeout,
            )
            for entry in page.entries:
                yield entry
            token = page.next_page_token
            if not token:
                return

    async def head(self, memory_id: str, *, timeout: float | None = _UNSET) -> types.ArtifactRef:
        """The memory's current head revision (what writes and searches are based on)."""
        return (await self.get_memory(memory_id, timeout=timeout)).memory

    async def changes(
        self,
        memory: types.ArtifactRef,
        since: int | None = None,
        *,
        timeout: float | None = _UNSET,
    ) -> list[pb.RevisionChanges]:
        """The compact changes of revisions (since, memory.revision], ascending; since None:
        only memory.revision's own; 0: the whole history."""
        request = pb.ChangesRequest(memory=memory)
        if since is not None:
            request.since_revision = since

        async def send(seconds: float | None) -> list[pb.RevisionChanges]:
            stream = self._transport.stream(
                self.stub.Changes, request, timeout=seconds, metadata=self._metadata
            )
            return [r.revision async for r in stream if r.HasField("revision")]

        deadline = self._deadline(timeout)
        attempts = self._attempts(attempts=READ_ATTEMPTS, again=retryable, deadline=deadline)
        return await self._send(send, attempts, deadline)

    async def follow(
        self,
        memory_id: str,
        since: int = 0,
        *,
        on_progress: Callable[[pb.ChangesProgress], None] | None = None,
        on_reconnect: OnReconnect | None = None,
        reconnect_for: float | None = FOLLOW_RECONNECT_SECONDS,
    ) -> AsyncIterator[pb.RevisionChanges]:
        """Every revision after `since` (0: the whole history), then each new one as it is
        committed, in order, forever.

        When the stream breaks (server restart, SHUTTING_DOWN, CANCELLED by a draining server,
        network) it is reopened from the last revision delivered here, with jittered backoff:
        no revision is skipped or repeated. `on_reconnect`, if given, gets a FollowEvent when
        the stream broke ("reconnecting", with the error) and when it is open again
        ("resumed"). After `reconnect_for` seconds of failures without a message in between,
        the last failure is raised (None: retry forever). A follow that never reached a server
        fails like any call after the connect window (Unavailable: "cannot reach ...").
        Other errors (NOT_FOUND, …) raise at once. Idle progress messages go to
        `on_progress`, if given.
        """
        last = since
        reconnects = Reconnects(self.config, reconnect_for, self._backoff, on_reconnect)
        while True:
            request = pb.ChangesRequest(
                memory=types.ArtifactRef(artifact_id=memory_id, revision=0),
                since_revision=last,
                follow=True,
            )
            stream = self._transport.stream(
                self.stub.Changes, request, timeout=None, metadata=self._metadata, announce=True
            )
            try:
                async for response in stream:
                    if response is OPENED:
                        reconnects.opened(last)
                        continue
                    reconnects.received()
                    if response.HasField("progress"):
                        if on_progress is not None:
                            on_progress(response.progress)
                        continue
                    revision = response.revision.memory_ref.revision
                    if revision <= last:
                        continue  # already delivered before a reconnect
                    if revision != last + 1:
                        raise InternalError(
                            grpc.StatusCode.INTERNAL,
                            f"follow stream of {memory_id} skipped from revision {last} "
                            f"to {revision}",
                        )
                    last = revision
                    yield response.revision
                raise InternalError(
                    grpc.StatusCode.INTERNAL, f"follow stream of {memory_id} ended without error"
                )
            except grpc.RpcError as rpc_error:
                pause = reconnects.pause(rpc_error, last)
            finally:
                await stream.aclose()  # type: ignore[attr-defined]
            await self._transport.sleep(pause)

    async def search(
        self,
        query: str,
        memories: Sequence[types.ArtifactRef],
        *,
        limit: int = 0,
        mode: types.SearchMode = types.SEARCH_MODE_UNSPECIFIED,
        kinds: Iterable[str] = (),
        tags: Iterable[str] = (),
        tag_match: types.TagMatch = types.TAG_MATCH_UNSPECIFIED,
        min_score: float | None = None,
        timeout: float | None = _UNSET,
    ) -> pb.SearchResponse:
        """Search the active entries of the given memories at their heads (a ref of revision 0:
        the head now; the response's `memories` names the revision searched; 0 limit: 8),
        only those of `kinds` and carrying `tags` (all, or any with TAG_MATCH_ANY), dropping
        hits that score below `min_score`."""
        request = pb.SearchRequest(
            query=query,
            memories=memories,
            limit=limit,
            mode=mode,
            kinds=kinds,
            tags=tags,
            tag_match=tag_match,
            min_score=min_score,
        )
        return await self._call(self.stub.Search, request, timeout=timeout, read=True)

    async def expand(
        self, citations: Iterable[types.Citation], *, timeout: float | None = _UNSET
    ) -> pb.ExpandResponse:
        """Verify citations (memory revision + entry + version) and return those versions."""
        request = pb.ExpandRequest(citations=citations)
        return await self._call(self.stub.Expand, request, timeout=timeout, read=True)

    async def prepare_context(
        self,
        memories: Iterable[str | types.ArtifactRef],
        query: str = "",
        budget_bytes: int = 0,
        *,
        timeout: float | None = _UNSET,
    ) -> pb.PrepareContextResponse:
        """The context block for an agent's next task: active rules and preferences, entries
        relevant to `query`, recent working notes, each line with its citation; never more
        than `budget_bytes` UTF-8 bytes (0: the server's 8192). A memory id means its head."""
        request = pb.PrepareContextRequest(
            memories=[as_ref(m) for m in memories], query=query, budget_bytes=budget_bytes
        )
        return await self._call(self.stub.PrepareContext, request, timeout=timeout, read=True)

    async def capabilities(self, *, timeout: float | None = _UNSET) -> types.Capabilities:
        request = pb.GetCapabilitiesRequest()
        response = await self._call(self.stub.GetCapabilities, request, timeout=timeout, read=True)
        return response.capabilities

    async def health(
        self, service: str = "", *, timeout: float | None = _UNSET
    ) -> health_pb2.HealthCheckResponse.ServingStatus.ValueType:
        """The grpc.health.v1 status ("" = the whole server); a probe, so never retried."""
        request = health_pb2.HealthCheckRequest(service=service)
        health = self._transport.health

        async def send(seconds: float | None) -> Any:
            return await self._transport.unary(
                health.Check, request, timeout=seconds, metadata=self._metadata
            )

        # A probe answers at once: no connect window.
        attempts = self._attempts(attempts=1, again=never, deadline=None, connect=False)
        response = await self._send(send, attempts, self._deadline(timeout))
        return response.status
