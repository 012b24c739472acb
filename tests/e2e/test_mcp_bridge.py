"""The MCP bridge (`powercontext mcp`) against a real server: the SDK's own in-process client
lists and calls every tool; errors come back as tool errors naming the service's reason; the
default memory is the runtime manifest's for the working directory's repository; and the real
command speaks MCP over stdio to the SDK's stdio client."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult

from powercontext_client import AsyncClient, new_entry
from powercontext_client.mcp_bridge import Workspace, build_server
from powercontext_client.runtime.manifest import RuntimeManifest
from powercontext_memory.transport.server import RunningServer

from ..serving import CLIENT_COMMAND, server_env

READERS = {
    "search_memory",
    "expand_citation",
    "recent_changes",
    "prepare_context",
    "recall_manifest",
    "list_entries",
    "preview_restore",
}
WRITERS = {
    "remember",
    "revise_entry",
    "forget_entry",
    "reactivate_entry",
    "merge_entries",
    "restore_entry",
    "undo_merge",
}


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path.resolve()


@pytest.fixture
async def client(server: RunningServer) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(f"127.0.0.1:{server.port}") as connected:
        yield connected


@pytest.fixture
def manifest(tmp_path: Path) -> RuntimeManifest:
    return RuntimeManifest(tmp_path / "state" / "runtime.json")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return git_repo(tmp_path / "repo")


def bridge(client: AsyncClient, directory: Path, manifest: RuntimeManifest) -> Client:
    """The SDK's in-process client on the bridge (entered inside each test: its task group
    must be left in the task that entered it, which an async fixture's teardown is not)."""
    return Client(build_server(client, Workspace(directory, manifest)))


