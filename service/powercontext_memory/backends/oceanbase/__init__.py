"""OceanBase adapter (MySQL mode, 4.3.5 BP3+; seekdb in tests): storage primitives only.

Same storage port as SQLite (backends/port/). Differences that live here and nowhere else:

* isolation: writers run READ COMMITTED (the engine default) so that the head CAS
  `UPDATE ... WHERE revision = base` sees the latest commit and reports 0 affected rows when
  another writer got there first; a concurrent insert of the same next revision is a unique
  conflict (RevisionExists). Readers run REPEATABLE READ with a consistent snapshot, so one
  read transaction sees one state, as on SQLite WAL.
* full text: FULLTEXT WITH PARSER SPACE over `fulltext_tokens` (fts_tokens.py).
* vectors: a VECTOR(dim) column on memory_entry_heads with an HNSW L2 index, created when the
  embedding profile is fixed. DDL commits implicitly in MySQL mode, so it never runs inside a
  Memory commit.

wire.py          DSN, placeholders, hex and vector literals (no driver: importable anywhere)
fts_tokens.py    the full-text token spelling for the SPACE parser (no driver either)
connections.py   the asyncmy pools and what an unreachable database means
schema.py        schema.sql, and the columns and markers added to older databases on open
probe.py         the start-up check of full text and vectors
storage.py       OceanBaseStorage: pools, read and write transactions
transaction.py   OceanBaseTransaction, composed of statements.py and one module per concern:
                 revisions.py, sources.py, projection.py, full_text.py, vectors.py,
                 credentials.py, request_log.py, settings.py

This file imports nothing: the DSN helpers must import on machines without the oceanbase extra.
"""
