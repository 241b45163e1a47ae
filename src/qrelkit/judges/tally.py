"""Counting votes: several verdicts on one case (judges of a ``vote``, samples of one judge) -> one.

UMBRELA combines judges (``EnsembleJudge``) and samples of one prompt by the mode of the grades,
the lowest grade on a tie. qrelkit counts agreement the way a debate does, on binary relevance
(``grade >= threshold``), because that is what a qrels user scores with; the agreeing side's grade
is then UMBRELA's mode (lowest on a tie), so a unanimous vote keeps the members' common grade.

Two rules (``agree=``):

- ``majority``: more than half of *all* voters (a failed call is a voter who did not agree);
- ``all``: every voter.

Below the rule the case is not decided, exactly like a debate whose agents never agree: status
``escalate`` with ``disagreement`` (``grade_gap``, ``rounds``: 1) in provenance, which a
``--budget`` ranks by, and a reason saying who said what. When the rule is missed *because*
calls failed, the case is an ``error`` instead, which the next run retries: no label is guessed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence

from qrelkit.judges.base import ERROR, ESCALATE, Task, Verdict
from qrelkit.types import Usage

MAJORITY, ALL = "majority", "all"
RULES = (MAJORITY, ALL)


@dataclass(frozen=True)
class Tally:
    """What a vote came to: the decided label and grade, or why there is none."""

    label: Optional[int]
    grade: Optional[int]
    status: str  # the caller's "decided" status, or escalate / error
    reason: str
    counts: dict  # binary label -> voters (as text keys, the way JSON stores them)
    needed: int
    grade_gap: int


def needed(rule: str, voters: int) -> int:
    """Voters who must agree: all of them, or more than half."""
    return voters if rule == ALL else voters // 2 + 1


def mode_grade(grades: Sequence[int]) -> int:
    """The most frequent grade, the lowest on a tie (UMBRELA's EnsembleJudge)."""
    counts = Counter(grades).most_common()
    top = counts[0][1]
    return min(g for g, c in counts if c == top)


def count(verdicts: Sequence[Verdict], names: Sequence[str], task: Task, rule: str, decided: str) -> Tally:
    """The vote of ``verdicts`` (one per voter, named by ``names`` in reasons) under ``rule``."""
    labels = [v.label for v in verdicts if v.label is not None]
    counts = Counter(labels)
    need = needed(rule, len(verdicts))
    grades = [v.grade for v in verdicts if v.grade is not None]
    gap = (max(grades) - min(grades) if task.graded else int(len(counts) > 1)) if grades else 0
    shown = {str(k): counts[k] for k in sorted(counts)}
    for label, n in counts.most_common():
        if n >= need:
            side = [v.grade for v in verdicts if v.label == label and v.grade is not None]
            grade = mode_grade(side) if task.graded else label
            return Tally(label, grade, decided, "", shown, need, gap)
    says = ", ".join(f"{n} says {task.describe(v.grade) if v.label is not None else 'nothing (' + v.reason + ')'}"
                     for n, v in zip(names, verdicts))
    failed = sum(v.label is None and v.status == ERROR for v in verdicts)
    if failed and max(counts.values(), default=0) + failed >= need:
        return Tally(None, None, ERROR, f"{failed} of {len(verdicts)} calls failed: {says}", shown, need, gap)
    why = f"{rule} needs {need} of {len(verdicts)} to agree: {says}"
    return Tally(None, None, ESCALATE, why, shown, need, gap)


def total_usage(verdicts: Sequence[Verdict]) -> Usage:
    total = Usage()
    for v in verdicts:
        total = total + v.usage
    return total

