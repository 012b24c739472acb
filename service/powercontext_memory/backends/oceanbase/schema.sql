-- PowerContext Memory, OceanBase (MySQL mode, 4.3.5 BP3+ / seekdb) schema v1: the tables of the
-- SQLite schema with the changes this engine needs, each noted where it is made:
--  * utf8mb4_bin everywhere instead of ascii/ascii_bin (not available in seekdb; a foreign key
--    between a _bin and a _ci column fails, so every table uses the same collation);
--  * memory_entry_heads.projected_in_revision is the head revision of the row (the revision that
--    last wrote it; unchanged rows are never rewritten, as on SQLite);
--  * the FULLTEXT index is on fulltext_tokens, the adapter's encoding of searchable_text for the
--    SPACE parser led by the row's memory token, so a search filters by memory inside the index
--    (see fts_tokens.py); searchable_text stays the analyzer's own text;
--  * the VECTOR(dim) column and its HNSW L2 index are added when the database's embedding
--    profile is fixed (dimension is part of the DDL and comes from the profile).
-- Statements are separated by a line holding only ";".

CREATE TABLE IF NOT EXISTS schema_meta (
    meta_key VARCHAR(64) NOT NULL,
    meta_value LONGTEXT NOT NULL,
    PRIMARY KEY (meta_key)
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
;
CREATE TABLE IF NOT EXISTS sources (
    source_id VARCHAR(128) NOT NULL,
    kind VARCHAR(64) NOT NULL,
    uri TEXT NOT NULL,
    media_type VARCHAR(255) NOT NULL,
    content LONGBLOB NOT NULL,
    metadata LONGTEXT NOT NULL,
    content_hash CHAR(64) NOT NULL,
    created_at_ms BIGINT NOT NULL,
    PRIMARY KEY (source_id)
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
;
-- Which memories may read a source (cited by them or recorded for them), as on SQLite.
CREATE TABLE IF NOT EXISTS memory_sources (
    source_id VARCHAR(128) NOT NULL,
    memory_artifact_id VARCHAR(128) NOT NULL,
    recorded_at_ms BIGINT NOT NULL,
    PRIMARY KEY (source_id, memory_artifact_id),
    KEY idx_memory_sources_memory (memory_artifact_id, source_id)
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
;
CREATE TABLE IF NOT EXISTS artifact_revisions (
    artifact_id VARCHAR(128) NOT NULL,
    revision BIGINT NOT NULL,
    family VARCHAR(64) NOT NULL,
    content LONGTEXT NOT NULL,
    content_hash CHAR(64) NOT NULL,
    lineage LONGTEXT NOT NULL,
    committed_at_ms BIGINT NOT NULL,
    -- content's changes array (canonical JSON) and its SHA-256, for history reads; NULL only
    -- in rows stored before these columns existed (added on open, then backfilled).
    changes LONGTEXT,
    changes_hash CHAR(64),
    -- "pieces-v1:" + index piece keys when the manifest is stored as pieces (content is then
    -- ''); NULL in rows holding the whole content (until `migrate-manifests`).
    manifest_root LONGTEXT,
    PRIMARY KEY (artifact_id, revision)
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
;
-- Content-addressed pieces of manifests shared between revisions; piece_key = SHA-256 of body.
CREATE TABLE IF NOT EXISTS manifest_pieces (
    piece_key CHAR(64) NOT NULL,
    body LONGTEXT NOT NULL,
    PRIMARY KEY (piece_key)
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
;
CREATE TABLE IF NOT EXISTS artifact_heads (
    artifact_id VARCHAR(128) NOT NULL,
    revision BIGINT NOT NULL,
    PRIMARY KEY (artifact_id),
    CONSTRAINT fk_artifact_heads_revision
        FOREIGN KEY (artifact_id, revision) REFERENCES artifact_revisions (artifact_id, revision)
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
;
CREATE TABLE IF NOT EXISTS memory_entry_versions (
    memory_artifact_id VARCHAR(128) NOT NULL,
    entry_id VARCHAR(128) NOT NULL,
    entry_version_id VARCHAR(128) NOT NULL,
    version BIGINT NOT NULL,
    previous_version_id VARCHAR(128),
    kind VARCHAR(64) NOT NULL,
    text TEXT NOT NULL,
    source_refs LONGTEXT NOT NULL,
    artifact_refs LONGTEXT NOT NULL,
    entry_content_hash CHAR(64) NOT NULL,
    created_in_revision BIGINT NOT NULL,
    -- NULL without a description (hash v1); tags: NULL then, else a canonical JSON array.
    description TEXT,
    tags TEXT,
    PRIMARY KEY (entry_version_id),
    UNIQUE KEY uk_memory_entry_versions_number (memory_artifact_id, entry_id, version),
    UNIQUE KEY uk_memory_entry_versions_identity (memory_artifact_id, entry_id, entry_version_id),
    KEY idx_memory_entry_versions_hash (memory_artifact_id, entry_content_hash),
    CONSTRAINT fk_memory_entry_versions_previous
        FOREIGN KEY (previous_version_id) REFERENCES memory_entry_versions (entry_version_id),
    CONSTRAINT fk_memory_entry_versions_revision
        FOREIGN KEY (memory_artifact_id, created_in_revision)
        REFERENCES artifact_revisions (artifact_id, revision)
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
;
CREATE TABLE IF NOT EXISTS memory_entry_heads (
    projection_id BIGINT NOT NULL AUTO_INCREMENT,
    memory_artifact_id VARCHAR(128) NOT NULL,
    projected_in_revision BIGINT NOT NULL,
    entry_id VARCHAR(128) NOT NULL,
    entry_version_id VARCHAR(128) NOT NULL,
    entry_content_hash CHAR(64) NOT NULL,
    searchable_text TEXT NOT NULL,
    fulltext_tokens MEDIUMTEXT NOT NULL,
    embedding_content_hash CHAR(64),
    -- The version's kind, description (NULL: none) and tags delimited by 0x1F ('' for none):
    -- a tag filter is an exact substring test, binary so case and Unicode forms stay distinct.
    kind VARCHAR(64) COLLATE utf8mb4_bin NOT NULL DEFAULT '',
    description VARCHAR(1024) COLLATE utf8mb4_bin,
    tags VARCHAR(4096) COLLATE utf8mb4_bin NOT NULL DEFAULT '',
    PRIMARY KEY (projection_id),
    UNIQUE KEY uk_memory_entry_heads_entry (memory_artifact_id, entry_id),
    KEY idx_memory_entry_heads_version (entry_version_id),
    FULLTEXT INDEX ftx_memory_entry_heads_text (fulltext_tokens) WITH PARSER SPACE,
    CONSTRAINT fk_memory_entry_heads_version
        FOREIGN KEY (memory_artifact_id, entry_id, entry_version_id)
        REFERENCES memory_entry_versions (memory_artifact_id, entry_id, entry_version_id)
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
;
-- Idempotent writes (AIP-155): the outcome of each write that carried a request id, recorded
-- in the transaction of its commit (domain/idempotency.py); kept at least 24 hours, then
-- deleted by later writes, oldest first.
CREATE TABLE IF NOT EXISTS write_requests (
    caller_key VARCHAR(255) NOT NULL,
    request_id VARCHAR(128) NOT NULL,
    fingerprint CHAR(64) NOT NULL,
    outcome LONGTEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    PRIMARY KEY (caller_key, request_id),
    KEY idx_write_requests_created (created_at_ms)
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
;
-- Labels people give memories (SetMemoryLabel): every label ever set, numbered per memory;
-- the highest number is the current one ('' when that set cleared it).
CREATE TABLE IF NOT EXISTS memory_labels (
    memory_artifact_id VARCHAR(128) NOT NULL,
    label_version BIGINT NOT NULL,
    label VARCHAR(1024) NOT NULL,
    set_at_ms BIGINT NOT NULL,
    PRIMARY KEY (memory_artifact_id, label_version)
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
;
-- Bearer tokens (security/tokens.py; `powercontext-memory tokens`), as on SQLite: the secret is
-- never stored, only its SHA-256; memories is a canonical JSON array ('[]': every memory).
CREATE TABLE IF NOT EXISTS access_tokens (
    token_id VARCHAR(64) NOT NULL,
    name VARCHAR(128) NOT NULL,
    scope VARCHAR(16) NOT NULL,
    memories LONGTEXT NOT NULL,
    secret_hash CHAR(64) NOT NULL,
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT,
    revoked_at_ms BIGINT,
    PRIMARY KEY (token_id)
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
;
-- Scratch table of the start-up probe (a real insert / search / delete on each start).
CREATE TABLE IF NOT EXISTS powercontext_probe (
    probe_id BIGINT NOT NULL AUTO_INCREMENT,
    fulltext_tokens TEXT NOT NULL,
    PRIMARY KEY (probe_id),
    FULLTEXT INDEX ftx_powercontext_probe (fulltext_tokens) WITH PARSER SPACE
) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
