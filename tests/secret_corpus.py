"""The secret guard's two corpora, shared by the tests and `make bench` (bench/secrets.py).

Positives are built at run time from parts with a seeded generator — a prefix ("gh" + "p_")
and random characters, keys from `cryptography` — so no string in this repository is a live
credential that a scanner (GitHub push protection) would flag. Look-alikes are the hand-written
file tests/data/secrets/lookalikes.txt (placeholders, references, code, prose, CJK, versions)
plus generated git SHAs, SHA-256 digests, UUIDs, base64 of ordinary text, public keys and
certificates, which must all pass.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, rsa
from cryptography.x509.oid import NameOID

from powercontext_memory.security.secrets import find_secret

LOOKALIKES_FILE = Path(__file__).parent / "data" / "secrets" / "lookalikes.txt"
SEPARATOR = "%%"

B62 = string.ascii_letters + string.digits
B64URL = B62 + "-_"
B64 = B62 + "+/"
BASE32 = string.ascii_uppercase + "234567"
HEX = "0123456789abcdef"


@dataclass(frozen=True)
class Sample:
    category: str  # the rule that must fire (positives) or the kind of look-alike
    text: str


class _Parts:
    """Random pieces from one seeded generator."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def digits(self, n: int) -> str:
        return self.r.choice("123456789") + self.chars(string.digits, n - 1)

    def pick(self, *options: str) -> str:
        return self.r.choice(options)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# -- positives: one builder per rule, each returning a secret in a realistic context -------------

_CONTEXTS = (
    "export {name}={value}",
    "The deploy job authenticates with {value} (rotated monthly).",
    '{{"{name}": "{value}"}}',
    "{name}: {value}",
    "curl -H 'X-Api-Key: {value}' https://api.internal.test/v1/items",
    "在 CI 里用的令牌是 {value}，请勿外传。",
)


def _in_context(p: _Parts, name: str, value: str) -> str:
    return p.pick(*_CONTEXTS).format(name=name, value=value)


def _private_keys(p: _Parts) -> list[str]:
    password = p.chars(B62, 12).encode()
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    ed_key = ed25519.Ed25519PrivateKey.generate()
    dsa_key = dsa.generate_private_key(key_size=1024)
    pem = serialization.Encoding.PEM
    pkcs8, trad = serialization.PrivateFormat.PKCS8, serialization.PrivateFormat.TraditionalOpenSSL
    none = serialization.NoEncryption()
    encrypted = serialization.BestAvailableEncryption(password)
    keys = [
        rsa_key.private_bytes(pem, trad, none),  # BEGIN RSA PRIVATE KEY
        rsa_key.private_bytes(pem, pkcs8, none),  # BEGIN PRIVATE KEY
        rsa_key.private_bytes(pem, pkcs8, encrypted),  # BEGIN ENCRYPTED PRIVATE KEY
        rsa_key.private_bytes(pem, trad, encrypted),  # Proc-Type: 4,ENCRYPTED
        ec_key.private_bytes(pem, trad, none),  # BEGIN EC PRIVATE KEY
        ec_key.private_bytes(pem, pkcs8, none),
        dsa_key.private_bytes(pem, trad, none),  # BEGIN DSA PRIVATE KEY
        ed_key.private_bytes(pem, serialization.PrivateFormat.OpenSSH, none),
        ec_key.private_bytes(pem, serialization.PrivateFormat.OpenSSH, none),
    ]
    texts = [k.decode() for k in keys]
    return [
        *texts,
        "Deploy key for the staging box:\n```\n" + texts[7] + "```",
        "key = " + json.dumps(texts[1]),  # one line, \n escaped
        texts[0].replace("\n", " "),  # newlines collapsed to spaces
    ]


