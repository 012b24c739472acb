"""The server's TLS: certificate and key, and for mutual TLS the CA that client certificates
must chain to (then every client must present one; the handshake refuses the others).

The files are checked with the standard library's `ssl` before grpc sees them: grpc reports a
bad or mismatched certificate only as "Failed to bind", which names no file.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc


@dataclass(frozen=True, slots=True)
class ServerTls:
    cert_file: str  # PEM certificate chain, the server's certificate first
    key_file: str  # PEM private key of that certificate
    client_ca_file: str | None = None  # PEM CA bundle: mutual TLS when set

    @classmethod
    def from_options(
        cls, cert_file: str | None, key_file: str | None, client_ca_file: str | None
    ) -> ServerTls | None:
        """None (plaintext) when no option is given; ValueError for an incomplete set."""
        if not (cert_file or key_file or client_ca_file):
            return None
        if not (cert_file and key_file):
            raise ValueError("TLS needs both --tls-cert and --tls-key")
        return cls(cert_file, key_file, client_ca_file or None)

    @property
    def mutual(self) -> bool:
        return self.client_ca_file is not None

    def credentials(self) -> grpc.ServerCredentials:
        """Checked server credentials; ValueError naming the file that is wrong."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            context.load_cert_chain(self.cert_file, self.key_file)
        except (OSError, ssl.SSLError) as error:
            raise ValueError(
                f"cannot use the TLS certificate {self.cert_file} with the key {self.key_file}: "
                f"{error} (both PEM; the key must belong to the first certificate)"
            ) from None
        client_ca = None
        if self.client_ca_file is not None:
            try:
                context.load_verify_locations(cafile=self.client_ca_file)
            except (OSError, ssl.SSLError) as error:
                raise ValueError(
                    f"cannot use the client CA file {self.client_ca_file}: {error}"
                ) from None
            client_ca = _read(self.client_ca_file)
        return grpc.ssl_server_credentials(
            [(_read(self.key_file), _read(self.cert_file))],
            root_certificates=client_ca,
            require_client_auth=self.mutual,
        )

    def describe(self) -> str:
        return "mutual TLS" if self.mutual else "TLS"


def _read(path: str) -> bytes:
    return Path(path).read_bytes()
