// Original file: powercontext/memory/v1/types.proto

import type { SuggestionKind as _powercontext_memory_v1_SuggestionKind, SuggestionKind__Output as _powercontext_memory_v1_SuggestionKind__Output } from '../../../powercontext/memory/v1/SuggestionKind';
import type { EntryRef as _powercontext_memory_v1_EntryRef, EntryRef__Output as _powercontext_memory_v1_EntryRef__Output } from '../../../powercontext/memory/v1/EntryRef';
import type { SourceRef as _powercontext_memory_v1_SourceRef, SourceRef__Output as _powercontext_memory_v1_SourceRef__Output } from '../../../powercontext/memory/v1/SourceRef';

export interface Suggestion {
  'kind'?: (_powercontext_memory_v1_SuggestionKind);
  /**
   * The entries meant (FORGET: exactly one; AMBIGUOUS: the candidates, maybe none).
   */
  'entries'?: (_powercontext_memory_v1_EntryRef)[];
  /**
   * The adapter that made it ("user-note", "git-change", ...).
   */
  'adapter'?: (string);
  /**
   * Why, in words, for the user (never a secret: adapters quote only evidence text).
   */
  'reason'?: (string);
  /**
   * The evidence the suggestion rests on (a subset of the operation's sources).
   */
  'sources'?: (_powercontext_memory_v1_SourceRef)[];
}

export interface Suggestion__Output {
  'kind': (_powercontext_memory_v1_SuggestionKind__Output);
  /**
   * The entries meant (FORGET: exactly one; AMBIGUOUS: the candidates, maybe none).
   */
  'entries': (_powercontext_memory_v1_EntryRef__Output)[];
  /**
   * The adapter that made it ("user-note", "git-change", ...).
   */
  'adapter': (string);
  /**
   * Why, in words, for the user (never a secret: adapters quote only evidence text).
   */
  'reason': (string);
  /**
   * The evidence the suggestion rests on (a subset of the operation's sources).
   */
  'sources': (_powercontext_memory_v1_SourceRef__Output)[];
}