def _gcp(p: _Parts) -> list[str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    out = []
    for _ in range(3):
        project = "proj-" + p.chars(string.ascii_lowercase, 6)
        account = {
            "type": "service_account",
            "project_id": project,
            "private_key_id": p.chars(HEX, 40),
            "private_key": pem,
            "client_email": f"deployer@{project}.iam.gserviceaccount.com",
            "client_id": p.digits(21),
        }
        out.append(json.dumps(account, indent=p.r.choice([None, 2])))
    return out


def _aws_id(p: _Parts) -> list[str]:
    return [
        _in_context(p, "AWS_ACCESS_KEY_ID", p.pick("AKIA", "ASIA") + p.chars(BASE32, 16))
        for _ in range(12)
    ]


def _aws_secret(p: _Parts) -> list[str]:
    names = ("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "aws-secret-key")
    return [
        f"{p.pick(*names)} = {p.chars(B64, 40)}"
        if i % 2
        else f'"{p.pick(*names)}": "{p.chars(B64, 40)}"'
        for i in range(8)
    ]


def _google_api(p: _Parts) -> list[str]:
    return [_in_context(p, "GOOGLE_API_KEY", "AIza" + p.chars(B64URL, 35)) for _ in range(6)]


def _github(p: _Parts) -> list[str]:
    classic = [
        _in_context(p, "GITHUB_TOKEN", "gh" + prefix + "_" + p.chars(B62, 36))
        for prefix in ("p", "o", "u", "s", "r", "p", "s")
    ]
    fine = [
        _in_context(p, "GH_TOKEN", "github" + "_pat_" + p.chars(B62, 22) + "_" + p.chars(B62, 59))
        for _ in range(4)
    ]
    return classic + fine


def _gitlab(p: _Parts) -> list[str]:
    return [
        _in_context(p, "GITLAB_TOKEN", "gl" + p.pick("pat", "dt", "rt") + "-" + p.chars(B64URL, 20))
        for _ in range(8)
    ]


def _slack(p: _Parts) -> list[str]:
    out = []
    for kind in ("b", "p", "a", "b", "s", "r"):
        value = f"xox{kind}-{p.digits(11)}-{p.digits(12)}-{p.chars(B62, 24)}"
        out.append(_in_context(p, "SLACK_TOKEN", value))
    out.append(f"xapp-1-A{p.chars(BASE32, 10)}-{p.digits(13)}-{p.chars(HEX, 64)}")
    return out


def _slack_webhook(p: _Parts) -> list[str]:
    return [
        "Alerts go to https://hooks.slack"
        f".com/services/T{p.chars(BASE32, 8)}/B{p.chars(BASE32, 10)}/{p.chars(B62, 24)}"
        for _ in range(5)
    ]


def _stripe(p: _Parts) -> list[str]:
    return [
        _in_context(p, "STRIPE_KEY", p.pick("sk", "rk") + "_live" + "_" + p.chars(B62, 99))
        for _ in range(6)
    ]


def _openai(p: _Parts) -> list[str]:
    return [
        _in_context(p, "OPENAI_API_KEY", "sk-" + p.chars(B62, 48)),
        _in_context(
            p, "OPENAI_API_KEY", "sk-" + p.chars(B62, 20) + "T3Blbk" + "FJ" + p.chars(B62, 20)
        ),
        *(_in_context(p, "OPENAI_API_KEY", "sk-proj-" + p.chars(B64URL, 156)) for _ in range(4)),
        _in_context(p, "OPENAI_API_KEY", "sk-svcacct-" + p.chars(B64URL, 100)),
        _in_context(p, "DEEPSEEK_API_KEY", "sk-" + p.chars(HEX, 32)),
    ]


def _anthropic(p: _Parts) -> list[str]:
    return [
        _in_context(p, "ANTHROPIC_API_KEY", "sk-ant-api03-" + p.chars(B64URL, 93) + "AA")
        for _ in range(6)
    ]


def _hf_npm_pypi_sendgrid(p: _Parts) -> list[tuple[str, str]]:
    return [
        *(("huggingface-token", "HF_TOKEN=hf_" + p.chars(B62, 34)) for _ in range(3)),
        *(
            ("npm-token", "//registry.npmjs.org/:_authToken=npm_" + p.chars(B62, 36))
            for _ in range(3)
        ),
        *(
            ("pypi-token", "password = pypi-AgEIcHlwaS5vcmc" + p.chars(B64URL, 70))
            for _ in range(3)
        ),
        *(
            ("sendgrid-key", "SG." + p.chars(B64URL, 22) + "." + p.chars(B64URL, 43))
            for _ in range(3)
        ),
    ]


def _jwt(p: _Parts) -> list[str]:
    out = []
    for alg in ("HS256", "RS256", "ES256", "HS512", "RS256", "EdDSA"):
        header = _b64url(json.dumps({"alg": alg, "typ": "JWT"}).encode())
        claims = {"sub": p.digits(8), "iat": 1_700_000_000 + p.r.randrange(10**7)}
        payload = _b64url(json.dumps(claims).encode())
        token = f"{header}.{payload}.{_b64url(p.r.randbytes(32))}"
        out.append(p.pick(f"Authorization: Bearer {token}", f"session cookie: {token}", token))
    return out


def _connection_strings(p: _Parts) -> list[str]:
    password = p.pick(p.chars(B62, 16), "postgres", "pass", "hunter2", p.chars(B62, 10) + "%21")
    schemes = ("postgres", "postgresql", "mysql", "mongodb+srv", "redis", "amqp", "mssql")
    out = [
        f"{scheme}://app:{password if i % 2 else p.chars(B62, 14)}@db{i}.internal:5432/main"
        for i, scheme in enumerate(schemes)
    ]
    out.append(f"redis://:{p.chars(B62, 20)}@cache.internal:6379/0")
    out.append(f"jdbc:postgresql://db/main?user=app&password={p.chars(B62, 12)}")
    out.append(f"Server=db;Database=main;User Id=app;Password={p.chars(B62, 12)};")
    out.append("DATABASE_URL=postgres://user:pass@localhost:5432/app")
    return out


def _authorization(p: _Parts) -> list[str]:
    return [
        f"curl -H 'Authorization: Bearer {p.chars(B64URL, 40)}' https://api.internal.test",
        f"Authorization: Basic {base64.b64encode(b'deploy:' + p.chars(B62, 14).encode()).decode()}",
        f'-H "authorization: bearer {p.chars(B62, 32)}"',
    ]


def _assignments(p: _Parts) -> list[str]:
    names = (
        "password",
        "DB_PASSWORD",
        "api_key",
        "apiKey",
        "secret",
        "client_secret",
        "token",
        "ACCESS_TOKEN",
        "auth_token",
        "SECRET_KEY",
        "private_key",
        "passphrase",
    )
    styles = (
        "{name}={value}",
        '{name}: "{value}"',
        "{name} = '{value}'",
        '"{name}": "{value}"',
        "{name} := {value}",
        "set {name}={value} before running",
    )
    out = []
    for i, name in enumerate(names):
        value = p.chars(p.pick(B62, B64URL, HEX, B62 + "!@#%^&*"), p.r.randint(16, 40))
        out.append(styles[i % len(styles)].format(name=name, value=value))
    out.append("SECRET_KEY = 'django-insecure-" + p.chars(B62 + "!@#%^&*", 50) + "'")
    return out


_BUILDERS: dict[str, Callable[[_Parts], list[str]]] = {
    "private-key": _private_keys,
    "gcp-service-account-key": _gcp,
    "aws-access-key-id": _aws_id,
    "aws-secret-access-key": _aws_secret,
    "google-api-key": _google_api,
    "github-token": _github,
    "gitlab-token": _gitlab,
    "slack-token": _slack,
    "slack-webhook": _slack_webhook,
    "stripe-key": _stripe,
    "openai-key": _openai,
    "anthropic-key": _anthropic,
    "jwt": _jwt,
    "connection-string-password": _connection_strings,
    "authorization-header": _authorization,
    "secret-assignment": _assignments,
}


def positive_samples(seed: int = 9) -> list[Sample]:
    """Texts that hold a secret; `category` is the rule that must name it."""
    p = _Parts(seed)
    out = [Sample(rule, text) for rule, build in _BUILDERS.items() for text in build(p)]
    out += [Sample(rule, text) for rule, text in _hf_npm_pypi_sendgrid(p)]
    return out


# -- look-alikes: must all pass --------------------------------------------------------------------

_SENTENCES = (
    "Integration tests need a local PostgreSQL listening on port 5433.",
    "Prefer small pull requests with one concern each.",
    "验证约定：常规代码变更运行 make test；评审前运行 make check。",
    "The release script publishing packages lives in tools/ship.sh.",
    '{"user": "alice", "theme": "dark", "items": [1, 2, 3]}',
)


def _public_material(p: _Parts) -> list[str]:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    ed_key = ed25519.Ed25519PrivateKey.generate()
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "memory.internal.test")])
    now = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(rsa_key.public_key())
        .serial_number(p.r.randrange(1, 2**64))
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=30))
        .sign(rsa_key, hashes.SHA256())
    )
    openssh = ed_key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    return [
        "authorized_keys: " + openssh.decode() + " deploy@build",
        rsa_key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode(),
        cert.public_bytes(serialization.Encoding.PEM).decode(),
    ]


