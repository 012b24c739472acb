"""The candidate pipeline (docs/bootstrap.md): deterministic adapters and an optional
model extractor that propose untrusted entries and suggestions from an operation's sources.

port.py (what an extractor sees and returns), sources.py (the source conventions), one module
per adapter (pyproject, build_targets, agent_rules, git_change, task_outcome, user_note) and
their readers (tasks and task_names: which task-runner tasks and how they are said; makefile,
justfile, nox_sessions, tox_envs, pyproject_tasks, pre_commit, sections, shell, build_backend,
for_a_person; markdown_blocks, lead_ins, imperatives, modality, refusals, command_tables,
commented_blocks, script_lines for the rules files), model.py (the
OpenAI-compatible extractor) and pipeline.py (order and reconciliation).
"""

from .pipeline import CandidatePipeline
from .port import ActiveEntry, Candidate, Extraction, ExtractionInput, Suggestion, SuggestionKind

__all__ = [
    "ActiveEntry",
    "Candidate",
    "CandidatePipeline",
    "Extraction",
    "ExtractionInput",
    "Suggestion",
    "SuggestionKind",
]
