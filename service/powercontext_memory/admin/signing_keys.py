"""`powercontext-memory rotate-signing-key`: a new key for page and preview tokens.

Adds a new HMAC key to the database and keeps only the one before it (security/signing.py):
tokens signed by the previous key still verify, tokens of any older key are refused. Running
servers read the keys again within a minute (security/signing.py), no restart needed.
"""

from __future__ import annotations

import argparse
import asyncio

from ..app import open_storage
from ..backends.database import DatabaseMemoryBackend
from ..security.signing import TokenSigner, rotate_signing_keys


async def _rotate(database: str) -> int:
    backend = DatabaseMemoryBackend(await open_storage(database))
    try:
        await TokenSigner.load(backend)  # a database without keys gets its first one
        new_id, dropped = await rotate_signing_keys(backend)
    finally:
        await backend.close()
    print(f"signing key {new_id} now signs page and preview tokens")
    if dropped:
        print(f"dropped key(s) {', '.join(dropped)}: their tokens are refused from now on")
    print("running servers of this database take the new key within a minute")
    return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_rotate(args.database))
