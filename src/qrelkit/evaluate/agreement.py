"""Agreement between label sources: a judge (or an assessor) against a
reference, and several assessors among themselves.

Why these figures: LLM-assessor papers report binary agreement with the
track's relevance threshold (balanced accuracy, per-class recall, Cohen's
kappa), graded agreement (unweighted and linearly weighted kappa,
Krippendorff's ordinal alpha), and per-topic F1, because label quality varies
by topic; assessor-agreement studies report Fleiss' kappa and overlap
(Voorhees 2000). Each is computed with the field's library (scikit-learn,
krippendorff, statsmodels) on the pairs both sources cover.

Conventions:
- binary relevance is ``grade >= threshold`` (default 2, TREC DL); a source
  may carry its own binary decision (a judge's ``label``), which is then used.
- the confusion matrix has the reference in rows and the labels in columns,
  classes ordered (non-relevant, relevant): ``[[tn, fp], [fn, tp]]``.
- linear weights use the numeric grade distance: the label set passed to
  scikit-learn is every integer between the smallest and largest grade seen,
  so a grade nobody used still counts as a step.
- per-topic F1 (of the relevant class) is averaged over topics where either
  source has a relevant pair; elsewhere F1 is undefined and the topic skipped.
- undefined statistics (e.g. kappa when one side is constant) are ``None``.
"""
from __future__ import annotations

import math
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

import numpy as np

from qrelkit.relevance import ADJUDICATED, AUTO, CONSENSUS, DROPPED, ERROR, ESCALATE

Pair = tuple[str, str]

# Statuses whose judgments carry a label decided by the method itself, without escalation.
AUTO_STATUSES = (CONSENSUS, AUTO)
# Statuses of cases the method would not decide on its own.
ESCALATED_STATUSES = (ESCALATE, ERROR, ADJUDICATED)
LABELLED_STATUSES = (CONSENSUS, AUTO, ADJUDICATED, DROPPED, "human", "oracle", "original")


@dataclass(frozen=True)
class Agreement:
    """Labels against a reference on the pairs both cover."""

    name: str
    pairs: int
    threshold: int
    accuracy: Optional[float]
    balanced_accuracy: Optional[float]
    recall_relevant: Optional[float]
    recall_nonrelevant: Optional[float]
    precision: Optional[float]
    f1: Optional[float]
    cohen_kappa: Optional[float]
    cohen_kappa_graded: Optional[float]
    cohen_kappa_linear: Optional[float]
    krippendorff_alpha: Optional[float]
    per_topic_f1: Optional[float]
    per_topic_f1_topics: int
    confusion: tuple[tuple[int, int], tuple[int, int]]
    grades: tuple[int, ...]
    confusion_graded: tuple[tuple[int, ...], ...]
    reference_relevant: int
    labels_relevant: int

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "pairs": self.pairs,
            "threshold": self.threshold,
            "accuracy": self.accuracy,
            "balanced_accuracy": self.balanced_accuracy,
            "recall_relevant": self.recall_relevant,
            "recall_nonrelevant": self.recall_nonrelevant,
            "precision": self.precision,
            "f1": self.f1,
            "cohen_kappa": self.cohen_kappa,
            "cohen_kappa_graded": self.cohen_kappa_graded,
            "cohen_kappa_linear": self.cohen_kappa_linear,
            "krippendorff_alpha": self.krippendorff_alpha,
            "per_topic_f1": self.per_topic_f1,
            "per_topic_f1_topics": self.per_topic_f1_topics,
            "reference_relevant": self.reference_relevant,
            "labels_relevant": self.labels_relevant,
            "confusion_matrix": {
                "rows": "reference", "columns": "labels", "classes": ["non-relevant", "relevant"],
                "matrix": [list(r) for r in self.confusion],
            },
            "confusion_matrix_graded": {
                "rows": "reference", "columns": "labels", "classes": list(self.grades),
                "matrix": [list(r) for r in self.confusion_graded],
            },
        }


def compare_labels(
    reference: Mapping[Pair, int],
    labels: Mapping[Pair, int],
    threshold: int = 2,
    name: str = "labels",
    binary_labels: Optional[Mapping[Pair, int]] = None,
) -> Agreement:
    """Agreement of ``labels`` with ``reference`` on their common pairs.
    ``binary_labels`` overrides ``grade >= threshold`` for the labels' side."""
    common = sorted(p for p in labels if p in reference)
    ref_g = np.array([int(reference[p]) for p in common], dtype=int)
    lab_g = np.array([int(labels[p]) for p in common], dtype=int)
    ref_b = (ref_g >= threshold).astype(int)
    if binary_labels is not None:
        lab_b = np.array([int(bool(binary_labels.get(p, labels[p] >= threshold))) for p in common], dtype=int)
    else:
        lab_b = (lab_g >= threshold).astype(int)
    n = len(common)
    grades = tuple(range(int(min(ref_g.min(), lab_g.min())), int(max(ref_g.max(), lab_g.max())) + 1)) if n else ()
    if n == 0:
        return Agreement(name, 0, threshold, *([None] * 11), 0, ((0, 0), (0, 0)), (), (), 0, 0)
    with warnings.catch_warnings():  # degenerate inputs give None below, not warnings
        warnings.simplefilter("ignore")
        return _agreement(name, threshold, common, ref_g, lab_g, ref_b, lab_b, grades)


