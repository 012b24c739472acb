"""Where and how to connect: endpoint, deadline, bearer token, TLS — from arguments or the
environment, the same variables for the Python client, the `powercontext` CLI and the Node
client.

| setting        | environment variable         | default            |
|----------------|------------------------------|--------------------|
| endpoint       | POWERCONTEXT_ENDPOINT        | 127.0.0.1:50051    |
| token          | POWERCONTEXT_TOKEN           | none               |
| TLS root CA    | POWERCONTEXT_TLS_CA          | none (plaintext)   |
| client cert    | POWERCONTEXT_TLS_CERT        | none               |
| client key     | POWERCONTEXT_TLS_KEY         | none               |
| deadline (s)   | POWERCONTEXT_TIMEOUT         | 30                 |
| connect (s)    | POWERCONTEXT_CONNECT_TIMEOUT | 1                  |

TLS is on when `tls=True` (system roots) or a CA file is given; a client certificate and key
make it mutual TLS. The token travels as `authorization: Bearer <token>` metadata on every call.
The connect window is how long a call keeps trying to reach a server that refuses connections
(or cannot be resolved) before it fails with UNAVAILABLE naming the endpoint and the cause.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

DEFAULT_ENDPOINT: Final = "127.0.0.1:50051"
DEFAULT_TIMEOUT: Final = 30.0
# Long enough to ride out a server that is restarting, short enough that a stopped one is
# reported before a person wonders whether the command hangs.
DEFAULT_CONNECT_TIMEOUT: Final = 1.0
# The server sends and accepts messages up to 32 MiB; a client must be able to receive them.
MAX_MESSAGE_BYTES: Final = 32 * 1024 * 1024

ENV_ENDPOINT: Final = "POWERCONTEXT_ENDPOINT"
ENV_TOKEN: Final = "POWERCONTEXT_TOKEN"
ENV_TLS_CA: Final = "POWERCONTEXT_TLS_CA"
ENV_TLS_CERT: Final = "POWERCONTEXT_TLS_CERT"
ENV_TLS_KEY: Final = "POWERCONTEXT_TLS_KEY"
ENV_TIMEOUT: Final = "POWERCONTEXT_TIMEOUT"
ENV_CONNECT_TIMEOUT: Final = "POWERCONTEXT_CONNECT_TIMEOUT"


@dataclass(frozen=True, slots=True)
class TlsConfig:
    """Server verification (ca_file, or the system roots when None) and, for mutual TLS, the
    client's certificate chain and key (PEM files)."""

    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    # For certificates issued to a name other than the endpoint's host (tests, tunnels).
    server_name: str | None = None

    def __post_init__(self) -> None:
        if (self.cert_file is None) != (self.key_file is None):
            raise ValueError("mutual TLS needs both a client certificate and its key")

    def read(self) -> tuple[bytes | None, bytes | None, bytes | None]:
        """(root certificates, private key, certificate chain) as grpc wants them."""
        return _read(self.ca_file), _read(self.key_file), _read(self.cert_file)


def _read(path: str | None) -> bytes | None:
    return Path(path).expanduser().read_bytes() if path else None


@dataclass(frozen=True, slots=True)
class ClientConfig:
    endpoint: str = DEFAULT_ENDPOINT
    # Deadline of every unary call and of a stream that does not follow; None waits forever.
    timeout: float | None = DEFAULT_TIMEOUT
    # How long a call that reaches no server (refused, unresolvable) is tried again before it
    # fails with UNAVAILABLE; 0 fails at the first refusal.
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    token: str | None = field(default=None, repr=False)  # never printed
    tls: TlsConfig | None = None
    # Extra metadata sent with every call, e.g. {"x-request-id": ...} per call is better.
    metadata: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not self.endpoint or ":" not in self.endpoint:
            raise ValueError(f"endpoint must be HOST:PORT, got {self.endpoint!r}")
        if self.timeout is not None and not self.timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, got {self.timeout}")
        if not self.connect_timeout >= 0:
            raise ValueError(f"connect_timeout must be >= 0 seconds, got {self.connect_timeout}")

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, **overrides: object
    ) -> ClientConfig:
        """Settings from the environment; keyword arguments that are not None win."""
        env = os.environ if environ is None else environ
        ca, cert, key = env.get(ENV_TLS_CA), env.get(ENV_TLS_CERT), env.get(ENV_TLS_KEY)
        timeout, connect = env.get(ENV_TIMEOUT), env.get(ENV_CONNECT_TIMEOUT)
        config = cls(
            endpoint=env.get(ENV_ENDPOINT) or DEFAULT_ENDPOINT,
            timeout=float(timeout) if timeout else DEFAULT_TIMEOUT,
            connect_timeout=float(connect) if connect else DEFAULT_CONNECT_TIMEOUT,
            token=env.get(ENV_TOKEN) or None,
            tls=TlsConfig(ca, cert, key) if (ca or cert or key) else None,
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(config, **given) if given else config  # type: ignore[arg-type]

    def call_metadata(self) -> tuple[tuple[str, str], ...]:
        if self.token is None:
            return self.metadata
        return (("authorization", f"Bearer {self.token}"), *self.metadata)
