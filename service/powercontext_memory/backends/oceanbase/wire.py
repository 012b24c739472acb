"""How values travel between the OceanBase adapter and the engine: the DSN, placeholders,
large text as hex literals in pieces, and vectors as the engine's '[x,y,...]' literals."""

from __future__ import annotations

import dataclasses
import urllib.parse
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class OceanBaseDsn:
    host: str
    port: int
    user: str
    password: str
    database: str

    @classmethod
    def parse(cls, dsn: str, password: str | None = None) -> OceanBaseDsn:
        """oceanbase://user[:password]@host[:port]/database (mysql:// is accepted too)."""
        url = urllib.parse.urlsplit(dsn)
        if url.scheme not in ("oceanbase", "mysql") or not url.hostname:
            raise ValueError(f"not an OceanBase DSN (oceanbase://user@host:port/db): {dsn!r}")
        database = url.path.lstrip("/")
        if not database:
            raise ValueError("the OceanBase DSN names no database (…/database)")
        return cls(
            host=url.hostname,
            port=url.port or 2881,
            user=urllib.parse.unquote(url.username or "root"),
            password=password if password is not None else urllib.parse.unquote(url.password or ""),
            database=database,
        )

    def with_database(self, database: str) -> OceanBaseDsn:
        return dataclasses.replace(self, database=database)

    @property
    def url(self) -> str:
        """The DSN with its password (for a child process; never log it)."""
        user = urllib.parse.quote(self.user, safe="")
        secret = ":" + urllib.parse.quote(self.password, safe="") if self.password else ""
        return f"oceanbase://{user}{secret}@{self.host}:{self.port}/{self.database}"

    @property
    def display(self) -> str:
        """The DSN without its password (for logs and capabilities)."""
        return f"oceanbase://{self.user}@{self.host}:{self.port}/{self.database}"


def is_oceanbase_dsn(location: str) -> bool:
    return location.startswith(("oceanbase://", "mysql://"))


def driver_sql(sql: str) -> str:
    """Our `?` placeholders in the driver's `%s` spelling (a literal % is then doubled)."""
    return sql.replace("%", "%%").replace("?", "%s")


def split_utf8(data: bytes, max_bytes: int) -> list[bytes]:
    """UTF-8 `data` in pieces of at most `max_bytes`, each cut between characters (a column
    of utf8mb4 refuses a piece that ends inside one)."""
    pieces, start = [], 0
    while len(data) - start > max_bytes:
        end = start + max_bytes
        while data[end] & 0xC0 == 0x80:  # a continuation byte: the character started earlier
            end -= 1
        pieces.append(data[start:end])
        start = end
    pieces.append(data[start:])
    return pieces


def hex_literal(data: bytes) -> str:
    """A MySQL hex literal (stored as-is into a utf8mb4 column)."""
    return "X'" + data.hex() + "'"


def vector_literal(embedding: bytes) -> str:
    """float32 bytes as the engine's '[x,y,...]' literal; repr() round-trips each float32."""
    return "[" + ",".join(repr(float(x)) for x in np.frombuffer(embedding, dtype="<f4")) + "]"


def vector_bytes(literal: str | None) -> bytes | None:
    """The engine's text form of a stored vector as float32 bytes. The engine prints 6
    significant digits, so this is the stored vector to about 1e-6, not bit for bit (search
    runs in the engine, on the exact values; only the verifier and rebuilds read vectors)."""
    if literal is None:
        return None
    body = literal.strip().strip("[]")
    numbers = [float(x) for x in body.split(",")] if body else []
    return np.asarray(numbers, dtype="<f4").tobytes()
