"""The secret guard reads a source as its readers decode it (security/decoded.py and
security/guard.py).

`unescaped` is held against the real decoders (json, tomllib, Python's own literals) on generated
strings; then the whole secret corpus (tests/secret_corpus.py) goes into a source in every format
the server parses — each encoding checked with that format's real parser first — and every
positive must be refused while every look-alike is stored.
"""

from __future__ import annotations

import ast
import json
import random
import tomllib
import unicodedata

import pytest

from powercontext_memory.candidates.sources import MAX_FILE_CHARS
from powercontext_memory.security import decoded
from powercontext_memory.security.decoded import (
    MAX_PASSES,
    decoded_texts,
    is_python,
    python_strings,
    unescaped,
)
from powercontext_memory.security.guard import source_secret, text_secret
from powercontext_memory.security.secrets import find_secret
from tests.secret_corpus import (
    ENCODINGS,
    Encoded,
    Sample,
    lookalike_samples,
    positive_samples,
)

POSITIVES = [s for seed in (1, 2, 3) for s in positive_samples(seed)]
LOOKALIKES = lookalike_samples(9)
# A GCP key file escaped as a whole reads as the private key it holds (the PEM rule names it
# first once the JSON around it is escaped too): refused either way.
SAME_FAMILY = {"gcp-service-account-key": {"gcp-service-account-key", "private-key"}}


def _texts(seed: int, n: int = 300) -> list[str]:
    """Strings mixing ASCII, quotes, backslashes, controls, CJK and astral characters."""
    r = random.Random(seed)
    alphabet = 'ab09 _-"\\/\n\t\x01\x7fé中文😀\U0001f680'
    return ["".join(r.choice(alphabet) for _ in range(r.randrange(0, 24))) for _ in range(n)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_json_escapes_decode_as_json_decodes_them(seed: int) -> None:
    for text in _texts(seed):
        for ascii_only in (True, False):
            body = json.dumps(text, ensure_ascii=ascii_only)[1:-1]
            assert unescaped(body) == text == json.loads(f'"{body}"')


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_toml_escapes_and_line_ending_backslashes_decode_as_tomllib_does(seed: int) -> None:
    r = random.Random(seed)
    for text in _texts(seed):
        parts = []
        for c in text:
            if r.random() < 0.1 and not c.isspace():
                parts.append("\\  \n \n\t  ")  # a line-ending backslash and the blank it eats
            if c in '"\\' or ord(c) < 0x20 or c == "\x7f":
                parts.append(f"\\u{ord(c):04X}" if r.random() < 0.5 else f"\\U{ord(c):08x}")
            elif r.random() < 0.3:
                parts.append(f"\\U{ord(c):08X}" if ord(c) > 0xFFFF else f"\\u{ord(c):04x}")
            else:
                parts.append(c)
        body = "".join(parts)
        parsed = tomllib.loads(f'value = """{body}"""\n')["value"]
        assert unescaped(body) == parsed == text


def _python_escape(c: str, r: random.Random) -> str:
    forms = [f"\\U{ord(c):08x}"]
    if ord(c) <= 0xFFFF:
        forms.append(f"\\u{ord(c):04x}")
    if ord(c) < 0x100:
        forms += [f"\\x{ord(c):02x}", f"\\{ord(c):03o}"]  # three digits: a digit may follow
    if unicodedata.name(c, ""):
        forms.append(f"\\N{{{unicodedata.name(c)}}}")
    return r.choice(forms)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_python_escapes_decode_as_python_does(seed: int) -> None:
    r = random.Random(seed)
    for text in _texts(seed):
        body = "".join(
            _python_escape(c, r) if c in '"\\' or not c.isprintable() or r.random() < 0.3 else c
            for c in text
        )
        assert unescaped(body) == ast.literal_eval(f'"{body}"') == text, body
    assert unescaped("\\N{NO SUCH NAME}") == "\\N{NO SUCH NAME}"  # left as written
    assert unescaped("\\u{67}\\x68\\160_") == "ghp_"  # JavaScript braces, hex, octal


def test_an_escaped_backslash_stays_one_and_a_further_pass_decodes_what_it_escapes() -> None:
    inner = '{"t": "\\u0067hp"}'  # JSON text holding an escape
    outer = json.dumps({"turn": inner})  # ... written into a JSON string
    assert json.loads(json.loads(outer)["turn"])["t"] == "ghp"
    once = unescaped(outer)
    assert "\\u0067" in once and "ghp" not in once
    assert "ghp" in unescaped(once)
    passes = [d.text for d in decoded_texts(outer)]
    assert len(passes) == 2 and "ghp" in passes[-1]
    deep = "\\" * (2**MAX_PASSES + 2) + "u0067"
    assert len(list(decoded_texts(deep))) == MAX_PASSES  # bounded


def test_text_without_escapes_gives_nothing_more_to_scan() -> None:
    plain = 'The release goes out on Fridays; {"json": "without escapes"} is read as is.'
    assert list(decoded_texts(plain)) == []
    assert list(decoded_texts(plain, python=True)) == []  # not Python that parses


def test_python_strings_join_adjacent_literals_and_read_what_the_nox_adapter_reads() -> None:
    code = 'import nox\nx = ("gh" "p_" f"{y}tail") + b"by\\x74es"\n'
    assert sorted((python_strings(code) or "").split("\n")) == ["bytes", "ghp_", "tail"]
    assert python_strings("def broken(:\n") is None
    assert decoded.PYTHON_PARSE_CHARS == MAX_FILE_CHARS
    assert is_python("repo://noxfile.py", "") and is_python("repo://tools/a.PY?x=1", "")
    assert is_python("", "text/x-python") and not is_python("repo://notes.md", "text/markdown")


def _scan(encoded: Encoded) -> tuple[str, str] | None:
    found = source_secret(
        encoded.kind, encoded.uri, encoded.media_type, encoded.content.encode(), ()
    )
    return (found.finding.rule, found.how) if found else None


def _read_back(name: str, encoded: Encoded) -> str:
    """The sample as the format's real parser reads it out of the source."""
    if name.startswith("json"):
        data = json.loads(encoded.content)
        return str(json.loads(data["turn"])["report"] if "turn" in data else data["report"])
    if name.startswith("toml"):
        return str(tomllib.loads(encoded.content)["tool"]["ci"]["note"])
    tree = ast.parse(encoded.content)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call))
    return str(ast.literal_eval(call.args[0]))


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_every_secret_is_refused_in_every_format_the_server_parses(name: str) -> None:
    encode = ENCODINGS[name]
    missed: dict[str, str] = {}
    for sample in POSITIVES:
        encoded = encode(sample.text)
        assert _read_back(name, encoded) == sample.text
        found = _scan(encoded)
        # A split text may still show a shorter match whole (`_authToken=npm_` + half the
        # token): refused by that rule, before decoding. Escaped forms hide every character.
        rules = SAME_FAMILY.get(sample.category, {sample.category}) if "escape" in name else None
        if found is None or (rules is not None and found[0] not in rules):
            missed[sample.text[:60]] = f"{sample.category}: {found}"
    assert missed == {}


