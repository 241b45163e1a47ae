"""What admins need to trust the people's labels: progress, agreement, attention.

Fleiss' kappa assumes every case has the same number of raters; cases that
needed a tie-breaking vote have more, so agreement is computed on the first m
valid votes of each decided case, m being the smallest count among them.
Two kappas: on relevance (label = grade >= threshold, comparable across the
answer and graded tasks) and on the grades of graded cases.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Optional

import numpy as np

from qrelkit.annotate.content import people_label, task_of
from qrelkit.annotate.settings import AnnotateSettings
from qrelkit.annotate.votes import attention_results, median_or_none


@dataclass(frozen=True)
class AnnotatorStats:
    name: str
    is_admin: bool
    revoked: bool
    votes: int
    median_seconds: Optional[float]
    checks: int
    passed: int
    pass_rate: Optional[float]
    failed: bool
    excluded: bool


@dataclass(frozen=True)
class KindProgress:
    kind: str
    total: int
    decided: int
    votes: int


@dataclass(frozen=True)
class DecidedLabel:
    qid: str
    docid: str
    grade: int
    label: int
    votes: int
    kind: str


@dataclass(frozen=True)
class ProjectStats:
    total: int
    decided: int
    votes: int
    kinds: tuple[KindProgress, ...]
    fleiss_kappa: Optional[float]
    fleiss_kappa_graded: Optional[float]
    kappa_cases: int
    kappa_raters: int
    annotators: tuple[AnnotatorStats, ...]
    decided_labels: tuple[DecidedLabel, ...]

    def to_json(self) -> dict:
        return {
            "total": self.total,
            "decided": self.decided,
            "votes": self.votes,
            "kinds": [k.__dict__ for k in self.kinds],
            "fleiss_kappa": self.fleiss_kappa,
            "fleiss_kappa_graded": self.fleiss_kappa_graded,
            "kappa_cases": self.kappa_cases,
            "kappa_raters": self.kappa_raters,
            "annotators": [a.__dict__ for a in self.annotators],
            "decided_labels": [d.__dict__ for d in self.decided_labels],
        }


def fleiss(ratings: list[list[int]]) -> Optional[float]:
    """Fleiss' kappa of equally many ratings per case; None when undefined (fewer than 2 cases
    or raters, or every rating in one category)."""
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    if len(ratings) < 2 or not ratings[0] or len(ratings[0]) < 2:
        return None
    table, _ = aggregate_raters(np.asarray(ratings), n_cat=None)
    # aggregate_raters only makes columns for categories that occur; that is fine for kappa
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        k = float(fleiss_kappa(table, method="fleiss"))
    return k if np.isfinite(k) else None


def project_stats(store, settings: AnnotateSettings) -> ProjectStats:
    att = attention_results(store, settings)
    excluded = {uid for uid, r in att.items() if settings.exclude_failed and r.failed(settings)}
    annotators = []
    for a in store.annotators():
        secs = store.vote_seconds(a.id)
        r = att.get(a.id)
        annotators.append(
            AnnotatorStats(
                name=a.name, is_admin=a.is_admin, revoked=a.revoked, votes=len(secs),
                median_seconds=median_or_none(secs), checks=r.checks if r else 0, passed=r.passed if r else 0,
                pass_rate=r.pass_rate if r else None, failed=bool(r and r.failed(settings)),
                excluded=a.id in excluded,
            )
        )
    kinds = tuple(KindProgress(k.kind, k.tasks, k.decided, k.votes) for k in store.progress_by_kind())
    per_case: list[tuple[str, list[int]]] = []
    decided_labels = []
    for d in store.decided_tasks():
        grades = [v.grade for v in store.votes_for(d.qid, d.docid) if v.user_id not in excluded]
        task = task_of(store, settings, d.qid)
        per_case.append((task, grades))
        decided_labels.append(DecidedLabel(d.qid, d.docid, d.grade, d.label, len(grades), d.kind))
    m = min((len(g) for _, g in per_case), default=0)
    binary = [[people_label(g, t, settings) for g in gs[:m]] for t, gs in per_case]
    graded = [gs[:m] for t, gs in per_case if t == "graded"]
    total, decided, votes = store.task_totals()
    return ProjectStats(
        total=total, decided=decided, votes=votes, kinds=kinds,
        fleiss_kappa=fleiss(binary), fleiss_kappa_graded=fleiss(graded),
        kappa_cases=len(per_case) if m >= 2 else 0, kappa_raters=m,
        annotators=tuple(annotators), decided_labels=tuple(decided_labels),
    )
