"""Statement helpers shared by the adapter's modules, each run on a connection's own thread."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias, TypeVar

import sqlean

T = TypeVar("T")
Db: TypeAlias = sqlean.Connection  # noqa: UP040 (sqlean ships no type hints)

CHUNK = 500  # bound on host parameters per statement


def in_chunks(items: Sequence[T]) -> list[Sequence[T]]:
    return [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]


def placeholders(n: int) -> str:
    return ",".join("?" * n)


def execute(db: Db, sql: str, params: Sequence[Any] = ()) -> None:
    """Run a statement and close its cursor here, on the connection's own thread.

    A cursor must never leave its thread: one finalized later by another thread, after its
    connection closed, crashes the process.
    """
    db.execute(sql, params).close()


def fetch(db: Db, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    cursor = db.execute(sql, params)
    try:
        return cursor.fetchall()
    finally:
        cursor.close()


def roll_back_if_open(db: Db) -> None:
    if db.in_transaction:
        execute(db, "ROLLBACK")
