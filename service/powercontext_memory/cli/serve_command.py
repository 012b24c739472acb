"""`powercontext-memory serve`: one process, or the supervisor of --workers N."""

from __future__ import annotations

import argparse
import asyncio
import sys

from ..serving.config import ServeConfig


def _one_blas_thread() -> None:
    """Hold the server's BLAS to one thread. Its NumPy work is small and per request (the
    vector channel's top-k, the model's forward pass): OpenBLAS's extra threads only spin
    while they wait, and burned the other core for the same wall time (bench/hybrid.py)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")  # for the process's life


def _operator_error(error: Exception) -> bool:
    """An error the operator fixes (bad address, options, model file, schema, an unreachable or
    refusing OceanBase), reported in one line rather than as a traceback."""
    if isinstance(error, OSError | ValueError | RuntimeError):
        return True
    if "asyncmy" not in sys.modules:  # the oceanbase extra is optional; never import it here
        return False
    from asyncmy.errors import MySQLError

    return isinstance(error, MySQLError)


def serve(args: argparse.Namespace) -> int:
    try:
        if args.workers > 1 and args.worker_index is None:
            from ..serving.workers import supervise

            return supervise(args.argv, args.workers, args.listen, args.http_listen)
        from ..serving.run import serve_until_stopped

        _one_blas_thread()
        return asyncio.run(serve_until_stopped(ServeConfig.from_args(args)))
    except Exception as error:
        if not _operator_error(error):
            raise
        print(f"error: {error}", file=sys.stderr)
        return 1
