"""`powercontext bootstrap` and `powercontext sync`: a repository's operating contract into
its memory, then the commits since.

bootstrap reads the evidence files at the repository root (sources.EVIDENCE_FILES, each at
most 256 KiB), stores each as a Source and asks the candidate pipeline (Remember, EXTRACT) to
derive entries from them — creating the memory when the manifest has none for this repository,
else on its head. The manifest records the memory only after the server created it, and
HEAD as the last processed commit. The same files are the same Sources, so a second run is a
no-op on the server.

sync turns the commits since the last processed one into one GitChangeSource (base, head, the
evidence paths they touched, a bounded patch) plus the NEW content of each touched evidence
file, so the pipeline's git-change adapter can re-derive exactly the entries that file
supports. No commits, or no evidence file touched: nothing is sent, the commit is recorded.
Forget suggestions (an entry no longer derived) are printed, never applied: absence is not
invalidation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from powercontext.memory.v1 import memory_service_pb2 as pb

from . import git, outcome
from .calls import Calls
from .manifest import RuntimeManifest
from .sources import (
    EVIDENCE_FILES,
    MAX_FILE_BYTES,
    MAX_PATCH_BYTES,
    SourceInput,
    file_source,
    git_change_source,
    is_evidence_path,
    read_evidence,
)


@dataclass
class Report:
    """What a bootstrap or sync did, for the command to print."""

    root: Path
    memory_id: str = ""
    response: pb.RememberResponse | None = None
    sources: list[str] = field(default_factory=list)  # uris sent
    commit: str = ""
    note: str = ""

    def lines(self) -> list[str]:
        out = [f"repository {self.root}"]
        out += [f"source {uri}" for uri in self.sources]
        if self.response is not None:
            out.append(f"memory {outcome.summary(self.response)}")
            out += [f"suggestion {outcome.describe(s)}" for s in self.response.suggestions]
        elif self.memory_id:
            out.append(f"memory {self.memory_id}")
        if self.commit:
            out.append(f"last processed commit {self.commit}")
        if self.note:
            out.append(self.note)
        return out


def _root(path: str | Path) -> Path:
    top = git.root(path)
    return top if top is not None else Path(path).resolve()


def _send(
    calls: Calls,
    manifest: RuntimeManifest,
    root: Path,
    inputs: list[SourceInput],
    report: Report,
) -> None:
    known = manifest.repo(root)
    refs = [calls.put_source(s, known.memory_id if known else None) for s in inputs]
    report.sources = [s.uri for s in inputs]
    with manifest.locked():  # one memory per repository, even with a hook racing us
        state = manifest.repo(root)
        response = calls.extract(state.memory_id if state else None, refs)
        report.response = response
        if response.HasField("memory") and (state is None or response.changed):
            report.memory_id = response.memory.artifact_id
            if state is None:
                manifest.record_memory(
                    root,
                    response.memory.artifact_id,
                    endpoint=calls.recorded_endpoint,
                    remote=git.remote(root),
                )
        elif state is not None:
            report.memory_id = state.memory_id


def bootstrap(path: str | Path, calls: Calls, manifest: RuntimeManifest) -> Report:
    root = _root(path)
    report = Report(root)
    inputs = read_evidence(root)
    if not inputs:
        report.note = "no evidence files found (AGENTS.md, pyproject.toml, Makefile, ...)"
        return report
    _send(calls, manifest, root, inputs, report)
    head = git.head(root)
    if head and manifest.repo(root) is not None:
        manifest.record_commit(root, head)
        report.commit = head
    return report


def sync(
    path: str | Path,
    calls: Calls,
    manifest: RuntimeManifest,
    *,
    show: Callable[[Path, str, str, int], bytes | None] = git.show_file,
) -> Report:
    root = _root(path)
    report = Report(root)
    state = manifest.repo(root)
    if state is None:
        raise LookupError(f"no memory is recorded for {root}: run `powercontext bootstrap` first")
    report.memory_id = state.memory_id
    head = git.head(root)
    if not head:
        report.note = "no commits"
        return report
    base = state.last_processed_commit or None
    if base == head:
        report.note = "up to date"
        report.commit = head
        return report
    if base is not None and not git.commit_exists(root, base):  # history rewritten, gc'd
        base = None
    if base is None:  # no reliable increment: fall back to the full evidence files
        touched = [name for name in EVIDENCE_FILES if show(root, head, name, MAX_FILE_BYTES)]
    else:
        touched = [p for p in git.changed_paths_between(root, base, head) if is_evidence_path(p)]
    if touched:
        patch, truncated = ("", False)
        if base is not None:
            patch, truncated = git.patch_between(root, base, head, touched, MAX_PATCH_BYTES)
        inputs = [git_change_source(base, head, touched, patch, truncated)]
        for name in touched:
            content = show(root, head, name, MAX_FILE_BYTES)
            if content is not None:  # deleted (or too big): no new content to re-derive
                inputs.append(file_source(name, content))
        _send(calls, manifest, root, inputs, report)
    else:
        report.note = "no evidence file changed"
    manifest.record_commit(root, head)
    report.commit = head
    return report
