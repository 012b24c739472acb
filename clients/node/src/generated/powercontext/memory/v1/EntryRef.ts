// Original file: powercontext/memory/v1/types.proto


/**
 * Names an exact entry version, as read from a manifest.
 */
export interface EntryRef {
  'entryId'?: (string);
  'entryVersionId'?: (string);
}

/**
 * Names an exact entry version, as read from a manifest.
 */
export interface EntryRef__Output {
  'entryId': (string);
  'entryVersionId': (string);
}
