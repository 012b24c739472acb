"""A server as it runs on a network — tokens, TLS, mutual TLS — and every Python-side client
against it: the Python client, the `powercontext` CLI and grpcurl, each configured the way
docs/network-and-auth.md says (environment variables or flags). Certificates come from a test CA
(trustme). Also: the server refuses to serve off loopback without tokens unless told --insecure."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import trustme
from grpc_health.v1 import health_pb2, health_pb2_grpc

from powercontext_client import Client, ClientConfig, Unauthenticated, new_entry

from ..serving import CLIENT_COMMAND, SERVER_COMMAND, ServerProcess, serve_process, server_env

GRPCURL = Path(sys.executable).parent / "grpcurl"
SERVING = health_pb2.HealthCheckResponse.SERVING
LOG_WAIT = 10.0  # seconds: only a bound on waiting for lines the server must write


@dataclass(frozen=True)
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    folder = tmp_path_factory.mktemp("pki")
    authority = trustme.CA()
    server = authority.issue_cert("127.0.0.1", "localhost")
    client = authority.issue_cert("agent@example.test")
    paths = Pki(*(folder / name for name in ("ca.pem", "server.pem", "server.key",
                                             "client.pem", "client.key")))  # fmt: skip
    authority.cert_pem.write_to_path(str(paths.ca))
    server.private_key_and_cert_chain_pem.write_to_path(str(paths.server_cert))
    server.private_key_pem.write_to_path(str(paths.server_key))
    client.private_key_and_cert_chain_pem.write_to_path(str(paths.client_cert))
    client.private_key_pem.write_to_path(str(paths.client_key))
    return paths


def create_token(database: Path, *args: str) -> str:
    done = subprocess.run(
        [SERVER_COMMAND, "tokens", "create", "--database", str(database), *args],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=120,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A database holding one write token (so `--auth auto` turns tokens on)."""
    path = tmp_path_factory.mktemp("network") / "memory.sqlite3"
    return path, create_token(path, "--name", "agents", "--scope", "write")


def powercontext(env: dict[str, str], *args: str, code: int = 0) -> str:
    done = subprocess.run(
        [CLIENT_COMMAND, *args], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == code, (args, done.stdout, done.stderr)
    return done.stdout if code == 0 else done.stderr


def refused_handshake(endpoint: str, credentials: grpc.ChannelCredentials | None) -> None:
    """A plain gRPC health check over these credentials fails with UNAVAILABLE."""
    channel = (
        grpc.secure_channel(endpoint, credentials)
        if credentials is not None
        else grpc.insecure_channel(endpoint)
    )
    with channel, pytest.raises(grpc.RpcError) as refused:
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]


def access_log(database: tuple[Path, str]) -> Path:
    return database[0].parent / "server.log"


