"""The runtime's local parts, without a server: the manifest under concurrent processes, hook
payloads (the fixtures in tests/data/hooks), transcripts, the instruction triggers, and
`powercontext setup` merging host settings (idempotent, backups, the user's settings kept)."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import subprocess
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client.runtime import hooks, host_checks, settings
from powercontext_client.runtime.calls import Deadline
from powercontext_client.runtime.events import (
    PayloadError,
    parse_hook,
    parse_notify,
    split_injected,
)
from powercontext_client.runtime.findings import TRUST
from powercontext_client.runtime.manifest import RuntimeManifest
from powercontext_client.runtime.transcript import last_assistant_text
from powercontext_client.runtime.triggers import is_explicit_instruction

from ..serving import CLIENT_COMMAND, server_env

HOOKS = Path(__file__).resolve().parents[1] / "data" / "hooks"


def _mark(path: str, worker: int) -> None:
    manifest = RuntimeManifest(Path(path))
    for turn in range(20):
        manifest.mark_turn("/repo", f"session-{worker}", f"turn-{turn}")


def test_manifest_keeps_every_update_of_concurrent_processes(tmp_path: Path) -> None:
    manifest = RuntimeManifest(tmp_path / "runtime.json")
    assert manifest.repo("/repo") is None
    with pytest.raises(LookupError):
        manifest.mark_turn("/repo", "s", "t")  # nothing recorded before a memory exists
    manifest.record_memory("/repo", "mem_art_1", endpoint="127.0.0.1:1", remote="git@x:y")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_mark, args=(str(manifest.path), w)) for w in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    state = manifest.repo("/repo")
    assert state is not None and state.memory_id == "mem_art_1"
    assert sorted(state.sessions) == [f"session-{w}" for w in range(4)]
    assert all(len(turns) == 20 for turns in state.sessions.values())
    assert not manifest.mark_turn("/repo", "session-0", "turn-3")  # already there
    manifest.record_commit("/repo", "abc123")
    assert manifest.repo("/repo").last_processed_commit == "abc123"  # type: ignore[union-attr]
    assert not list(tmp_path.glob(".runtime-*"))  # no temporary file left behind


def test_a_corrupt_manifest_reads_as_empty_and_is_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "runtime.json"
    path.write_text("{not json")
    manifest = RuntimeManifest(path)
    assert manifest.repo("/repo") is None
    manifest.record_memory("/repo", "mem_art_2")
    assert json.loads(path.read_text())["repos"]["/repo"]["memory_id"] == "mem_art_2"


def test_claude_and_codex_payloads_normalise_to_one_event() -> None:
    prompt = parse_hook("claude", (HOOKS / "claude_user_prompt_submit.json").read_text())
    assert (prompt.name, prompt.cwd, prompt.answers) == ("UserPromptSubmit", "/home/u/demo", True)
    assert prompt.prompt.startswith("改文档时")
    sub = parse_hook("claude", (HOOKS / "claude_subagent_stop.json").read_text())
    assert sub.transcript_path.endswith("agent-a1b2c3.jsonl") and sub.agent_id == "a1b2c3"
    stop = parse_hook("codex", (HOOKS / "codex_stop.json").read_text())
    assert (stop.turn_id, stop.transcript_path, stop.answers) == ("turn-1", "", False)
    assert stop.last_assistant_message.startswith("Renamed")
    notify = parse_notify((HOOKS / "codex_notify.json").read_text())
    assert notify is not None and (
        notify.name,
        notify.session_id,
        notify.turn_id,
        notify.notify,
    ) == (
        "Stop",
        "0199a1b2-codex-thread",
        "turn-2",
        True,
    )
    assert parse_notify('{"type": "approval-requested"}') is None
    with pytest.raises(PayloadError):
        parse_hook("claude", "not json")
    with pytest.raises(PayloadError):
        parse_hook("claude", '{"session_id": "s"}')


def test_last_assistant_text_of_a_transcript(tmp_path: Path) -> None:
    assert last_assistant_text(HOOKS / "claude_transcript.jsonl") == (
        "Fixed the broken link in docs/index.md; make docs-test passes (2 passed)."
    )
    assert last_assistant_text(tmp_path / "missing.jsonl") == ""
    assert last_assistant_text(None) == ""
    only_tools = tmp_path / "t.jsonl"
    only_tools.write_text('{"type":"assistant","message":{"role":"assistant","content":[]}}\nbad\n')
    assert last_assistant_text(only_tools) == ""


@pytest.mark.parametrize(
    ("prompt", "explicit"),
    [
        ("改文档时不用跑完整 make test，优先跑 make docs-test。", True),
        ("site/ 那条不要记了", True),
        ("Remember that releases are cut on Fridays.", True),
        ("From now on, use ruff format instead of black.", True),
        ("How do I run the tests here?", False),
        ("Fix the failing test in tests/test_api.py", False),
        ("rememberable", False),
        ("", False),
    ],
)
def test_explicit_instruction_triggers(prompt: str, explicit: bool) -> None:
    assert is_explicit_instruction(prompt) is explicit


def _setup(
    home: Path, cwd: Path, *args: str, program: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = server_env(
        {
            "HOME": str(home),
            "CODEX_HOME": str(home / ".codex"),
            "POWERCONTEXT_RUNTIME_HOME": str(home / "state"),
        }
    )
    given = ["--program", program] if program else []
    done = subprocess.run(
        [CLIENT_COMMAND, "setup", *args, *given],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git/" not in str(p)}


def test_setup_claude_project_writes_portable_files_and_records_the_endpoint(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    (repo / ".claude").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    mine = {
        "permissions": {"allow": ["Bash(make test)"]},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
    }
    (repo / ".claude" / "settings.json").write_text(json.dumps(mine))
    first = _setup(tmp_path, repo, "claude", "--project", "--endpoint", "127.0.0.1:6543").stdout
    assert "updated" in first and "created" in first  # settings.json updated, .mcp.json created
    assert f"recorded: endpoint 127.0.0.1:6543 for {repo}" in first
    merged = json.loads((repo / ".claude" / "settings.json").read_text())
    assert merged["permissions"] == mine["permissions"]
    stop = [h["command"] for g in merged["hooks"]["Stop"] for h in g["hooks"]]
    # The committed files name no machine path and no endpoint: those are the user's.
    assert stop == ["notify-send done", "powercontext hook claude"]
    assert set(merged["hooks"]) == set(settings.HOOK_EVENTS)
    mcp = json.loads((repo / ".mcp.json").read_text())
    assert mcp["mcpServers"]["powercontext"] == {
        "type": "stdio",
        "command": "powercontext",
        "args": ["mcp"],
    }
    manifest = RuntimeManifest(tmp_path / "state" / "runtime.json")
    assert manifest.preferred_endpoint(repo) == "127.0.0.1:6543"
    assert manifest.repo(repo) is None  # no memory yet: only the choice of endpoint
    backups = list((repo / ".claude").glob("settings.json.bak-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == mine
    before = _files(repo)
    second = _setup(tmp_path, repo, "claude", "--project").stdout
    assert "updated" not in second and "created" not in second
    assert _files(repo) == before  # nothing changed, no new backup


def test_setup_replaces_an_older_setups_absolute_path_in_place(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    old = "/home/someone/.venv/bin/powercontext"
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(
        json.dumps(
            {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": f"{old} hook claude"}]}]}}
        )
    )
    (repo / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "powercontext": {"type": "stdio", "command": old, "args": ["mcp"]},
                    "docs": {"type": "stdio", "command": "docs-mcp", "args": []},
                }
            }
        )
    )
    _setup(tmp_path, repo, "claude")
    merged = json.loads((repo / ".claude" / "settings.json").read_text())
    assert [h["command"] for g in merged["hooks"]["Stop"] for h in g["hooks"]] == [
        "powercontext hook claude"
    ]
    servers = json.loads((repo / ".mcp.json").read_text())["mcpServers"]
    assert servers["powercontext"]["command"] == "powercontext"
    assert servers["docs"] == {"type": "stdio", "command": "docs-mcp", "args": []}
    # A server of the user's own under our name is theirs: never replaced.
    (repo / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"powercontext": {"command": "my-proxy", "args": []}}})
    )
    _setup(tmp_path, repo, "claude")
    mine = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["powercontext"]
    assert mine == {"command": "my-proxy", "args": []}


def test_setup_codex_user_edits_config_toml_keeping_comments(tmp_path: Path) -> None:
    codex = tmp_path / ".codex"
    codex.mkdir()
    original = (
        '# my settings\nmodel = "gpt-5-codex"  # the default model\n\n'
        "[features]\nweb_search = true\ncodex_hooks = true\n\n"
        '[mcp_servers.docs]\ncommand = "docs-mcp"\n'
    )
    (codex / "config.toml").write_text(original)
    out = _setup(
        tmp_path, tmp_path, "codex", "--user", "--endpoint", "10.0.0.5:50051",
        program="/opt/pc/bin/powercontext",
    ).stdout  # fmt: skip
    text = (codex / "config.toml").read_text()
    assert "# my settings" in text and "# the default model" in text
    config = tomllib.loads(text)
    assert config["model"] == "gpt-5-codex"
    assert config["features"] == {"web_search": True, "hooks": True}  # codex_hooks is gone
    assert config["mcp_servers"]["docs"] == {"command": "docs-mcp"}
    assert config["mcp_servers"]["powercontext"] == {
        "command": "/opt/pc/bin/powercontext",
        "args": ["mcp", "--endpoint", "10.0.0.5:50051"],
        "env_vars": list(settings.FORWARDED_ENV),
    }
    hooks = json.loads((codex / "hooks.json").read_text())["hooks"]
    assert sorted(hooks) == sorted(settings.CODEX_HOOK_EVENTS)
    assert hooks["Stop"][0]["hooks"][0]["command"] == (
        "/opt/pc/bin/powercontext hook codex --endpoint 10.0.0.5:50051"
    )
    assert [p.read_text() for p in codex.glob("config.toml.bak-*")] == [original]
    assert "Trust all and continue" in out and "powercontext doctor codex" in out
    before = (codex / "config.toml").read_text(), (codex / "hooks.json").read_text()
    again = _setup(
        tmp_path, tmp_path, "codex", "--user", "--endpoint", "10.0.0.5:50051",
        program="/opt/pc/bin/powercontext",
    ).stdout  # fmt: skip
    assert "updated" not in again
    assert ((codex / "config.toml").read_text(), (codex / "hooks.json").read_text()) == before


def test_codex_toml_is_extended_even_inline_and_refused_when_broken() -> None:
    inline = settings.merge_codex_toml(
        'mcp_servers = { docs = { command = "d" } }\n', "pc", ["mcp"]
    )
    servers = tomllib.loads(inline)["mcp_servers"]
    assert servers["docs"] == {"command": "d"} and servers["powercontext"]["args"] == ["mcp"]
    with pytest.raises(settings.SetupError):
        settings.merge_codex_toml("[broken\n", "pc", ["mcp"])
    with pytest.raises(settings.SetupError):
        settings.merge_codex_toml("features = 3\n", "pc", ["mcp"])
    flipped = settings.merge_codex_toml("[features]\ncodex_hooks = false\n", "pc", ["mcp"])
    assert tomllib.loads(flipped)["features"] == {"hooks": True}


@pytest.mark.parametrize(
    ("prompt", "host_made"),
    [
        ("<system-reminder> [SYSTEM NOTIFICATION] Background agent finished.", True),
        ("  <task-notification>the task ended</task-notification>", True),
        ("Remember that we use ruff.", False),
        ("Why does <system-reminder> appear in my logs?", False),
    ],
)
def test_prompts_the_host_wrote_are_not_the_users(prompt: str, host_made: bool) -> None:
    assert hooks.is_host_notification(prompt) is host_made


def test_setup_files_are_never_the_agents_work() -> None:
    assert [p for p in (".claude/settings.json", ".codex/hooks.json", ".mcp.json",
                        ".mcp.json.bak-20261204-101010", "src/app.py", "docs/.claude.md",
                        ".claudeignore") if not hooks.is_setup_path(p)] == [
        "src/app.py", "docs/.claude.md", ".claudeignore"
    ]  # fmt: skip


def test_the_session_note_is_the_working_note_the_extract_wrote() -> None:
    response = pb.RememberResponse(
        results=[pb.EntryResult(entry_id="mem_ent_a"), pb.EntryResult(entry_id="mem_ent_b")],
        candidates=[
            types.EntryInput(kind="fact", text="f"),
            types.EntryInput(kind="working_note", text="n"),
        ],
    )
    assert hooks._working_note(response) == "mem_ent_b"
    assert hooks._working_note(pb.RememberResponse()) == "" and hooks._working_note(None) == ""


def test_the_manifest_keeps_each_sessions_note_and_the_chosen_endpoint(tmp_path: Path) -> None:
    manifest = RuntimeManifest(tmp_path / "runtime.json")
    manifest.record_endpoint("/repo", "10.0.0.5:50051")
    assert (
        manifest.preferred_endpoint("/repo") == "10.0.0.5:50051" and manifest.repo("/repo") is None
    )
    with pytest.raises(LookupError):
        manifest.record_note("/repo", "s1", "mem_ent_x")  # no memory yet: nothing to note
    manifest.record_memory("/repo", "mem_art_1", endpoint="local")
    manifest.record_note("/repo", "s1", "mem_ent_x")
    manifest.record_note("/repo", "s2", "mem_ent_y")
    state = manifest.repo("/repo")
    assert state is not None and state.notes == {"s1": "mem_ent_x", "s2": "mem_ent_y"}
    assert state.endpoint == "local"
    manifest.record_endpoint("/repo", "")
    assert manifest.preferred_endpoint("/repo") == ""


def test_setup_removes_our_hooks_from_events_that_need_none(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    ours = {"type": "command", "command": "powercontext hook claude"}
    theirs = {"type": "command", "command": "notify-send compacting"}
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "SubagentStop": [{"hooks": [ours]}],
                    "PreCompact": [{"hooks": [ours, theirs]}],
                    "SessionEnd": [{"matcher": "", "hooks": [ours]}],
                }
            }
        )
    )
    _setup(tmp_path, repo, "claude")
    hooks = json.loads((repo / ".claude" / "settings.json").read_text())["hooks"]
    assert sorted(hooks) == sorted(["PreCompact", *settings.HOOK_EVENTS])
    assert hooks["PreCompact"] == [{"hooks": [theirs]}]  # the user's hook stays


# -- Gemini CLI ------------------------------------------------------------------------------------


def _gemini(fixture: str, **changes: object) -> str:
    return json.dumps({**json.loads((HOOKS / fixture).read_text()), **changes})


def test_gemini_payloads_normalise_onto_the_runtimes_events() -> None:
    """The fixtures are what Gemini CLI 0.61 sent headless (tests/hosts): BeforeAgent's and
    AfterAgent's prompt start with the SessionStart context Gemini put before the user's words."""
    start = parse_hook("gemini", (HOOKS / "gemini_session_start.json").read_text())
    assert (start.name, start.host_event, start.source, start.answers) == (
        "SessionStart", "SessionStart", "startup", True
    )  # fmt: skip
    assert start.cwd == "/home/u/demo" and start.transcript_path == ""
    prompt = parse_hook("gemini", (HOOKS / "gemini_before_agent.json").read_text())
    assert (prompt.name, prompt.host_event, prompt.answers) == (
        "UserPromptSubmit", "BeforeAgent", True
    )  # fmt: skip
    assert prompt.prompt == "What do we run to validate?"
    assert prompt.shown.startswith("<memory-notes>\nRemembered notes")
    assert prompt.shown.rstrip().endswith("</memory-notes>") and "&lt;" not in prompt.shown
    stop = parse_hook("gemini", (HOOKS / "gemini_after_agent.json").read_text())
    assert (stop.name, stop.host_event, stop.answers, stop.stop_hook_active) == (
        "Stop", "AfterAgent", False, False
    )  # fmt: skip
    assert stop.last_assistant_message == "make test is the validation step."
    assert stop.prompt == "What do we run to validate?"
    end = parse_hook("gemini", (HOOKS / "gemini_session_end.json").read_text())
    assert (end.name, end.answers) == ("SessionEnd", False)  # not ours: nothing to do
    silent = parse_hook(
        "gemini", _gemini("gemini_after_agent.json", prompt_response="[no response text]")
    )
    assert silent.last_assistant_message == ""
    typed = "Why does <hook_context> appear in the log?"
    assert parse_hook("gemini", _gemini("gemini_before_agent.json", prompt=typed)).prompt == typed


def test_each_host_is_answered_in_its_own_words() -> None:
    gemini = parse_hook("gemini", (HOOKS / "gemini_before_agent.json").read_text())
    assert json.loads(hooks.answer(gemini, "<memory-notes>x</memory-notes>")) == {
        "hookSpecificOutput": {
            "hookEventName": "BeforeAgent",
            "additionalContext": "<memory-notes>x</memory-notes>",
        }
    }
    claude = parse_hook("claude", (HOOKS / "claude_user_prompt_submit.json").read_text())
    assert json.loads(hooks.answer(claude, "ctx"))["hookSpecificOutput"]["hookEventName"] == (
        "UserPromptSubmit"
    )
    stop = parse_hook("gemini", (HOOKS / "gemini_after_agent.json").read_text())
    assert hooks.answer(stop, "ctx") == "" and hooks.answer(gemini, "") == ""


def test_a_gemini_turn_is_its_prompt_and_its_answer() -> None:
    """AfterAgent has no turn id: the same answer to another prompt is another turn, the same
    stop twice is one (Claude Code's Stop, without a prompt, keys on the report alone)."""
    stop = parse_hook("gemini", (HOOKS / "gemini_after_agent.json").read_text())
    again = parse_hook("gemini", (HOOKS / "gemini_after_agent.json").read_text())
    other = parse_hook("gemini", _gemini("gemini_after_agent.json", prompt="And now?"))
    report = stop.last_assistant_message
    assert hooks._turn_key(stop, report) == hooks._turn_key(again, report)
    assert hooks._turn_key(stop, report) != hooks._turn_key(other, report)
    claude = parse_hook("claude", (HOOKS / "claude_stop.json").read_text())
    digest = hashlib.sha256(b"Done.").hexdigest()[:32]
    assert hooks._turn_key(claude, "Done.") == f"report:{digest}"


class _Prepared:
    def __init__(self, block: str) -> None:
        self.block = block
        self.queries: list[str] = []

    def __enter__(self) -> _Prepared:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def prepare_context(self, memory_id: str, query: str, budget: int) -> SimpleNamespace:
        self.queries.append(query)
        return SimpleNamespace(block=self.block)


def test_a_block_gemini_already_put_before_the_prompt_is_not_sent_again(tmp_path: Path) -> None:
    repo = tmp_path / "demo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    manifest = RuntimeManifest(tmp_path / "runtime.json")
    manifest.record_memory(str(repo.resolve()), "mem_art_1")
    payload = json.loads((HOOKS / "gemini_before_agent.json").read_text())
    shown, _ = split_injected(payload["prompt"])
    calls = _Prepared(shown)
    runner = hooks.HookRunner(manifest, Deadline(5.0), lambda endpoint: calls)  # type: ignore[arg-type, return-value]
    event = parse_hook("gemini", json.dumps({**payload, "cwd": str(repo)}))
    assert runner.handle(event) == ""  # the very block SessionStart's context already holds
    assert calls.queries == ["What do we run to validate?"]  # asked with the user's words
    calls.block = shown.replace(
        "</memory-notes>", "- [fact] make check runs ruff.\n</memory-notes>"
    )
    assert runner.handle(event) == calls.block  # more than what was shown: sent


def test_setup_gemini_project_merges_into_settings_json_portably(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".gemini").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    theirs = {"type": "command", "command": "notify-send done", "name": "notify"}
    old = "/home/someone/.venv/bin/powercontext hook gemini"
    mine = {
        "general": {"vimMode": True},
        "hooks": {
            "AfterAgent": [{"hooks": [theirs]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": old}]}],
            "BeforeAgent": [{"matcher": "", "hooks": [{"type": "command", "command": old}]}],
        },
        "mcpServers": {"docs": {"command": "docs-mcp", "args": []}},
    }
    path = repo / ".gemini" / "settings.json"
    path.write_text(json.dumps(mine))
    out = _setup(tmp_path, repo, "gemini", "--endpoint", "127.0.0.1:6543").stdout
    assert f"updated: {path} (backup" in out and 'choose "Trust folder"' in out
    assert "powercontext doctor gemini" in out
    merged = json.loads(path.read_text())
    assert merged["general"] == {"vimMode": True}
    hooks_ = merged["hooks"]
    assert sorted(hooks_) == sorted(settings.GEMINI_HOOK_EVENTS)  # ours left SessionEnd
    ours = {"type": "command", "command": "powercontext hook gemini", "name": "powercontext",
            "timeout": 10_000}  # fmt: skip
    assert hooks_["AfterAgent"] == [{"hooks": [theirs]}, {"hooks": [ours]}]
    assert hooks_["SessionStart"] == [{"hooks": [ours]}]
    # An older setup's hook is brought up to date where it stands.
    assert hooks_["BeforeAgent"][0]["hooks"][0]["command"] == "powercontext hook gemini"
    assert merged["mcpServers"] == {
        "docs": {"command": "docs-mcp", "args": []},
        "powercontext": {"command": "powercontext", "args": ["mcp"]},
    }
    manifest = RuntimeManifest(tmp_path / "state" / "runtime.json")
    assert manifest.preferred_endpoint(repo) == "127.0.0.1:6543"
    assert [json.loads(p.read_text()) for p in path.parent.glob("settings.json.bak-*")] == [mine]
    before = _files(repo)
    assert "unchanged" in _setup(tmp_path, repo, "gemini").stdout
    assert _files(repo) == before


def test_setup_gemini_user_and_hooks_turned_off(tmp_path: Path) -> None:
    home = tmp_path / "gemini-home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text('{"hooksConfig": {"enabled": false}}')
    changes = settings.setup_gemini(
        project=None, gemini_home=home, program="/opt/pc/bin/powercontext", endpoint="10.0.0.5:1"
    )
    assert [c.what for c in changes] == ["updated"]
    written = json.loads((home / ".gemini" / "settings.json").read_text())
    assert written["hooksConfig"] == {"enabled": False}  # the user's choice: reported, kept
    assert written["hooks"]["AfterAgent"][0]["hooks"][0]["command"] == (
        "/opt/pc/bin/powercontext hook gemini --endpoint 10.0.0.5:1"
    )
    assert written["mcpServers"]["powercontext"] == {
        "command": "/opt/pc/bin/powercontext",
        "args": ["mcp", "--endpoint", "10.0.0.5:1"],
    }
    advice = "\n".join(settings.gemini_advice(None, home))
    assert "hooksConfig.enabled: false" in advice and "in each repository" in advice


def test_doctor_reads_geminis_folder_trust_as_gemini_does(tmp_path: Path) -> None:
    repo = tmp_path / "src" / "demo"
    repo.mkdir(parents=True)
    level = host_checks._gemini_trust_level
    assert level({str(repo): "TRUST_FOLDER"}, repo) == "TRUST_FOLDER"
    assert level({str(repo / "x"): "TRUST_PARENT"}, repo) == "TRUST_PARENT"  # its parent
    assert level({str(tmp_path): "TRUST_FOLDER", str(repo): "DO_NOT_TRUST"}, repo) == (
        "DO_NOT_TRUST"
    )  # the longest rule wins
    assert level({str(tmp_path / "src" / "dem"): "TRUST_FOLDER"}, repo) == ""
    gemini_dir = tmp_path / "home" / ".gemini"
    gemini_dir.mkdir(parents=True)
    context = host_checks.HostContext(repo, {"GEMINI_CLI_HOME": str(tmp_path / "home")})
    untrusted = host_checks._gemini_trust(context, repo)
    assert (untrusted.ok, untrusted.klass) == (False, TRUST)
    assert 'choose "Trust folder"' in untrusted.fix
    (gemini_dir / "trustedFolders.json").write_text(json.dumps({str(repo): "TRUST_FOLDER"}))
    assert host_checks._gemini_trust(context, repo).ok
    (gemini_dir / "trustedFolders.json").write_text("{}")
    (gemini_dir / "settings.json").write_text('{"security": {"folderTrust": {"enabled": false}}}')
    assert host_checks._gemini_trust(context, repo).ok
