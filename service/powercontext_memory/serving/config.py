"""ServeConfig: everything one `serve` runs with, frozen.

The command line builds it (cli/serve_options.py takes its defaults from here), the tests and
the bench build it directly, and `argv()` turns it back into the command line that starts the
same server in its own process.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field, fields
from pathlib import Path

from ..app import DEFAULT_DATABASE
from ..backends.timeouts import DEFAULT_DATABASE_TIMEOUT
from ..embedding.factory import AUTO, MODEL_CACHE_OFF, default_model_cache, model_cache_directory
from ..http_door.address import AUTO as HTTP_AUTO
from ..memory import DEFAULT_PROGRESS_INTERVAL
from ..streams import DEFAULT_MAX_STREAMS, DEFAULT_MAX_STREAMS_PER_CALLER

DEFAULT_LISTEN = "127.0.0.1:50051"


def _user_model_cache() -> Path | None:
    return model_cache_directory(default_model_cache())


@dataclass(frozen=True, kw_only=True)
class ServeConfig:
    database: str = DEFAULT_DATABASE  # a SQLite file or an oceanbase:// DSN
    listen: str = DEFAULT_LISTEN  # HOST:PORT; port 0 picks a free one
    # The HTTP door: HOST:PORT, off, or auto (http_door/address.py: 127.0.0.1:50080 or :0).
    http_listen: str = HTTP_AUTO
    progress_interval: float = DEFAULT_PROGRESS_INTERVAL
    workers: int = 1
    worker_index: int | None = None  # set by the supervisor of --workers N on each worker
    # The embedding model: auto, none, minilm, multilingual or http (with url, model, dimension).
    embedding: str = AUTO
    embedding_url: str | None = None
    embedding_model: str | None = None
    embedding_dimension: int | None = None
    model_cache: Path | None = field(default_factory=_user_model_cache)  # None: in the heap
    extractor_url: str | None = None
    extractor_model: str | None = None
    metrics_listen: str | None = None
    log_format: str = "text"
    access_log: bool = False
    otel: bool = False
    auth: str = "auto"  # auto, tokens or none (security/exposure.py)
    insecure: bool = False
    reflection: str = "token"  # token, open or off
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_client_ca: str | None = None
    database_timeout: float = DEFAULT_DATABASE_TIMEOUT
    max_streams: int = DEFAULT_MAX_STREAMS
    max_streams_per_caller: int = DEFAULT_MAX_STREAMS_PER_CALLER
    idle_exit: float | None = None
    address_file: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ServeConfig:
        """The configuration a parsed command line gives (fields it lacks keep their default:
        the admin commands parse only the database and the model)."""
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls) if hasattr(args, f.name)})

    def argv(self) -> list[str]:
        """`serve` arguments that start this configuration in another process: the address and
        database always, every other field only where it differs from its default (so an
        environment the child inherits can still set those)."""
        default = ServeConfig()
        out = ["serve", "--listen", self.listen, "--database", str(self.database)]
        for item in fields(self):
            name = item.name
            value = getattr(self, name)
            if name in ("listen", "database") or value == getattr(default, name):
                continue
            flag = "--" + name.replace("_", "-")
            if isinstance(value, bool):
                out += [flag, "true" if value else "false"]
            elif value is None:
                out += [flag, MODEL_CACHE_OFF] if name == "model_cache" else []
            else:
                out += [flag, str(value)]
        return out
