"""The console on a server that checks tokens: the token is typed into a password field, kept in
sessionStorage, sent only as the Authorization header (never in a URL), and the server's
refusals (no token, a read-only token writing) are shown as they are."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from playwright import sync_api as playwright_api
from playwright.sync_api import expect

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

from ..serving import run_admin
from .conftest import Console, new_console, start_door_server

TEXT = "Deploys need a signed tag."


@dataclass
class Guarded:
    url: str
    tokens: dict[str, str]
    memory: types.ArtifactRef
    stub: pb_grpc.MemoryServiceStub

    def auth(self, scope: str) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.tokens[scope]}"),)


def create_token(database: Path, scope: str) -> str:
    done = run_admin(
        "tokens", "create", "--database", str(database), "--name", scope, "--scope", scope
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Guarded]:
    database = tmp_path_factory.mktemp("console-auth") / "memory.sqlite3"
    tokens = {scope: create_token(database, scope) for scope in ("read", "write")}
    process, port = start_door_server(database)
    channel = grpc.insecure_channel(f"127.0.0.1:{process.port}")
    try:
        stub = pb_grpc.MemoryServiceStub(channel)
        write = (("authorization", f"Bearer {tokens['write']}"),)
        request_entries = [types.EntryInput(kind="decision", text=TEXT)]
        memory = _remember_with(stub, request_entries, write)
        yield Guarded(f"http://127.0.0.1:{port}/", tokens, memory, stub)
    finally:
        channel.close()
        assert process.stop() == 0


def _remember_with(
    stub: pb_grpc.MemoryServiceStub, entries: list[types.EntryInput], metadata: object
) -> types.ArtifactRef:
    answer = stub.Remember(
        pb.RememberRequest(entries=entries, mode=pb.REMEMBER_MODE_APPEND), metadata=metadata
    )
    return answer.memory


@pytest.fixture
def guarded_console(browser: playwright_api.Browser, guarded: Guarded) -> Iterator[Console]:
    context, opened = new_console(browser, guarded.url)
    try:
        yield opened
        opened.assert_clean()
    finally:
        context.close()


def use_token(console: Console, token: str) -> None:
    console.page.get_by_label("Token").fill(token)
    console.page.get_by_role("button", name="Use").click()
    expect(console.page.locator("#token-state")).to_have_text("token set for this tab")


def test_without_a_token_the_refusal_says_to_paste_one(
    guarded_console: Console, guarded: Guarded
) -> None:
    guarded_console.open(f"#/m/{guarded.memory.artifact_id}")
    error = guarded_console.page.locator(".error")
    expect(error).to_contain_text("UNAUTHENTICATED TOKEN_MISSING")
    expect(error).to_contain_text("paste one in the Token field")


def test_a_read_token_reads_but_its_write_is_refused(
    guarded_console: Console, guarded: Guarded
) -> None:
    page = guarded_console.page
    sent: list[str | None] = []
    page.on("request", lambda request: sent.append(request.headers.get("authorization")))
    guarded_console.open(f"#/m/{guarded.memory.artifact_id}")
    use_token(guarded_console, guarded.tokens["read"])
    expect(page.locator("article.entry")).to_contain_text(TEXT)
    assert page.get_by_label("Token").input_value() == ""  # not left in the field
    assert guarded.tokens["read"] not in page.url
    stored = page.evaluate("sessionStorage.getItem('powercontext.console.token')")
    assert stored == guarded.tokens["read"]
    assert f"Bearer {guarded.tokens['read']}" in sent
    page.locator("article.entry").get_by_role("button", name="Forget").click()
    dialog = page.locator("dialog.curation")
    dialog.get_by_role("button", name="Forget").click()
    expect(dialog.locator(".error")).to_contain_text("PERMISSION_DENIED SCOPE_REQUIRED")
    expect(dialog.locator(".error")).to_contain_text("write-scope token")


def test_a_refusal_begun_before_the_token_never_answers_for_it(
    guarded_console: Console, guarded: Guarded
) -> None:
    """The tokenless load is held until the token is set; its late refusal must not win."""
    page = guarded_console.page
    held: list[playwright_api.Route] = []

    def hold_the_first(route: playwright_api.Route) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route("**/powercontext.memory.v1.MemoryService/GetMemory", hold_the_first)
    guarded_console.open(f"#/m/{guarded.memory.artifact_id}")
    for _ in range(500):  # the route handler runs while Playwright waits
        if held:
            break
        page.wait_for_timeout(20)
    assert held, "the console never asked for the memory"
    use_token(guarded_console, guarded.tokens["read"])
    expect(page.locator("article.entry")).to_contain_text(TEXT)
    held[0].continue_()  # the tokenless call (aborted with its session) is let go now
    expect(page.locator("article.entry")).to_contain_text(TEXT)
    expect(page.locator(".error")).to_have_count(0)


def test_a_write_token_curates_and_clear_forgets_it(
    guarded_console: Console, guarded: Guarded
) -> None:
    page = guarded_console.page
    memory = _remember_with(
        guarded.stub, [types.EntryInput(kind="fact", text="Forget me.")], guarded.auth("write")
    )
    guarded_console.open(f"#/m/{memory.artifact_id}")
    use_token(guarded_console, guarded.tokens["write"])
    page.locator("article.entry").get_by_role("button", name="Forget").click()
    dialog = page.locator("dialog.curation")
    dialog.get_by_role("button", name="Forget").click()
    expect(dialog.locator(".done")).to_contain_text("Committed revision 2")
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Clear").click()
    assert page.evaluate("sessionStorage.getItem('powercontext.console.token')") is None
    expect(page.locator(".error")).to_contain_text("UNAUTHENTICATED")
