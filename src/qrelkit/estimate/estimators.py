"""Estimates of runs' scores and differences, with intervals, from a judge's labels and a people's sample.

Contract (stable; the estimate command, the report and ``qrelkit.estimate`` rely on it):

``estimate_runs(runs, labels, people, sample, measures, *, alpha=0.05, seed=0, threshold=None,
universe=None) -> Estimates``

- ``runs``: ``{run name: {qid: docids in ranked (trec_eval) order}}``;
- ``labels``: the judge's grades ``{(qid, docid): grade}`` (the pairs it did not label are a calibration
  class of their own);
- ``people``: people's grades; only those on the sample's pairs and the census are used;
- ``sample``: the :class:`~qrelkit.estimate.design.Sample` people were asked to label;
- ``measures``: ir_measures names as the user writes them (``P@10``, ``nDCG@10``, ``R@100``, ``RBP``,
  ``Judged@10``; a comma list is split);
- ``threshold``: the grade from which a pair is relevant for binary measures; None is ``auto``: 2 when
  any label is above 1 (TREC DL), else 1;
- the universe (the pairs the sample was drawn from) is ``sample.universe`` when set (a sample from
  :func:`~qrelkit.estimate.design.draw_sample`, or ``dataclasses.replace(sample, universe=pool)``), else
  the labelled pairs plus the runs' top ``sample.depth`` (:func:`~qrelkit.estimate.design.universe_of`),
  as ``qrelkit sample`` builds it from files.

Refusals (:class:`~qrelkit.estimate.errors.EstimateError`, exit 2): a sample pair outside the universe,
probabilities that do not add up to the universe's size per topic (the sample was drawn from something
else), fewer than two people's labels in a topic, a measure without an estimator. Sample pairs people
have not labelled yet are listed in ``Estimates.unlabelled`` (and the JSON), never dropped silently:
until they are labelled, the estimate treats them as missing at random within their stratum.
``Estimates.warnings`` (JSON ``warnings``) says when a ratio measure's interval is used where its coverage
has not been shown (:mod:`~qrelkit.estimate.validity`).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Optional

import numpy as np

from qrelkit.estimate import calibration
from qrelkit.estimate.calibration import CalibrationRow
from qrelkit.estimate.design import Sample, top_counts, universe_of
from qrelkit.estimate.differences import Difference, estimate_differences, exact_differences, tied_groups
from qrelkit.estimate.errors import EstimateError
from qrelkit.estimate.favoured import Favoured, favoured_runs
from qrelkit.estimate.frame import Frame, exact_scores
from qrelkit.estimate.measures import MeasureKind, judged_share, parse_measures
from qrelkit.estimate.nonlinear import Inputs, fit_measure
from qrelkit.estimate.ppi import LabelledDesign, collapsed, half_width, labelled_design, power_tune
from qrelkit.estimate.strata import strata_of, stratum_sizes
from qrelkit.estimate.validity import ratio_warnings

RANKED_BY = (1, 3, 10)  # bucket edges of the number of runs ranking a pair in their top k
Pair = tuple[str, str]
Runs = Mapping[str, Mapping[str, Sequence[str]]]


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float

    def to_dict(self) -> dict:
        return {"estimate": self.estimate, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class EstimateRow:
    """One run on one measure: the estimate and its interval, the judge's labels-only score, the
    people-only estimate from the same sample, and PPI++'s lambda."""

    run: str
    measure: str
    estimate: float
    low: float
    high: float
    labels_only: float
    people_only: Interval
    lam: float

    def to_dict(self) -> dict:
        return {"run": self.run, "measure": self.measure, "estimate": self.estimate, "low": self.low,
                "high": self.high, "labels_only": self.labels_only, "people_only": self.people_only.to_dict(),
                "lambda": self.lam}


@dataclass(frozen=True)
class Estimates:
    rows: tuple[EstimateRow, ...]
    differences: tuple[Difference, ...]
    tied: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]  # (measure, groups best first)
    calibration: tuple[CalibrationRow, ...]
    sample_size: int
    labelled: int
    unlabelled: tuple[Pair, ...]
    census: int
    census_unlabelled: tuple[Pair, ...]
    universe: int
    topics: int
    alpha: float
    threshold: int
    design: str
    warnings: tuple[str, ...] = ()
    favoured: tuple[Favoured, ...] = ()  # every run's judge-favoured check (estimate.favoured)

    def to_json(self) -> dict:
        return {
            "runs": [r.to_dict() for r in self.rows],
            "differences": [d.to_dict() for d in self.differences],
            "tied": {m: [list(g) for g in groups] for m, groups in self.tied},
            "calibration": [c.to_dict() for c in self.calibration],
            "sample": {"size": self.sample_size, "labelled": self.labelled,
                       "unlabelled": [list(p) for p in self.unlabelled], "census": self.census,
                       "census_unlabelled": [list(p) for p in self.census_unlabelled], "design": self.design},
            "universe": self.universe, "topics": self.topics, "alpha": self.alpha, "threshold": self.threshold,
            "warnings": list(self.warnings),
            "favoured": [f.to_dict() for f in self.favoured if f.flagged],
        }


