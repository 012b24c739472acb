"""The runtime's local parts, without a server: the manifest under concurrent processes, hook
payloads (the fixtures in tests/data/hooks), transcripts, the instruction triggers, and
`powercontext setup` merging host settings (idempotent, backups, the user's settings kept)."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import tomllib
from pathlib import Path

import pytest

from powercontext_client.runtime import settings
from powercontext_client.runtime.events import PayloadError, parse_hook, parse_notify
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


def _setup(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = server_env({"HOME": str(home), "CODEX_HOME": str(home / ".codex")})
    done = subprocess.run(
        [CLIENT_COMMAND, "setup", *args, "--program", "/opt/pc/bin/powercontext"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_setup_claude_merges_idempotently_with_backups(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".claude").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    mine = {
        "permissions": {"allow": ["Bash(make test)"]},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
    }
    (repo / ".claude" / "settings.json").write_text(json.dumps(mine))
    first = _setup(tmp_path, repo, "claude", "--project").stdout
    assert "updated" in first and "created" in first  # settings.json updated, .mcp.json created
    merged = json.loads((repo / ".claude" / "settings.json").read_text())
    assert merged["permissions"] == mine["permissions"]
    stop = [h["command"] for g in merged["hooks"]["Stop"] for h in g["hooks"]]
    assert stop == ["notify-send done", "/opt/pc/bin/powercontext hook claude"]
    assert set(merged["hooks"]) == set(settings.HOOK_EVENTS)
    mcp = json.loads((repo / ".mcp.json").read_text())
    assert mcp["mcpServers"]["powercontext"]["args"] == ["mcp"]
    backups = list((repo / ".claude").glob("settings.json.bak-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == mine
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git/" not in str(p)}
    second = _setup(tmp_path, repo, "claude", "--project").stdout
    assert "updated" not in second and "created" not in second
    after = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git/" not in str(p)}
    assert after == before  # nothing changed, no new backup


def test_setup_codex_edits_config_toml_and_hooks_json(tmp_path: Path) -> None:
    codex = tmp_path / ".codex"
    codex.mkdir()
    original = (
        'model = "gpt-5-codex"\n\n[features]\nweb_search = true\n\n'
        '[mcp_servers.docs]\ncommand = "docs-mcp"\n'
    )
    (codex / "config.toml").write_text(original)
    _setup(tmp_path, tmp_path, "codex", "--user")
    config = tomllib.loads((codex / "config.toml").read_text())
    assert config["model"] == "gpt-5-codex" and config["features"] == {
        "web_search": True,
        "codex_hooks": True,
    }
    assert config["mcp_servers"]["docs"] == {"command": "docs-mcp"}
    assert config["mcp_servers"]["powercontext"] == {
        "command": "/opt/pc/bin/powercontext",
        "args": ["mcp"],
    }
    hooks = json.loads((codex / "hooks.json").read_text())["hooks"]
    assert sorted(hooks) == sorted(settings.CODEX_HOOK_EVENTS)
    assert hooks["Stop"][0]["hooks"][0]["command"] == "/opt/pc/bin/powercontext hook codex"
    assert [p.read_text() for p in codex.glob("config.toml.bak-*")] == [original]
    before = (codex / "config.toml").read_text(), (codex / "hooks.json").read_text()
    assert "updated" not in _setup(tmp_path, tmp_path, "codex", "--user").stdout
    assert ((codex / "config.toml").read_text(), (codex / "hooks.json").read_text()) == before


def test_codex_toml_that_cannot_be_extended_safely_is_refused() -> None:
    with pytest.raises(settings.SetupError):
        settings.merge_codex_toml('mcp_servers = { docs = { command = "d" } }\n', "pc")
    with pytest.raises(settings.SetupError):
        settings.merge_codex_toml("[broken\n", "pc")
    flipped = settings.merge_codex_toml("[features]\ncodex_hooks = false\n", "pc")
    assert tomllib.loads(flipped)["features"]["codex_hooks"] is True