def _agreement(name, threshold, common, ref_g, lab_g, ref_b, lab_b, grades) -> Agreement:
    from sklearn.metrics import (
        accuracy_score,
        balanced_accuracy_score,
        cohen_kappa_score,
        confusion_matrix,
        f1_score,
        precision_score,
        recall_score,
    )

    n = len(common)
    nan = np.nan
    cm = confusion_matrix(ref_b, lab_b, labels=[0, 1])
    cmg = confusion_matrix(ref_g, lab_g, labels=list(grades))
    both_classes = len(set(ref_b.tolist())) == 2
    topic_f1, topic_f1_n = _per_topic_f1(common, ref_b, lab_b)
    return Agreement(
        name=name,
        pairs=n,
        threshold=threshold,
        accuracy=_num(accuracy_score(ref_b, lab_b)),
        balanced_accuracy=_num(balanced_accuracy_score(ref_b, lab_b)) if both_classes else None,
        recall_relevant=_num(recall_score(ref_b, lab_b, pos_label=1, zero_division=nan)),
        recall_nonrelevant=_num(recall_score(ref_b, lab_b, pos_label=0, zero_division=nan)),
        precision=_num(precision_score(ref_b, lab_b, pos_label=1, zero_division=nan)),
        f1=_num(f1_score(ref_b, lab_b, pos_label=1, zero_division=nan)),
        cohen_kappa=_kappa(cohen_kappa_score, ref_b, lab_b, labels=[0, 1]),
        cohen_kappa_graded=_kappa(cohen_kappa_score, ref_g, lab_g, labels=list(grades)),
        cohen_kappa_linear=_kappa(cohen_kappa_score, ref_g, lab_g, labels=list(grades), weights="linear"),
        krippendorff_alpha=ordinal_alpha([ref_g, lab_g], grades),
        per_topic_f1=topic_f1,
        per_topic_f1_topics=topic_f1_n,
        confusion=((int(cm[0, 0]), int(cm[0, 1])), (int(cm[1, 0]), int(cm[1, 1]))),
        grades=grades,
        confusion_graded=tuple(tuple(int(v) for v in row) for row in cmg),
        reference_relevant=int(ref_b.sum()),
        labels_relevant=int(lab_b.sum()),
    )


def ordinal_alpha(rows: Sequence[Sequence[float]], grades: Sequence[int] = ()) -> Optional[float]:
    """Krippendorff's alpha, ordinal, for raters x items (NaN = missing)."""
    import krippendorff

    data = np.asarray(rows, dtype=float)
    values = np.unique(data[~np.isnan(data)])
    if data.shape[1] == 0 or len(values) < 2:
        return None
    domain = sorted(set(int(v) for v in values) | set(grades))
    try:
        with np.errstate(all="ignore"):
            return _num(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=domain))
    except (ValueError, ZeroDivisionError):
        return None


def _per_topic_f1(common: Sequence[Pair], ref_b: np.ndarray, lab_b: np.ndarray) -> tuple[Optional[float], int]:
    from sklearn.metrics import f1_score

    by_topic: dict[str, list[int]] = defaultdict(list)
    for i, (qid, _) in enumerate(common):
        by_topic[qid].append(i)
    scores = []
    for idx in by_topic.values():
        r, lab = ref_b[idx], lab_b[idx]
        if r.any() or lab.any():
            scores.append(f1_score(r, lab, pos_label=1, zero_division=0.0))
    return (float(np.mean(scores)) if scores else None), len(scores)


