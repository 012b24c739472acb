"""Whether a server checks tokens, decided once at start, and what it says about it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from ..memory import MemoryService
from ..security.exposure import AuthMode, ExposureRefused, decide, is_loopback
from ..security.tokens import TokenStatus
from .config import ServeConfig

logger = logging.getLogger("powercontext_memory.serve")


async def auth_decision(
    config: ServeConfig, service: MemoryService, http_address: str | None = None
) -> tuple[bool, Callable[[], None]]:
    """Whether to check tokens (ExposureRefused: do not start), and what to log once serving.
    The HTTP door's address (`http_address`, when it serves) is held to the same rule."""
    mode = AuthMode(config.auth)
    now = time.time_ns() // 1_000_000
    active = 0
    if mode is not AuthMode.NONE:
        tokens = await service.backend.access_tokens()
        active = sum(1 for token in tokens if token.status(now) is TokenStatus.ACTIVE)
    decision = decide(mode, config.listen, active, insecure=config.insecure)
    whys = {config.listen: decision.why}
    if http_address is not None:
        try:
            whys[http_address] = decide(mode, http_address, active, insecure=config.insecure).why
        except ExposureRefused as refused:
            raise ExposureRefused(f"--http-listen: {refused}") from None
    return decision.tokens, lambda: report_auth(config, decision.tokens, whys, active)


def report_auth(config: ServeConfig, tokens: bool, whys: dict[str, str], active: int) -> None:
    """`whys`: each address served (gRPC's first) and why it checks tokens or not."""
    exposed = [address for address in whys if not is_loopback(address)]
    if tokens:
        logger.info("authentication: bearer tokens (%s)", whys[config.listen])
        if not active:
            logger.warning(
                "the database holds no active token: every call but health is refused until "
                "`powercontext-memory tokens create` makes one"
            )
        for address in exposed if config.tls_cert is None else ():
            logger.warning(
                "tokens travel in plaintext on %s: serve with --tls-cert/--tls-key, or "
                "terminate TLS in front of this port",
                address,
            )
    elif not exposed:
        logger.info("authentication: off (%s)", whys[config.listen])
    for address in exposed if not tokens else ():
        logger.warning(
            "authentication: OFF on %s (%s): anyone who can reach it can read and write every "
            "memory",
            address,
            whys[address],
        )
