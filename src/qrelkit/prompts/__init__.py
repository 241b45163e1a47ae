"""Prompt templates as versioned files, and the one way a document enters a prompt.

Templates live beside this module as ``NAME.vN.txt``. A template's version is
the file's ``vN`` plus a short hash of its content, so editing a file without
bumping ``vN`` still changes the version — and with it the LLM cache key and
the provenance of every label the template produced. No stale cached answer
can outlive a wording change.

A file is split into named sections by lines of the form ``### name``; the
text of a section is a :class:`string.Template` (``$name`` placeholders), so
JSON examples with braces need no escaping.

Documents are untrusted data. :func:`document_block` truncates a document to a
token budget and wraps it between delimiters that carry a nonce derived from
the (truncated, escaped) content itself; any ``<<<`` or ``>>>`` in the text is
broken up first, so a document can neither contain nor predict its own
closing delimiter.

Truncation rule (recorded in provenance under ``"truncation"``): tokens are
approximated as characters / 4 (rounded up). A document over the budget keeps
its head — the first ``budget * 4`` characters, cut back to the last
whitespace if one lies in the final fifth of that window — followed by the
marker ``[... truncated by qrelkit: first N of M characters shown ...]``.
The default budget (:data:`DEFAULT_DOC_TOKENS` = 400) leaves room in a
2048-token context for the instructions (~450 tokens), a debate round's
history (clipped, ~450) and the answer (at most 360).
"""

from __future__ import annotations

import hashlib
import math
import re
import string
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

from qrelkit.llm.base import Message

HERE = Path(__file__).parent
DEFAULT_DOC_TOKENS = 400
CHARS_PER_TOKEN = 4
TRUNCATION_RULE = "head; tokens ~ chars/4; cut at last whitespace in final fifth; marker appended"
_FILE = re.compile(r"^(?P<name>[a-z0-9_]+)\.v(?P<v>\d+)\.txt$")
_SECTION = re.compile(r"^### ([a-z0-9_]+)[ \t]*$", re.M)


@dataclass(frozen=True)
class Template:
    """One template file: its sections and its version id."""

    name: str
    text: str
    version: str

    @property
    def sections(self) -> dict[str, str]:
        return _sections(self.text)

    def section(self, name: str) -> str:
        try:
            return self.sections[name]
        except KeyError:
            raise KeyError(f"template {self.name} has no section {name!r}") from None

    def render(self, section: str, **values: object) -> str:
        if not values:  # a section with nothing to fill (a task's criteria) is the same every case
            return _constant(self, section)
        parts = _parsed(self, section)
        if parts is None:  # not a valid string.Template: let it raise its own error
            return string.Template(self.section(section)).substitute({k: str(v) for k, v in values.items()})
        literals, names = parts
        out = [literals[0]]
        for name, literal in zip(names, literals[1:]):
            out.append(str(values[name]))  # a missing value: KeyError(name), as substitute raises
            out.append(literal)
        return "".join(out)

    def messages(self, **values: object) -> list[Message]:
        """The ``system`` and ``user`` sections as chat messages."""
        out = []
        for role in ("system", "user"):
            if role in self.sections:
                out.append(Message(role, self.render(role, **values)))
        return out


@lru_cache(maxsize=None)
def _constant(template: Template, section: str) -> str:
    return string.Template(template.section(section)).substitute({})


@lru_cache(maxsize=None)
def _parsed(template: Template, section: str) -> Optional[tuple[tuple[str, ...], tuple[str, ...]]]:
    """A section split once by :class:`string.Template`'s own pattern into its literal text and
    the placeholders between (``$$`` already made ``$``), so that a render joins strings instead
    of running the pattern over the section again: a case renders three or four sections, and
    the substitution was most of that (tests/prompts: the same text as ``substitute`` for every
    section of every template). None when the section has an invalid ``$``."""
    text = template.section(section)
    literals: list[str] = []
    names: list[str] = []
    pending: list[str] = []
    pos = 0
    for m in string.Template.pattern.finditer(text):
        pending.append(text[pos:m.start()])
        if m.group("escaped") is not None:
            pending.append(string.Template.delimiter)
        elif (name := m.group("named") or m.group("braced")) is not None:
            literals.append("".join(pending))
            names.append(name)
            pending = []
        else:
            return None
        pos = m.end()
    pending.append(text[pos:])
    literals.append("".join(pending))
    return tuple(literals), tuple(names)


