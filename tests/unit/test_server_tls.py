"""The server's TLS options (transport/tls.py): complete sets only, and files that do not fit
are named before grpc sees them (grpc itself says only "Failed to bind")."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
import trustme

from powercontext_memory.transport.tls import ServerTls


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("tls")
    authority = trustme.CA()
    server, other = authority.issue_cert("127.0.0.1"), authority.issue_cert("other.test")
    paths = {name: str(folder / name) for name in ("ca", "cert", "key", "other_key", "junk")}
    authority.cert_pem.write_to_path(paths["ca"])
    server.cert_chain_pems[0].write_to_path(paths["cert"])
    server.private_key_pem.write_to_path(paths["key"])
    other.private_key_pem.write_to_path(paths["other_key"])
    Path(paths["junk"]).write_text("not a certificate\n")
    return paths


def test_options_come_as_a_complete_set(files: dict[str, str]) -> None:
    assert ServerTls.from_options(None, None, None) is None  # plaintext
    tls = ServerTls.from_options(files["cert"], files["key"], None)
    assert tls is not None and not tls.mutual and tls.describe() == "TLS"
    mutual = ServerTls.from_options(files["cert"], files["key"], files["ca"])
    assert mutual is not None and mutual.mutual and mutual.describe() == "mutual TLS"
    for partial in [(files["cert"], None, None), (None, files["key"], None), (None, None, "x")]:
        with pytest.raises(ValueError, match="TLS needs both --tls-cert and --tls-key"):
            ServerTls.from_options(*partial)


def test_good_files_make_credentials(files: dict[str, str]) -> None:
    credentials = ServerTls(files["cert"], files["key"], files["ca"]).credentials()
    assert isinstance(credentials, grpc.ServerCredentials)


@pytest.mark.parametrize(
    ("cert", "key", "client_ca", "message"),
    [
        ("cert", "other_key", None, "cannot use the TLS certificate"),  # key of another cert
        ("junk", "key", None, "cannot use the TLS certificate"),
        ("cert", "missing", None, "No such file"),
        ("cert", "key", "junk", "cannot use the client CA file"),
    ],
)
def test_files_that_do_not_fit_are_named(
    files: dict[str, str], cert: str, key: str, client_ca: str | None, message: str
) -> None:
    paths = {**files, "missing": "/nonexistent/server.key"}
    tls = ServerTls(paths[cert], paths[key], paths[client_ca] if client_ca else None)
    with pytest.raises(ValueError, match=message) as refused:
        tls.credentials()
    assert paths[cert if client_ca is None else client_ca] in str(refused.value)
