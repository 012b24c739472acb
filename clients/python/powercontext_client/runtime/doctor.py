"""`powercontext doctor [claude|codex|gemini]`: what stands between this repository and a
memory that works inside the agent host, each finding with its fix.

| class (exit code) | checks                                                                |
|-------------------|-----------------------------------------------------------------------|
| 10 server         | the endpoint the hooks would use answers (health); which one and why   |
| 11 auth           | it accepts this token (GetCapabilities)                                |
| 12 memory         | the memory the runtime manifest records for the repository is there    |
| 13 hooks          | the host's settings run our hook on every event setup installs, and    |
|                   | their command is found on PATH                                         |
| 14 trust          | Codex: the project and our hooks are trusted (else Codex skips them); |
|                   | Gemini CLI: the folder is trusted (else it reads no .gemini/)          |
| 15 mcp            | the MCP entry exists and `powercontext mcp` answers with its tools     |

With no host named, doctor checks the hosts whose files hold our hooks or MCP server (none: a
hooks failure). The exit code is the first failing class (0: nothing fails). A host version
outside the versions the suite tests (TESTED_VERSIONS) is a warning, not a failure. Nothing is
changed: the local server is not started (doctor says when it would be), no setting is written.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

from .. import local_server
from ..config import ClientConfig
from ..endpoints import Endpoint, resolve
from .findings import AUTH, HOOKS, MEMORY, SERVER, Finding
from .host_checks import HOST_CHECKS, HostContext, set_up_hosts
from .manifest import RuntimeManifest
from .repo import Repo, locate

CALL_SECONDS: Final = 5.0


@dataclass
class Doctor:
    path: Path
    hosts: tuple[str, ...]  # empty: the hosts set up here
    explicit_endpoint: str | None = None
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    manifest: RuntimeManifest | None = None

    def run(self) -> list[Finding]:
        repo = locate(self.path, self.manifest or RuntimeManifest())
        root = repo.root if repo is not None else None
        findings = self._server_and_memory(repo)
        context = HostContext(self.path, self.environ)
        hosts = self.hosts or set_up_hosts(context, root)
        if not hosts:
            findings.append(
                Finding(
                    "hooks",
                    False,
                    f"no host is set up for {root or self.path}",
                    "run `powercontext setup claude` (or codex, gemini)",
                    HOOKS,
                )
            )
        for host in hosts:
            for check in HOST_CHECKS[host]:
                found = check(context, root)
                findings.append(dataclasses.replace(found, check=f"{host} {found.check}"))
        return findings

    # -- the server the hooks would use ---------------------------------------------------------

    def _server_and_memory(self, repo: Repo | None) -> list[Finding]:
        recorded = repo.endpoint if repo is not None else ""
        endpoint = resolve(self.explicit_endpoint, recorded, wait=-1.0, environ=self.environ)
        where = f"{endpoint.address} ({_origin(endpoint, recorded)})"
        if endpoint.origin == "default" and not local_server.answering(endpoint.address):
            if local_server.enabled(self.environ) and not self.explicit_endpoint:
                local = Finding(
                    "server",
                    True,
                    "nothing configured and nothing at the default address: the first hook or "
                    f"command starts your local server ({local_server.home()})",
                )
                return [local, *self._memory(repo, None)]
            return [
                Finding(
                    "server",
                    False,
                    f"nothing answers at {where}",
                    "start it (`make serve`, or `powercontext-memory serve --listen ADDRESS`), "
                    "or point the repository elsewhere: `powercontext setup HOST --endpoint "
                    "HOST:PORT`",
                    SERVER,
                )
            ]
        config = ClientConfig.from_env(self.environ, endpoint=endpoint.address)
        with _channel(config) as channel:
            stub = pb_grpc.MemoryServiceStub(channel)
            try:
                caps = stub.GetCapabilities(
                    pb.GetCapabilitiesRequest(),
                    timeout=CALL_SECONDS,
                    metadata=config.call_metadata(),
                ).capabilities
            except grpc.RpcError as error:
                return [_rpc_finding(error, where)]
            modes = ", ".join(m for m, on in (("fts", caps.fts), ("vector", caps.vector)) if on)
            found = [
                Finding("server", True, f"{where} answers ({caps.backend}; {modes or 'no search'})")
            ]
            return found + self._memory(repo, (stub, config))

    def _memory(self, repo: Repo | None, server: tuple[Any, ClientConfig] | None) -> list[Finding]:
        if repo is None:
            return [
                Finding("memory", True, f"{self.path} is not in a git repository (none needed)")
            ]
        if not repo.memory_id:
            return [
                Finding(
                    "memory",
                    True,
                    f"no memory recorded for {repo.root} yet: `powercontext bootstrap` (or the "
                    "first hook that has something to keep) creates it",
                )
            ]
        if server is None:
            return [Finding("memory", True, f"{repo.memory_id} (on your local server)")]
        stub, config = server
        request = pb.GetMemoryRequest(
            memory=types.ArtifactRef(artifact_id=repo.memory_id), metadata_only=True
        )
        try:
            head = stub.GetMemory(request, timeout=CALL_SECONDS, metadata=config.call_metadata())
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                return [
                    Finding(
                        "memory",
                        False,
                        f"{repo.memory_id}, recorded for {repo.root}, is not on {config.endpoint}",
                        "point the repository at the server that holds it (`powercontext setup "
                        "HOST --endpoint HOST:PORT`), or start a new memory there with "
                        "`powercontext bootstrap`",
                        MEMORY,
                    )
                ]
            return [_rpc_finding(error, config.endpoint)]
        return [Finding("memory", True, f"{repo.memory_id}@{head.memory.revision}")]


def _origin(endpoint: Endpoint, recorded: str) -> str:
    return {
        "argument": "--endpoint",
        "environment": "POWERCONTEXT_ENDPOINT",
        "recorded": "recorded for this repository",
        "default": "the default",
        "local": "your local server",
    }.get(endpoint.origin, endpoint.origin)


def _channel(config: ClientConfig) -> grpc.Channel:
    from ..channel import sync_channel

    return sync_channel(config)


def _rpc_finding(error: grpc.RpcError, where: str) -> Finding:
    code = error.code()
    if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
        return Finding(
            "auth",
            False,
            f"{where} refuses this caller: {error.details()}",
            "set POWERCONTEXT_TOKEN to a token of that server (`powercontext-memory tokens "
            "create --name NAME --scope write`); Codex passes it to the MCP server through "
            "env_vars, which setup writes",
            AUTH,
        )
    if code == grpc.StatusCode.UNAVAILABLE:
        return Finding(
            "server",
            False,
            f"nothing answers at {where} ({error.details()})",
            "start it (`make serve`, or `powercontext-memory serve --listen ADDRESS`), or "
            "point the repository elsewhere: `powercontext setup HOST --endpoint HOST:PORT`",
            SERVER,
        )
    return Finding(
        "server",
        False,
        f"{where}: {code.name}: {error.details()}",
        "check that this address serves PowerContext Memory (`powercontext health`)",
        SERVER,
    )
