"""Small frozen records that cross module boundaries.

Every stage of the pipeline (pool -> cases -> judge -> merge -> evaluate) talks in
these types so that no module has to know another's internals, and so that
values can be hashed, cached and compared in tests.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

# json.dumps(obj, sort_keys=True, default=str) without building an encoder per call (one per judgment)
_PROVENANCE_JSON = json.JSONEncoder(sort_keys=True, default=str).encode

USAGE_KEYS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "cost_usd")


@dataclass(frozen=True)
class Usage:
    """What calls cost: one value for the client's running totals, a verdict's share, a run's.

    It adds and subtracts, so "this run" is ``after - before`` and "this case" is a sum of its calls;
    ``as_dict`` gives the record written to commands, summaries and JSON (the CLI contract's keys:
    ``calls``, ``cache_hits``, ``prompt_tokens``, ``completion_tokens``, ``cost_usd``).
    ``errors``, ``latency`` and ``attempts`` are the client's own (failed calls, seconds waited,
    requests sent to the backend): a retried call is one call but several attempts, and
    ``retries`` is what the server saw beyond one request per call answered by it."""

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    errors: int = 0
    latency: float = 0.0
    attempts: int = 0

    @property
    def retries(self) -> int:
        return max(0, self.attempts - (self.calls - self.cache_hits))

    @classmethod
    def of(cls, result: Any) -> "Usage":
        """One answered call, a Completion or ScoreResult (a cache hit costs nothing but counts)."""
        return cls(
            calls=1,
            cache_hits=int(result.cached),
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            cost_usd=result.cost_usd,
        )

    @classmethod
    def from_dict(cls, d: dict) -> "Usage":
        """From a stored record (missing or null keys count 0)."""
        return cls(*(int(d.get(k) or 0) for k in USAGE_KEYS[:4]), float(d.get("cost_usd") or 0.0),
                   errors=int(d.get("errors") or 0), attempts=int(d.get("attempts") or 0))

    # field by field, not a generator over the fields: a run adds and subtracts a few per case (Meter,
    # the progress count), and the generator form was ~3x slower
    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.calls + other.calls, self.cache_hits + other.cache_hits,
                     self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                     self.cost_usd + other.cost_usd, self.errors + other.errors, self.latency + other.latency,
                     self.attempts + other.attempts)

    def __sub__(self, other: "Usage") -> "Usage":
        return Usage(self.calls - other.calls, self.cache_hits - other.cache_hits,
                     self.prompt_tokens - other.prompt_tokens, self.completion_tokens - other.completion_tokens,
                     self.cost_usd - other.cost_usd, self.errors - other.errors, self.latency - other.latency,
                     self.attempts - other.attempts)

    def as_dict(self) -> dict:
        """The five contract keys (cost rounded to 8 decimals, as every record stores it)."""
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 8),
        }


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
    """Where a stored label came from, so that any label can be traced and re-derived.

    The JSON object stored with each judgment: for an LLM judgment the common
    keys ``method``, ``model``, ``task`` (``{"name", "threshold"}``), ``status``,
    ``reason`` (undecided verdicts), ``budget`` (when ``--budget`` ranked it),
    ``oracle`` (simulation: the reference grade of an escalation), plus the
    judge's own keys (see each judge module); people's labels carry the votes.
    This is the one place it is read from and written to text (:meth:`parse`,
    :meth:`to_json`); everything else gets and sets keys through it."""

    data: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @classmethod
    def parse(cls, text: Optional[str]) -> "Provenance":
        return cls(json.loads(text or "{}"))

    def to_json(self) -> str:
        return _PROVENANCE_JSON(dict(self.data))

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def with_(self, **keys: Any) -> "Provenance":
        return Provenance({**self.data, **keys})

    def without(self, *keys: str) -> "Provenance":
        return Provenance({k: v for k, v in self.data.items() if k not in keys})

    @property
    def reason(self) -> str:
        return str(self.data.get("reason", ""))

    @property
    def budget(self) -> Optional[dict]:
        """The ``--budget`` decision on an escalation, if one was made (see qrelkit.judging.budget)."""
        return self.data.get("budget")

    @property
    def oracle(self) -> Optional[int]:
        g = self.data.get("oracle")
        return None if g is None else int(g)


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

    @property
    def effective_grade(self) -> Optional[int]:
        """The grade, or the label where there is no grade (the answer task, binary people's
        labels); None when undecided. This is the value merged qrels and agreement use."""
        if self.grade is not None:
            return int(self.grade)
        return None if self.label is None else int(self.label)

    @property
    def usage(self) -> Usage:
        """What the judgment cost (cache hits are not stored per judgment)."""
        return Usage(
            calls=self.calls,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cost_usd=self.cost_usd,
        )

    @property
    def prov(self) -> Provenance:
        return Provenance.parse(self.provenance)
