"""Relevance on the ground floor: the two relevance tasks, the status words of a verdict, and the
binary threshold — the definitions that judges, the pipeline, the store, merge and every measure
share, so that none of them has to import another layer to know what "relevant" or "escalate" means.

The two tasks:

- ``answer``: binary and answer-aware — relevant when the document supports at
  least one of the topic's answers (the answers' correctness is out of scope);
  grade == label.
- ``graded``: topical 0–3 (0 irrelevant, 1 related, 2 highly relevant,
  3 perfectly relevant); binary relevance is ``grade >= threshold`` (default 2).
  The topic's narrative, when present, is part of the prompt.

The threshold, and why it is a resolver and not a default number: collections disagree. TREC DL grades
0-3 and counts grade >= 2 as relevant; most BEIR and MS MARCO-dev style qrels
are 0/1, where a fixed threshold of 2 silently turns every binary measure into
0. So the threshold is ``auto`` by default and is read off the reference qrels:

- ``auto-binary``: the largest grade is 1 (or lower) -> relevant = grade >= 1;
- ``auto-graded``: the largest grade is 2 or more -> relevant = grade >= 2
  (the TREC DL convention);
- ``given``: a number the user passed wins, but one above the largest grade
  present would make every label non-relevant, so it is an input error naming
  the file and its largest grade (exit 2), not a page of zeros.

Every table header and ``--json`` object states ``threshold`` and
``threshold_source`` (:meth:`Threshold.to_dict`, :meth:`Threshold.describe`).
An empty reference (a collection built from scratch) resolves ``auto`` to 2
with the source ``auto-graded``: nothing is relevant yet either way.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Union

from qrelkit.errors import InputError, UsageError

if TYPE_CHECKING:
    from qrelkit import prompts

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

    def template(self) -> "prompts.Template":
        from qrelkit import prompts  # the ground floor imports nothing above it at import time

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



AUTO_THRESHOLD = "auto"
GRADED_THRESHOLD = 2  # TREC DL: grade >= 2 is relevant


@dataclass(frozen=True)
class Threshold:
    """A resolved threshold and where it came from."""

    value: int
    source: str  # auto-binary | auto-graded | given

    def to_dict(self) -> dict:
        return {"threshold": self.value, "threshold_source": self.source}

    def describe(self) -> str:
        """For table titles: ``relevant = grade >= 1 (auto-binary)``."""
        return f"relevant = grade >= {self.value} ({self.source})"


def parse_threshold(text: Union[str, int, None]) -> Union[str, int]:
    """``auto`` or a positive integer, from a command-line value."""
    if text is None or str(text).strip().lower() == AUTO_THRESHOLD:
        return AUTO_THRESHOLD
    try:
        value = int(str(text).strip())
    except ValueError:
        raise UsageError(f"--threshold must be 'auto' or an integer grade, not {text!r}") from None
    if value < 1:
        raise UsageError(f"--threshold must be at least 1 (got {value}): grade 0 is never relevant")
    return value


def resolve_threshold(spec: Union[str, int, None], qrels: Any, path: Optional[object] = None) -> Threshold:
    """Resolve ``spec`` (``auto`` or a number) against the reference ``qrels``.

    ``path`` names the reference in the error raised for a given threshold
    above the largest grade (the workspace's qrels when there is no file)."""
    wanted = parse_threshold(spec)
    if isinstance(qrels, Mapping):  # what the runner passes: no need for the readers of qrelkit.data
        grades = qrels.values()
    else:
        from qrelkit.data.qrels import as_pairs  # not at import time: the store imports this module

        grades = as_pairs(qrels).values()
    top = max(grades, default=None)
    if wanted == AUTO_THRESHOLD:
        if top is not None and top <= 1:
            return Threshold(1, "auto-binary")
        return Threshold(GRADED_THRESHOLD, "auto-graded")
    if top is not None and wanted > top:
        raise InputError(path if path is not None else "the reference qrels", None,
                         f"--threshold {wanted} is above the largest grade in this file ({top}); "
                         f"every label would be non-relevant. Use --threshold auto or a value <= {top}")
    return Threshold(int(wanted), "given")
