"""Server command line: `powercontext-memory COMMAND ...` (also `python -m powercontext_memory`).

Each command is a `Command` in main.py's COMMANDS: a function that adds its arguments to a
subparser and a function that runs with the parsed arguments and returns the exit code.
"""

from .main import COMMANDS, build_parser, main

__all__ = ["COMMANDS", "build_parser", "main"]
