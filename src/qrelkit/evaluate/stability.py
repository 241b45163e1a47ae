"""Ranking stability across assessors (Voorhees 2000, revisited for re-judged
collections such as the 2025 re-judgment of TREC DL 2019).

Question: if another (equally qualified) person had judged each topic, would
the system ranking change? Per topic one of the assessors who judged it is
picked (10,000 seeded samples by default, or a given natural combination),
all runs are evaluated, and the ranking is compared with the primary qrels'.

How an assessor's qrels are formed for a topic: the assessor's own labels for
the pairs they judged; for pairs of the primary qrels they did not judge, the
primary's label (re-judgments cover only a sample of each topic's pairs, so
without the fall-back most of the pool would count as non-relevant and the
comparison would measure coverage, not disagreement). A topic no assessor
judged keeps the primary's labels in every sample. Topics are the primary's.

Speed: scores are computed once per assessor (with ir_measures, per topic, on
the topics that assessor judged); a sample is then only an index per topic,
so 10,000 samples are a few numpy gathers and batch rank correlations.

Also here: per-pair aggregation of the assessors' grades (max, min, mean
rounded half up) evaluated like one more qrels version, and assessors as
rankers (each topic's judged documents ordered by an assessor's grades, ties
broken at random and averaged over shuffles, scored against the primary
qrels): an upper bound that systems can be compared with.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from qrelkit.data.qrels import as_pairs
from qrelkit.errors import UsageError
from qrelkit.evaluate.assessors import read_combination  # noqa: F401  (re-exported: the natural combination)
from qrelkit.evaluate.correlation import (
    kendall_tau_batch,
    rbo_batch,
    spearman_rho_batch,
    summarize,
    tau_ap_batch,
)
from qrelkit.evaluate.systems import DEFAULT_THRESHOLD, evaluate_runs, prepare_runs, resolve_measures
from qrelkit.types import RunEntry

Pair = tuple[str, str]
RANKER_MEASURES = ("nDCG@10", "P@10", "RR@10", "R@100")
_CHUNK = 1000


@dataclass(frozen=True)
class RankAgreement:
    """One alternative ranking against the primary's."""

    name: str
    kendall_tau: float
    tau_ap: float
    spearman_rho: float
    rbo: float
    changed_pairs: int = 0

    def to_dict(self) -> dict:
        return {
            "name": self.name, "kendall_tau": _f(self.kendall_tau), "tau_ap": _f(self.tau_ap),
            "spearman_rho": _f(self.spearman_rho), "rbo": _f(self.rbo), "changed_pairs": self.changed_pairs,
        }


@dataclass(frozen=True)
class SwapProbability:
    a: str  # ranked above b by the primary qrels
    b: str
    probability: float


@dataclass(frozen=True)
class RankerScore:
    measure: str
    mean: float
    std: float


@dataclass(frozen=True)
class AssessorRanker:
    assessor: str
    topics: int
    shuffles: int
    scores: tuple[RankerScore, ...]


