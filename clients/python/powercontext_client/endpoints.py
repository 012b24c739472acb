"""Which server a command talks to: THE order, for the CLI, the hooks and the MCP bridge.

1. an explicit endpoint: `--endpoint`, then $POWERCONTEXT_ENDPOINT;
2. the endpoint recorded for the repository (runtime manifest: `powercontext setup
   --endpoint`, or the server its memory was created on);
3. a server answering at the default address (127.0.0.1:50051, `make serve`);
4. the user's local server (local_server.py), started when none runs — also when the
   repository's memory was created there (recorded as LOCAL);
5. else the default address, and the call says that nothing answers there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from . import local_server
from .config import DEFAULT_ENDPOINT, ENV_ENDPOINT

# The endpoint recorded for a repository whose memory lives on the user's local server (its
# port changes from one start to the next).
LOCAL: Final = "local"


@dataclass(frozen=True, slots=True)
class Endpoint:
    address: str
    origin: str  # "argument", "environment", "recorded", "default", "local"

    @property
    def recorded_as(self) -> str:
        """What the manifest records for a memory made on this endpoint."""
        return LOCAL if self.origin == "local" else self.address


def resolve(
    explicit: str | None,
    recorded: str = "",
    *,
    wait: float,
    environ: Mapping[str, str] | None = None,
) -> Endpoint:
    """The endpoint to use; `wait`: how long a local server may take to start."""
    env = os.environ if environ is None else environ
    if explicit:
        return Endpoint(explicit, "argument")
    if env.get(ENV_ENDPOINT):
        return Endpoint(env[ENV_ENDPOINT], "environment")
    if recorded and recorded != LOCAL:
        return Endpoint(recorded, "recorded")
    if recorded != LOCAL and local_server.answering(DEFAULT_ENDPOINT):
        return Endpoint(DEFAULT_ENDPOINT, "default")
    if local_server.enabled(env):
        found = local_server.ensure(wait)
        if found is not None:
            return Endpoint(found, "local")
    return Endpoint(DEFAULT_ENDPOINT, "default")