def _generated_lookalikes(p: _Parts) -> list[Sample]:
    out: list[Sample] = []
    for i in range(12):
        sha1 = hashlib.sha1(p.r.randbytes(16)).hexdigest()
        out.append(Sample("git-sha", p.pick(f"fixed in {sha1}", f"git checkout {sha1[:12]}", sha1)))
        digest = hashlib.sha256(p.r.randbytes(16)).hexdigest()
        out.append(Sample("sha256", p.pick(f"sha256:{digest}", f"content_hash = {digest}", digest)))
        uid = uuid.UUID(bytes=p.r.randbytes(16), version=4)
        out.append(Sample("uuid", p.pick(f"request {uid} failed", f"entry_id: {uid}", str(uid))))
        encoded = base64.b64encode(_SENTENCES[i % len(_SENTENCES)].encode()).decode()
        out.append(Sample("base64", p.pick(f"payload={encoded}", f'data: "{encoded}"', encoded)))
    out.append(Sample("pk-live", "publishable key pk_live_" + p.chars(B62, 24) + " is public"))
    out += [Sample("public-key", text) for text in _public_material(p)]
    return out


def hand_written_lookalikes(path: Path = LOOKALIKES_FILE) -> list[Sample]:
    """Records separated by a `%%` line; a record's first line is `# category`."""
    out = []
    for record in path.read_text(encoding="utf-8").split(f"\n{SEPARATOR}\n"):
        head, _, body = record.strip("\n").partition("\n")
        out.append(Sample(head.removeprefix("# ").strip(), body))
    return out


