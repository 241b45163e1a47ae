"""Checking that evidence quotes really are in the document.

Agents are asked for verbatim quotes; a model that invents a quote should be
visible to the people who read the debate, so each quote is checked and
flagged (never silently dropped). Matching is deliberately forgiving about
form and strict about content: both sides are Unicode-NFKC-normalised,
case-folded, typographic quotes/dashes mapped to ASCII, and every run of
whitespace collapsed to one space. A quote with an ellipsis (``...`` or
``…``) is split there and its pieces must occur in the document in order.
Quotes are checked against the whole document, not only the part shown.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable

_TRANS = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "\u00a0": " "})
_WS = re.compile(r"\s+")
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.+|…)\s*")
_STRIP = " \t\n\"'`"


@dataclass(frozen=True)
class QuoteCheck:
    quote: str
    found: bool

    def as_dict(self) -> dict:
        return {"quote": self.quote, "found": self.found}


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_TRANS).casefold()
    return _WS.sub(" ", text).strip()


def is_quoted(quote: str, document: str) -> bool:
    doc = normalise(document)
    pieces = [normalise(p).strip(_STRIP) for p in _ELLIPSIS.split(quote.strip().strip(_STRIP))]
    pieces = [p for p in pieces if p]
    if not pieces:
        return False
    pos = 0
    for p in pieces:
        i = doc.find(p, pos)
        if i < 0:
            return False
        pos = i + len(p)
    return True


def check_quotes(quotes: Iterable[str], document: str) -> tuple[QuoteCheck, ...]:
    return tuple(QuoteCheck(q, is_quoted(q, document)) for q in quotes if isinstance(q, str) and q.strip())
