"""The secret guard's rules: does a text hold a credential? Pure functions, no I/O.

Memories never hold secrets (docs/secret-guard.md), so every stored text (entry text, kinds,
reasons, source content — also as its readers decode it, decoded.py — URIs, metadata) passes
`find_secret` before anything is written; MemoryService turns a finding into INVALID_ARGUMENT /
SECRET_DETECTED naming the rule and the field. A
`Finding` carries the rule and the span, never the value, so nothing downstream can echo it.

Each rule is a compiled regex tried only where one of its anchors (literal substrings) occurs,
plus a check on the matched value that lets documentation placeholders, variable references
and ordinary identifiers through. Their recall, false positives and CPU cost per KB (also on
the worst case, one anchor repeated, which stays linear) are measured against detect-secrets
on the same corpora (tests/secret_corpus.py) by `make bench` (bench/secrets.py; figures in
docs/secret-guard.md).
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    """Where a rule matched. Deliberately no value: callers report the rule, not the secret."""

    rule: str
    description: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Rule:
    """A pattern tried only where one of its anchors (literal substrings) occurs, and matched
    from there: finding anchors is a C-speed `str.find`, so text without them costs almost
    nothing and no regex scans every position."""

    id: str
    description: str
    anchors: tuple[str, ...]
    pattern: re.Pattern[str]  # must match starting at an anchor
    # Anchors are looked up in the lower-cased text (pattern then uses IGNORECASE).
    lowered: bool = False
    # Confirms a match (placeholders, references and identifiers are not secrets). Sees the
    # match; the candidate value is group "value" when the pattern has one.
    confirm: Callable[[re.Match[str]], bool] = lambda _m: True

    def first(self, text: str, lowered: str) -> re.Match[str] | None:
        haystack = lowered if self.lowered else text
        for anchor in self.anchors:
            at = haystack.find(anchor)
            while at != -1:
                match = self.pattern.match(text, at)
                if match is not None and self.confirm(match):
                    return match
                at = haystack.find(anchor, at + 1)
        return None


# -- what a real secret value looks like ------------------------------------------------------


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


_PLACEHOLDER_WORDS = re.compile(
    r"x{4}|\*{3}|\.{3}|…|your|example|placeholder|changeme|change_me|redacted|dummy|sample|"
    r"replace|insert|fake|test_?token|secret_?here|token_?here|key_?here",
    re.IGNORECASE,
)
# Code and templates rather than a literal: $VAR ${VAR} <name> {{x}} %(x)s os.environ["X"] f(x)
_REFERENCE = re.compile(r"[$<>{}\[\]()]|%\(")
_WORD_TOKENS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_SEGMENT_SEPARATORS = re.compile(r"[._\-/:]")
_IDENTIFIER_CHARS = re.compile(r"[A-Za-z0-9._\-/:]+")
_VOWELS = frozenset("aeiouyAEIOUY")
_PATH = re.compile(r"(?:~|\.{1,2})?(?:/[\w.\-]+)+/?")


def _word_segment(segment: str) -> bool:
    """CamelCase / lower / UPPER words and short digit runs, averaging 3+ characters."""
    tokens = _WORD_TOKENS.findall(segment)
    for i, token in enumerate(tokens):
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if token.isdigit():
            word = len(token) <= 4  # versions, years, ports
        elif token.isupper():
            word = len(token) > 1 or following.isdigit()  # ENV, API; S3, V2
        elif len(token) == 1:
            word = i == 0 and token == "v"  # v2
        else:
            word = len(token) < 5 or bool(_VOWELS & set(token))  # cfg, pwd; Bearer, uncased
        if not word:
            return False
    return sum(map(len, tokens)) >= 3 * len(tokens)


def is_wordish(value: str) -> bool:
    """Identifiers and words rather than random characters: CamelCase, snake_case, kebab-case,
    ENV_NAMES, dotted paths, versions, model names (`BearerToken`, `all-MiniLM-L6-v2`,
    `Password123`, `settings.SECRET_KEY`). Every segment between `._-/:` is at most 4
    characters or made of words. Random base62 strings rarely pass as words, since a lone
    lower-case letter between capitals or digits gives randomness away (checked by
    tests/unit/test_secrets.py, test_random_values_are_not_wordish)."""
    if not _IDENTIFIER_CHARS.fullmatch(value):
        return False
    return all(
        len(segment) <= 4 or _word_segment(segment) for segment in _SEGMENT_SEPARATORS.split(value)
    )


def _sequential(value: str) -> bool:
    """abcdef..., 123456..., the shape of a hand-typed placeholder."""
    steps = sum(1 for a, b in zip(value, value[1:], strict=False) if ord(b) - ord(a) == 1)
    return steps >= 0.6 * (len(value) - 1)


def is_placeholder(value: str) -> bool:
    """Documentation filler: xxxx, ***, ..., <your-token>, 'example', abcdef…, one character."""
    return (
        bool(_PLACEHOLDER_WORDS.search(value))
        or entropy(value) < 2.5
        or _sequential(value)
        or value.endswith("EXAMPLE")  # AWS's documented example keys (AKIAIOSFODNN7EXAMPLE)
        or value.endswith("EXAMPLEKEY")
    )


def looks_random(value: str, min_length: int = 10) -> bool:
    """A literal, machine-made value: long enough, no reference syntax, not words, high entropy.

    Low-entropy literals (`password: hunter2`, `token: BearerToken`) pass on purpose: in a
    `key: value` text they are as often prose or identifiers as passwords.
    """
    if len(value.rstrip(".")) < min_length:  # a full stop ends the sentence, not the value
        return False
    if is_placeholder(value) or _REFERENCE.search(value) or "://" in value:
        return False
    value = value.rstrip(".")
    if is_wordish(value) or _PATH.fullmatch(value) or value.isdigit():
        return False
    return entropy(value) >= min(2.8, 0.7 * math.log2(len(value)))


def _token_body(match: re.Match[str]) -> bool:
    """Prefixed tokens (ghp_, glpat-, sk-...): the random part must not be a placeholder."""
    return not is_placeholder(match.group("value"))


def _random_value(match: re.Match[str]) -> bool:
    return looks_random(match.group("value"))


def _mixed_body(match: re.Match[str]) -> bool:
    """sk-... keys: base62 (upper, lower and digits) or long hex; `sk-learn-estimators` is not."""
    body = match.group("value")
    mixed = any(c.isupper() for c in body) and any(c.islower() for c in body)
    hexish = len(body) >= 32 and bool(re.fullmatch(r"[0-9a-f]+", body))
    has_digit = any(c.isdigit() for c in body)
    return has_digit and (mixed or hexish) and not is_placeholder(body)


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{40,}")


def _pem_body(match: re.Match[str]) -> bool:
    """A PEM header followed by key material (a 40+ character base64 run within 300 chars),
    so `-----BEGIN PRIVATE KEY-----\\n...` in documentation passes."""
    following = match.string[match.end() : match.end() + 300].replace("\\n", "\n")
    return bool(_BASE64_RUN.search(following))


def _b64json(part: str) -> object:
    try:
        return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (binascii.Error, ValueError, RecursionError):
        return None


def _jwt(match: re.Match[str]) -> bool:
    header, payload = match.group("header"), match.group("payload")
    decoded = _b64json(header)
    return isinstance(decoded, dict) and "alg" in decoded and isinstance(_b64json(payload), dict)


_TEMPLATE_PASSWORD = re.compile(r"[$<>{}\[\]]|%\(|\*{3}|x{3}|\.{3}|…", re.IGNORECASE)
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


def _literal_password(match: re.Match[str]) -> bool:
    """Connection strings: any literal password is refused (the syntax says it is one, and
    `postgres:postgres@` is a real default password); only template syntax (`${DB_PASSWORD}`,
    `<password>`, `***`) and upper-case names (`root:PASSWORD@`) pass."""
    value = match.group("value") or match.group("param")
    return not (_TEMPLATE_PASSWORD.search(value) or _ENV_NAME.fullmatch(value))


# -- the rules, most specific first (the first match names the finding) ------------------------

_I = re.IGNORECASE
# Prefixed tokens start where no token character precedes them: an anchor inside a longer run
# fails at once, so repeated anchors (`eyJ-eyJ-…`) cost linear time, never quadratic.
_START = r"(?<![A-Za-z0-9_\-])"
_ASSIGN = r"\s{0,4}(?:=>|:=|[:=])\s{0,4}"  # = : := => with a little space
_KEY_QUALIFIERS = (
    "api",
    "access",
    "auth",
    "private",
    "account",
    "client",
    "encryption",
    "signing",
    "master",
)
_KEYWORD_ANCHORS = ("pass", "pwd", "secret", "token", "credential", *_KEY_QUALIFIERS)
_KEYWORD_ASSIGNMENT = (
    r"(?:passw(?:or)?d|passphrase|pass\b|pwd|secret|token|credentials?|"
    rf"(?:{'|'.join(_KEY_QUALIFIERS)})[_\-. ]?key|apikey)"
    rf"[A-Za-z0-9_\-]{{0,24}}[\"']?{_ASSIGN}(?:[\"'`]|b[\"'])?"
    # The value stops at quotes, separators and the next assignment, so repeated keywords
    # (`token=token=…`) cost linear time; and at a backslash, which starts an escape or a line
    # continuation (the decoded text is scanned too: security/decoded.py).
    r"(?P<value>[^\s\"'`,;=:\\]{1,256})"
)

RULES: tuple[Rule, ...] = (
    Rule(
        "gcp-service-account-key",
        "a Google Cloud service account key",
        ('"private_key"',),
        re.compile(r"\"private_key\"\s{0,4}:\s{0,4}\"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY-----"),
        confirm=_pem_body,
    ),
    Rule(
        "private-key",
        "a private key (PEM or OpenSSH)",
        ("-----BEGIN",),
        re.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
        confirm=_pem_body,
    ),
    Rule(
        "aws-access-key-id",
        "an AWS access key id",
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        re.compile(
            r"(?<![A-Za-z0-9])(?P<value>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})"
            r"(?![A-Za-z0-9])"
        ),
        confirm=_token_body,
    ),
    Rule(
        "aws-secret-access-key",
        "an AWS secret access key",
        ("aws",),
        re.compile(
            r"aws[_\-. ]?secret[_\-. ]?(?:access[_\-. ]?)?key[\"']?"
            rf"{_ASSIGN}[\"']?"
            r"(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
            _I,
        ),
        lowered=True,
        confirm=_token_body,
    ),
    Rule(
        "google-api-key",
        "a Google API key",
        ("AIza",),
        re.compile(rf"{_START}AIza(?P<value>[0-9A-Za-z_\-]{{35}})(?![0-9A-Za-z_\-])"),
        confirm=_token_body,
    ),
    Rule(
        "github-token",
        "a GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(
            rf"{_START}(?:gh[pousr]_(?P<value>[A-Za-z0-9]{{36}})(?![A-Za-z0-9])"
            r"|github_pat_(?P<pat>[A-Za-z0-9_]{60,255}))"
        ),
        confirm=lambda m: not is_placeholder(m.group("value") or m.group("pat")),
    ),
    Rule(
        "gitlab-token",
        "a GitLab token",
        tuple(f"gl{p}-" for p in ("pat", "dt", "rt", "ptt", "soat", "ft", "imt", "cbt", "agent")),
        re.compile(
            rf"{_START}gl(?:pat|dt|rt|ptt|soat|ft|imt|cbt|agent)-"
            r"(?P<value>[A-Za-z0-9_\-]{20,128})"
        ),
        confirm=_token_body,
    ),
    Rule(
        "slack-token",
        "a Slack token",
        ("xox", "xapp-"),
        re.compile(
            rf"{_START}(?:xox[abposre](?:\.xox[abposr])?|xapp)-"
            r"(?P<value>[0-9]{1,20}-[0-9A-Za-z\-]{16,256})"
        ),
        confirm=_token_body,
    ),
    Rule(
        "slack-webhook",
        "a Slack webhook URL",
        ("hooks.slack.com/",),
        re.compile(
            r"hooks\.slack\.com/(?:services|workflows|triggers)/\w{1,32}/\w{1,32}/"
            r"(?P<value>[A-Za-z0-9_]{16,64})"
        ),
        confirm=_token_body,
    ),
    Rule(
        "stripe-key",
        "a Stripe live secret or restricted key",
        ("sk_live_", "rk_live_"),
        re.compile(rf"{_START}[rs]k_live_(?P<value>[A-Za-z0-9]{{20,255}})"),
        confirm=_token_body,
    ),
    Rule(
        "anthropic-key",
        "an Anthropic API key",
        ("sk-ant-",),
        re.compile(rf"{_START}sk-ant-[a-z]{{2,8}}[0-9]{{0,3}}-(?P<value>[A-Za-z0-9_\-]{{32,256}})"),
        confirm=_mixed_body,
    ),
    Rule(
        "openai-key",
        "an OpenAI-style API key (sk-...)",
        ("sk-",),
        re.compile(
            rf"{_START}sk-(?!ant-)(?:(?:proj|svcacct|admin|None)-)?"
            r"(?P<value>[A-Za-z0-9_\-]{20,256})"
        ),
        confirm=_mixed_body,
    ),
    Rule(
        "huggingface-token",
        "a Hugging Face token",
        ("hf_",),
        re.compile(rf"{_START}hf_(?P<value>[A-Za-z0-9]{{34,64}})(?![A-Za-z0-9])"),
        confirm=_token_body,
    ),
    Rule(
        "npm-token",
        "an npm token",
        ("npm_",),
        re.compile(rf"{_START}npm_(?P<value>[A-Za-z0-9]{{36}})(?![A-Za-z0-9])"),
        confirm=_token_body,
    ),
    Rule(
        "pypi-token",
        "a PyPI upload token",
        ("pypi-AgEIcHlwaS5vcmc",),
        re.compile(rf"{_START}pypi-AgEIcHlwaS5vcmc(?P<value>[A-Za-z0-9_\-]{{50,512}})"),
        confirm=_token_body,
    ),
    Rule(
        "sendgrid-key",
        "a SendGrid API key",
        ("SG.",),
        re.compile(rf"{_START}SG\.[A-Za-z0-9_\-]{{22}}\.(?P<value>[A-Za-z0-9_\-]{{43}})"),
        confirm=_token_body,
    ),
    Rule(
        "jwt",
        "a JSON Web Token",
        ("eyJ",),
        re.compile(
            rf"{_START}(?P<header>eyJ[A-Za-z0-9_\-]{{8,1024}})"
            r"\.(?P<payload>eyJ[A-Za-z0-9_\-]{8,8192})\.[A-Za-z0-9_\-]{0,1024}"
        ),
        confirm=_jwt,
    ),
    Rule(
        "connection-string-password",
        "a connection string with a password",
        ("://", "password", "pwd"),
        re.compile(
            # scheme://user:password@host, and ?password= / ;Password= parameters
            r"://[^\s:/@?#\"'<>]{0,256}:(?P<value>[^\s@/?#\"'<>]{1,256})@[\w\[.\-]"
            r"|(?:(?<=[?&;])|(?<=; ))(?:password|pwd)\s?=\s?(?P<param>[^\s;&\"']{1,256})",
            _I,
        ),
        lowered=True,
        confirm=_literal_password,
    ),
    Rule(
        "authorization-header",
        "a bearer or basic credential",
        ("bearer ", "basic "),
        re.compile(
            r"(?:bearer|basic)\s{1,4}(?P<value>[A-Za-z0-9_\-.~+/]{16,4096}={0,2})"
            r"(?![A-Za-z0-9_\-.~+/=])",
            _I,
        ),
        lowered=True,
        confirm=_random_value,
    ),
    Rule(
        "secret-assignment",
        "a password, secret, token or API key assigned a high-entropy value",
        _KEYWORD_ANCHORS,
        re.compile(_KEYWORD_ASSIGNMENT, _I),
        lowered=True,
        confirm=_random_value,
    ),
)


@functools.cache
def _anchor_table(rules: tuple[Rule, ...]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """(anchor, rule index) pairs: looked up in the text, and in the lower-cased text."""
    return tuple(
        tuple(
            (anchor, i)
            for i, rule in enumerate(rules)
            if rule.lowered is lowered
            for anchor in rule.anchors
        )
        for lowered in (False, True)
    )


def findings(text: str, rules: tuple[Rule, ...] = RULES) -> Iterator[Finding]:
    """The first confirmed match of each rule whose anchors occur, rule by rule."""
    # U+0130 is the one character whose lower case is two characters: keep offsets aligned.
    lowered = text.replace("\u0130", "I").lower()
    exact, folded = _anchor_table(rules)
    present = {i for anchor, i in exact if anchor in text}
    present.update(i for anchor, i in folded if anchor in lowered)
    for i in sorted(present):
        rule = rules[i]
        match = rule.first(text, lowered)
        if match is not None:
            yield Finding(rule.id, rule.description, match.start(), match.end())


def find_secret(text: str) -> Finding | None:
    """The first finding, or None: what the write path needs."""
    return next(findings(text), None)


def content_text(content: bytes) -> str:
    """Source bytes as text to scan: UTF-8 when they decode, else Latin-1, which maps every
    byte to one character, so ASCII secrets inside binary files (a PEM in a tar, a token in a
    SQLite file) are still found. Compressed content (zip, gzip, PDF streams) cannot be
    inspected."""
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return content.decode("latin-1")