@pytest.mark.parametrize("name", [n for n in ENCODINGS if "escapes" in n or "in json" in n])
def test_escaped_secrets_are_found_only_by_decoding(name: str) -> None:
    """These encodings hide every secret from a scan of the raw bytes: decoding finds them."""
    hidden = [s for s in POSITIVES if find_secret(ENCODINGS[name](s.text).content) is None]
    assert len(hidden) == len(POSITIVES)
    assert all((_scan(ENCODINGS[name](s.text)) or ("", ""))[1] for s in hidden)


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_every_lookalike_passes_in_every_format(name: str) -> None:
    flagged = {}
    for sample in LOOKALIKES:
        encoded = ENCODINGS[name](sample.text)
        assert _read_back(name, encoded) == sample.text
        if (found := _scan(encoded)) is not None:
            flagged[sample.text[:60]] = found
    assert flagged == {}


def test_the_corpora_are_the_size_the_closing_figures_quote() -> None:
    """(Positives, look-alikes) per format: the figures of docs/secret-guard.md and the bench."""
    assert (len(POSITIVES), len(LOOKALIKES)) == (411, 127)
    assert all(isinstance(s, Sample) for s in POSITIVES + LOOKALIKES)


def test_every_guarded_text_is_read_decoded_and_says_how() -> None:
    token = "gh" + "p_" + "".join(random.Random(5).choices("abcdefghijkLMNOPQRS0123456789", k=36))
    escaped = "".join(f"\\u{ord(c):04x}" for c in token[:4]) + token[4:]
    found = text_secret("entries[0].text", f"CI pushes with {escaped}")
    assert found is not None
    assert (found.field, found.finding.rule, found.how) == (
        "entries[0].text",
        "github-token",
        "with its escapes decoded",
    )
    stored = text_secret("entries[0].text", f"CI pushes with {token}")
    assert stored is not None and stored.how == ""  # found as stored: nothing to explain
    # Only sources are parsed as Python; a text is not (a literal pair stays two words).
    assert text_secret("text", f'"{token[:9]}" "{token[9:]}"') is None
    python = source_secret(
        "file", "repo://noxfile.py", "", f'x = ("{token[:9]}" "{token[9:]}")'.encode(), ()
    )
    assert python is not None and python.how == "in its Python string literals"
