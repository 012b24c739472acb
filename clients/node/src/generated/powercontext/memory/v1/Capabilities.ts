// Original file: powercontext/memory/v1/types.proto

import type { EmbeddingProfile as _powercontext_memory_v1_EmbeddingProfile, EmbeddingProfile__Output as _powercontext_memory_v1_EmbeddingProfile__Output } from '../../../powercontext/memory/v1/EmbeddingProfile';

/**
 * What this deployment can do right now.
 */
export interface Capabilities {
  'fts'?: (boolean);
  'vector'?: (boolean);
  'hybrid'?: (boolean);
  /**
   * The database's fixed embedding profile, once one is fixed (even when this server's model
   * cannot use it).
   */
  'embeddingProfile'?: (_powercontext_memory_v1_EmbeddingProfile | null);
  /**
   * Remember with mode EXTRACT (a configured candidate pipeline).
   */
  'candidateExtraction'?: (boolean);
  /**
   * Changes with follow = true.
   */
  'changeFollow'?: (boolean);
  /**
   * "sqlite" or "oceanbase".
   */
  'backend'?: (string);
  /**
   * Analyzer version used for full text, "v2" (English stems; "v1" had none).
   */
  'analyzer'?: (string);
  /**
   * Why vector and hybrid are false, when they are (no model, profile mismatch, ...).
   */
  'vectorUnavailableReason'?: (string);
  /**
   * Why fts (and hybrid) are false, when they are (a failed start-up probe of the backend).
   */
  'ftsUnavailableReason'?: (string);
  /**
   * The database engine's version as probed at start ("3.50.4" for SQLite, "4.3.5.3" ...).
   */
  'engineVersion'?: (string);
  /**
   * Deterministic candidate adapters of the pipeline (Remember EXTRACT), by name, e.g.
   * "pyproject", "build-targets", "agent-rules", "git-change", "task-outcome", "user-note".
   */
  'candidateAdapters'?: (string)[];
  /**
   * Optional model-assisted extractors that are configured and usable, by name (e.g. "model").
   */
  'candidateExtractors'?: (string)[];
}

/**
 * What this deployment can do right now.
 */
export interface Capabilities__Output {
  'fts': (boolean);
  'vector': (boolean);
  'hybrid': (boolean);
  /**
   * The database's fixed embedding profile, once one is fixed (even when this server's model
   * cannot use it).
   */
  'embeddingProfile': (_powercontext_memory_v1_EmbeddingProfile__Output | null);
  /**
   * Remember with mode EXTRACT (a configured candidate pipeline).
   */
  'candidateExtraction': (boolean);
  /**
   * Changes with follow = true.
   */
  'changeFollow': (boolean);
  /**
   * "sqlite" or "oceanbase".
   */
  'backend': (string);
  /**
   * Analyzer version used for full text, "v2" (English stems; "v1" had none).
   */
  'analyzer': (string);
  /**
   * Why vector and hybrid are false, when they are (no model, profile mismatch, ...).
   */
  'vectorUnavailableReason': (string);
  /**
   * Why fts (and hybrid) are false, when they are (a failed start-up probe of the backend).
   */
  'ftsUnavailableReason': (string);
  /**
   * The database engine's version as probed at start ("3.50.4" for SQLite, "4.3.5.3" ...).
   */
  'engineVersion': (string);
  /**
   * Deterministic candidate adapters of the pipeline (Remember EXTRACT), by name, e.g.
   * "pyproject", "build-targets", "agent-rules", "git-change", "task-outcome", "user-note".
   */
  'candidateAdapters': (string)[];
  /**
   * Optional model-assisted extractors that are configured and usable, by name (e.g. "model").
   */
  'candidateExtractors': (string)[];
}