def _kappa(fn, a, b, **kw) -> Optional[float]:
    with np.errstate(all="ignore"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _num(fn(a, b, **kw))


def _num(x) -> Optional[float]:
    x = float(x)
    return None if math.isnan(x) else x


# ------------------------------------------------------------ several assessors
@dataclass(frozen=True)
class AssessorPair:
    a: str
    b: str
    pairs: int
    cohen_kappa: Optional[float]
    cohen_kappa_graded: Optional[float]
    overlap: Optional[float]  # binary: |both relevant| / |either relevant|
    overlap_graded: Optional[float] = None  # share of common pairs with the same grade


@dataclass(frozen=True)
class MultiAgreement:
    """The classic assessor-agreement figures for several label sources.

    Fleiss' kappa needs the same number of ratings per item, not the same
    raters: it is computed over the pairs judged by every assessor when there
    are any, otherwise over the pairs judged by the most common number (>= 2)
    of assessors (e.g. the DL 2019 re-judgments, where each pair has exactly
    two of eight assessors). ``overlap`` is |intersection| / |union| of the
    assessors' relevant sets on those same pairs, ``overlap_graded`` the share
    of those pairs with one grade from everyone; ``groups`` repeats the figures
    per assessor group (:mod:`qrelkit.evaluate.assessors`)."""

    assessors: tuple[str, ...]
    threshold: int
    fleiss_pairs: int
    raters_per_pair: int
    fleiss_kappa: Optional[float]
    fleiss_kappa_binary: Optional[float]
    overlap: Optional[float]
    pairwise: tuple[AssessorPair, ...]
    overlap_graded: Optional[float] = None
    groups: tuple = ()  # AssessorGroup

    def to_dict(self) -> dict:
        return {
            "assessors": list(self.assessors),
            "threshold": self.threshold,
            "fleiss_pairs": self.fleiss_pairs,
            "raters_per_pair": self.raters_per_pair,
            "fleiss_kappa": self.fleiss_kappa,
            "fleiss_kappa_binary": self.fleiss_kappa_binary,
            "overlap": self.overlap,
            "overlap_graded": self.overlap_graded,
            "pairwise": [
                {"a": p.a, "b": p.b, "pairs": p.pairs, "cohen_kappa": p.cohen_kappa,
                 "cohen_kappa_graded": p.cohen_kappa_graded, "overlap": p.overlap,
                 "overlap_graded": p.overlap_graded}
                for p in self.pairwise
            ],
            "groups": [g.to_dict() for g in self.groups],
        }


def multi_assessor(
    assessors: Sequence[tuple[str, Mapping[Pair, int]]], threshold: int = 2,
    primary: Optional[Mapping[Pair, int]] = None,
) -> MultiAgreement:
    """Fleiss' kappa (graded and binary), pairwise Cohen's kappa and overlaps,
    and the same per assessor group (with and without ``primary`` as a rater)."""
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    from qrelkit.evaluate.assessors import assessor_groups

    names = tuple(n for n, _ in assessors)
    raters: dict[Pair, list[int]] = defaultdict(list)
    for _, labels in assessors:
        for pair, g in labels.items():
            raters[pair].append(int(g))
    counts = Counter(len(v) for v in raters.values() if len(v) >= 2)
    if len(names) in counts:
        r = len(names)
    elif counts:
        r = max(counts.items(), key=lambda kv: (kv[1], kv[0]))[0]
    else:
        r = 0
    items = sorted(p for p, v in raters.items() if len(v) == r) if r else []
    fk = fkb = ov = ovg = None
    if items:
        data = np.array([raters[p] for p in items], dtype=int)
        fk = _fleiss(aggregate_raters, fleiss_kappa, data)
        fkb = _fleiss(aggregate_raters, fleiss_kappa, (data >= threshold).astype(int))
        rel = data >= threshold
        union = int(rel.any(axis=1).sum())
        ov = (int(rel.all(axis=1).sum()) / union) if union else None
        ovg = float((data == data[:, :1]).all(axis=1).mean())
    pairwise = []
    for i in range(len(assessors)):
        for j in range(i + 1, len(assessors)):
            (na, la), (nb, lb) = assessors[i], assessors[j]
            common = sorted(p for p in la if p in lb)
            if not common:
                pairwise.append(AssessorPair(na, nb, 0, None, None, None))
                continue
            ga = np.array([la[p] for p in common], dtype=int)
            gb = np.array([lb[p] for p in common], dtype=int)
            grades = list(range(int(min(ga.min(), gb.min())), int(max(ga.max(), gb.max())) + 1))
            ra, rb = ga >= threshold, gb >= threshold
            union = int((ra | rb).sum())
            pairwise.append(AssessorPair(
                na, nb, len(common),
                _kappa(cohen_kappa_score, ra.astype(int), rb.astype(int), labels=[0, 1]),
                _kappa(cohen_kappa_score, ga, gb, labels=grades),
                (int((ra & rb).sum()) / union) if union else None,
                float((ga == gb).mean()),
            ))
    return MultiAgreement(names, threshold, len(items), r, fk, fkb, ov, tuple(pairwise), ovg,
                          assessor_groups(assessors, primary, threshold))


def _fleiss(aggregate_raters, fleiss_kappa, data: np.ndarray) -> Optional[float]:
    table, _ = aggregate_raters(data)
    if table.shape[1] < 2:
        return None
    with np.errstate(all="ignore"):
        return _num(fleiss_kappa(table, method="fleiss"))