def estimate_runs(runs: Runs, labels: Mapping[Pair, int], people: Mapping[Pair, int], sample: Sample,
                  measures: Sequence[str], *, alpha: float = 0.05, seed: int = 0,
                  threshold: Optional[int] = None) -> Estimates:
    if not 0 < alpha < 1:
        raise EstimateError(f"alpha {alpha} must be between 0 and 1")
    if not runs:
        raise EstimateError("no runs to estimate")
    thr = threshold if threshold is not None else (2 if max([*labels.values(), *people.values(), 0]) > 1 else 1)
    kinds = parse_measures(measures, thr)
    universe = sample.universe
    if universe is None:
        universe = universe_of([*labels, *sample.census, *sample.pair_set()], runs, sample.depth)
    frame = Frame.build(list(universe), runs)
    design, inputs, unlabelled, census_missing = _prepare(frame, labels, people, sample, seed)
    rows: list[EstimateRow] = []
    diffs: list[Difference] = []
    tied = []
    favoured: list[Favoured] = []
    judge = np.array([labels.get(p, 0) for p in frame.pairs])
    for kind in kinds:
        m_rows, m_diffs = _one_measure(frame, kind, inputs, judge, alpha, set(labels))
        rows += [within_range(r, kind) for r in m_rows]
        diffs += m_diffs
        tied.append((kind.key, tied_groups(frame.names, [r.estimate for r in m_rows], m_diffs)))
        favoured += favoured_runs(m_rows, alpha) if kind.label != "judged" else ()
    warnings = ratio_warnings([k.key for k in kinds if not k.linear], sample.design, len(design.index), len(frame.topics))
    return Estimates(tuple(rows), tuple(diffs), tuple(tied), _calibration(frame, labels, design, thr),
                     len(sample.pairs), len(design.index), unlabelled, len(sample.census), census_missing,
                     len(frame.pairs), len(frame.topics), alpha, thr, sample.design, warnings, tuple(favoured))


def _one_measure(frame: Frame, kind: MeasureKind, inputs: Inputs, judge: np.ndarray, alpha: float,
                 judged: set) -> tuple[list[EstimateRow], tuple[Difference, ...]]:
    names = frame.names
    if kind.label == "judged":
        exact = judged_share(frame.runs, names, frame.topics, frozenset(frame.pairs), kind.cutoff)
        by_judge = judged_share(frame.runs, names, frame.topics, frozenset(judged), kind.cutoff)
        rows = [EstimateRow(n, kind.key, float(e), float(e), float(e), float(j), Interval(float(e), float(e), float(e)), 0.0)
                for n, e, j in zip(names, exact, by_judge)]
        return rows, exact_differences(names, kind.key, exact)
    groups = inputs.design  # a ratio's variance groups are its topics (ppi.collapsed; jackknife says why)
    if not kind.linear:
        groups = collapsed(inputs.design, frame.topic[inputs.design.index])
    fitted = fit_measure(frame, kind, inputs, groups)
    every = np.arange(len(names))
    ty, tf = fitted.influence(every, np.ones(len(names)), tuning=True)  # lambda from the strata's variance
    lam = power_tune(inputs.design, ty, tf, fitted.anticipated(every, ty, tf, tuning=True))
    est = fitted.value(every, lam)
    zy, zf = fitted.influence(every, lam)
    extra = fitted.anticipated(every, zy, zf)
    half = half_width(groups, zy, zf, lam, alpha, extra)
    zero = np.zeros(len(names))
    people = fitted.value(every, zero)
    py, pf = fitted.influence(every, zero)
    p_extra = fitted.anticipated(every, py, np.zeros_like(pf))
    p_half = half_width(groups, py, pf, zero, alpha, p_extra)
    labels_only = exact_scores(frame, kind, judge)
    rows = [EstimateRow(n, kind.key, float(e), float(e - h), float(e + h), float(lo),
                        Interval(float(p), float(p - ph), float(p + ph)), float(lm))
            for n, e, h, lo, p, ph, lm in zip(names, est, half, labels_only, people, p_half, lam[:, 0])]
    return rows, estimate_differences(fitted, names, lam, alpha)


def within_range(row: EstimateRow, kind: MeasureKind) -> EstimateRow:
    """The row with its estimates and intervals kept within the measure's range (:func:`bounded`)."""
    top = upper_bound(kind)
    e, low, high = bounded(row.estimate, row.low, row.high, top)
    people = Interval(*bounded(row.people_only.estimate, row.people_only.low, row.people_only.high, top))
    return dataclasses.replace(row, estimate=e, low=low, high=high, people_only=people)


