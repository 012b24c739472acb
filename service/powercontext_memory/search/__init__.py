"""Search: one request, resolved once, run by channel strategies, fused, verified.

    modes.py         which mode runs (and why vectors or full text were left out), once
    channels.py      the channel strategies: full text, NumPy vectors, the engine's vectors
    vector_index.py  this process's NumPy copy of the vector projection (fed by commits)
    verify.py        the verified-hit filter: only what the head manifest confirms is answered
    answers.py       a bounded cache of answers keyed by the immutable head revisions
    searcher.py      the Searcher that ties them together (MemoryService and PrepareContext)

Admission, BM25 order and RRF fusion are domain rules (domain/fusion.py, domain/fts_rank.py),
shared by every backend. This package imports nothing at package level: backends/database.py
feeds vector_index.py from its commits.
"""
