"""What a judge is: a function of (judge input, client) that returns a verdict.

The two relevance tasks live here too, because every judge needs the same
definitions of a label, a grade and the binary threshold between them:

- ``answer``: binary and answer-aware — relevant when the document supports at
  least one of the topic's answers (the answers' correctness is out of scope);
  grade == label.
- ``graded``: topical 0–3 (0 irrelevant, 1 related, 2 highly relevant,
  3 perfectly relevant); binary relevance is ``grade >= threshold`` (default 2).
  The topic's narrative, when present, is part of the prompt.

A judge never retries, caches or counts by itself (the Client does); it only
turns completions into a :class:`Verdict`, and a call that failed after the
client's retries into ``status="error"`` with ``label=None`` — never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, Sequence

from qrelkit import prompts
from qrelkit.types import Case, Doc, Topic

ANSWER = "answer"
GRADED = "graded"
TASKS = (ANSWER, GRADED)

# Status values of a verdict (and of the judgments table).
CONSENSUS = "consensus"  # debate agents agreed
AUTO = "auto"  # a single judge's label
ADJUDICATED = "adjudicated"  # an LLM adjudicator decided
ESCALATE = "escalate"  # waits for people
ERROR = "error"  # a call failed or could not be parsed after retries; also waits for people
DROPPED = "dropped"  # removed by the prefilter, label 0
STATUSES = (CONSENSUS, AUTO, ADJUDICATED, ESCALATE, ERROR, DROPPED)
UNDECIDED = (ESCALATE, ERROR)


@dataclass(frozen=True)
class Task:
    """Which question the judges answer, and where binary relevance starts."""

    name: str = GRADED
    threshold: int = 2

    def __post_init__(self) -> None:
        if self.name not in TASKS:
            raise ValueError(f"unknown task {self.name!r}; choose from {', '.join(TASKS)}")

    @property
    def graded(self) -> bool:
        return self.name == GRADED

    @property
    def field(self) -> str:
        """The JSON field a model answers in: ``grade`` or ``label``."""
        return "grade" if self.graded else "label"

    @property
    def max_grade(self) -> int:
        return 3 if self.graded else 1

    def binary(self, grade: int) -> int:
        return int(grade >= self.threshold) if self.graded else int(grade >= 1)

    def template(self) -> prompts.Template:
        return prompts.load(f"task_{self.name}")

    def decision_schema(self, *extra: tuple[str, dict]) -> dict:
        """JSON schema of a reply: the ``extra`` fields first (reasons before deciding), then the decision."""
        props: dict[str, Any] = dict(extra)
        props[self.field] = {"type": "integer", "enum": list(range(self.max_grade + 1))}
        return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}

    def describe(self, value: Optional[int]) -> str:
        if value is None:
            return "nothing"
        if self.graded:
            return f"grade {value}"
        return "relevant (label 1)" if value else "not relevant (label 0)"


@dataclass(frozen=True)
class JudgeInput:
    """Everything one judgment needs: the case, its topic and document, the task."""

    case: Case
    topic: Topic
    doc: Optional[Doc]
    task: Task

    @property
    def text(self) -> str:
        return prompts.doc_text(self.doc.text, self.doc.title) if self.doc else ""

    def query_block(self) -> str:
        t = self.task.template()
        if self.task.graded:
            out = t.render("query", query=self.topic.text)
        else:
            answers = "\n".join(t.render("answer_item", answer=a) for a in self.topic.answers) or "(none)"
            out = t.render("query", query=self.topic.text, answers=answers)
        if self.topic.narrative:
            out += "\n" + t.render("narrative", narrative=self.topic.narrative)
        return out


@dataclass(frozen=True)
class Verdict:
    """A judge's decision about one case, with what it cost.

    ``label`` is None exactly when ``status`` is ``escalate`` or ``error``;
    ``reason`` says why a case was escalated. ``provenance`` is the JSON object
    stored with the judgment (see the judge modules for their keys)."""

    status: str
    label: Optional[int]
    grade: Optional[int]
    rationale: str = ""
    evidence: tuple[str, ...] = ()
    round: int = 0
    reason: str = ""
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    provenance: dict = field(default_factory=dict, hash=False)

    @property
    def escalated(self) -> bool:
        return self.status in UNDECIDED


class Meter:
    """Adds up the calls one judge makes for one case (local to a judge call)."""

    def __init__(self) -> None:
        self.calls = self.cache_hits = self.prompt_tokens = self.completion_tokens = 0
        self.cost_usd = 0.0

    def add(self, result: Any) -> Any:
        self.calls += 1
        self.cache_hits += int(bool(getattr(result, "cached", False)))
        self.prompt_tokens += int(getattr(result, "prompt_tokens", 0) or 0)
        self.completion_tokens += int(getattr(result, "completion_tokens", 0) or 0)
        self.cost_usd += float(getattr(result, "cost_usd", 0.0) or 0.0)
        return result

    def add_verdict(self, v: Verdict) -> None:
        self.calls += v.calls
        self.cache_hits += v.cache_hits
        self.prompt_tokens += v.prompt_tokens
        self.completion_tokens += v.completion_tokens
        self.cost_usd += v.cost_usd

    def totals(self) -> dict:
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
        }


class Judge(Protocol):
    """A configured judging method. ``spec`` is its canonical spec string."""

    spec: str
    requires: frozenset[str]
    templates: Sequence[str]

    async def __call__(self, inp: JudgeInput, client: Any) -> Verdict: ...


def error_verdict(reason: str, meter: Meter, provenance: Optional[dict] = None, round: int = 0) -> Verdict:
    """A call failed for good: undecided, escalated, counted — never a guessed label."""
    return Verdict(
        status=ERROR,
        label=None,
        grade=None,
        reason=reason,
        round=round,
        provenance=dict(provenance or {}),
        **meter.totals(),
    )


def parsed_decision(completion: Any, task: Task) -> tuple[Optional[int], Optional[str]]:
    """The decision value of a schema reply, or (None, why not)."""
    if not getattr(completion, "ok", False):
        return None, f"call failed: {getattr(completion, 'error', 'unknown error')}"
    obj = completion.parsed
    if not isinstance(obj, dict):
        return None, "reply is not a JSON object"
    value = obj.get(task.field)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= task.max_grade:
        return None, f"reply has no valid {task.field!r}: {value!r}"
    return value, None


def template_versions(*names: str) -> dict[str, str]:
    return {n: prompts.load(n).version for n in names}
