"""The agent runtime end to end: real git repositories with real commits, a real server
process, and the `powercontext` console script run exactly as Claude Code and Codex run it
(hook payloads from tests/data/hooks, JSON on stdin, Codex notify's JSON as the last argument).

* fail open: no server, a server that never answers, a payload that is not JSON -> exit 0 and
  nothing on stdout that a host would act on;
* docs/walkthrough.md's worked example through bootstrap and the hooks: uv + Hatchling,
  make test / make check, site/ generated -> entries with their evidence; the user's correction
  revises the validation entry (version 2, previous linked); "site/ 那条不要记了" forgets that
  entry; the next SessionStart's context holds the revised entry, not the forgotten one, and
  its citations verify with Expand;
* Stop -> a working note or nothing, once per session and turn (also from Codex notify);
* a Makefile change committed -> `sync` revises exactly the affected entry.
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client import Client, citation, ref

from ..hosts import demo_repo
from ..hosts.demo_repo import committed_repo, git
from ..serving import CLIENT_COMMAND, Served, serve_process, server_env

HOOKS = Path(__file__).resolve().parents[1] / "data" / "hooks"
# docs/agents.md: a hook exits 0 within 2 s whatever the server does; the margin is for the
# interpreter's start on a slow, loaded 2-core machine, the kill guard only ends a stuck hook.
HOOK_DOCUMENTED_SECONDS = 2.0
HOOK_LOAD_MARGIN_SECONDS = 3.0
HOOK_KILL_SECONDS = 30.0
# The hosts' demo repository (its AGENTS.md, pyproject.toml and Makefile), and more of a uv
# project: what the worked example's sync and context steps read.
PYPROJECT = (
    demo_repo.PYPROJECT
    + """
[dependency-groups]
dev = ["pytest>=8", "ruff>=0.6"]

[tool.uv]
package = true

[tool.pytest.ini_options]
testpaths = ["tests"]
"""
)
MAKEFILE = (
    demo_repo.MAKEFILE
    + """
docs-test:
\tuv run pytest docs
"""
)
REVISE_PROMPT = "改文档时不用跑完整 make test，优先跑 make docs-test。"
FORGET_PROMPT = "site/ 那条不要记了"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    database = tmp_path_factory.mktemp("runtime") / "memory.sqlite3"
    with serve_process(database, "--progress-interval", "0.2") as running:
        yield running


def make_repo(path: Path) -> Path:
    files = {"AGENTS.md": demo_repo.AGENTS_MD, "pyproject.toml": PYPROJECT, "Makefile": MAKEFILE}
    return committed_repo(path, {**files, "app.py": demo_repo.APP})


class Runtime:
    """`powercontext …` with its own runtime manifest, HOME and endpoint."""

    def __init__(self, home: Path, endpoint: str) -> None:
        self.home = home
        self.endpoint = endpoint
        self.last_hook_seconds = 0.0  # the wall time of the last hook, interpreter start included
        self.env = server_env(
            {
                "POWERCONTEXT_ENDPOINT": endpoint,
                "POWERCONTEXT_RUNTIME_HOME": str(home / "state"),
                "HOME": str(home),
            }
        )

    def run(self, *args: str, cwd: Path, stdin: str = "", code: int = 0) -> str:
        done = subprocess.run(
            [CLIENT_COMMAND, *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env,
            cwd=cwd,
            timeout=60,
        )
        assert done.returncode == code, (args, done.stdout, done.stderr)
        return done.stdout

    def hook(self, host: str, fixture: str, cwd: Path, **fields: Any) -> tuple[str, str]:
        """Run the hook with the fixture's payload (cwd and `fields` replaced); (stdout,
        stderr). Every hook exits 0, whatever happened."""
        payload = json.loads((HOOKS / fixture).read_text())
        payload.update(cwd=str(cwd), **fields)
        args = [CLIENT_COMMAND, "hook", host]
        stdin = json.dumps(payload, ensure_ascii=False)
        if host == "codex-notify":
            args.append(stdin)  # the LAST argument, not stdin
            stdin = ""
        started = time.monotonic()
        done = subprocess.run(
            args,
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env,
            cwd="/",
            timeout=HOOK_KILL_SECONDS,
        )
        self.last_hook_seconds = time.monotonic() - started
        assert done.returncode == 0, done.stderr
        return done.stdout, done.stderr

    def manifest(self) -> dict[str, Any]:
        path = self.home / "state" / "runtime.json"
        return json.loads(path.read_text()) if path.exists() else {"repos": {}}

    def memory_id(self, repo: Path) -> str:
        entry = self.manifest()["repos"].get(str(repo.resolve()))
        return entry["memory_id"] if entry else ""


def context_of(stdout: str, event: str) -> str:
    answer = json.loads(stdout)
    assert set(answer) == {"hookSpecificOutput"}
    assert answer["hookSpecificOutput"]["hookEventName"] == event
    text: str = answer["hookSpecificOutput"]["additionalContext"]
    return text


def active_versions(client: Client, memory_id: str) -> list[types.EntryVersion]:
    head = client.get_memory(memory_id)
    cites = [
        citation(head.memory, e.entry_id, e.entry_version_id)
        for e in head.content.manifest.entries
        if e.state == types.ENTRY_STATE_ACTIVE
    ]
    return [e.version for e in client.expand(cites).entries] if cites else []


def source_uris(client: Client, version: types.EntryVersion) -> set[str]:
    return {client.get_source(s.source_id).uri for s in version.source_refs}


# -- fail open ------------------------------------------------------------------------------------


@pytest.fixture
def down_server() -> Iterator[str]:
    """A port bound and held but never listening: connections are refused, and no other
    process can start listening there while the test runs."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield f"127.0.0.1:{held.getsockname()[1]}"


