"""What every command is made of, and the argument types and helpers several share."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..app import DEFAULT_DATABASE
from ..arguments import boolean
from ..backends.oceanbase.wire import is_oceanbase_dsn
from ..logs import LOG_FORMATS

ENV_DATABASE = "POWERCONTEXT_DATABASE"


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def env_option(
    parser: argparse.ArgumentParser,
    flag: str,
    env: str,
    default: str | float,
    help: str,
    **options: Any,
) -> None:
    """An option defaulting to the environment variable `env`, else to `default`; its help
    names both, so `--help` is the one place an operator looks."""
    shown = f"{default:g}" if isinstance(default, float) else str(default)
    parser.add_argument(
        flag,
        default=os.environ.get(env, str(default)),
        help=f"{help} (env {env}, default {shown})",
        **options,
    )


def log_format(text: str) -> str:
    # A type rather than choices: argparse checks choices only on the command line, and the
    # default may come from the environment.
    if text not in LOG_FORMATS:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(LOG_FORMATS)}")
    return text


def metrics_address(text: str) -> str:
    from ..transport.metrics_endpoint import split_host_port

    try:
        split_host_port(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def choice(values: Sequence[str]) -> Callable[[str], str]:
    """A type rather than choices: argparse checks choices only on the command line."""

    def parse(text: str) -> str:
        if text not in values:
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(values)}")
        return text

    return parse


def switch(parser: argparse.ArgumentParser, flag: str, env: str, help: str) -> None:
    """An off-by-default flag that the environment can turn on (`env`=1/true/yes/on)."""
    parser.add_argument(
        flag,
        type=boolean,
        nargs="?",
        const=True,
        default=os.environ.get(env, "false"),
        metavar="BOOL",
        help=f"{help} (env {env}=1, default off)",
    )


def database_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database",
        default=os.environ.get(ENV_DATABASE, DEFAULT_DATABASE),
        help="SQLite database file or OceanBase DSN oceanbase://USER@HOST:PORT/DATABASE "
        f"(env {ENV_DATABASE}, default {DEFAULT_DATABASE})",
    )


def existing_database(path: str) -> bool:
    # Opening would create an empty database; an admin command on a typo must fail instead.
    # (An OceanBase database must exist already: the server refuses unknown ones.)
    if not is_oceanbase_dsn(path) and not os.path.isfile(path):
        print(f"error: no database at {path}", file=sys.stderr)
        return False
    return True
