"""The Dockerfile built and run for real: podman builds it on a Debian bookworm base made here
(scripts/container.py), then one container serves with its data in a named volume, its gRPC
port and its HTTP door published on 127.0.0.1, and the host calls it as a user would.

Marked `container` (and `spawn`) in tests/conftest.py; it needs root and Debian's podman, runc
and mmdebstrap, and fails with the install line when they are missing, never skips.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types
from powercontext_client import Client, ClientConfig, Unauthenticated, new_entry
from scripts import container
from scripts.container import Container, ContainerError

from ..serving import serve_process

LABEL = "powercontext.test=container"
HEALTHY_TIMEOUT = 90.0
GERMAN = "Die Datenbank wird jede Nacht um zwei Uhr gesichert."
ENTRIES = (
    "Run `make test` before pushing; the CI runs ruff and mypy and rejects any warning.",
    "张经理只看邮件，不看即时消息，重要决定要发邮件抄送他。",
    "Deployments go out on Tuesdays after the staging smoke test passes.",
    GERMAN,
    "发布之前必须在预发布环境跑完冒烟测试。",
)
# The first shares no word with GERMAN, its answer: only the model finds it.
QUESTIONS = (
    "when are database backups taken?",
    "推代码之前要做哪些检查？",
    "smoke test before a release",
)
# Run with the container's own Python: metrics on loopback answer, on its network address not.
METRICS_PROBE = """
import socket, urllib.request
body = urllib.request.urlopen("http://127.0.0.1:9464/metrics", timeout=5).read().decode()
address = socket.gethostbyname(socket.gethostname())
try:
    socket.create_connection((address, 9464), timeout=5).close()
    outside = "open"
except ConnectionRefusedError:
    outside = "refused"
print(address, "powercontext_" in body, outside)
"""


@dataclass(frozen=True)
class Running:
    box: Container
    token: str

    def client(self, token: str | None) -> Client:
        endpoint = f"127.0.0.1:{self.box.published_port(50051)}"
        return Client(config=ClientConfig(endpoint=endpoint, token=token, timeout=30))


def wait_healthy(box: Container) -> None:
    """Until the image's own HEALTHCHECK passes (`podman healthcheck run`)."""
    until = time.monotonic() + HEALTHY_TIMEOUT
    while True:
        try:
            container.podman("healthcheck", "run", box.name)
            return
        except ContainerError:
            if time.monotonic() > until:
                raise AssertionError(f"never healthy:\n{box.logs()}") from None
            time.sleep(0.5)


@pytest.fixture(scope="module")
def image() -> str:
    return container.build()


@pytest.fixture(scope="module")
def running(image: str) -> Iterator[Running]:
    container.remove_labelled(LABEL)
    name = f"powercontext-test-{os.getpid()}"
    volume = container.create_volume(f"{name}-data", LABEL)
    box = container.run_detached(image, name, volume=volume, ports=(50051, 50080), label=LABEL)
    try:
        wait_healthy(box)
        token = box.exec(
            "powercontext-memory", "tokens", "create", "--name", "host", "--scope", "write"
        ).strip()
        yield Running(box, token)
    finally:
        box.remove()
        container.podman("volume", "rm", "--force", volume)


def _search(client: Client) -> list[pb.SearchResponse]:
    memory = client.remember(None, [new_entry("fact", text) for text in ENTRIES]).memory
    mode = types.SEARCH_MODE_AUTO
    return [client.search(question, [memory], limit=5, mode=mode) for question in QUESTIONS]


def _answers(found: list[pb.SearchResponse]) -> list[list[tuple[str, list[int], float]]]:
    return [
        [(hit.text, list(hit.matched_by), round(hit.score, 9)) for hit in response.hits]
        for response in found
    ]


