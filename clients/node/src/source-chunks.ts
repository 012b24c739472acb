// A GetSource answer carries at most a chunk of the content (3 MiB, what a default gRPC client
// receives with room to spare), so a larger source is read chunk after chunk and the
// reassembled bytes are checked against the content_hash the server computed for the whole.
import { createHash } from 'node:crypto';

import { status as GrpcStatus } from '@grpc/grpc-js';

import { DataLoss } from './errors';
import type * as pb from './types';

const SOURCE_CONTENT_PREFIX = Buffer.from('powercontext:source-content:v1\u0000', 'utf8');

// RFC 8785 names and strings: JSON.stringify escapes exactly what it escapes, the same way.
function canonicalObject(members: ReadonlyArray<readonly [string, string]>): string {
  // RFC 8785 orders members by the UTF-16 code units of their names, as `<` compares strings.
  const ordered = [...members].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${ordered.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;
}

/**
 * The content_hash the server derives from a source's kind, uri, media type, metadata and
 * content (its whole content: a chunk hashes to something else).
 */
export function sourceContentHash(source: pb.Source): string {
  const metadata = canonicalObject(
    Object.entries(source.metadata).map(([key, value]) => [key, JSON.stringify(value)] as const),
  );
  const record = canonicalObject([
    ['content_sha256', JSON.stringify(createHash('sha256').update(source.content).digest('hex'))],
    ['kind', JSON.stringify(source.kind)],
    ['media_type', JSON.stringify(source.mediaType)],
    ['metadata', metadata],
    ['uri', JSON.stringify(source.uri)],
  ]);
  return createHash('sha256')
    .update(SOURCE_CONTENT_PREFIX)
    .update(Buffer.from(record, 'utf8'))
    .digest('hex');
}

/**
 * The whole source, from `read(offset)` answers (each a GetSource from that content offset with
 * the default limit). One answer that is not truncated is returned as it came; otherwise the
 * chunks must name the same content_hash and content_size, add up to content_size, and the
 * reassembled record must hash to content_hash, or DataLoss is thrown.
 */
export async function readWholeSource(
  read: (contentOffset: number) => Promise<pb.GetSourceResponse>,
): Promise<pb.GetSourceResponse> {
  const first = await read(0);
  if (!first.contentTruncated || !first.source) {
    return first;
  }
  const { source, contentSize } = first;
  const parts: Buffer[] = [source.content];
  let received = source.content.length;
  for (;;) {
    const chunk = await read(received);
    const content = chunk.source?.content ?? Buffer.alloc(0);
    if (chunk.source?.contentHash !== source.contentHash) {
      throw dataLoss(source.sourceId, `the chunk at ${received} names another content_hash`);
    }
    if (chunk.contentSize !== contentSize) {
      throw dataLoss(source.sourceId, `the chunk at ${received} names another content_size`);
    }
    if (chunk.contentTruncated && content.length === 0) {
      throw dataLoss(source.sourceId, `the chunk at ${received} is empty but not the last`);
    }
    if (received + content.length > contentSize) {
      throw dataLoss(source.sourceId, `the chunk at ${received} runs past content_size`);
    }
    parts.push(content);
    received += content.length;
    if (!chunk.contentTruncated) {
      break;
    }
  }
  const whole: pb.Source = { ...source, content: Buffer.concat(parts) };
  if (whole.content.length !== contentSize) {
    throw dataLoss(
      source.sourceId,
      `${whole.content.length} bytes reassembled, content_size ${contentSize}`,
    );
  }
  if (sourceContentHash(whole) !== source.contentHash) {
    throw dataLoss(source.sourceId, 'the reassembled record does not match content_hash');
  }
  return { source: whole, contentSize, contentTruncated: false };
}

function dataLoss(sourceId: string, why: string): DataLoss {
  return new DataLoss({
    grpcCode: GrpcStatus.DATA_LOSS,
    details: `source ${sourceId} read in chunks: ${why}`,
  });
}
