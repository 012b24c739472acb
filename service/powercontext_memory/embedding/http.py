"""Embeddings from an OpenAI-compatible HTTP endpoint (`POST {base_url}/embeddings`).

Standard library only: urllib.request runs in a worker thread so the event loop never blocks.
Returned vectors are scaled to unit length (the profile's "l2" normalization) but never
repaired: a vector of the wrong length, with NaN/Infinity or all zeros fails the whole call
with EmbeddingUnavailableError naming the problem, so a broken server cannot store garbage.

The API key is sent only in the Authorization header and is scrubbed from every error
message (servers sometimes echo it back in their error bodies).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import math
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..domain.models import EmbeddingProfile
from .port import EmbeddingResult, EmbeddingUnavailableError

DEFAULT_TIMEOUT: Final = 30.0
DEFAULT_BATCH_SIZE: Final = 128

# Room for one number in the JSON body, generously (e.g. "-1.2345678901234567e-05, ").
_BYTES_PER_NUMBER: Final = 64
_RESPONSE_SLACK: Final = 1 << 20
_ERROR_BODY_CHARS: Final = 300


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuse redirects: urllib would turn the POST into a GET and forward the API key."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class OpenAIEmbedder:
    """EmbeddingModel backed by an OpenAI-compatible `/embeddings` endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        dimension: int,
        api_key: str | None = None,
        profile_id: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        self._url = _embeddings_url(base_url)
        if not model:
            raise ValueError("model must not be empty")
        if dimension <= 0:
            raise ValueError(f"dimension must be positive, got {dimension}")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        if batch_size <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        # An empty key (e.g. an exported but blank variable) means "no key".
        self._api_key = api_key or None
        if self._api_key is not None and not _is_header_safe(self._api_key):
            raise ValueError("api_key contains whitespace or control characters")
        self._model = model
        self._dimension = dimension
        self._timeout = timeout
        self._batch_size = batch_size
        self._profile = EmbeddingProfile(
            profile_id=profile_id or f"http:{model}:{dimension}",
            model=model,
            dimension=dimension,
            distance="l2",
            normalization="l2",
        )
        self._opener = urllib.request.build_opener(_NoRedirect())
        self._closed = False

    @property
    def profile(self) -> EmbeddingProfile:
        return self._profile

    @property
    def url(self) -> str:
        return self._url

    async def embed(self, texts: Sequence[str]) -> EmbeddingResult:
        texts = list(texts)
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"texts must be str, got {type(text).__name__}")
        if self._closed:
            raise EmbeddingUnavailableError("the HTTP embedder is closed")
        if not texts:
            return EmbeddingResult(np.zeros((0, self._dimension), dtype=np.float32), 0)
        parts: list[npt.NDArray[np.float32]] = []
        tokens = 0
        # Sequential batches: one request in flight per call keeps the server's load bounded.
        for start in range(0, len(texts), self._batch_size):
            vectors, used = await self._embed_batch(texts[start : start + self._batch_size])
            parts.append(vectors)
            tokens += used
        return EmbeddingResult(np.concatenate(parts), tokens)

    async def close(self) -> None:
        # urllib keeps no connections open between requests; only refuse further use.
        self._closed = True

    async def _embed_batch(self, texts: list[str]) -> tuple[npt.NDArray[np.float32], int]:
        try:
            # The socket timeout bounds each connect/read; this one the whole request.
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation that
            # arrives as the thread finishes (see notifier.py).
            async with asyncio.timeout(self._timeout):
                return await asyncio.to_thread(self._embed_batch_blocking, texts)
        except TimeoutError as exc:
            raise self._error(f"request timed out after {self._timeout:g}s") from exc

    def _embed_batch_blocking(self, texts: list[str]) -> tuple[npt.NDArray[np.float32], int]:
        # Parsing a large response takes a while too, so it stays off the event loop.
        payload = self._parse_json(self._post(texts))
        return self._vectors(payload, len(texts)), _usage_tokens(payload)

    def _post(self, texts: list[str]) -> bytes:
        request = urllib.request.Request(
            self._url,
            data=json.dumps({"model": self._model, "input": texts}).encode(),
            headers=self._headers(),
            method="POST",
        )
        limit = _RESPONSE_SLACK + len(texts) * self._dimension * _BYTES_PER_NUMBER
        try:
            with self._opener.open(request, timeout=self._timeout) as response:
                body: bytes = response.read(limit + 1)
        except urllib.error.HTTPError as exc:
            raise self._error(f"HTTP {exc.code} {exc.reason}{self._error_body(exc)}") from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise self._error(f"request timed out after {self._timeout:g}s") from exc
            raise self._error(f"cannot connect: {exc.reason}") from exc
        except TimeoutError as exc:
            raise self._error(f"request timed out after {self._timeout:g}s") from exc
        except (OSError, http.client.HTTPException) as exc:
            raise self._error(f"request failed: {type(exc).__name__}: {exc}") from exc
        if len(body) > limit:
            raise self._error(f"response is larger than {limit} bytes")
        return body

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _error_body(self, exc: urllib.error.HTTPError) -> str:
        try:
            text = exc.read(_ERROR_BODY_CHARS * 4).decode("utf-8", errors="replace").strip()
        except (OSError, http.client.HTTPException):
            return ""
        finally:
            exc.close()
        text = " ".join(text.split())[:_ERROR_BODY_CHARS]  # one line, whatever the server sent
        return f": {text}" if text else ""

    def _parse_json(self, body: bytes) -> dict[str, Any]:
        try:
            payload = json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise self._error(f"response is not valid JSON: {exc}") from exc
        if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
            raise self._error('response is not an object with a "data" list')
        return payload

    def _vectors(self, payload: dict[str, Any], expected: int) -> npt.NDArray[np.float32]:
        data: list[Any] = payload["data"]
        if len(data) != expected:
            raise self._error(f"response has {len(data)} vectors for {expected} inputs")
        rows: list[npt.NDArray[np.float64] | None] = [None] * expected
        for item in data:
            index = _item_index(item, expected)
            if index is None:
                raise self._error("response item has no valid integer index")
            if rows[index] is not None:
                raise self._error(f"response has index {index} twice")
            problem, row = _check_vector(item.get("embedding"), self._dimension)
            if problem:
                raise self._error(f"vector for input {index} {problem}")
            rows[index] = row
        return np.stack([_unit(row) for row in rows if row is not None]).astype(np.float32)

    def _error(self, message: str) -> EmbeddingUnavailableError:
        text = f"embedding endpoint {self._url} (model {self._model}): {message}"
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return EmbeddingUnavailableError(text)


