"""Server logs: text or JSON lines, each tagged with the request being handled, if any.

The transport sets the current request (`request_scope`) for the duration of each RPC; a
filter on the handler copies its id and method onto every record emitted meanwhile, from any
logger, so a request's lines can be found by its id.
"""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

LOG_FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s%(worker_tag)s%(request_tag)s: %(message)s"
# Structured fields a record may carry through `extra=` (the access line does).
EXTRA_FIELDS = ("code", "duration_ms")


@dataclass(frozen=True, slots=True)
class RequestInfo:
    request_id: str
    method: str  # the full gRPC method, e.g. /powercontext.memory.v1.MemoryService/Remember


_current_request: ContextVar[RequestInfo | None] = ContextVar("request", default=None)


def current_request() -> RequestInfo | None:
    return _current_request.get()


class request_scope:  # noqa: N801 - used as a function: `with request_scope(...)`
    """Within the block, log records (and `current_request()`) name this request. A class, not
    a generator: it runs around every call."""

    __slots__ = ("info", "_token")

    def __init__(self, request_id: str, method: str) -> None:
        self.info = RequestInfo(request_id, method)

    def __enter__(self) -> RequestInfo:
        self._token = _current_request.set(self.info)
        return self.info

    def __exit__(self, *exc: object) -> None:
        _current_request.reset(self._token)


class RequestContextFilter(logging.Filter):
    """Adds request_id, method and request_tag (" [id]" or "") to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        info = _current_request.get()
        record.request_id = info.request_id if info else ""
        record.method = info.method if info else ""
        record.request_tag = f" [{info.request_id}]" if info else ""
        return True


class WorkerFilter(logging.Filter):
    """Adds worker and worker_tag (" worker=I/pid=P", or "" outside `serve --workers N`): with
    several processes on one port, each line says which one wrote it."""

    def __init__(self, worker: int | None = None) -> None:
        super().__init__()
        self.worker = worker

    def filter(self, record: logging.LogRecord) -> bool:
        record.worker = self.worker
        record.worker_tag = (
            "" if self.worker is None else f" worker={self.worker}/pid={record.process}"
        )
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id and method (inside a
    request), the access line's code and duration_ms, and exception (the traceback) if any."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        worker = getattr(record, "worker", None)
        if worker is not None:
            line["worker"] = worker
            line["pid"] = record.process
        request_id = getattr(record, "request_id", "")
        if request_id:
            line["request_id"] = request_id
            line["method"] = getattr(record, "method", "")
        for name in EXTRA_FIELDS:
            if hasattr(record, name):
                line[name] = getattr(record, name)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line)  # escapes newlines: a traceback stays on its line


def log_handler(
    log_format: str, stream: TextIO | None = None, worker: int | None = None
) -> logging.Handler:
    """A handler writing `log_format` ("text" or "json") lines, tagged with the request (and
    with the `worker` index and pid, for a worker of `serve --workers N`)."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"unknown log format {log_format!r}; use one of {', '.join(LOG_FORMATS)}")
    handler = logging.StreamHandler(stream)  # None: stderr
    handler.addFilter(RequestContextFilter())
    handler.addFilter(WorkerFilter(worker))
    handler.setFormatter(
        JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)
    )
    return handler


def configure_logging(
    log_format: str = "text", level: int = logging.INFO, worker: int | None = None
) -> None:
    """Send every logger's records to stderr in `log_format` (replaces earlier handlers)."""
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(log_handler(log_format, worker=worker))
    root.setLevel(level)
