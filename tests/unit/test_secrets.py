"""The secret guard's rules (security/secrets.py): every rule on generated secrets, every
look-alike passes, and nothing a caller sees carries the value.

Secrets are built at run time from parts (tests/secret_corpus.py), never committed.
"""

from __future__ import annotations

import random
import string

import pytest

from powercontext_memory.security.secrets import (
    RULES,
    content_text,
    find_secret,
    findings,
    is_wordish,
    looks_random,
)
from tests.secret_corpus import Sample, lookalike_samples, positive_samples

B62 = string.ascii_letters + string.digits
RULE_IDS = [rule.id for rule in RULES]
POSITIVES = [s for seed in (1, 2, 3) for s in positive_samples(seed)]
LOOKALIKES = lookalike_samples(9)


def _random(n: int, alphabet: str = B62, seed: int = 7) -> str:
    r = random.Random(seed)
    return "".join(r.choice(alphabet) for _ in range(n))


def github_token() -> str:
    return "gh" + "p_" + _random(36)


def test_every_rule_has_positive_samples() -> None:
    assert sorted({s.category for s in POSITIVES}) == sorted(RULE_IDS)


@pytest.mark.parametrize("rule", RULE_IDS)
def test_rule_names_its_secrets(rule: str) -> None:
    samples = [s for s in POSITIVES if s.category == rule]
    named = {s.text[:60]: (f.rule if (f := find_secret(s.text)) else None) for s in samples}
    assert all(found == rule for found in named.values()), named


@pytest.mark.parametrize(
    "sample", LOOKALIKES, ids=[f"{s.category}-{i}" for i, s in enumerate(LOOKALIKES)]
)
def test_lookalike_passes(sample: Sample) -> None:
    assert [f.rule for f in findings(sample.text)] == []


def test_a_finding_names_rule_and_span_but_holds_no_value() -> None:
    token = github_token()
    text = f"CI pushes with {token} every night"
    finding = find_secret(text)
    assert finding is not None and finding.rule == "github-token"
    assert text[finding.start : finding.end] == token
    assert token not in repr(finding) and token not in finding.description
    assert set(finding.__dataclass_fields__) == {"rule", "description", "start", "end"}


def test_offsets_stay_aligned_after_dotted_capital_i() -> None:
    # "İ" lower-cases to two characters; lowered anchors must still point into the text.
    password = "postgres://app:" + _random(16) + "@db.internal/main"
    text = "İstanbul ofisi: " + password
    finding = find_secret(text)
    assert finding is not None and finding.rule == "connection-string-password"
    assert text[finding.start : finding.start + 3] == "://"


@pytest.mark.parametrize(
    ("secret", "rule"),
    [
        (github_token(), "github-token"),
        ("AKIA" + _random(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), "aws-access-key-id"),
    ],
)
def test_secret_next_to_cjk_is_found(secret: str, rule: str) -> None:
    # CJK characters are word characters to `\b`: boundaries are ASCII lookarounds.
    assert (found := find_secret("令牌" + secret + "请勿外传")) is not None
    assert found.rule == rule


def test_token_inside_a_longer_run_is_not_a_token() -> None:
    # No token character may precede a prefix: `my-ghp_…` and `xsk-…` are other identifiers.
    assert find_secret("build-gh" + "p_" + _random(36)) is None
    assert find_secret("task-sk-" + _random(48)) is None


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("AKIA" + _random(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), True),
        # AWS's documented examples: a real key id ending in EXAMPLE has odds of 32^-7.
        ("AKIAIOSFODNN7EXAMPLE", False),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", False),
        ("aws_secret_access_key = " + _random(40, B62 + "/+"), True),
    ],
)
def test_aws_keys_and_the_documented_examples(text: str, refused: bool) -> None:
    assert (find_secret(text) is not None) is refused


@pytest.mark.parametrize(
    ("password", "refused"),
    [
        ("pass", True),  # a literal password, however weak: the URL syntax says it is one
        ("postgres", True),
        (_random(20), True),
        ("${DB_PASSWORD}", False),
        ("$DB_PASSWORD", False),
        ("<password>", False),
        ("PASSWORD", False),  # an upper-case name is a placeholder (the docs' DSNs)
        ("********", False),
        ("%(password)s", False),
    ],
)
def test_connection_string_passwords(password: str, refused: bool) -> None:
    text = f"DATABASE_URL=postgresql://app:{password}@db.internal:5432/main"
    assert (find_secret(text) is not None) is refused


def test_connection_string_without_password_passes() -> None:
    for text in ("oceanbase://root:@127.0.0.1:2881/test", "https://alice@example.com/x"):
        assert find_secret(text) is None


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("password=" + _random(24), True),
        ("password=hunter2", False),  # low entropy: as often prose as a password
        ("token: BearerToken", False),
        ("api_key = os.environ['API_KEY']", False),
        ("password=$DB_PASSWORD", False),
        ("password=<your-password>", False),
        ("token=${TOKEN}", False),
        ("secret: " + _random(40, "0123456789abcdef"), True),
        ("client_secret: prod-db-credentials", False),
        ("max_tokens=4096", False),
    ],
)
def test_assignments_need_a_random_value(text: str, refused: bool) -> None:
    assert (find_secret(text) is not None) is refused


@pytest.mark.parametrize(
    "value", ["BearerToken", "all-MiniLM-L6-v2", "Password123", "settings.SECRET_KEY", "v1.2.3"]
)
def test_identifiers_are_wordish(value: str) -> None:
    assert is_wordish(value) and not looks_random(value)


def test_random_values_are_not_wordish() -> None:
    r = random.Random(3)
    values = ["".join(r.choice(B62) for _ in range(32)) for _ in range(1000)]
    assert sum(is_wordish(v) for v in values) <= 5  # headroom over what this seed lets through
    assert sum(looks_random(v) for v in values) >= 990


def test_pem_header_without_key_material_passes() -> None:
    assert find_secret("-----BEGIN PRIVATE KEY-----\n<paste it here>\n-----END") is None
    body = "\n".join(_random(64, B62 + "+/", seed=i) for i in range(4))
    assert find_secret(f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----")


def test_jwt_needs_json_header_and_payload() -> None:
    real = [s.text for s in POSITIVES if s.category == "jwt"][0]
    assert find_secret(real) is not None
    assert find_secret("eyJ" + _random(20) + ".eyJ" + _random(20) + "." + _random(43)) is None


def test_binary_content_is_scanned_as_latin1() -> None:
    rng = random.Random(5)
    blob = bytes(rng.randrange(256) for _ in range(4096))
    token = github_token().encode()
    text = content_text(blob[:2000] + b"\x00" + token + b"\x00" + blob[2000:])
    assert (found := find_secret(text)) is not None and found.rule == "github-token"
    assert content_text("密码 ok".encode()) == "密码 ok"  # UTF-8 stays UTF-8
    assert find_secret(content_text(blob)) is None  # random bytes hold no secret


@pytest.mark.parametrize("unit", ["eyJ-", "token=", "pass", "sk-x", "://a:", "bearer ", "xoxb-1-"])
def test_repeated_anchors_are_not_secrets(unit: str) -> None:
    """Adversarial repetition terminates (linear work, see bench/secrets.py for the cost)."""
    assert find_secret(unit * (100_000 // len(unit))) is None
