"""A judging method's agreement with a reference, from a workspace's judgments.

Why apart from :mod:`qrelkit.evaluate.agreement`: a judge that may escalate is
not one label source among others. What it decided itself and what it handed
to people are different figures, and DREAM reports them as a pair: balanced
accuracy on the decided cases next to the escalation ratio (see
:class:`JudgeAgreement`).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Optional

from qrelkit.evaluate.agreement import (
    AUTO_STATUSES,
    ESCALATED_STATUSES,
    LABELLED_STATUSES,
    Agreement,
    compare_labels,
)

Pair = tuple[str, str]


@dataclass(frozen=True)
class JudgeAgreement:
    """One judging method (and model) from a workspace against a reference.

    The headline is DREAM's pair: ``decided_balanced_accuracy``, the balanced
    accuracy of the labels the method decided itself (consensus or
    single-judge: the labels that need no person), next to
    ``escalation_ratio``, the share of its cases it did not decide (escalated,
    failed, or passed to an adjudicator). Balanced accuracy, because relevant
    pairs are the minority: a judge that calls everything non-relevant has
    high plain accuracy. Plain accuracy on the decided cases stays as a
    secondary figure (``auto_accuracy``). ``by_round`` is the same headline per
    debate round (consensus reached in round 1, 2, ...; ``decided_share`` = the
    round's decided cases over all the method's cases); ``by_status`` splits
    all labelled cases by status."""

    method: str
    model: str
    judgments: int
    statuses: tuple[tuple[str, int], ...]
    escalation_ratio: Optional[float]
    decided: Agreement
    overall: Agreement
    by_status: tuple[tuple[str, Agreement], ...]
    by_round: tuple[tuple[int, Agreement], ...]

    @property
    def auto_accuracy(self) -> Optional[float]:
        return self.decided.accuracy

    @property
    def auto_pairs(self) -> int:
        return self.decided.pairs

    @property
    def decided_balanced_accuracy(self) -> Optional[float]:
        return self.decided.balanced_accuracy

    def to_dict(self) -> dict:
        d = self.overall.to_dict()
        d.update({
            "name": f"{self.method} [{self.model}]" if self.model else self.method,
            "method": self.method,
            "model": self.model,
            "judgments": self.judgments,
            "statuses": dict(self.statuses),
            "headline": {"balanced_accuracy": self.decided_balanced_accuracy,
                         "escalation_ratio": self.escalation_ratio, "decided_pairs": self.auto_pairs},
            "decided_balanced_accuracy": self.decided_balanced_accuracy,
            "escalation_ratio": self.escalation_ratio,
            "auto_accuracy": self.auto_accuracy,
            "auto_pairs": self.auto_pairs,
            "by_status": {s: _short(a) for s, a in self.by_status},
            "by_round": {str(r): {**_short(a), "decided_share": a.pairs / self.judgments if self.judgments else None}
                         for r, a in self.by_round},
        })
        return d


def _short(a: Agreement) -> dict:
    d = a.to_dict()
    return {k: d[k] for k in ("pairs", "balanced_accuracy", "accuracy", "cohen_kappa", "f1")}


@dataclass
class _Group:
    """What one (method, model) needs from a stream of judgments: its counts, which statuses
    and debate rounds it labelled, and only its judgments of pairs the reference has."""

    judgments: int = 0
    statuses: Counter = field(default_factory=Counter)
    labelled_statuses: set = field(default_factory=set)
    rounds: set = field(default_factory=set)
    kept: list = field(default_factory=list)  # labelled judgments of reference pairs

    def add(self, j, reference: Mapping[Pair, int]) -> None:
        self.judgments += 1
        self.statuses[j.status] += 1
        if j.status not in LABELLED_STATUSES or j.effective_grade is None:
            return
        self.labelled_statuses.add(j.status)
        if j.status in AUTO_STATUSES:
            self.rounds.add(j.round)
        if (j.qid, j.docid) in reference:
            self.kept.append(j)


def judgments_agreement(
    judgments: Iterable, reference: Mapping[Pair, int], threshold: int = 2
) -> tuple[JudgeAgreement, ...]:
    """Agreement per (method, model) of workspace judgments (``types.Judgment``), in one pass:
    agreement is measured on the pairs the reference has, so only those judgments are kept
    (at 10^6 pooled pairs the report held 667,000 judgments for none in common,
    benchmarks/scale.py); every judgment counts in the statuses and the escalation ratio."""
    groups: dict[tuple[str, str], _Group] = defaultdict(_Group)
    for j in judgments:
        groups[(j.method, j.model)].add(j, reference)
    out = []
    for (method, model), g in sorted(groups.items()):
        labelled = g.kept

        def agreement(subset, name):
            grades = {(j.qid, j.docid): j.effective_grade for j in subset}
            binary = {(j.qid, j.docid): int(j.label) for j in subset if j.label is not None}
            return compare_labels(reference, grades, threshold, name, binary_labels=binary)

        overall = agreement(labelled, method)
        decided = [j for j in labelled if j.status in AUTO_STATUSES]
        by_status = tuple((s, agreement([j for j in labelled if j.status == s], s)) for s in sorted(g.labelled_statuses))
        by_round = tuple((r, agreement([j for j in decided if j.round == r], f"round {r}")) for r in sorted(g.rounds))
        n = g.judgments
        escalated = sum(g.statuses.get(s, 0) for s in ESCALATED_STATUSES)
        out.append(JudgeAgreement(
            method, model, n, tuple(sorted(g.statuses.items())),
            (escalated / n) if n else None, agreement(decided, "decided"), overall, by_status, by_round,
        ))
    return tuple(out)
