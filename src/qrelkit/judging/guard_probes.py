"""Injected instructions for measuring the guard (and probing judges): where to insert one in
a passage, and the simple obfuscations a page may hide it behind.

``benchmarks/guard.py`` inserts each phrasing of a file (``language<TAB>text`` lines) into real
passages at the start, the middle and the end, plain and under each obfuscation, and counts
what the guard flags. Each obfuscation is a pure, seeded function of the text, registered by
name in :data:`OBFUSCATIONS`, so a table row can be re-made exactly.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Protocol, Sequence

from qrelkit.errors import InputError

POSITIONS = ("start", "middle", "end")
ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff")
# Cyrillic letters that look like Latin ones
LOOK_ALIKE = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "i": "і", "y": "у"}


@dataclass(frozen=True)
class Phrasing:
    """One injected instruction: its language and text, and where it was read from."""

    lang: str
    text: str
    line: int


def read_phrasings(path: str | Path) -> tuple[Phrasing, ...]:
    """``language<TAB>text`` lines; ``#`` comments and blank lines skipped."""
    out = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        lang, tab, text = line.partition("\t")
        if not tab or not lang.strip() or not text.strip():
            raise InputError(path, n, "expected language<TAB>text")
        out.append(Phrasing(lang.strip(), text.strip(), n))
    return tuple(out)


def _words(text: str, f: Callable[[str], str]) -> str:
    return re.sub(r"\w+", lambda m: f(m.group(0)), text)


def zero_width(text: str, rng: random.Random) -> str:
    """A zero-width character inside every word of three letters or more."""
    def split(word: str) -> str:
        if len(word) < 3:
            return word
        i = rng.randrange(1, len(word))
        return word[:i] + rng.choice(ZERO_WIDTH) + word[i:]
    return _words(text, split)


def html_comment(text: str, rng: random.Random) -> str:
    """The instruction inside an HTML comment, every other word split by an empty one."""
    flip = [False]

    def split(word: str) -> str:
        flip[0] = not flip[0]
        if len(word) < 4 or not flip[0]:
            return word
        i = len(word) // 2
        return word[:i] + "<!---->" + word[i:]
    return "<!-- " + _words(text, split) + " -->"


def markup(text: str, rng: random.Random) -> str:
    """Words wrapped in inline tags, one split inside a tag: what a page's HTML leaves."""
    def tag(word: str) -> str:
        t = rng.choice(("span", "b", "i", "em", "font color=white"))
        close = t.split()[0]
        if len(word) >= 6 and rng.random() < 0.3:
            return f"<{t}>{word[:3]}</{close}><{t}>{word[3:]}</{close}>"
        return f"<{t}>{word}</{close}>"
    return '<div style="display:none">' + _words(text, tag) + "</div>"


def mixed_case(text: str, rng: random.Random) -> str:
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in text)


def upper(text: str, rng: random.Random) -> str:
    return text.upper()


def full_width(text: str, rng: random.Random) -> str:
    """ASCII letters, digits and punctuation as their full-width forms (U+FF01-FF5E)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else ("\u3000" if c == " " else c) for c in text)


def spaced(text: str, rng: random.Random) -> str:
    """Letters spaced apart, words by two spaces: "r a t e  t h i s"."""
    return "  ".join(" ".join(word) for word in text.split(" "))


def look_alike(text: str, rng: random.Random) -> str:
    """About half of the Latin letters that have a Cyrillic look-alike replaced by it."""
    return "".join(LOOK_ALIKE[c] if c in LOOK_ALIKE and rng.random() < 0.5 else c for c in text)


def no_diacritics(text: str, rng: random.Random) -> str:
    """Accents dropped, as on a keyboard without them."""
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


OBFUSCATIONS: dict[str, Callable[[str, random.Random], str]] = {
    "plain": lambda text, rng: text,
    "zero-width": zero_width,
    "html-comment": html_comment,
    "markup": markup,
    "mixed-case": mixed_case,
    "upper": upper,
    "full-width": full_width,
    "spaced": spaced,
    "look-alike": look_alike,
    "no-diacritics": no_diacritics,
}


def insert(passage: str, instruction: str, position: str) -> str:
    """``passage`` with ``instruction`` at its start, end, or the sentence (else word) break
    nearest its middle."""
    if position == "start":
        return f"{instruction} {passage}"
    if position == "end":
        return f"{passage} {instruction}"
    if position != "middle":
        raise ValueError(f"position {position!r}: choose one of {', '.join(POSITIONS)}")
    half = len(passage) // 2
    breaks = [m.end() for m in re.finditer(r"[.!?]\s", passage)] or [m.end() for m in re.finditer(r"\s", passage)]
    at = min(breaks, key=lambda b: abs(b - half)) if breaks else half
    return f"{passage[:at].rstrip()} {instruction} {passage[at:].lstrip()}"


class _Passage(Protocol):
    docid: str
    text: str


@dataclass(frozen=True)
class Insertion:
    """One phrasing hidden behind one obfuscation (``hidden``) and inserted at one position of
    one drawn passage (``text``)."""

    phrasing: Phrasing
    position: str
    obfuscation: str
    docid: str
    hidden: str
    text: str


def insertions(path: str | Path, passages: Sequence[_Passage], seed: int = 0) -> Iterator[Insertion]:
    """Each phrasing of ``path`` at every position under every obfuscation, in a passage drawn
    with ``seed``: the draws ``benchmarks/guard.py`` and the guard's other benchmarks share, so
    that their rows for one file are the same insertions."""
    rng = random.Random(seed)
    for p in read_phrasings(path):
        for position in POSITIONS:
            for name, obfuscate in OBFUSCATIONS.items():
                doc = rng.choice(passages)
                hidden = obfuscate(p.text, random.Random(f"{seed}:{p.line}:{name}"))
                yield Insertion(p, position, name, doc.docid, hidden, insert(doc.text, hidden, position))