def test_the_healthcheck_passes_and_the_server_runs_as_user_10001(running: Running) -> None:
    config = json.loads(running.box.inspect("{{json .Config.Healthcheck}}"))
    assert config["Test"] == ["CMD", "powercontext", "health", "--timeout", "3"]
    container.podman("healthcheck", "run", running.box.name)  # raises unless it exits 0
    assert running.box.exec("powercontext", "health").strip() == "SERVING"
    with pytest.raises(ContainerError, match="UNAVAILABLE"):  # the check can fail
        running.box.exec("powercontext", "health", "--endpoint", "127.0.0.1:1", "--timeout", "2")
    # The server process itself, seen from the host: every uid and gid is 10001.
    pid = running.box.inspect("{{.State.Pid}}")
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    ids = {line.split(":")[0]: line.split()[1:] for line in status if line[:4] in ("Uid:", "Gid:")}
    assert ids == {"Uid": ["10001"] * 4, "Gid": ["10001"] * 4}
    assert "powercontext-memory\0serve" in Path(f"/proc/{pid}/cmdline").read_text()


def test_a_token_made_inside_lets_a_host_client_in_and_no_token_is_refused(
    running: Running,
) -> None:
    with running.client(running.token) as client:
        written = client.remember(None, [new_entry("fact", "Made with a token from inside.")])
        assert written.memory.revision == 1
    with running.client(None) as client, pytest.raises(Unauthenticated):
        client.remember(None, [new_entry("fact", "No token, no memory.")])
    with running.client("pcm_not_a_real_token") as client, pytest.raises(Unauthenticated):
        client.head(written.memory.artifact_id)


def _http(running: Running, path: str, body: dict[str, object] | None, token: str | None) -> int:
    """The HTTP door's status code for a GET (no body) or a JSON POST from the host."""
    url = f"http://127.0.0.1:{running.box.published_port(50080)}{path}"
    headers = {"Content-Type": "application/json"} if body is not None else {}
    headers |= {"Authorization": f"Bearer {token}"} if token else {}
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_the_http_door_is_published_and_takes_the_same_tokens(running: Running) -> None:
    with running.client(running.token) as client:
        memory = client.remember(None, [new_entry("fact", "Read over HTTP.")]).memory
    get_memory = "/powercontext.memory.v1.MemoryService/GetMemory"
    body: dict[str, object] = {"memory": {"artifactId": memory.artifact_id}}
    assert _http(running, "/healthz", None, None) == 200  # health stays open, as over gRPC
    assert _http(running, get_memory, body, None) == 401
    assert _http(running, get_memory, body, "pcm_not_a_real_token") == 401
    assert _http(running, get_memory, body, running.token) == 200


def test_the_image_searches_with_make_serves_model(running: Running, tmp_path: Path) -> None:
    assert "vectors: use-multilingual-v3" in running.box.logs()
    with running.client(running.token) as client:
        in_container = _search(client)
    # `make serve`'s default, --embedding auto, on a new database of the host.
    with serve_process(tmp_path / "host.sqlite3", "--embedding", "auto") as served:
        assert "vectors: use-multilingual-v3" in served.line
        with Client(f"127.0.0.1:{served.port}") as client:
            on_host = _search(client)
    assert all(found.mode == types.SEARCH_MODE_HYBRID for found in in_container)
    backups = in_container[0].hits[0]  # found by meaning, across languages
    assert (backups.text, list(backups.matched_by)) == (GERMAN, [types.SEARCH_CHANNEL_VECTOR])
    assert _answers(in_container) == _answers(on_host)


def test_metrics_answer_inside_the_container_only(running: Running, image: str) -> None:
    address, scraped, outside = running.box.exec("python", "-c", METRICS_PROBE).split()
    assert not address.startswith("127.")
    assert (scraped, outside) == ("True", "refused")
    exposed = container.podman(
        "image", "inspect", "--format", "{{json .Config.ExposedPorts}}", image
    )
    assert sorted(json.loads(exposed)) == ["50051/tcp", "50080/tcp"]


def test_the_volume_keeps_memories_and_tokens_across_a_restart(running: Running) -> None:
    with running.client(running.token) as client:
        memory = client.remember(None, [new_entry("fact", "Kept in the /data volume.")]).memory
    running.box.stop()
    assert running.box.inspect("{{.State.ExitCode}}") == "0"  # SIGTERM: a graceful stop
    with pytest.raises(ContainerError, match="not running"):
        container.podman("healthcheck", "run", running.box.name)
    running.box.start()
    wait_healthy(running.box)
    with running.client(running.token) as client:  # the token is in the volume too
        hits = client.search("volume", [memory]).hits
        head = client.head(memory.artifact_id)
    assert [hit.text for hit in hits] == ["Kept in the /data volume."]
    assert head.revision == memory.revision