@dataclass(frozen=True, eq=False)
class Stability:
    measure: str
    samples: int
    seed: int
    rbo_p: float
    systems: tuple[str, ...]
    topics: int
    assessors: tuple[tuple[str, int], ...]  # name, topics judged
    topics_without_assessor: int
    combinations: float  # number of distinct combinations (product of candidates per topic)
    kendall_tau: np.ndarray  # [sample]
    tau_ap: np.ndarray
    spearman_rho: np.ndarray
    rbo: np.ndarray
    swaps: tuple[SwapProbability, ...]
    natural: Optional[RankAgreement]
    aggregations: tuple[RankAgreement, ...]
    rankers: tuple[AssessorRanker, ...]
    best_system: tuple[RankerScore, ...]
    include_primary: bool = False

    def to_dict(self) -> dict:
        return {
            "measure": self.measure,
            "include_primary": self.include_primary,
            "samples": self.samples,
            "seed": self.seed,
            "rbo_p": self.rbo_p,
            "systems": len(self.systems),
            "topics": self.topics,
            "assessors": {n: {"topics": t} for n, t in self.assessors},
            "topics_without_assessor": self.topics_without_assessor,
            "combinations": self.combinations,
            "kendall_tau": summarize(self.kendall_tau),
            "tau_ap": summarize(self.tau_ap),
            "spearman_rho": summarize(self.spearman_rho),
            "rbo": summarize(self.rbo),
            "swap_probability": [
                {"a": s.a, "b": s.b, "probability": s.probability} for s in self.swaps if s.probability > 0
            ],
            "pairs_ever_swapped": sum(1 for s in self.swaps if s.probability > 0),
            "natural": self.natural.to_dict() if self.natural else None,
            "aggregations": {a.name: a.to_dict() for a in self.aggregations},
            "rankers": {
                r.assessor: {
                    "topics": r.topics, "shuffles": r.shuffles,
                    **{s.measure: {"mean": s.mean, "std": s.std} for s in r.scores},
                }
                for r in self.rankers
            },
            "best_system": {s.measure: {"mean": s.mean, "std": s.std} for s in self.best_system},
        }


def assessor_qrels(primary: Mapping[Pair, int], labels: Mapping[Pair, int], topics: Sequence[str]) -> dict[Pair, int]:
    """An assessor's qrels on ``topics``: their labels, the primary's elsewhere (see module doc)."""
    wanted = set(topics)
    out = {p: g for p, g in primary.items() if p[0] in wanted}
    out.update({p: int(g) for p, g in labels.items() if p[0] in wanted})
    return out