@lru_cache(maxsize=None)
def _sections(text: str) -> dict[str, str]:
    parts = _SECTION.split(text)
    out: dict[str, str] = {}
    for i in range(1, len(parts) - 1, 2):
        out[parts[i]] = parts[i + 1].strip("\n")
    return out


def available() -> dict[str, list[int]]:
    """Template names and the versions present on disk."""
    out: dict[str, list[int]] = {}
    for p in sorted(HERE.glob("*.txt")):
        m = _FILE.match(p.name)
        if m:
            out.setdefault(m["name"], []).append(int(m["v"]))
    return {k: sorted(v) for k, v in out.items()}


@lru_cache(maxsize=None)
def load(name: str) -> Template:
    """``load("zeroshot")`` -> highest version on disk; ``load("zeroshot.v1")`` -> that one."""
    base, _, v = name.partition(".v")
    versions = available().get(base)
    if not versions:
        raise KeyError(f"no prompt template named {base!r} in {HERE}")
    ver = int(v) if v else versions[-1]
    path = HERE / f"{base}.v{ver}.txt"
    if not path.exists():
        raise KeyError(f"no prompt template {path.name}")
    text = path.read_text(encoding="utf-8")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return Template(name=base, text=text, version=f"{base}.v{ver}+{digest}")


# ---- documents as data ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Truncation:
    """What the judge saw of a document; goes into provenance as is."""

    budget_tokens: int
    doc_chars: int
    kept_chars: int
    approx_tokens: int
    truncated: bool
    rule: str = TRUNCATION_RULE

    def as_dict(self) -> dict:
        return {
            "budget_tokens": self.budget_tokens,
            "doc_chars": self.doc_chars,
            "kept_chars": self.kept_chars,
            "approx_tokens": self.approx_tokens,
            "truncated": self.truncated,
            "rule": self.rule,
        }


def approx_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def truncate(text: str, budget_tokens: int = DEFAULT_DOC_TOKENS) -> tuple[str, Truncation]:
    limit = max(1, budget_tokens) * CHARS_PER_TOKEN
    n = len(text)
    if n <= limit:
        return text, Truncation(budget_tokens, n, n, approx_tokens(text), False)
    head = text[:limit]
    cut = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    if cut >= limit * 4 // 5:
        head = head[:cut]
    head = head.rstrip()
    kept = len(head)
    marker = f"\n[... truncated by qrelkit: first {kept} of {n} characters shown ...]"
    return head + marker, Truncation(budget_tokens, n, kept, approx_tokens(text), True)


def escape(text: str) -> str:
    """Break up delimiter look-alikes: no run of three angle brackets survives."""
    while "<<<" in text or ">>>" in text:
        text = text.replace("<<<", "<< <").replace(">>>", "> >>")
    return text


def delimit(text: str, kind: str = "DOCUMENT") -> str:
    """Wrap (already escaped) data between nonce-carrying delimiters."""
    nonce = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return f"<<<{kind} {nonce}>>>\n{text}\n<<<END {kind} {nonce}>>>"


# a delimiter as :func:`delimit` writes it (a model may echo one back, with or without its nonce)
_MARKER = re.compile(r"<<<\s*(?:END\s+)?[A-Z]+(?:\s+[^<>\n]*)?>>>")


def strip_markers(text: str) -> str:
    """Model-written text without echoed delimiters (``<<<EXAMPLE 3f2a...>>>``): a weak model copies
    them into what it writes, and a narrative or rationale must not carry them on (shown to
    people, or put into another prompt, where they would open or close a data block)."""
    out = _MARKER.sub("", text)
    return re.sub(r"[ \t]*\n(?:[ \t]*\n)+", "\n\n", out).strip() if out != text else text


def clip(text: str, max_chars: int) -> str:
    """Shorten model-written text shown back to a model (debate history)."""
    text = " ".join(text.split())
    return text if len(text) <= max_chars else text[: max_chars - 3].rstrip() + "..."


def doc_text(text: str, title: Optional[str] = None) -> str:
    """The text a judge sees and quotes from: title (when present) and body."""
    return f"{title}\n\n{text}" if title else text


def document_block(text: str, budget_tokens: int = DEFAULT_DOC_TOKENS) -> tuple[str, Truncation]:
    """Truncate, escape and delimit a document for a prompt."""
    shown, tr = truncate(text, budget_tokens)
    return delimit(escape(shown)), tr
