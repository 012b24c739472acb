"""mapped_table: a model table served from a checked, read-only file mapping (or the heap)."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from powercontext_memory.cli import build_parser
from powercontext_memory.embedding.mapped_table import mapped_table

NAME = "model.table"


def _table() -> np.ndarray:
    # Several check chunks' worth is not needed: row boundaries and a partial last page are.
    return np.random.default_rng(7).integers(0, 256, size=(1001, 512), dtype=np.uint8)


def test_the_table_is_written_once_and_read_from_a_read_only_mapping(tmp_path: Path) -> None:
    table = _table()
    mapped = mapped_table(table, tmp_path / "cache", NAME)

    path = tmp_path / "cache" / NAME
    assert path.read_bytes() == table.tobytes()
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert np.array_equal(mapped, table) and mapped.shape == table.shape
    assert mapped.dtype == np.uint8
    assert not np.shares_memory(mapped, table)
    assert not mapped.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        mapped[0, 0] = 1
    # Fancy indexing, the model's one use of it, reads the rows it names.
    rows = np.array([1000, 0, 517, 517])
    assert np.array_equal(mapped[rows], table[rows])
    assert [p.name for p in path.parent.iterdir()] == [NAME]  # no temporary left behind


def test_a_matching_file_is_reused(tmp_path: Path) -> None:
    table = _table()
    mapped_table(table, tmp_path, NAME)
    inode = (tmp_path / NAME).stat().st_ino
    again = mapped_table(table, tmp_path, NAME)
    assert (tmp_path / NAME).stat().st_ino == inode
    assert np.array_equal(again, table)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(
            lambda data: data[:4096] + bytes([data[4096] ^ 1]) + data[4097:], id="one-bit"
        ),
        pytest.param(lambda data: data[:-1], id="truncated"),
        pytest.param(lambda data: data + b"\0", id="longer"),
        pytest.param(lambda data: b"", id="empty"),
    ],
)
def test_a_file_that_differs_from_the_verified_table_is_replaced(damage, tmp_path: Path) -> None:
    table = _table()
    path = tmp_path / NAME
    path.write_bytes(damage(table.tobytes()))
    mapped = mapped_table(table, tmp_path, NAME)
    assert np.array_equal(mapped, table)
    assert path.read_bytes() == table.tobytes()


def test_a_table_of_another_model_under_the_same_name_is_replaced(tmp_path: Path) -> None:
    table = _table()
    mapped_table(table + 1, tmp_path, NAME)
    assert np.array_equal(mapped_table(table, tmp_path, NAME), table)


def test_a_mapping_keeps_its_contents_when_the_file_is_replaced(tmp_path: Path) -> None:
    table = _table()
    mapped = mapped_table(table, tmp_path, NAME)
    other = tmp_path / "other"
    other.write_bytes(bytes(table.nbytes))
    os.replace(other, tmp_path / NAME)
    assert np.array_equal(mapped, table)


def test_an_unusable_directory_keeps_the_table_in_the_heap(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table = _table()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with caplog.at_level(logging.WARNING, logger="powercontext_memory.embedding.mapped_table"):
        kept = mapped_table(table, blocker / "cache", NAME)
    assert kept is table
    assert "kept in memory" in caplog.text and str(blocker / "cache" / NAME) in caplog.text


def test_a_non_contiguous_table_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="C-contiguous"):
        mapped_table(_table()[:, ::2], tmp_path, NAME)
    assert list(tmp_path.iterdir()) == []


def test_the_model_cache_option(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def parsed(*argv: str) -> Path | None:
        return build_parser().parse_args(["serve", *argv]).model_cache

    monkeypatch.delenv("POWERCONTEXT_MODEL_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert parsed() == tmp_path / "xdg" / "powercontext-memory"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert parsed() == tmp_path / "home" / ".cache" / "powercontext-memory"
    assert parsed("--model-cache", "off") is None
    assert parsed("--model-cache", str(tmp_path / "d")) == tmp_path / "d"
    monkeypatch.setenv("POWERCONTEXT_MODEL_CACHE", "off")
    assert parsed() is None
    monkeypatch.setenv("POWERCONTEXT_MODEL_CACHE", str(tmp_path / "env"))
    assert parsed() == tmp_path / "env"


def test_an_empty_model_cache_option_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["serve", "--model-cache", ""])
    assert exit_info.value.code == 2
    assert "model cache must be a directory or 'off'" in capsys.readouterr().err