def _embeddings_url(base_url: str) -> str:
    parts = urllib.parse.urlsplit(base_url)
    # urllib would also open file:, ftp: and data: URLs; only HTTP(S) is an endpoint.
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must be an http(s) URL with a host, got {base_url!r}")
    if parts.username is not None or parts.password is not None:
        raise ValueError("base_url must not contain credentials; use the API key instead")
    if parts.query or parts.fragment:
        raise ValueError(f"base_url must not have a query or fragment, got {base_url!r}")
    return base_url.rstrip("/") + "/embeddings"


def _is_header_safe(value: str) -> bool:
    return all(" " < ch <= "~" for ch in value)


def _item_index(item: Any, expected: int) -> int | None:
    if not isinstance(item, dict):
        return None
    index = item.get("index")
    # bool is an int subclass; `true` is not an index.
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < expected:
        return None
    return index


def _check_vector(value: Any, dimension: int) -> tuple[str, npt.NDArray[np.float64]]:
    """("", vector) when usable, else (what is wrong, empty array)."""
    empty = np.zeros(0)
    if not isinstance(value, list):
        return "is not a list of numbers", empty
    if len(value) != dimension:
        return f"has dimension {len(value)}, expected {dimension}", empty
    array = np.asarray(value)
    # Strings, nulls, booleans and nested lists all come out as other dtypes or shapes.
    if array.ndim != 1 or array.dtype.kind not in "iuf":
        return "contains values that are not numbers", empty
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        return "contains NaN or Infinity", empty
    if not np.any(array):
        return "is all zeros", empty
    return "", array


def _unit(vector: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    # Dividing by the largest magnitude first keeps the norm from overflowing or underflowing.
    scaled = vector / np.max(np.abs(vector))
    return scaled / math.sqrt(float(np.dot(scaled, scaled)))


def _usage_tokens(payload: dict[str, Any]) -> int:
    usage = payload.get("usage")
    tokens = usage.get("total_tokens") if isinstance(usage, dict) else None
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0:
        return tokens
    return 0
