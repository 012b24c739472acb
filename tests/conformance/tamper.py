"""Raw storage edits that simulate corruption; the only place tests touch tables directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import sqlean


class Tamper(Protocol):
    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int: ...

    def scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any: ...


class SQLiteTamper:
    def __init__(self, path: Path) -> None:
        self.path = path

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        db = sqlean.connect(str(self.path), isolation_level=None)
        try:
            return db.execute(sql, params).rowcount
        finally:
            db.close()

    def scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        db = sqlean.connect(str(self.path), isolation_level=None)
        try:
            row = db.execute(sql, params).fetchone()
            return row[0] if row else None
        finally:
            db.close()
