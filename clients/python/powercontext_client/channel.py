"""The gRPC channel a client uses: message limits, keepalive and reconnection that suit
long-lived follow streams, and TLS when configured."""

from __future__ import annotations

from typing import Final

import grpc

from ._version import __version__
from .config import MAX_MESSAGE_BYTES, ClientConfig

CHANNEL_OPTIONS: Final[tuple[tuple[str, int | str], ...]] = (
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    # Pings every 30 s find a dead peer under an idle follow stream; the server permits pings
    # every 10 s without data, so these never get the connection closed for abuse.
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    # A restarted server is found again within about a second, not grpc's default 1-120 s.
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 2_000),
    ("grpc.primary_user_agent", f"powercontext-client-python/{__version__}"),
)


def _options(config: ClientConfig) -> list[tuple[str, int | str]]:
    options = list(CHANNEL_OPTIONS)
    if config.tls is not None and config.tls.server_name:
        options.append(("grpc.ssl_target_name_override", config.tls.server_name))
    return options


def _credentials(config: ClientConfig) -> grpc.ChannelCredentials | None:
    if config.tls is None:
        return None
    roots, key, chain = config.tls.read()
    return grpc.ssl_channel_credentials(
        root_certificates=roots, private_key=key, certificate_chain=chain
    )


def aio_channel(config: ClientConfig) -> grpc.aio.Channel:
    credentials = _credentials(config)
    if credentials is None:
        return grpc.aio.insecure_channel(config.endpoint, options=_options(config))
    return grpc.aio.secure_channel(config.endpoint, credentials, options=_options(config))


def sync_channel(config: ClientConfig) -> grpc.Channel:
    credentials = _credentials(config)
    if credentials is None:
        return grpc.insecure_channel(config.endpoint, options=_options(config))
    return grpc.secure_channel(config.endpoint, credentials, options=_options(config))
