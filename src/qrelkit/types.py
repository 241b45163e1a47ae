"""Small frozen records that cross module boundaries.

Every stage of the pipeline (pool -> cases -> judge -> merge -> evaluate) talks in
these types so that no module has to know another's internals, and so that
values can be hashed, cached and compared in tests.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class Topic:
    """A query. ``answers`` makes the answer-aware task possible; ``narrative``
    (what a relevant document must contain) goes into graded prompts."""

    qid: str
    text: str
    answers: tuple[str, ...] = ()
    narrative: Optional[str] = None
    description: Optional[str] = None


@dataclass(frozen=True)
class Doc:
    """A judgeable unit: passage, chunk or document."""

    docid: str
    text: str
    title: Optional[str] = None


@dataclass(frozen=True)
class Qrel:
    """One label. Grades are integers; negative grades (e.g. -1 for spam or
    junk in some TREC tracks) are kept as they are and count as non-relevant."""

    qid: str
    docid: str
    grade: int


@dataclass(frozen=True)
class RunEntry:
    """One line of a TREC run. ``rank`` is the position after trec_eval's
    ordering (score descending, ties by docid descending), 1-based; the file's
    own rank column is kept in ``file_rank``."""

    qid: str
    docid: str
    rank: int
    score: float
    file_rank: int = 0


@dataclass(frozen=True)
class Case:
    """One (qid, docid) pair to be judged, with where it came from in the pool.

    ``share`` is ``people`` (rank <= k_human in some run of a hybrid pool) or
    ``llm``; ``judged`` says whether the pair already has an original label
    (audit mode re-judges those)."""

    qid: str
    docid: str
    share: str = "llm"
    best_rank: int = 0
    runs: tuple[str, ...] = ()
    judged: bool = False


@dataclass(frozen=True)
class Provenance:
    """Where a label came from, so that any label can be traced and re-derived."""

    source: str  # original | llm | human | adjudicator | oracle
    status: str  # original | consensus | auto | adjudicated | escalate | error | human | dropped
    method: str = ""  # canonical judge spec, e.g. "debate(rounds=2)"
    model: str = ""  # canonical model spec
    round: int = 0
    extra: tuple[tuple[str, str], ...] = field(default=())


@dataclass(frozen=True)
class Judgment:
    """A stored decision about one pair by one method (or by people).

    ``label`` is the binary decision (None when undecided: ``escalate`` or
    ``error``); ``grade`` the graded one when the task is graded (the answer
    task has grade == label). ``provenance`` is a JSON object serialised as a
    string so the record stays hashable; it holds per-round labels, evidence
    checks, template versions, votes, and whatever else re-derives the label.
    """

    qid: str
    docid: str
    method: str
    model: str
    label: Optional[int]
    grade: Optional[int]
    status: str
    source: str = "llm"
    round: int = 0
    rationale: str = ""
    evidence: tuple[str, ...] = ()
    provenance: str = "{}"
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