async def call(mcp: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A successful call's structured content (its readable text is checked where it says
    something the structure does not)."""
    result = await mcp.call_tool(tool, arguments)
    assert not result.is_error, _text(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def fails(mcp: Client, tool: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    result = await mcp.call_tool(tool, arguments)
    assert result.is_error, _text(result)
    text = _text(result)
    assert "Traceback" not in text
    assert isinstance(result.structured_content, dict)
    return text, result.structured_content


def _text(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def test_lists_the_tools_with_hints_and_schemas(
    client: AsyncClient, repo: Path, manifest: RuntimeManifest
) -> None:
    async with bridge(client, repo, manifest) as mcp:
        listed = (await mcp.list_tools()).tools
    tools = {tool.name: tool for tool in listed}
    assert set(tools) == READERS | WRITERS
    for name, tool in tools.items():
        hints = tool.annotations
        assert hints is not None and hints.open_world_hint is False
        assert hints.read_only_hint is (name in READERS), name
        assert tool.description and tool.output_schema, name
        assert tool.input_schema["type"] == "object"
    hints = {name: tool.annotations for name, tool in tools.items() if tool.annotations}
    assert all(hints[name].idempotent_hint for name in READERS)
    assert hints["forget_entry"].destructive_hint and hints["revise_entry"].destructive_hint
    assert hints["remember"].destructive_hint is False
    assert tools["remember"].input_schema["required"] == ["text"]
    assert tools["revise_entry"].input_schema["required"] == ["entry_id", "text"]
    assert tools["expand_citation"].input_schema["properties"]["citations"]["type"] == "array"
    mode = tools["search_memory"].input_schema["properties"]["mode"]
    assert mode["enum"] == ["auto", "fts", "vector", "hybrid"]
    output = tools["search_memory"].output_schema or {}
    assert output["properties"]["hits"]["type"] == "array"


async def test_every_tool_on_a_new_repository(
    client: AsyncClient, repo: Path, manifest: RuntimeManifest
) -> None:
    async with bridge(client, repo, manifest) as mcp:
        await _every_tool(mcp, client, repo, manifest)


async def _every_tool(
    mcp: Client, client: AsyncClient, repo: Path, manifest: RuntimeManifest
) -> None:
    # No memory yet: remember creates one and records it for the repository.
    first = await call(mcp, "remember", text="Builds use uv and Hatchling.", kind="fact")
    assert first["created_memory"] and first["recorded_in_manifest"]
    memory = first["memory"]
    recorded = manifest.repo(repo)
    assert recorded is not None and recorded.memory_id == memory
    # The next remember uses the recorded memory.
    second = await call(
        mcp, "remember", text="Run make check before review.", kind="constraint", reason="user"
    )
    assert (second["memory"], second["revision"], second["created_memory"]) == (memory, 2, False)
    [added] = second["entries"]
    assert added["outcome"] == "added"

    found = await call(mcp, "search_memory", query="review", mode="fts")
    assert found["memory"] == f"{memory}@2"
    [hit] = found["hits"]
    assert (hit["entry_id"], hit["kind"]) == (added["entry_id"], "constraint")

    expanded = await call(mcp, "expand_citation", citations=[hit["citation"]])
    [entry] = expanded["entries"]
    assert (entry["text"], entry["version"], entry["state"]) == (
        "Run make check before review.",
        1,
        "active",
    )
    [note] = entry["sources"]  # the agent's words, kept as the entry's evidence
    source = await client.get_source(note.split(":")[0])
    assert (source.kind, source.content) == ("agent_note", b"Run make check before review.")

    revised = await call(
        mcp,
        "revise_entry",
        entry_id=added["entry_id"],
        text="Run make check and make docs-test before review.",
        entry_version_id=added["entry_version_id"],
    )
    [outcome] = revised["entries"]
    assert outcome["outcome"] == "revised" and revised["revision"] == 3
    cite = f"{memory}@3/{added['entry_id']}/{outcome['entry_version_id']}"
    [v2] = (await call(mcp, "expand_citation", citations=[cite]))["entries"]
    assert (v2["version"], v2["previous_version_id"], v2["kind"]) == (
        2,
        added["entry_version_id"],
        "constraint",  # kept: no kind given
    )

    forgotten = await call(mcp, "forget_entry", entry_id=added["entry_id"], reason="obsolete")
    assert forgotten["changed"] and forgotten["changes"][0]["op"] == "deactivate"
    assert (await call(mcp, "search_memory", query="review", mode="fts"))["hits"] == []

    back = await call(mcp, "reactivate_entry", entry_id=added["entry_id"])
    assert back["revision"] == 5 and back["changes"][0]["op"] == "reactivate"
    assert len((await call(mcp, "search_memory", query="review", mode="fts"))["hits"]) == 1

    recent = await call(mcp, "recent_changes", limit=3)
    assert recent["head_revision"] == 5
    assert [r["revision"] for r in recent["revisions"]] == [5, 4, 3]
    ops = [(r["changes"][0]["op"], r["changes"][0]["text"]) for r in recent["revisions"]]
    assert ops == [
        ("reactivate", "Run make check and make docs-test before review."),
        ("deactivate", None),
        ("revise", "Run make check and make docs-test before review."),
    ]
    assert recent["revisions"][1]["changes"][0]["reason"] == "obsolete"
    since = await call(mcp, "recent_changes", since_revision=3)
    assert [r["revision"] for r in since["revisions"]] == [5, 4]

    context = await call(mcp, "prepare_context", query="how do I validate a change?")
    assert "Run make check and make docs-test before review." in context["block"]
    assert context["memories"] == [f"{memory}@5"]
    lines = {e["text"]: e for e in context["entries"]}
    assert lines["Run make check and make docs-test before review."]["section"] == "rules"
    # Each context line's citation verifies.
    citations = [e["citation"] for e in context["entries"]]
    assert len((await call(mcp, "expand_citation", citations=citations))["entries"]) == len(
        citations
    )


async def test_the_manifest_names_the_default_memory(
    client: AsyncClient, tmp_path: Path, manifest: RuntimeManifest
) -> None:
    repo = git_repo(tmp_path / "project")
    created = await client.remember(None, [new_entry("fact", "Docs live in site/.")])
    other = await client.remember(None, [new_entry("fact", "Docs live in docs/.")])
    manifest.record_memory(repo, created.memory.artifact_id)
    (repo / "pkg").mkdir()
    # A subdirectory of the repository finds the repository's memory.
    async with bridge(client, repo / "pkg", manifest) as mcp:
        [hit] = (await call(mcp, "search_memory", query="docs"))["hits"]
        assert hit["text"] == "Docs live in site/."
        # An explicit memory wins over the manifest.
        given = other.memory.artifact_id
        [hit] = (await call(mcp, "search_memory", query="docs", memory=given))["hits"]
        assert hit["text"] == "Docs live in docs/."


async def test_concurrent_first_remembers_make_one_memory(
    client: AsyncClient, repo: Path, manifest: RuntimeManifest
) -> None:
    async with bridge(client, repo, manifest) as mcp:
        texts = [f"Fact number {n}." for n in range(4)]
        done = await asyncio.gather(*(call(mcp, "remember", text=text) for text in texts))
    assert sum(result["created_memory"] for result in done) == 1
    assert len({result["memory"] for result in done}) == 1
    recorded = manifest.repo(repo)
    assert recorded is not None and recorded.memory_id == done[0]["memory"]
    head = await client.get_memory(recorded.memory_id)
    assert (head.memory.revision, head.active_entries) == (4, 4)


async def test_errors_are_tool_errors_naming_the_reason(
    client: AsyncClient, repo: Path, tmp_path: Path, manifest: RuntimeManifest
) -> None:
    async with bridge(client, repo, manifest) as mcp:
        await _service_errors(mcp)
    # Outside any git repository there is no default memory and none is created.
    outside = tmp_path / "outside"
    outside.mkdir()
    async with bridge(client, outside, manifest) as bare:
        text, error = await fails(bare, "search_memory", query="pytest")
        assert error["reason"] == "NO_MEMORY" and str(outside) in text
        text, error = await fails(bare, "remember", text="Tests run with pytest.")
        assert error["reason"] == "NO_MEMORY" and "not in a git repository" in text
    assert [state.root for state in manifest.repos()] == [str(repo)]  # nothing for outside


async def _service_errors(mcp: Client) -> None:
    made = await call(mcp, "remember", text="Tests run with pytest.")
    memory, entry = made["memory"], made["entries"][0]
    await call(mcp, "revise_entry", entry_id=entry["entry_id"], text="Tests run with pytest -q.")

    # A write on a revision that is no longer the head.
    text, error = await fails(mcp, "remember", text="Lint with ruff.", memory=f"{memory}@1")
    assert text.startswith("REVISION_CONFLICT (ABORTED): ") and "[head 2]" in text
    assert (error["reason"], error["metadata"]["headRevision"]) == ("REVISION_CONFLICT", "2")
    # A revise of a version someone else already revised.
    text, error = await fails(
        mcp,
        "revise_entry",
        entry_id=entry["entry_id"],
        text="Tests run with tox.",
        entry_version_id=entry["entry_version_id"],
    )
    assert text.startswith("ENTRY_VERSION_STALE (FAILED_PRECONDITION): ")
    text, _ = await fails(mcp, "forget_entry", entry_id="mem_ent_nope")
    assert text.startswith("ENTRY_NOT_IN_MEMORY (NOT_FOUND): ")
    text, _ = await fails(mcp, "search_memory", query="x", memory="mem_art_nope")
    assert text.startswith("MEMORY_NOT_FOUND (NOT_FOUND): ")
    bad = f"{memory}@2/{entry['entry_id']}/{entry['entry_version_id']}"  # v1 is not in @2
    text, _ = await fails(mcp, "expand_citation", citations=[bad])
    assert text.startswith("CITATION_MISMATCH (NOT_FOUND): ")
    text, _ = await fails(mcp, "search_memory", query="x", memory=f"{memory}@x")
    assert text.startswith("INVALID_MEMORY_REF (INVALID_ARGUMENT): ")
    text, _ = await fails(mcp, "expand_citation", citations=["not-a-citation"])
    assert text.startswith("INVALID_CITATION (INVALID_ARGUMENT): ")
    text, _ = await fails(mcp, "remember", text="x", kind="not a kind!")
    assert text.startswith("INVALID_KIND (INVALID_ARGUMENT): ") and "entries[0].kind" in text


async def test_powercontext_mcp_over_stdio(
    server: RunningServer, client: AsyncClient, tmp_path: Path
) -> None:
    """The real command, started the way an agent host starts it, in the repository."""
    repo = git_repo(tmp_path / "repo")
    home = tmp_path / "state"
    created = await client.remember(None, [new_entry("fact", "Releases are tagged vX.Y.Z.")])
    RuntimeManifest(home / "runtime.json").record_memory(repo, created.memory.artifact_id)
    endpoint = f"127.0.0.1:{server.port}"
    env = server_env({"POWERCONTEXT_ENDPOINT": endpoint, "POWERCONTEXT_RUNTIME_HOME": str(home)})
    command = StdioServerParameters(command=CLIENT_COMMAND, args=["mcp"], env=env, cwd=repo)
    async with Client(command) as mcp:
        assert mcp.server_info is not None and mcp.server_info.name == "powercontext"
        names = {tool.name for tool in (await mcp.list_tools()).tools}
        assert names == READERS | WRITERS
        [hit] = (await call(mcp, "search_memory", query="releases tagged"))["hits"]
        assert hit["text"] == "Releases are tagged vX.Y.Z."


async def test_powercontext_mcp_over_streamable_http(
    server: RunningServer, client: AsyncClient, tmp_path: Path
) -> None:
    created = await client.remember(None, [new_entry("fact", "Docs build with mkdocs.")])
    with socket.socket() as probe:  # a free port for the bridge to listen on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = server_env({"POWERCONTEXT_ENDPOINT": f"127.0.0.1:{server.port}"})
    args = ["mcp", "--transport", "streamable-http", "--host", "127.0.0.1", "--port", str(port)]
    process = await asyncio.create_subprocess_exec(
        CLIENT_COMMAND, *args, env=env, cwd=tmp_path, stderr=asyncio.subprocess.PIPE
    )
    try:
        assert process.stderr is not None
        while b"Uvicorn running on" not in (line := await process.stderr.readline()):
            assert line, "powercontext mcp exited before listening"
        async with Client(f"http://127.0.0.1:{port}/mcp") as mcp:
            memory = created.memory.artifact_id
            [hit] = (await call(mcp, "search_memory", query="mkdocs", memory=memory))["hits"]
            assert hit["text"] == "Docs build with mkdocs."
    finally:
        process.terminate()
        await process.wait()


def test_the_cli_starts_without_the_sdk_and_names_the_missing_extra() -> None:
    """Other commands never import the SDK; without it, `mcp` fails with one line."""
    probe = (
        "import sys\n"
        "from powercontext_client.cli import build_parser\n"
        "build_parser()\n"
        "assert 'mcp' not in sys.modules, 'the CLI imported the MCP SDK'\n"
        "sys.modules['mcp'] = None  # as if the extra were not installed\n"
        "from powercontext_client.cli import main\n"
        "sys.exit(main(['mcp']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, env=server_env()
    )
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("error: powercontext mcp needs the mcp extra: ")
    assert "pip install 'powercontext-memory[mcp]'" in line