def stability(
    runs: Sequence[Any],
    primary: Any,
    assessors: Sequence[tuple[str, Any]],
    measure: str = "nDCG@10",
    samples: int = 10_000,
    seed: int = 0,
    threshold: int = DEFAULT_THRESHOLD,
    rbo_p: float = 0.9,
    natural: Optional[Mapping[str, str]] = None,
    shuffles: int = 10,
    ranker_measures: Sequence[str] = RANKER_MEASURES,
    include_primary: bool = False,
) -> Stability:
    """Sampled assessor combinations vs the primary ranking (see module doc).
    ``include_primary`` makes the primary qrels one more candidate for every
    topic (Voorhees 2000 sampled among the original and the secondary assessors)."""
    if not assessors:
        raise UsageError("stability needs at least one assessor's qrels")
    if samples < 1:
        raise UsageError("--samples must be at least 1")
    prepared = prepare_runs(runs)
    if len(prepared.names) < 2:
        raise UsageError("stability needs at least two runs to rank")
    prim = as_pairs(primary)
    spec = resolve_measures([measure], threshold)
    base = evaluate_runs(prepared, prim, spec, threshold, label="primary")
    topics = base.topics
    t_index = {t: i for i, t in enumerate(topics)}
    n_sys, n_top = len(prepared.names), len(topics)
    names = [n for n, _ in assessors]
    if len(set(names)) != len(names):
        raise UsageError("assessor names must be unique")
    labels = [as_pairs(lab) for _, lab in assessors]

    # per assessor: [system, topic] scores on the topics they judged (NaN elsewhere)
    cube = np.full((len(assessors) + 1, n_sys, n_top), np.nan)
    cube[-1] = base.of(spec[0].key)  # the primary: the fall-back candidate
    covered: list[list[int]] = [[] for _ in range(n_top)]
    coverage = []
    for a, lab in enumerate(labels):
        mine = sorted({q for q, _ in lab if q in t_index})
        coverage.append((names[a], len(mine)))
        if not mine:
            continue
        ts = evaluate_runs(prepared, assessor_qrels(prim, lab, mine), spec, threshold, topics=mine)
        cols = [t_index[t] for t in ts.topics]
        cube[a][:, cols] = ts.values[0]
        for c in cols:
            covered[c].append(a)
    no_assessor = sum(1 for c in covered if not c)
    primary_idx = len(assessors)
    cands = [(c + [primary_idx]) if (c and include_primary) else (c or [primary_idx]) for c in covered]
    combinations = float(math.prod(len(c) for c in cands))

    rng = np.random.default_rng(seed)
    primary_means = cube[-1].mean(axis=1)
    sample_means = np.zeros((samples, n_sys))
    for t, c in enumerate(cands):
        pick = np.asarray(c)[rng.integers(0, len(c), size=samples)]
        sample_means += cube[pick, :, t]
    sample_means /= n_top

    tau = kendall_tau_batch(primary_means[None], sample_means)
    tap = tau_ap_batch(primary_means[None], sample_means)
    rho = spearman_rho_batch(primary_means[None], sample_means)
    rb = rbo_batch(primary_means[None], sample_means, rbo_p)
    swaps = _swap_probabilities(primary_means, sample_means, prepared.names)

    nat = None
    if natural:
        missing = [t for t in topics if covered[t_index[t]] and t not in natural]
        if missing:
            raise UsageError(f"the natural combination names no assessor for topic(s) {', '.join(missing[:10])}")
        pick_means = np.zeros(n_sys)
        for t, q in enumerate(topics):
            if q in natural:
                a = names.index(natural[q])
                if np.isnan(cube[a, 0, t]):
                    raise UsageError(f"assessor {natural[q]!r} did not judge topic {q}")
                pick_means += cube[a, :, t]
            else:
                pick_means += cube[-1, :, t]
        nat = _agreement("natural", primary_means, pick_means / n_top, rbo_p)

    aggs = []
    for how in ("max", "min", "mean"):
        agg = aggregate_grades(labels, how)
        agg = {p: g for p, g in agg.items() if p[0] in t_index}
        q = dict(prim)
        changed = sum(1 for p, g in agg.items() if prim.get(p) != g)
        q.update(agg)
        ts = evaluate_runs(prepared, q, spec, threshold, topics=topics)
        aggs.append(_agreement(how, primary_means, ts.means(spec[0].key), rbo_p, changed))

    rankers = assessors_as_rankers(assessors, prim, ranker_measures, shuffles, seed, threshold, list(topics))
    rk_specs = resolve_measures(ranker_measures, threshold)
    sys_scores = evaluate_runs(prepared, prim, rk_specs, threshold)
    best = []
    for s in rk_specs:
        m = sys_scores.means(s.key)
        i = int(np.argmax(m))
        per_topic = sys_scores.of(s.key)[i]
        best.append(RankerScore(f"{s.key}", float(m[i]), float(per_topic.std(ddof=1)) if n_top > 1 else 0.0))

    return Stability(
        spec[0].key, samples, seed, rbo_p, prepared.names, n_top, tuple(coverage), no_assessor, combinations,
        tau, tap, rho, rb, swaps, nat, tuple(aggs), rankers, tuple(best), include_primary,
    )


def _agreement(name: str, ref: np.ndarray, other: np.ndarray, p: float, changed: int = 0) -> RankAgreement:
    from qrelkit.evaluate.correlation import kendall_tau, spearman_rho

    return RankAgreement(
        name, kendall_tau(ref, other), float(tau_ap_batch(ref[None], other[None])[0]),
        spearman_rho(ref, other), float(rbo_batch(ref[None], other[None], p)[0]), changed,
    )


