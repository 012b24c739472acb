"""Whether a server checks tokens, decided once at start, and what it says about it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from ..memory import MemoryService
from ..security.exposure import AuthMode, decide, is_loopback
from ..security.tokens import TokenStatus
from .config import ServeConfig

logger = logging.getLogger("powercontext_memory.serve")


async def auth_decision(
    config: ServeConfig, service: MemoryService
) -> tuple[bool, Callable[[], None]]:
    """Whether to check tokens (ExposureRefused: do not start), and what to log once serving."""
    mode = AuthMode(config.auth)
    now = time.time_ns() // 1_000_000
    active = 0
    if mode is not AuthMode.NONE:
        tokens = await service.backend.access_tokens()
        active = sum(1 for token in tokens if token.status(now) is TokenStatus.ACTIVE)
    decision = decide(mode, config.listen, active, insecure=config.insecure)
    return decision.tokens, lambda: report_auth(config, decision.tokens, decision.why, active)


def report_auth(config: ServeConfig, tokens: bool, why: str, active: int) -> None:
    if tokens:
        logger.info("authentication: bearer tokens (%s)", why)
        if not active:
            logger.warning(
                "the database holds no active token: every call but health is refused until "
                "`powercontext-memory tokens create` makes one"
            )
        if config.tls_cert is None and not is_loopback(config.listen):
            logger.warning(
                "tokens travel in plaintext on %s: serve with --tls-cert/--tls-key, or "
                "terminate TLS in front of this port",
                config.listen,
            )
    elif is_loopback(config.listen):
        logger.info("authentication: off (%s)", why)
    else:
        logger.warning(
            "authentication: OFF on %s (%s): anyone who can reach it can read and write every "
            "memory",
            config.listen,
            why,
        )
