"""User notes: the user's own words, as an instruction to remember, forget or correct.

Intent, decided from the words (the runtime only sends prompts that look like instructions):

- forget ("forget …", "stop remembering …", "不要再记 …", "别记 …", "… 不要记了"): the entry
  meant is found by full-text search (the service's own FTS path) with the note's subject
  terms. Exactly one admitted hit → a FORGET suggestion naming it; otherwise AMBIGUOUS with
  the hits (maybe none). Never a forget itself.
- remember ("remember that …", "记住 …"): an added entry with the words after the marker;
  kind constraint when they say must / never / do not / 必须 / 禁止 / 不要 …, else preference.
- anything else is a correction: the subject terms are searched and only rules (active
  preference and constraint entries) count. Exactly one → revise it; its text becomes
  `<old text> (update: <note>)`, or `<old text>（更新：<note>）` when the note is CJK, so the
  old rule stays readable and the user's words are quoted whole. None → add the note. Several →
  add the note and report AMBIGUOUS with the rules it could mean (never overwrite wrongly).

Subject terms: backquoted spans, paths and ASCII words of the clause, minus stop words; a
clause without them searches its CJK words with fillers ("那条", "这个" …) removed.
"""

from __future__ import annotations

import re
from typing import Final

from ..domain.hit import Hit
from ..domain.lifecycle import EntryRef
from ..domain.models import Source, SourceRef
from ..domain.validation import MAX_TEXT_BYTES
from .agent_rules import rule_kind
from .port import Candidate, Extraction, ExtractionInput, Suggestion, SuggestionKind
from .sources import USER_NOTE, USER_NOTE_KIND, text_of
from .text import clip, has_cjk, one_line

MAX_NOTE_CHARS: Final = 2000
RULE_KINDS: Final = frozenset({"preference", "constraint"})

_CLAUSE: Final = re.compile(r"[，,；;。！!？?\n]|\.(?=\s|$)")
_FORGET_LEAD: Final = re.compile(
    r"^\s*(?:please\s+)?(?:forget|stop remembering|do not remember|don't remember|"
    r"请?不要再记住?|请?别再?记住?|不用再记|请?忘掉|请?忘记)\s*(?:that|about|the)?\s*(.*)$",
    re.IGNORECASE | re.DOTALL,
)
_FORGET_TAIL: Final = re.compile(
    r"^(.*?)\s*(?:不要再?记了|不用再?记了|别再?记了|可以忘了|忘掉吧|忘了吧)\s*$", re.DOTALL
)
_REMEMBER: Final = re.compile(
    r"^\s*(?:please\s+)?(?:remember(?:\s+that)?|note that|请?记住|请?记一下)[\s:：,，]*(.*)$",
    re.IGNORECASE | re.DOTALL,
)
_ASCII_TERM: Final = re.compile(r"`([^`]+)`|([A-Za-z0-9][A-Za-z0-9_./\-]*)")
_FILLERS: Final = re.compile(r"那条|这条|那个|这个|那些|这些|关于|有关|的|条目|记忆|规则")
_STOP_WORDS_TEXT: Final = """
    a an the and or but to of for in on at by is are was be been it its this that these those
    with without when while instead please do does don't not no yes i we you me my our your
    entry entries rule rules note memory about anymore any more just only also than then so
    run use used using need needs full"""
STOP_WORDS: Final = frozenset(_STOP_WORDS_TEXT.split())


def intent(note: str) -> tuple[str, str]:
    """("forget" | "remember" | "correct", the words that carry it)."""
    for clause in _clauses(note):
        lead = _FORGET_LEAD.match(clause)
        if lead:
            return "forget", lead.group(1).strip()
        tail = _FORGET_TAIL.match(clause)
        if tail:
            return "forget", tail.group(1).strip()
    remember = _REMEMBER.match(note)
    if remember and remember.group(1).strip():
        words = remember.group(1).strip()
        return "remember", words[:1].upper() + words[1:]
    return "correct", note


def subject_query(words: str) -> str:
    """The terms a note's subject is searched with (empty: nothing to search for)."""
    terms: list[str] = []
    for quoted, word in _ASCII_TERM.findall(words):
        term = (quoted or word).strip().strip(".")
        if term and (quoted or term.lower() not in STOP_WORDS) and (len(term) > 1 or quoted):
            terms.append(term)
    if terms:
        return " ".join(dict.fromkeys(terms))
    return one_line(_FILLERS.sub(" ", re.sub(r"[A-Za-z0-9_./\-`]+", " ", words)))


def compose(old: str, words: str) -> str:
    """A corrected rule: the old text, then the user's words quoted whole."""
    return f"{old}（更新：{words}）" if has_cjk(words) else f"{old} (update: {words})"


async def extract(request: ExtractionInput) -> Extraction:
    out = Extraction()
    for source in request.sources:
        if source.kind == USER_NOTE_KIND:
            await _one(source, request, out)
    return out


async def _one(source: Source, request: ExtractionInput, out: Extraction) -> None:
    text = text_of(source, MAX_NOTE_CHARS)
    note = clip(one_line(text or ""), MAX_NOTE_CHARS)
    if not note:
        return
    what, words = intent(note)
    refs = (source.ref,)
    if what == "remember":
        kind = "constraint" if rule_kind(words) == "constraint" else "preference"
        out.candidates.append(Candidate(None, kind, words, refs, USER_NOTE, f"note:{words}"))
        return
    hits = await _hits(request, subject_query(words))
    if what == "forget":
        if len(hits) == 1:
            out.suggestions.append(
                Suggestion(
                    SuggestionKind.FORGET, (_ref(hits[0]),), USER_NOTE,
                    f"the user asked to forget: {note}", refs,
                )
            )  # fmt: skip
        else:
            out.suggestions.append(_ambiguous(hits, note, refs, "forget"))
        return
    rules = [h for h in hits if h.kind in RULE_KINDS]
    kind = "constraint" if rule_kind(note) == "constraint" else "preference"
    if len(rules) == 1:
        revised = compose(rules[0].text, note)
        if len(revised.encode("utf-8")) <= MAX_TEXT_BYTES:
            target = _ref(rules[0])
            out.candidates.append(
                Candidate(target, rules[0].kind, revised, refs, USER_NOTE, f"note:{note}")
            )
            return
    out.candidates.append(Candidate(None, kind, note, refs, USER_NOTE, f"note:{note}"))
    if len(rules) > 1:
        out.suggestions.append(_ambiguous(rules, note, refs, "correct"))


async def _hits(request: ExtractionInput, query: str) -> list[Hit]:
    if not query or not request.entries:
        return []
    return await request.search(query)


def _ambiguous(hits: list[Hit], note: str, refs: tuple[SourceRef, ...], what: str) -> Suggestion:
    meant = "no active entry" if not hits else f"{len(hits)} entries"
    return Suggestion(
        SuggestionKind.AMBIGUOUS,
        tuple(_ref(h) for h in hits),
        USER_NOTE,
        f"the user asked to {what} but the note matches {meant}: {note}",
        refs,
    )


def _ref(hit: Hit) -> EntryRef:
    return EntryRef(hit.entry_id, hit.entry_version_id)


def _clauses(note: str) -> list[str]:
    return [c.strip() for c in _CLAUSE.split(note) if c.strip()]


NAME: Final = USER_NOTE