def _swap_probabilities(primary: np.ndarray, samples: np.ndarray, names: Sequence[str]) -> tuple[SwapProbability, ...]:
    """For every pair the primary orders strictly, the share of samples that
    order it the other way round (a strict reversal; ties are not swaps)."""
    n = len(primary)
    i, j = np.triu_indices(n, 1)
    d = primary[i] - primary[j]
    keep = d != 0
    i, j, d = i[keep], j[keep], d[keep]
    counts = np.zeros(len(i))
    for lo in range(0, samples.shape[0], _CHUNK):
        s = samples[lo:lo + _CHUNK]
        counts += ((s[:, i] - s[:, j]) * d < 0).sum(axis=0)
    prob = counts / samples.shape[0]
    out = []
    for a, b, dd, p in zip(i, j, d, prob):
        hi, lo_ = (a, b) if dd > 0 else (b, a)
        out.append(SwapProbability(names[hi], names[lo_], float(p)))
    out.sort(key=lambda s: (-s.probability, s.a, s.b))
    return tuple(out)


def aggregate_grades(labels: Sequence[Mapping[Pair, int]], how: str) -> dict[Pair, int]:
    """Each pair's grades from every assessor who judged it, combined by ``max``,
    ``min`` or ``mean`` (rounded half up, so 1.5 -> 2)."""
    grades: dict[Pair, list[int]] = {}
    for lab in labels:
        for p, g in lab.items():
            grades.setdefault(p, []).append(int(g))
    if how == "max":
        return {p: max(v) for p, v in grades.items()}
    if how == "min":
        return {p: min(v) for p, v in grades.items()}
    if how == "mean":
        return {p: int(math.floor(sum(v) / len(v) + 0.5)) for p, v in grades.items()}
    raise UsageError(f"unknown aggregation {how!r}; use max, min or mean")


@dataclass(frozen=True)
class _PseudoRun:
    name: str
    by_topic: Mapping[str, tuple[RunEntry, ...]]


def assessors_as_rankers(
    assessors: Sequence[tuple[str, Any]],
    primary: Mapping[Pair, int],
    measures: Sequence[str] = RANKER_MEASURES,
    shuffles: int = 10,
    seed: int = 0,
    threshold: int = DEFAULT_THRESHOLD,
    topics: Optional[Sequence[str]] = None,
) -> tuple[AssessorRanker, ...]:
    """Each assessor's grades as a ranking of the documents they judged, scored
    against the primary qrels; per topic averaged over ``shuffles`` random tie
    orders, then mean and standard deviation over the topics they judged."""
    specs = resolve_measures(measures, threshold)
    rng = np.random.default_rng(seed)
    wanted = set(topics) if topics is not None else None
    out = []
    for name, lab in assessors:
        lab = as_pairs(lab)
        by_topic: dict[str, list[tuple[str, int]]] = {}
        for (q, d), g in sorted(lab.items()):
            if wanted is None or q in wanted:
                by_topic.setdefault(q, []).append((d, int(g)))
        mine = sorted(by_topic)
        if not mine:
            out.append(AssessorRanker(name, 0, shuffles, ()))
            continue
        pseudo = []
        for s in range(max(1, shuffles)):
            run: dict[str, tuple[RunEntry, ...]] = {}
            for q in mine:
                docs = by_topic[q]
                noise = rng.random(len(docs))
                order = sorted(range(len(docs)), key=lambda i: (-docs[i][1], noise[i]))
                n = len(order)
                # distinct decreasing scores fix the order, so pytrec_eval's docid tie-break never applies
                run[q] = tuple(RunEntry(q, docs[i][0], r + 1, float(n - r)) for r, i in enumerate(order))
            pseudo.append(_PseudoRun(f"{name}#{s}", run))
        ts = evaluate_runs(pseudo, primary, specs, threshold, topics=mine)
        scores = []
        for sp in specs:
            per_topic = ts.of(sp.key).mean(axis=0)  # average over shuffles
            scores.append(RankerScore(
                sp.key, float(per_topic.mean()), float(per_topic.std(ddof=1)) if len(per_topic) > 1 else 0.0
            ))
        out.append(AssessorRanker(name, len(mine), max(1, shuffles), tuple(scores)))
    return tuple(out)


def _f(x: float) -> Optional[float]:
    x = float(x)
    return None if math.isnan(x) else x
