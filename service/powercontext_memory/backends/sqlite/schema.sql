-- PowerContext Memory, embedded SQLite schema v1 (memories, their revisions, sources).
-- Authoritative: sources, artifact_revisions, artifact_heads, memory_entry_versions (insert-only,
-- except the head pointer). Rebuildable projection: memory_entry_heads + memory_entry_search_fts.

CREATE TABLE IF NOT EXISTS schema_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS sources (
    source_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    uri TEXT NOT NULL,
    media_type TEXT NOT NULL,
    content BLOB NOT NULL,
    metadata TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL
);

-- Which memories may read a source: those that cite it (a revision's lineage, an entry version's
-- evidence; written by the commit that cites it) or had it recorded for them (PutSource
-- memory_id). A token limited to some memories reads only their sources. recorded_at_ms: the
-- first time the pair was linked. Databases created before get it filled on open (database.py).
CREATE TABLE IF NOT EXISTS memory_sources (
    source_id TEXT NOT NULL,
    memory_artifact_id TEXT NOT NULL,
    recorded_at_ms INTEGER NOT NULL,
    PRIMARY KEY (source_id, memory_artifact_id)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS idx_memory_sources_memory
    ON memory_sources (memory_artifact_id, source_id);

CREATE TABLE IF NOT EXISTS artifact_revisions (
    artifact_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    family TEXT NOT NULL,
    content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    lineage TEXT NOT NULL,
    committed_at_ms INTEGER NOT NULL,
    -- The changes array of content (canonical JSON) and its SHA-256: what history reads, never
    -- the manifest. NULL only in rows stored before these columns existed, until the backfill
    -- on open (databases created before are altered on open: schema.py ADDED_COLUMNS).
    changes TEXT,
    changes_hash TEXT,
    -- Set when the manifest is stored as pieces (manifest_pieces): "pieces-v1:" + index piece
    -- keys, and content is then ''. NULL in rows holding the whole canonical content (written
    -- before pieces, until `migrate-manifests` converts them).
    manifest_root TEXT,
    PRIMARY KEY (artifact_id, revision)
);

-- Content-addressed pieces of manifests, shared between revisions: a run of canonical manifest
-- rows (a leaf) or a run of leaf keys (an index piece). piece_key = SHA-256 of body.
CREATE TABLE IF NOT EXISTS manifest_pieces (
    piece_key TEXT PRIMARY KEY,
    body TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS artifact_heads (
    artifact_id TEXT PRIMARY KEY,
    revision INTEGER NOT NULL,
    FOREIGN KEY (artifact_id, revision) REFERENCES artifact_revisions (artifact_id, revision)
);

CREATE TABLE IF NOT EXISTS memory_entry_versions (
    memory_artifact_id TEXT NOT NULL,
    entry_id TEXT NOT NULL,
    entry_version_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    previous_version_id TEXT,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    source_refs TEXT NOT NULL,
    artifact_refs TEXT NOT NULL,
    entry_content_hash TEXT NOT NULL,
    created_in_revision INTEGER NOT NULL,
    -- NULL in versions without a description (hash v1: written before descriptions existed);
    -- tags: NULL then, else the canonical JSON array of the version's tags (hash v2).
    description TEXT,
    tags TEXT,
    PRIMARY KEY (entry_version_id),
    UNIQUE (memory_artifact_id, entry_id, version),
    UNIQUE (memory_artifact_id, entry_id, entry_version_id),
    FOREIGN KEY (previous_version_id) REFERENCES memory_entry_versions (entry_version_id),
    FOREIGN KEY (memory_artifact_id, created_in_revision)
        REFERENCES artifact_revisions (artifact_id, revision)
);

CREATE INDEX IF NOT EXISTS idx_memory_entry_versions_hash
    ON memory_entry_versions (memory_artifact_id, entry_content_hash);

-- One row per ACTIVE entry of each memory's head. projected_in_revision is the revision that
-- last wrote the row: unchanged rows are never rewritten, so a commit touches only the entries
-- it changes. The authoritative head is artifact_heads.
CREATE TABLE IF NOT EXISTS memory_entry_heads (
    projection_id INTEGER PRIMARY KEY,
    memory_artifact_id TEXT NOT NULL,
    projected_in_revision INTEGER NOT NULL,
    entry_id TEXT NOT NULL,
    entry_version_id TEXT NOT NULL,
    entry_content_hash TEXT NOT NULL,
    searchable_text TEXT NOT NULL,
    -- The version's kind, description (NULL: none) and tags as "\x1f" + "\x1f".join(tags) +
    -- "\x1f" ('' for none), so a tag filter is an exact substring test (listing, search).
    kind TEXT NOT NULL DEFAULT '',
    description TEXT,
    tags TEXT NOT NULL DEFAULT '',
    UNIQUE (memory_artifact_id, entry_id),
    FOREIGN KEY (memory_artifact_id, entry_id, entry_version_id)
        REFERENCES memory_entry_versions (memory_artifact_id, entry_id, entry_version_id)
);

-- rowid = memory_entry_heads.projection_id. Analyzer v1 has already split the text; '_' must
-- stay inside tokens (u_4e2d, b_4e2d_6587) and diacritics are the analyzer's business.
-- memory_artifact_id is indexed so that a search's memory filter is part of the MATCH.
CREATE VIRTUAL TABLE IF NOT EXISTS memory_entry_search_fts USING fts5(
    memory_artifact_id,
    searchable_text,
    tokenize = "unicode61 remove_diacritics 0 tokenchars '_'"
);

-- Vector projection: one row per head row that has a vector of the database's fixed
-- embedding profile; the vectors themselves live in the vec0 table memory_entry_search_vector
-- (rowid = projection_id), created with the profile's dimension when the profile is fixed.
CREATE TABLE IF NOT EXISTS memory_entry_vector_metadata (
    projection_id INTEGER PRIMARY KEY,
    entry_version_id TEXT NOT NULL,
    entry_content_hash TEXT NOT NULL,
    embedding_content_hash TEXT NOT NULL,
    UNIQUE (entry_version_id),
    FOREIGN KEY (projection_id) REFERENCES memory_entry_heads (projection_id) ON DELETE CASCADE
);

-- Labels people give memories (SetMemoryLabel): every label ever set, numbered per memory;
-- the highest number is the current one ('' when that set cleared it).
CREATE TABLE IF NOT EXISTS memory_labels (
    memory_artifact_id TEXT NOT NULL,
    label_version INTEGER NOT NULL,
    label TEXT NOT NULL,
    set_at_ms INTEGER NOT NULL,
    PRIMARY KEY (memory_artifact_id, label_version)
) WITHOUT ROWID;

-- Bearer tokens (security/tokens.py; `powercontext-memory tokens`). Not part of any memory.
-- secret_hash is SHA-256 of the token's 256-bit random secret: the secret itself is never
-- stored. memories: canonical JSON array of artifact ids, '[]' for every memory.
CREATE TABLE IF NOT EXISTS access_tokens (
    token_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    scope TEXT NOT NULL,
    memories TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER,
    revoked_at_ms INTEGER
);

-- Idempotent writes (AIP-155): the outcome of each write that carried a request id, recorded
-- in the transaction of its commit (domain/idempotency.py). Not part of any memory: kept at
-- least 24 hours, then deleted by later writes, oldest first.
CREATE TABLE IF NOT EXISTS write_requests (
    caller_key TEXT NOT NULL,
    request_id TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    outcome TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    PRIMARY KEY (caller_key, request_id)
);

CREATE INDEX IF NOT EXISTS idx_write_requests_created ON write_requests (created_at_ms);
