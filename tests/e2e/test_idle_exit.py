"""`serve --idle-exit SECONDS --address-file PATH`: the address is written once listening and
removed at exit; the server stops after that long without a call in flight, and an open follow
stream is a call in flight (a follower keeps it alive)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import grpc

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

from ..serving import ServerProcess


def _exited_within(server: ServerProcess, seconds: float) -> int | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        code = server.proc.poll()
        if code is not None:
            return code
        time.sleep(0.05)
    return None


def test_idle_exit_waits_for_followers_and_removes_its_address(tmp_path: Path) -> None:
    address_file = tmp_path / "address"
    server = ServerProcess(
        tmp_path / "memory.sqlite3", "--idle-exit", "1", "--address-file", str(address_file)
    )
    try:
        assert address_file.read_text().strip() == f"127.0.0.1:{server.port}"
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = pb_grpc.MemoryServiceStub(channel)
            entry = types.EntryInput(kind="fact", text="Followed.")
            memory = stub.Remember(pb.RememberRequest(entries=[entry]), timeout=10).memory
            follow = stub.Changes(pb.ChangesRequest(memory=memory, follow=True), timeout=30)
            seen: list[int] = []

            def read() -> None:
                try:
                    for message in follow:
                        if message.HasField("revision"):
                            seen.append(message.revision.memory_ref.revision)
                except grpc.RpcError:
                    pass  # cancelled below

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            # Three idle periods with a follower open: the server stays.
            assert _exited_within(server, 3.0) is None
            follow.cancel()
            reader.join(timeout=10)
        code = _exited_within(server, 10.0)
        assert code == 0
        assert not address_file.exists()
        assert seen[:1] == [1]
    finally:
        server.kill()
