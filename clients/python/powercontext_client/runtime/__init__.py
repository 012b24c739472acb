"""The agent-side runtime: a repository's memory, kept up to date from agent events.

manifest.py   repository -> memory id, endpoint, last processed commit, processed turns
              (the state file; locked, atomic writes)
repo.py       locate(cwd): the repository and its manifest entry (the public lookup)
git.py        the git facts the runtime uses (root, remote, HEAD, diffs, status)
sources.py    the Source conventions the server's candidate adapters read; bounded reads
triggers.py   which prompts are explicit instructions about memory (the one list)
calls.py      single-attempt server calls under one deadline (hooks fail open in 2 s)
bootstrap.py  `powercontext bootstrap` and `powercontext sync`
events.py     Claude Code / Codex hook payloads and Codex notify, normalised
transcript.py the last assistant text of a JSON Lines transcript
hooks.py      what each event does
settings.py   `powercontext setup`: merging hooks and the MCP server into host settings
"""

from .manifest import RepoState, RuntimeManifest, state_file
from .repo import Repo, locate

__all__ = ["Repo", "RepoState", "RuntimeManifest", "locate", "state_file"]