def upper_bound(kind: MeasureKind) -> float:
    """The largest value the measure can take: 1 for a share or a normalised gain (P@k, R@k, nDCG@k,
    RBP over relevance), none for DCG@k."""
    return 1.0 if kind.denominator is not None or kind.label == "relevant" else float("inf")


def bounded(estimate: float, low: float, high: float, top: float) -> tuple[float, float, float]:
    """(estimate, low, high) kept within the measure's range [0, top]. Why: the true value lies in that
    range, so cutting the interval to it never loses coverage, and a point outside it (an nDCG of 1.1
    from a small sample) is a value no run can have. The favoured check and the differences use the
    rows before the cut (their standard errors come from the whole interval)."""
    def clip(x: float) -> float:
        return min(max(float(x), 0.0), top)
    return clip(estimate), clip(low), clip(high)


def _prepare(frame: Frame, labels: Mapping[Pair, int], people: Mapping[Pair, int], sample: Sample,
             seed: int) -> tuple[LabelledDesign, Inputs, tuple[Pair, ...], tuple[Pair, ...]]:
    """Check the sample against the universe, weight the labelled pairs, and cross-fit the calibration."""
    outside = [p for p in [*sample.pair_set(), *sample.census] if p not in frame.index]
    if outside:
        q, d = sorted(outside)[0]
        raise EstimateError(f"the sample does not match the universe: {len(outside)} of its pairs (e.g. {q} {d}) "
                            "are neither labelled nor in the runs' top k; was it drawn from other labels or runs?")
    strata = strata_of([(p.qid, p.docid, p.probability) for p in sample.pairs])
    _check_sizes(frame, strata, sample.census)
    design = labelled_design(strata, frame.index, people)
    census_known = [p for p in sorted(sample.census) if p in people]
    values = np.array(sorted({0, *(int(g) for g in design.grade), *(people[p] for p in census_known)}))
    classes, n_classes = _judge_classes(frame, labels, sample.depth or 10)
    shape = (len(frame.topics), n_classes, len(values))
    every, own = calibration.cross_fit(classes, frame.topic, design.index, np.searchsorted(values, design.grade),
                                       design.stratum, shape, seed)
    exact = np.zeros(len(frame.pairs), dtype=bool)
    for p in census_known:
        i = frame.index[p]
        exact[i] = True
        every[i] = (values == people[p]).astype(float)
    unlabelled = tuple(sorted(p for p in sample.pair_set() if p not in people))
    missing = tuple(p for p in sorted(sample.census) if p not in people)
    return design, Inputs(values, every, own, exact, design), unlabelled, missing


def _check_sizes(frame: Frame, strata, census: frozenset) -> None:
    covered = stratum_sizes(strata)
    have: dict[str, int] = {}
    for q, _ in frame.pairs:
        have[q] = have.get(q, 0) + 1
    for q, _ in census:
        have[q] = have.get(q, 0) - 1
    for q in frame.topics:
        if covered.get(q, 0) != have.get(q, 0):
            raise EstimateError(
                f"the sample's probabilities do not match the universe: topic {q} has {have.get(q, 0)} pairs "
                f"outside the census, the sample's strata cover {covered.get(q, 0)}; draw the sample from "
                "the same labels, runs and depth as the estimate (or pass the same universe)")


def _judge_keys(frame: Frame, labels: Mapping[Pair, int]) -> tuple[np.ndarray, list[Optional[int]]]:
    """A calibration class per universe pair: the judge's grade, or None where it gave none."""
    grades: list[Optional[int]] = sorted({int(labels[p]) for p in frame.pairs if p in labels})
    if any(p not in labels for p in frame.pairs):
        grades.append(None)
    where = {g: k for k, g in enumerate(grades)}
    return np.array([where[labels.get(p)] for p in frame.pairs], dtype=int), grades


def _judge_classes(frame: Frame, labels: Mapping[Pair, int], depth: int) -> tuple[np.ndarray, int]:
    """The calibration model's judge class per pair: the judge's grade (or none) crossed with how many
    runs rank the pair in their top ``depth`` (0, 1-2, 3-9, 10 or more): a pair many systems retrieve is
    more often relevant than one with the same grade that none retrieves."""
    keys, grades = _judge_keys(frame, labels)
    bucket = np.searchsorted(np.array(RANKED_BY), top_counts(frame.pairs, frame.runs, depth), side="right")
    return keys * (len(RANKED_BY) + 1) + bucket, len(grades) * (len(RANKED_BY) + 1)


def _calibration(frame: Frame, labels: Mapping[Pair, int], design: LabelledDesign, thr: int) -> tuple[CalibrationRow, ...]:
    keys, grades = _judge_keys(frame, labels)
    return calibration.calibration_table(grades, keys, design.index, design.weight, design.grade, thr)
