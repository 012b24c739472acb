"""What a reader decodes out of a source's text, so that the secret guard sees it too.

The raw text is not all a source says. The server's candidate adapters parse JSON (task
outcomes, git changes, package.json), TOML (pyproject.toml) and Python (noxfile.py), and they
read decoded strings: `"\\u0067hp_…"` in a JSON source is `ghp_…` to them, and an entry derived
from it would hold the token. Besides the raw text, the guard therefore scans:

* the text with its backslash escapes decoded (`unescaped`): `\\uXXXX` (surrogate pairs
  joined), `\\u{…}`, `\\UXXXXXXXX`, `\\xHH`, `\\N{NAME}`, octal, the one-character escapes,
  and a backslash that ends a line joining what follows the line break's whitespace (TOML's
  line-ending backslash; a shell recipe joins lines so too). That is all the string decoding
  of JSON and TOML (and of Python, JavaScript and YAML double quotes), so those formats are
  read without being parsed, a half-valid file included. Text still holding escapes afterwards
  (JSON written into a JSON string) is decoded again, at most MAX_PASSES times in all.
* in Python source (a `.py` uri or a python media type), the value of every string literal,
  adjacent literals joined as Python joins them (`"gh" "p_…"`), as parsed from the first
  PYTHON_PARSE_CHARS characters: exactly what the nox adapter parses.

Formats the server never decodes (base64, percent-encoding, HTML entities) are not decoded
here either: the guard reads what the server's readers read, it does not guess at ciphers.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

MAX_PASSES: Final = 3
# The nox adapter parses this much of a noxfile (candidates/sources.py MAX_FILE_CHARS; a unit
# test keeps the two equal).
PYTHON_PARSE_CHARS: Final = 256 * 1024

_ESCAPE: Final = re.compile(
    r"\\(?:"
    r"u(?P<high>[dD][89abAB][0-9A-Fa-f]{2})\\u(?P<low>[dD][c-fC-F][0-9A-Fa-f]{2})"
    r"|u\{(?P<braced>[0-9A-Fa-f]{1,6})\}"
    r"|u(?P<u4>[0-9A-Fa-f]{4})"
    r"|U(?P<u8>[0-9A-Fa-f]{8})"
    r"|x(?P<x2>[0-9A-Fa-f]{2})"
    r"|N\{(?P<name>[A-Za-z0-9 \-]{1,88})\}"
    r"|(?P<octal>[0-7]{1,3})"
    r"|(?P<continued>[ \t]*\r?\n[ \t\r\n]*)"
    r"|(?P<char>.)"
    r")",
    re.DOTALL,
)
_ONE_CHARACTER: Final = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "a": "\a",
    "e": "\x1b",
}


def _decode(match: re.Match[str]) -> str:
    if match["high"] is not None:  # a UTF-16 surrogate pair: one character (JSON)
        high, low = int(match["high"], 16), int(match["low"], 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    hex_digits = match["braced"] or match["u4"] or match["u8"] or match["x2"]
    if hex_digits is not None:
        code = int(hex_digits, 16)
        return chr(code) if code <= 0x10FFFF else match[0]
    if match["name"] is not None:
        try:
            return unicodedata.lookup(match["name"])
        except KeyError:
            return match[0]
    if match["octal"] is not None:
        return chr(int(match["octal"], 8))
    if match["continued"] is not None:
        return ""
    char = match["char"]
    return _ONE_CHARACTER.get(char, char)


def unescaped(text: str) -> str:
    """`text` with one level of backslash escapes decoded (an escaped backslash stays one)."""
    return _ESCAPE.sub(_decode, text) if "\\" in text else text


def python_strings(text: str) -> str | None:
    """The values of the string literals of Python source, one per line (None: not Python
    that parses). Adjacent literals come out joined, bytes as Latin-1. The parse is the costly
    step of the guard (`make bench`: bench/secrets.py), so callers run it off the event loop."""
    try:
        tree = ast.parse(text[:PYTHON_PARSE_CHARS])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    values = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                values.append(node.value)
            elif isinstance(node.value, bytes):
                values.append(node.value.decode("latin-1"))
    return "\n".join(values)


def is_python(uri: str, media_type: str) -> bool:
    path = uri.split("?", 1)[0].split("#", 1)[0]
    return path.lower().endswith((".py", ".pyi")) or "python" in media_type.lower()


@dataclass(frozen=True, slots=True)
class DecodedText:
    """A text a reader gets out of the source, and how (for the refusal's message)."""

    how: str
    text: str


def decoded_texts(text: str, *, python: bool = False) -> Iterator[DecodedText]:
    """The texts besides `text` itself that the guard must scan (none when nothing decodes)."""
    starts = [DecodedText("", text)]
    if python and (strings := python_strings(text)):
        found = DecodedText("in its Python string literals", strings)
        starts.append(found)
        yield found
    for start in starts:
        current = start.text
        for _ in range(MAX_PASSES):
            decoded = unescaped(current)
            if decoded == current:
                break
            how = start.how or "with its escapes decoded"
            if start.how:
                how += ", escapes decoded"
            yield DecodedText(how, decoded)
            current = decoded
