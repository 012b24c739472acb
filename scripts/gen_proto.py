"""Regenerate generated/ from proto/ (make proto); the staleness test calls generate() too."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import grpc_tools
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
DESCRIPTOR_SET = Path("powercontext/memory/v1/descriptor_set.binpb")


def proto_files() -> list[Path]:
    return sorted(PROTO_ROOT.rglob("*.proto"))


def generate(out_dir: Path) -> None:
    """Write *_pb2.py, *_pb2.pyi, *_pb2_grpc.py and py.typed for every proto package, and the
    descriptor set with source info that server reflection serves."""
    out_dir = out_dir.resolve()  # protoc runs from proto/, so relative paths would move
    (out_dir / DESCRIPTOR_SET).parent.mkdir(parents=True, exist_ok=True)
    well_known = Path(os.path.dirname(grpc_tools.__file__)) / "_proto"
    args = [
        "protoc",
        f"-I{PROTO_ROOT}",
        f"-I{well_known}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        # The contract with its comments, for server reflection (grpcurl describe explains
        # each field): the generated modules leave comments out.
        "--include_source_info",
        "--include_imports",
        f"--descriptor_set_out={out_dir / DESCRIPTOR_SET}",
        *(str(p.relative_to(PROTO_ROOT)) for p in proto_files()),
    ]
    # protoc resolves relative file names against the -I roots.
    cwd = os.getcwd()
    os.chdir(PROTO_ROOT)
    try:
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
    finally:
        os.chdir(cwd)
    # PEP 561 marker: type checkers read the .pyi stubs of the installed package.
    for package in {p.parent for p in out_dir.rglob("*_pb2.py")}:
        (package / "py.typed").write_bytes(b"")


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "generated")