@pytest.fixture
def hung_server() -> Iterator[str]:
    """A TCP listener that accepts and never answers: a hung server."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


class _NeverAnswers(grpc.GenericRpcHandler):
    """Takes every call and holds it until the test ends: the handshake is done, no answer."""

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        def hold(request: bytes, context: grpc.ServicerContext) -> bytes:
            self.release.wait()
            context.set_code(grpc.StatusCode.UNAVAILABLE)  # the test is over
            return b""

        return grpc.unary_unary_rpc_method_handler(hold)


@pytest.fixture
def stalled_server() -> Iterator[str]:
    """A gRPC server whose handlers never return."""
    release = threading.Event()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((_NeverAnswers(release),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        release.set()
        server.stop(grace=None).wait()


@pytest.mark.parametrize("endpoint", ["down", "hung", "stalled"])
def test_hooks_fail_open(tmp_path: Path, endpoint: str, request: pytest.FixtureRequest) -> None:
    repo = make_repo(tmp_path / "repo").resolve()
    address: str = request.getfixturevalue(f"{endpoint}_server")
    runtime = Runtime(tmp_path, address)
    state = tmp_path / "state"
    state.mkdir()
    recorded = {"memory_id": "mem_art_00000000000000000000000000", "endpoint": address}
    (state / "runtime.json").write_text(json.dumps({"format": 1, "repos": {str(repo): recorded}}))
    for host, fixture, fields in [
        ("claude", "claude_session_start.json", {}),
        ("claude", "claude_user_prompt_submit.json", {}),
        ("claude", "claude_stop.json", {"last_assistant_message": "Done; make test passed."}),
        ("codex", "codex_user_prompt_submit.json", {}),
        ("codex", "codex_stop.json", {}),
        ("codex-notify", "codex_notify.json", {}),
    ]:
        stdout, stderr = runtime.hook(host, fixture, repo, **fields)
        assert stdout == "", (fixture, stdout)
        assert "Traceback" not in stderr
        bound = HOOK_DOCUMENTED_SECONDS + HOOK_LOAD_MARGIN_SECONDS
        assert runtime.last_hook_seconds < bound, (fixture, runtime.last_hook_seconds, stderr)
    assert runtime.manifest()["repos"][str(repo)].get("sessions", {}) == {}  # nothing processed


def test_bad_payloads_and_unknown_events_fail_open(tmp_path: Path, served: Served) -> None:
    runtime = Runtime(tmp_path, f"127.0.0.1:{served.port}")
    for stdin in ["", "not json", "[1, 2]", '{"hook_event_name": 3}']:
        done = subprocess.run(
            [CLIENT_COMMAND, "hook", "claude"],
            input=stdin,
            capture_output=True,
            text=True,
            env=runtime.env,
            timeout=30,
        )
        assert (done.returncode, done.stdout) == (0, "")
    bad_host = subprocess.run(
        [CLIENT_COMMAND, "hook", "gemini"], capture_output=True, text=True, env=runtime.env
    )
    assert (bad_host.returncode, bad_host.stdout) == (0, "")
    assert runtime.run("hook", "codex-notify", '{"type": "approval-requested"}', cwd=tmp_path) == ""


def test_hooks_without_a_memory_do_nothing(tmp_path: Path, served: Served) -> None:
    repo = make_repo(tmp_path / "repo").resolve()
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    runtime = Runtime(tmp_path, f"127.0.0.1:{served.port}")
    for fixture in [
        "claude_session_start.json",
        "claude_pre_compact.json",
        "claude_session_end.json",
        "codex_session_start.json",
        "codex_user_prompt_submit.json",
    ]:
        assert runtime.hook("claude", fixture, repo)[0] == ""
        assert runtime.hook("claude", fixture, outside)[0] == ""
    assert runtime.hook("claude", "claude_stop.json", repo, stop_hook_active=True)[0] == ""
    assert runtime.manifest() == {"repos": {}}
    assert (
        "run `powercontext bootstrap` first"
        in subprocess.run(
            [CLIENT_COMMAND, "sync"], cwd=repo, env=runtime.env, capture_output=True, text=True
        ).stderr
    )


# -- the worked example ---------------------------------------------------------------------------


def _find(versions: list[types.EntryVersion], *words: str) -> types.EntryVersion:
    found = [v for v in versions if all(w in v.text for w in words)]
    assert len(found) == 1, (words, [v.text for v in versions])
    return found[0]


def test_worked_example_through_the_runtime(tmp_path: Path, served: Served) -> None:
    repo = make_repo(tmp_path / "repo").resolve()
    runtime = Runtime(tmp_path, f"127.0.0.1:{served.port}")
    out = runtime.run("bootstrap", cwd=repo)
    memory_id = runtime.memory_id(repo)
    assert memory_id and memory_id in out
    recorded = runtime.manifest()["repos"][str(repo)]
    assert recorded["last_processed_commit"] == git(repo, "rev-parse", "HEAD")
    assert recorded["endpoint"] == runtime.endpoint
    with Client(runtime.endpoint) as client:
        first = client.head(memory_id)
        versions = active_versions(client, memory_id)
        assert any("uv" in v.text for v in versions)
        assert any("atchling" in v.text for v in versions)
        validation = _find(versions, "make test", "make check", "review")
        assert validation.version == 1
        assert "repo://AGENTS.md" in source_uris(client, validation)
        site = _find(versions, "site/")
        assert source_uris(client, site) == {"repo://AGENTS.md"}
        for v in versions:  # every entry cites the files it came from, nothing else
            assert source_uris(client, v) <= {
                "repo://AGENTS.md",
                "repo://pyproject.toml",
                "repo://Makefile",
            }

        # Running it again changes nothing.
        assert "unchanged" in runtime.run("bootstrap", cwd=repo)
        assert client.head(memory_id) == first

        # The user's correction revises the validation entry.
        stdout, _ = runtime.hook(
            "claude", "claude_user_prompt_submit.json", repo, prompt=REVISE_PROMPT
        )
        context = context_of(stdout, "UserPromptSubmit")
        versions = active_versions(client, memory_id)
        revised = [v for v in versions if v.entry_id == validation.entry_id][0]
        assert revised.version == 2 and revised.previous_version_id == validation.entry_version_id
        assert "docs-test" in revised.text
        assert "repo://AGENTS.md" in source_uris(client, revised)  # the predecessor's evidence kept
        assert "docs-test" in context

        # "site/ 那条不要记了" forgets exactly that entry.
        before = client.head(memory_id).revision
        stdout, _ = runtime.hook(
            "claude", "claude_user_prompt_submit.json", repo, prompt=FORGET_PROMPT
        )
        assert site.entry_id in context_of(stdout, "UserPromptSubmit")
        head = client.get_memory(memory_id)
        assert head.memory.revision == before + 1
        states = {e.entry_id: e.state for e in head.content.manifest.entries}
        assert states[site.entry_id] == types.ENTRY_STATE_INACTIVE
        assert sum(s == types.ENTRY_STATE_INACTIVE for s in states.values()) == 1

        # The next session starts with the revised entry, not the forgotten one.
        stdout, _ = runtime.hook("claude", "claude_session_start.json", repo, source="startup")
        context = context_of(stdout, "SessionStart")
        assert revised.text in context and site.text not in context
        prepared = client.stub.PrepareContext(
            pb.PrepareContextRequest(memories=[ref(memory_id)]), timeout=10
        )
        assert prepared.block == context
        expanded = client.expand([e.citation for e in prepared.entries])
        assert [e.version.text for e in expanded.entries] == [e.text for e in prepared.entries]
        assert revised.entry_version_id in {e.citation.entry_version_id for e in prepared.entries}
        assert site.entry_id not in {e.citation.entry_id for e in prepared.entries}


def test_an_ambiguous_instruction_is_reported_not_guessed(tmp_path: Path, served: Served) -> None:
    repo = make_repo(tmp_path / "repo").resolve()
    runtime = Runtime(tmp_path, f"127.0.0.1:{served.port}")
    runtime.run("bootstrap", cwd=repo)
    memory_id = runtime.memory_id(repo)
    with Client(runtime.endpoint) as client:
        before = client.get_memory(memory_id)
        stdout, _ = runtime.hook(
            "codex", "codex_user_prompt_submit.json", repo, prompt="make 那条不要记了"
        )
        after = client.get_memory(memory_id)
    assert "did NOT change" in context_of(stdout, "UserPromptSubmit")
    assert [e.state for e in after.content.manifest.entries] == [
        e.state for e in before.content.manifest.entries
    ]


# -- turn outcomes --------------------------------------------------------------------------------


def test_stop_stores_a_working_note_once_per_turn(tmp_path: Path, served: Served) -> None:
    repo = make_repo(tmp_path / "repo").resolve()
    runtime = Runtime(tmp_path, f"127.0.0.1:{served.port}")
    runtime.run("bootstrap", cwd=repo)
    memory_id = runtime.memory_id(repo)
    (repo / "app.py").write_text("print('hello, docs')\n")  # an uncommitted change
    with Client(runtime.endpoint) as client:
        start = client.head(memory_id).revision
        assert runtime.hook("codex", "codex_stop.json", repo) == ("", "")
        after_first = client.head(memory_id).revision
        assert runtime.hook("codex", "codex_stop.json", repo)[0] == ""  # the same turn again
        assert client.head(memory_id).revision == after_first
        notes = [v for v in active_versions(client, memory_id) if v.kind == "working_note"]
        assert after_first == start + 1 and len(notes) == 1  # one mechanical working note
        (note,) = notes
        (uri,) = source_uris(client, note)
        assert uri == "codex://0199a1b2-codex-thread/turn-1"
        assert "Renamed the docs-test target" in note.text
        outcome = json.loads(client.get_source(note.source_refs[0].source_id).content)
        assert outcome["changed_paths"] == ["app.py"]
        assert outcome["git_head"] == git(repo, "rev-parse", "HEAD")
        # Claude Code: no turn id and no last_assistant_message -> the transcript's last text.
        transcript = tmp_path / "t.jsonl"
        transcript.write_text((HOOKS / "claude_transcript.jsonl").read_text())
        runtime.hook("claude", "claude_stop.json", repo, transcript_path=str(transcript))
        claude_rev = client.head(memory_id).revision
        runtime.hook("claude", "claude_stop.json", repo, transcript_path=str(transcript))
        runtime.hook(
            "claude",
            "claude_stop.json",
            repo,
            transcript_path=str(transcript),
            stop_hook_active=True,
        )
        assert client.head(memory_id).revision == claude_rev
        # Codex notify: the JSON as the last argument.
        runtime.hook("codex-notify", "codex_notify.json", repo)
        notify_rev = client.head(memory_id).revision
        runtime.hook("codex-notify", "codex_notify.json", repo)
        assert client.head(memory_id).revision == notify_rev
    sessions = runtime.manifest()["repos"][str(repo)]["sessions"]
    assert sessions["0199a1b2-codex-thread"] == ["turn:turn-1", "turn:turn-2"]
    assert len(sessions["9f3c2d1e-claude-session"]) == 1
    for version in active_versions(Client(runtime.endpoint), memory_id):
        if version.created_in_revision > start:  # only mechanical notes come from turns
            assert version.kind == "working_note"


def test_stop_in_a_repository_without_memory_creates_one_only_for_a_note(
    tmp_path: Path, served: Served
) -> None:
    repo = make_repo(tmp_path / "repo").resolve()
    runtime = Runtime(tmp_path, f"127.0.0.1:{served.port}")
    runtime.hook("claude", "claude_stop.json", repo, last_assistant_message="")
    assert runtime.manifest() == {"repos": {}}  # nothing to store: no memory, no manifest
    runtime.hook(
        "codex", "codex_stop.json", repo, last_assistant_message="Ran make test: 12 passed."
    )
    memory_id = runtime.memory_id(repo)  # recorded after the server created the memory
    with Client(runtime.endpoint) as client:
        assert {v.kind for v in active_versions(client, memory_id)} == {"working_note"}


# -- sync -----------------------------------------------------------------------------------------


def test_sync_revises_exactly_the_entry_a_commit_changed(tmp_path: Path, served: Served) -> None:
    repo = make_repo(tmp_path / "repo").resolve()
    runtime = Runtime(tmp_path, f"127.0.0.1:{served.port}")
    runtime.run("bootstrap", cwd=repo)
    memory_id = runtime.memory_id(repo)
    assert "up to date" in runtime.run("sync", cwd=repo)
    (repo / "app.py").write_text("print('v2')\n")
    git(repo, "commit", "-q", "-am", "code only")
    assert "no evidence file changed" in runtime.run("sync", cwd=repo)
    with Client(runtime.endpoint) as client:
        before = {v.entry_id: v for v in active_versions(client, memory_id)}
        (repo / "Makefile").write_text(
            MAKEFILE.replace("uv run pytest docs", "uv run mkdocs build --strict")
        )
        git(repo, "commit", "-q", "-am", "docs-test builds the site strictly")
        head = git(repo, "rev-parse", "HEAD")
        out = runtime.run("sync", cwd=repo)
        assert "1 revised" in out and "added" not in out, out
        after = {v.entry_id: v for v in active_versions(client, memory_id)}
        changed = [e for e in after if after[e].entry_version_id != before[e].entry_version_id]
        assert len(changed) == 1 and set(after) == set(before)
        (entry,) = changed
        assert "mkdocs build --strict" in after[entry].text
        assert after[entry].previous_version_id == before[entry].entry_version_id
        uris = source_uris(client, after[entry])
        assert f"git://{head}" in uris and "repo://Makefile" in uris
    assert runtime.manifest()["repos"][str(repo)]["last_processed_commit"] == head
    assert "up to date" in runtime.run("sync", cwd=repo)
