"""Optional model-assisted extractor: an OpenAI-compatible `POST {url}/chat/completions`.

Off unless `serve --extractor-url URL --extractor-model NAME` (key in the environment variable
POWERCONTEXT_EXTRACTOR_API_KEY). The model sees the operation's sources (bounded) and the
head's active entries (bounded) and must answer with JSON matching CANDIDATES_SCHEMA
(response_format json_schema, strict): add or revise candidates citing source ids.

Its answer is untrusted like every candidate: ids it cites that are not the operation's sources
keep an empty hash, and the service refuses such a candidate; prompts and the model's answer
are never stored as evidence. A model that fails (unreachable, timeout, bad JSON) contributes
nothing and the deterministic adapters still run: the failure is logged, never an error.
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Final

from ..domain.lifecycle import EntryRef
from ..domain.models import SourceRef
from .port import Candidate, Extraction, ExtractionInput
from .sources import text_of

logger = logging.getLogger(__name__)

NAME: Final = "model"
API_KEY_ENV: Final = "POWERCONTEXT_EXTRACTOR_API_KEY"
DEFAULT_TIMEOUT: Final = 60.0
MAX_SOURCE_CHARS: Final = 16_000
MAX_PROMPT_CHARS: Final = 96_000
MAX_ENTRIES: Final = 200
MAX_RESPONSE_BYTES: Final = 1 << 20
MAX_CANDIDATES: Final = 50
KINDS: Final = ("fact", "preference", "decision", "constraint", "working_note")

CANDIDATES_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["candidates"],
    "properties": {
        "candidates": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["op", "entry_id", "entry_version_id", "kind", "text", "source_ids"],
                "properties": {
                    "op": {"type": "string", "enum": ["add", "revise"]},
                    "entry_id": {"type": "string"},
                    "entry_version_id": {"type": "string"},
                    "kind": {"type": "string", "enum": list(KINDS)},
                    "text": {"type": "string"},
                    "source_ids": {"type": "array", "items": {"type": "string"}},
                },
            },
        }
    },
}

SYSTEM_PROMPT: Final = (
    "You extract durable memory entries for a coding agent from the given sources only. "
    "Propose an entry only when it changes a future agent's decisions, cannot be cheaply "
    "re-read from code, is supported by the cited sources and will be reused across tasks. "
    "Never store secrets, file lists, code, line numbers or guesses. Use op 'revise' only "
    "for an entry listed under 'entries' that the sources clearly update (give its entry_id "
    "and entry_version_id); otherwise use 'add' with empty ids. Cite only the source ids "
    "given. Answer with JSON only."
)


class ModelExtractor:
    """The `model` extractor of the pipeline (README "Model-assisted extractor")."""

    def __init__(
        self, url: str, model: str, api_key: str | None = None, *, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"--extractor-url must be an http(s) URL, got {url!r}")
        if not model:
            raise ValueError("--extractor-model is required with --extractor-url")
        self._url = url.rstrip("/") + "/chat/completions"
        self._model = model
        self._api_key = api_key or None
        self._timeout = timeout

    @property
    def name(self) -> str:
        return NAME

    async def extract(self, request: ExtractionInput) -> Extraction:
        body = self.request_body(request)
        try:
            async with asyncio.timeout(self._timeout):  # not wait_for: see embedding/http.py
                answer = await asyncio.to_thread(self._post, body)
            return Extraction(candidates=parse_candidates(answer, request))
        except (OSError, TimeoutError, ValueError, KeyError, TypeError) as error:
            logger.warning("model extractor %s failed, no model candidates: %s", self._url, error)
            return Extraction()

    def request_body(self, request: ExtractionInput) -> dict[str, Any]:
        budget = MAX_PROMPT_CHARS
        sources = []
        for source in request.sources:
            text = (text_of(source, MAX_SOURCE_CHARS) or "")[: max(budget, 0)]
            budget -= len(text)
            sources.append(
                {"id": source.source_id, "kind": source.kind, "uri": source.uri, "text": text}
            )
        entries = [
            {
                "entry_id": e.ref.entry_id,
                "entry_version_id": e.ref.entry_version_id,
                "kind": e.kind,
                "text": e.text,
            }
            for e in list(request.entries)[:MAX_ENTRIES]
        ]
        user = json.dumps({"sources": sources, "entries": entries}, ensure_ascii=False)
        return {
            "model": self._model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": user},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": "memory_candidates",
                    "strict": True,
                    "schema": CANDIDATES_SCHEMA,
                },
            },
        }

    def _post(self, body: dict[str, Any]) -> str:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        call = urllib.request.Request(
            self._url, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(call, timeout=self._timeout) as response:  # noqa: S310
                raw: bytes = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as error:
            raise OSError(f"HTTP {error.code} {error.reason}") from None
        if len(raw) > MAX_RESPONSE_BYTES:
            raise ValueError(f"response is larger than {MAX_RESPONSE_BYTES} bytes")
        payload = json.loads(raw)
        content = payload["choices"][0]["message"]["content"]
        if not isinstance(content, str):
            raise ValueError("the answer has no text content")
        return content


def parse_candidates(answer: str, request: ExtractionInput) -> list[Candidate]:
    """The model's JSON answer as candidates; malformed items are skipped, ids kept as given."""
    data = json.loads(answer)
    items = data.get("candidates") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ValueError('the answer is not an object with a "candidates" list')
    refs = {s.source_id: s.ref for s in request.sources}
    out: list[Candidate] = []
    for item in items[:MAX_CANDIDATES]:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            continue
        ids = [i for i in item.get("source_ids") or [] if isinstance(i, str)]
        # An id outside the operation keeps an empty hash: the service refuses the candidate.
        sources = tuple(refs.get(i, SourceRef(i, "")) for i in dict.fromkeys(ids))
        target = None
        if item.get("op") == "revise":
            target = EntryRef(str(item.get("entry_id", "")), str(item.get("entry_version_id", "")))
        out.append(
            Candidate(target, str(item.get("kind", "")), item["text"], sources, NAME, "model")
        )
    return out
