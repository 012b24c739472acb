"""The HTTP door's pure checks: which Host and Origin headers pass, which paths name a console
file, and what `--http-listen` means next to `--listen`."""

from __future__ import annotations

from pathlib import Path

import pytest

from powercontext_memory.http_door.address import (
    DoorAddress,
    checked_listen,
    door_address,
    listening_socket,
    shown_host,
)
from powercontext_memory.http_door.security import host_allowed, same_origin, split_host
from powercontext_memory.http_door.static import content_type, static_file


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:50080", True),
        ("127.0.0.1", True),
        ("[::1]:50080", True),
        ("192.168.1.20:50080", True),  # an IP address cannot be rebound
        ("localhost:50080", True),
        ("LOCALHOST.:50080", True),
        ("console.localhost:50080", True),
        ("memory.internal:50080", True),  # the listen host itself
        ("evil.example:50080", False),
        ("localhost.evil.example", False),
        ("127.0.0.1.nip.io:50080", False),
        ("", False),
        ("[::1", False),
        ("host:port", False),
    ],
)
def test_without_tokens_only_addresses_and_local_names_pass(host: str, allowed: bool) -> None:
    assert host_allowed(host, "memory.internal") is allowed


@pytest.mark.parametrize(
    ("origin", "host", "same"),
    [
        ("http://127.0.0.1:50080", "127.0.0.1:50080", True),
        ("http://LOCALHOST:50080", "localhost:50080", True),
        ("http://[::1]:50080", "[::1]:50080", True),
        ("https://memory.example", "memory.example", True),  # TLS ends at a proxy
        ("https://memory.example", "memory.example:443", True),
        ("http://127.0.0.1:50081", "127.0.0.1:50080", False),
        ("http://localhost:50080", "127.0.0.1:50080", False),
        ("http://evil.example", "127.0.0.1:50080", False),
        ("null", "127.0.0.1:50080", False),
        ("file://", "127.0.0.1:50080", False),
        ("http://127.0.0.1:99999", "127.0.0.1:50080", False),
    ],
)
def test_an_origin_is_the_doors_own_only_for_the_host_it_asked(
    origin: str, host: str, same: bool
) -> None:
    assert same_origin(origin, host) is same


def test_host_headers_split_with_default_ports() -> None:
    assert split_host("Example.COM", 80) == ("example.com", 80)
    assert split_host("[::1]:8080", 80) == ("::1", 8080)
    assert split_host("[::1]x", 80) is None


@pytest.fixture
def root(tmp_path: Path) -> Path:
    static = tmp_path / "static"
    (static / "modules").mkdir(parents=True)
    (static / "index.html").write_text("index")
    (static / "modules" / "view.js").write_text("view")
    (static / ".env").write_text("hidden")
    (tmp_path / "secret").write_text("secret")
    (static / "escape").symlink_to(tmp_path / "secret")
    return static


def test_paths_name_only_files_under_the_console_directory(root: Path) -> None:
    assert static_file(root, "/") == root / "index.html"
    assert static_file(root, "") == root / "index.html"
    assert static_file(root, "/modules/view.js") == root / "modules" / "view.js"
    assert static_file(root, "modules//view.js") == root / "modules" / "view.js"
    for path in ("/../secret", "/modules/../../secret", "/escape", "/.env", "/modules",
                 "/missing", "/modules\\..\\..\\secret", "/index.html\0"):  # fmt: skip
        assert static_file(root, path) is None, path
    assert static_file(root.parent / "absent", "/") is None


def test_content_types_are_explicit() -> None:
    assert content_type(Path("a.js")) == "text/javascript; charset=utf-8"
    assert content_type(Path("A.CSS")) == "text/css; charset=utf-8"
    assert content_type(Path("a.html")) == "text/html; charset=utf-8"
    assert content_type(Path("a.svg")) == "image/svg+xml"
    assert content_type(Path("a.exe")) == "application/octet-stream"
    assert content_type(Path("README")) == "application/octet-stream"


def test_auto_is_50080_or_a_free_port_next_to_a_free_grpc_port() -> None:
    assert door_address("auto", "127.0.0.1:50051") == DoorAddress("127.0.0.1:50080", True)
    assert door_address("auto", "0.0.0.0:7000") == DoorAddress("127.0.0.1:50080", True)
    assert door_address("auto", "127.0.0.1:0") == DoorAddress("127.0.0.1:0", True)
    assert door_address("off", "127.0.0.1:0") is None
    assert door_address("[::1]:9000", "127.0.0.1:0") == DoorAddress("[::1]:9000", False)
    for bad in ("50080", "localhost", "127.0.0.1:http", "127.0.0.1:70000", "on"):
        with pytest.raises(ValueError):
            checked_listen(bad)
    assert shown_host("127.0.0.1:1") == "127.0.0.1"
    assert shown_host(":1") == "[::]" and shown_host("[::1]:1") == "[::1]"


def test_a_taken_port_names_its_address() -> None:
    first = listening_socket("127.0.0.1:0")
    try:
        address = f"127.0.0.1:{first.getsockname()[1]}"
        with pytest.raises(OSError, match=f"cannot listen on {address}"):
            listening_socket(address)
    finally:
        first.close()