def lookalike_samples(seed: int = 9) -> list[Sample]:
    return hand_written_lookalikes() + _generated_lookalikes(_Parts(seed))


# -- the same texts as a source's readers would decode them ---------------------------------------


@dataclass(frozen=True)
class Encoded:
    """A sample written into a source of one format: what PutSource receives."""

    kind: str
    uri: str
    media_type: str
    content: str


def _u_escaped(text: str) -> str:
    """Every letter and digit as a \\uXXXX escape; the rest as JSON/TOML need it."""
    return "".join(f"\\u{ord(c):04x}" if c.isalnum() else json.dumps(c)[1:-1] for c in text)


def _split_point(text: str) -> int:
    """Where a split cuts the secret in two (the middle of the text if none is found)."""
    found = find_secret(text)
    return (found.start + found.end) // 2 if found else len(text) // 2


def _toml_basic(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


def _task_outcome(report: str) -> Encoded:
    return Encoded("task_outcome", "", "application/vnd.powercontext.task-outcome+json", report)


# Each format, and how its real parser reads the text back (tests/unit check every sample).
def encode_json(text: str) -> Encoded:
    return _task_outcome('{"report": "' + _u_escaped(text) + '"}')


def encode_json_in_json(text: str) -> Encoded:
    return _task_outcome(json.dumps({"turn": '{"report": "' + _u_escaped(text) + '"}'}))


def encode_toml(text: str) -> Encoded:
    return Encoded("file", "repo://pyproject.toml", "", f'[tool.ci]\nnote = "{_u_escaped(text)}"\n')


def encode_toml_continued(text: str) -> Encoded:
    at = _split_point(text)
    rest = _toml_basic(text[at:])
    kept = rest.lstrip(" ")  # the backslash eats the spaces after it: escape those
    body = _toml_basic(text[:at]) + "\\\n    " + "\\u0020" * (len(rest) - len(kept)) + kept
    return Encoded("file", "repo://pyproject.toml", "", f'[tool.ci]\nnote = """{body}"""\n')


def encode_python(text: str) -> Encoded:
    at = _split_point(text)
    literals = f"{text[:at]!r} {text[at:]!r}"  # adjacent literals: Python joins them
    code = f"import nox\n\n\n@nox.session\ndef ci(session):\n    session.run({literals})\n"
    return Encoded("file", "repo://noxfile.py", "", code)


ENCODINGS: dict[str, Callable[[str], Encoded]] = {
    "json escapes": encode_json,
    "json in json": encode_json_in_json,
    "toml escapes": encode_toml,
    "toml line-ending backslash": encode_toml_continued,
    "python adjacent literals": encode_python,
}
