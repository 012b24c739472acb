// Original file: powercontext/memory/v1/types.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp';

/**
 * Evidence persisted before it can be cited (RFC 0002): immutable and content-hashed.
 */
export interface Source {
  /**
   * "src_" + the first 32 hex characters of content_hash: the same record always gets the same id.
   */
  'sourceId'?: (string);
  /**
   * Open string, e.g. "agent_turn", "task_outcome", "file", "git_change", "user_note".
   */
  'kind'?: (string);
  /**
   * Where the material came from, e.g. "repo://AGENTS.md@<commit>". Optional.
   */
  'uri'?: (string);
  /**
   * Optional media type of content, e.g. "text/markdown".
   */
  'mediaType'?: (string);
  'content'?: (Buffer | Uint8Array | string);
  /**
   * Optional string metadata. Keys: ASCII letters, digits, '_', '.', '-'.
   */
  'metadata'?: ({[key: string]: string});
  'contentHash'?: (string);
  'createdAt'?: (_google_protobuf_Timestamp | null);
}

/**
 * Evidence persisted before it can be cited (RFC 0002): immutable and content-hashed.
 */
export interface Source__Output {
  /**
   * "src_" + the first 32 hex characters of content_hash: the same record always gets the same id.
   */
  'sourceId': (string);
  /**
   * Open string, e.g. "agent_turn", "task_outcome", "file", "git_change", "user_note".
   */
  'kind': (string);
  /**
   * Where the material came from, e.g. "repo://AGENTS.md@<commit>". Optional.
   */
  'uri': (string);
  /**
   * Optional media type of content, e.g. "text/markdown".
   */
  'mediaType': (string);
  'content': (Buffer);
  /**
   * Optional string metadata. Keys: ASCII letters, digits, '_', '.', '-'.
   */
  'metadata': ({[key: string]: string});
  'contentHash': (string);
  'createdAt': (_google_protobuf_Timestamp__Output | null);
}
