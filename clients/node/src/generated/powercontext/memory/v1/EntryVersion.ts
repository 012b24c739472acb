// Original file: powercontext/memory/v1/types.proto

import type { SourceRef as _powercontext_memory_v1_SourceRef, SourceRef__Output as _powercontext_memory_v1_SourceRef__Output } from '../../../powercontext/memory/v1/SourceRef';
import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { Long } from '@grpc/proto-loader';

/**
 * One immutable version of an entry's text and direct evidence.
 */
export interface EntryVersion {
  'memoryArtifactId'?: (string);
  'entryId'?: (string);
  'entryVersionId'?: (string);
  /**
   * 1 for the first version, previous + 1 after.
   */
  'version'?: (number | string | Long);
  'previousVersionId'?: (string);
  /**
   * Open string: fact, preference, decision, constraint, working_note, or any other.
   */
  'kind'?: (string);
  'text'?: (string);
  'sourceRefs'?: (_powercontext_memory_v1_SourceRef)[];
  'artifactRefs'?: (_powercontext_memory_v1_ArtifactRef)[];
  'entryContentHash'?: (string);
  'createdInRevision'?: (number | string | Long);
  /**
   * One line of 1..200 characters, in the text's language. Empty only on versions written
   * before descriptions existed (those hash as before, see the README).
   */
  'description'?: (string);
  /**
   * Sorted, distinct; part of the hashed content (changing them is a new version).
   */
  'tags'?: (string)[];
  '_previousVersionId'?: "previousVersionId";
}

/**
 * One immutable version of an entry's text and direct evidence.
 */
export interface EntryVersion__Output {
  'memoryArtifactId': (string);
  'entryId': (string);
  'entryVersionId': (string);
  /**
   * 1 for the first version, previous + 1 after.
   */
  'version': (number);
  'previousVersionId'?: (string);
  /**
   * Open string: fact, preference, decision, constraint, working_note, or any other.
   */
  'kind': (string);
  'text': (string);
  'sourceRefs': (_powercontext_memory_v1_SourceRef__Output)[];
  'artifactRefs': (_powercontext_memory_v1_ArtifactRef__Output)[];
  'entryContentHash': (string);
  'createdInRevision': (number);
  /**
   * One line of 1..200 characters, in the text's language. Empty only on versions written
   * before descriptions existed (those hash as before, see the README).
   */
  'description': (string);
  /**
   * Sorted, distinct; part of the hashed content (changing them is a new version).
   */
  'tags': (string)[];
  '_previousVersionId'?: "previousVersionId";
}