@pytest.fixture(scope="module")
def tls_server(pki: Pki, database: tuple[Path, str]) -> Iterator[str]:
    """TLS, tokens (the database holds one), and every call in the access log, which must
    never show a token, whichever of this module's tests ran."""
    path, token = database
    log = access_log(database)
    args = ("--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key), "--access-log")
    with log.open("wb") as stderr:
        server = ServerProcess(path, *args, stderr=stderr)
        try:
            yield f"127.0.0.1:{server.port}"
        finally:
            assert server.stop() == 0
    assert_no_token(log.read_text(), token)


def assert_no_token(logged: str, token: str) -> None:
    secret = token.split("_", 2)[2]
    assert "pcm_" not in logged and secret not in logged


def test_the_access_log_records_calls_but_never_a_token(
    tls_server: str, pki: Pki, database: tuple[Path, str]
) -> None:
    _, token = database
    env = {"POWERCONTEXT_ENDPOINT": tls_server, "POWERCONTEXT_TLS_CA": str(pki.ca)}
    with Client(config=ClientConfig.from_env({**env, "POWERCONTEXT_TOKEN": token})) as client:
        client.remember(None, [new_entry("fact", "Access is logged.")])
    with Client(config=ClientConfig.from_env(env)) as client, pytest.raises(Unauthenticated):
        client.capabilities(timeout=10)
    log = access_log(database)
    deadline = time.monotonic() + LOG_WAIT
    while not ("UNAUTHENTICATED" in log.read_text() and "Remember OK" in log.read_text()):
        assert time.monotonic() < deadline, f"calls not logged:\n{log.read_text()}"
        time.sleep(0.05)
    assert_no_token(log.read_text(), token)


def test_python_client_with_token_and_tls_from_the_environment(
    tls_server: str, pki: Pki, database: tuple[Path, str]
) -> None:
    _, token = database
    env = {
        "POWERCONTEXT_ENDPOINT": tls_server,
        "POWERCONTEXT_TOKEN": token,
        "POWERCONTEXT_TLS_CA": str(pki.ca),
    }
    with Client(config=ClientConfig.from_env(env)) as client:
        created = client.remember(None, [new_entry("fact", "Deploys go through TLS.")])
        hits = client.search("deploys TLS", [created.memory]).hits
        assert [h.entry_id for h in hits] == [created.results[0].entry_id]
    anonymous = {k: v for k, v in env.items() if k != "POWERCONTEXT_TOKEN"}
    with Client(config=ClientConfig.from_env(anonymous)) as client:
        with pytest.raises(Unauthenticated) as refused:
            client.capabilities(timeout=10)
        assert refused.value.reason == "TOKEN_MISSING"
    refused_handshake(tls_server, None)  # plaintext is refused
    other_ca = grpc.ssl_channel_credentials(trustme.CA().cert_pem.bytes())
    refused_handshake(tls_server, other_ca)  # a server the client cannot verify


def test_cli_with_token_and_tls_from_flags_and_the_environment(
    tls_server: str, pki: Pki, database: tuple[Path, str], tmp_path: Path
) -> None:
    _, token = database
    env = server_env(
        {
            "POWERCONTEXT_ENDPOINT": tls_server,
            "POWERCONTEXT_TOKEN": token,
            "POWERCONTEXT_TLS_CA": str(pki.ca),
        }
    )
    created = json.loads(powercontext(env, "-o", "json", "create", "Releases are signed."))
    memory = created["memory"]["artifact_id"]
    assert "Releases are signed." in powercontext(env, "search", "signed releases", "-m", memory)
    bare = server_env({"POWERCONTEXT_ENDPOINT": tls_server})
    flags = ("--tls-ca", str(pki.ca), "--token", token)
    assert "backend" in powercontext(bare, *flags, "capabilities")
    missing = powercontext(bare, "--tls-ca", str(pki.ca), "capabilities", code=8)
    assert missing.startswith("error: TOKEN_MISSING (UNAUTHENTICATED)")
    wrong = powercontext(
        bare, "--tls-ca", str(pki.ca), "--token", token[:-2] + "xx", "get", memory, code=8
    )
    assert wrong.startswith("error: TOKEN_INVALID (UNAUTHENTICATED)")
    assert token not in wrong


def test_grpcurl_with_the_authorization_header(
    tls_server: str, pki: Pki, database: tuple[Path, str]
) -> None:
    _, token = database
    base = [str(GRPCURL), "-cacert", str(pki.ca)]
    listed = subprocess.run(
        [*base, "-H", f"authorization: Bearer {token}", tls_server, "list"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    assert "powercontext.memory.v1.MemoryService" in listed.stdout.split()
    refused = subprocess.run(
        [*base, tls_server, "list"], capture_output=True, text=True, timeout=60
    )
    assert refused.returncode != 0 and "Unauthenticated" in refused.stderr


def test_mutual_tls_needs_a_client_certificate(pki: Pki, database: tuple[Path, str]) -> None:
    path, token = database
    env = {  # the server's TLS files from its environment this time
        "POWERCONTEXT_SERVER_TLS_CERT": str(pki.server_cert),
        "POWERCONTEXT_SERVER_TLS_KEY": str(pki.server_key),
        "POWERCONTEXT_SERVER_TLS_CLIENT_CA": str(pki.ca),
    }
    with serve_process(path, env=env) as served:
        endpoint = f"127.0.0.1:{served.port}"
        client_env = {
            "POWERCONTEXT_ENDPOINT": endpoint,
            "POWERCONTEXT_TOKEN": token,
            "POWERCONTEXT_TLS_CA": str(pki.ca),
            "POWERCONTEXT_TLS_CERT": str(pki.client_cert),
            "POWERCONTEXT_TLS_KEY": str(pki.client_key),
        }
        with Client(config=ClientConfig.from_env(client_env)) as client:
            assert client.capabilities(timeout=10).backend == "sqlite"
        cli = server_env({"POWERCONTEXT_ENDPOINT": endpoint, "POWERCONTEXT_TOKEN": token})
        mtls = ("--tls-ca", str(pki.ca), "--tls-cert", str(pki.client_cert),
                "--tls-key", str(pki.client_key))  # fmt: skip
        assert "SERVING" in powercontext(cli, *mtls, "health")
        without_certificate = grpc.ssl_channel_credentials(pki.ca.read_bytes())
        refused_handshake(endpoint, without_certificate)
        refused_handshake(endpoint, None)


def test_off_loopback_without_tokens_the_server_refuses_to_start(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    done = subprocess.run(
        [SERVER_COMMAND, "serve", "--listen", "0.0.0.0:0", "--database", str(database)],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert "error: refusing to serve on 0.0.0.0:0 without authentication" in done.stderr
    assert "powercontext-memory tokens create" in done.stderr and "--insecure" in done.stderr


def test_insecure_says_so_and_serves_without_tokens(tmp_path: Path) -> None:
    database = tmp_path / "memory.sqlite3"
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        server = ServerProcess(database, "--listen", "0.0.0.0:0", "--insecure", stderr=stderr)
        try:
            with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = health_pb2_grpc.HealthStub(channel)
                assert stub.Check(health_pb2.HealthCheckRequest(), timeout=10).status == SERVING
                with Client(f"127.0.0.1:{server.port}") as client:  # no token needed
                    assert client.capabilities(timeout=10).fts
        finally:
            assert server.stop() == 0
    assert "authentication: OFF on 0.0.0.0:0 (--insecure on 0.0.0.0:0)" in log.read_text()
