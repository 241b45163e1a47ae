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

Also here, the rest of the shelf-life analyses:

- per-pair aggregation of the secondary assessors' grades (max, min, mean
  rounded half up) evaluated like one more qrels version: its ranking against
  the primary's (tau, tau_AP, rho, RBO_ext with RBO_min/RBO_res bounds) and,
  per system, whether its score differs (paired t-test over topics with
  Bonferroni correction, the paper's test, and the Wilcoxon test;
  :func:`qrelkit.evaluate.significance.system_differences`);
- the natural combination (each topic's assessor as assigned, from a
  ``qid<TAB>assessor`` file) compared the same way;
- assessors as rankers, one per assessor and one per aggregation
  (:mod:`qrelkit.evaluate.rankers`);
- agreement per assessor group with and without the primary
  (:mod:`qrelkit.evaluate.assessors`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from qrelkit.data.qrels import as_pairs
from qrelkit.errors import UsageError
from qrelkit.evaluate.assessors import assessor_groups, read_combination  # noqa: F401  (re-exported)
from qrelkit.evaluate.correlation import (
    kendall_tau_batch,
    ranking,
    rbo_batch,
    rbo_bounds,
    spearman_rho_batch,
    summarize,
    tau_ap_batch,
)
from qrelkit.evaluate.rankers import (  # noqa: F401  (re-exported)
    AGGREGATIONS,
    RANKER_MEASURES,
    AssessorRanker,
    RankerScore,
    aggregate_grades,
    aggregated_rankers,
    assessors_as_rankers,
    best_system,
)
from qrelkit.evaluate.significance import SystemDifference, system_differences
from qrelkit.evaluate.systems import DEFAULT_THRESHOLD, evaluate_runs, prepare_runs, resolve_measures

Pair = tuple[str, str]
_CHUNK = 1000


@dataclass(frozen=True)
class RankAgreement:
    """One alternative ranking against the primary's, and per system whether
    its score differs from the primary's."""

    name: str
    kendall_tau: float
    tau_ap: float
    spearman_rho: float
    rbo: float  # RBO_ext
    changed_pairs: int = 0
    rbo_min: float = math.nan
    rbo_res: float = math.nan
    differences: tuple[SystemDifference, ...] = ()
    meta: dict = field(default_factory=dict, hash=False)  # correlation.meta_evaluation vs the primary

    def to_dict(self) -> dict:
        return {**self.meta,
            "name": self.name, "kendall_tau": _f(self.kendall_tau), "tau_ap": _f(self.tau_ap),
            "spearman_rho": _f(self.spearman_rho), "rbo": _f(self.rbo), "rbo_min": _f(self.rbo_min),
            "rbo_res": _f(self.rbo_res), "changed_pairs": self.changed_pairs,
            "significant_systems": sum(d.significant for d in self.differences),
            "systems": {d.system: {k: v for k, v in d.to_dict().items() if k != "system"} for d in self.differences},
        }


@dataclass(frozen=True)
class SwapProbability:
    a: str  # ranked above b by the primary qrels
    b: str
    probability: float


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
    groups: tuple = ()  # AssessorGroup

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
            "groups": [g.to_dict() for g in self.groups],
        }


def assessor_qrels(primary: Mapping[Pair, int], labels: Mapping[Pair, int], topics: Sequence[str]) -> dict[Pair, int]:
    """An assessor's qrels on ``topics``: their labels, the primary's elsewhere (see module doc)."""
    wanted = set(topics)
    out = {p: g for p, g in primary.items() if p[0] in wanted}
    out.update({p: int(g) for p, g in labels.items() if p[0] in wanted})
    return out


@dataclass(frozen=True, eq=False)
class _Cube:
    """Per candidate (each assessor, then the primary): ``[system, topic]``
    scores on the topics they judged (NaN elsewhere), and who covers each topic."""

    scores: np.ndarray
    covered: list
    coverage: tuple


def _cube(prepared, prim, labels, names, spec, threshold, base) -> _Cube:
    topics = base.topics
    t_index = {t: i for i, t in enumerate(topics)}
    cube = np.full((len(labels) + 1, len(prepared.names), len(topics)), np.nan)
    cube[-1] = base.of(spec[0].key)  # the primary: the fall-back candidate
    covered: list[list[int]] = [[] for _ in topics]
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
    return _Cube(cube, covered, tuple(coverage))


@dataclass(frozen=True)
class StabilitySettings:
    """How the shelf-life analyses sample and score (the keywords of :func:`stability`)."""

    measure: str = "nDCG@10"
    samples: int = 10_000
    seed: int = 0
    threshold: int = DEFAULT_THRESHOLD
    rbo_p: float = 0.9
    natural: Optional[Mapping[str, str]] = None
    shuffles: int = 10
    ranker_measures: Sequence[str] = RANKER_MEASURES
    include_primary: bool = False


def stability(
    runs: Sequence[Any],
    primary: Any,
    assessors: Sequence[tuple[str, Any]],
    settings: "Optional[StabilitySettings]" = None,
    **given: Any,
) -> Stability:
    """Sampled assessor combinations vs the primary ranking, and the other
    shelf-life analyses (see module doc). ``include_primary`` makes the primary
    qrels one more candidate for every topic (Voorhees 2000 sampled among the
    original and the secondary assessors)."""
    s = settings if settings is not None else StabilitySettings(**given)
    measure, samples, seed = s.measure, s.samples, s.seed
    threshold, rbo_p, natural = s.threshold, s.rbo_p, s.natural
    shuffles, ranker_measures, include_primary = s.shuffles, s.ranker_measures, s.include_primary
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
    names = [n for n, _ in assessors]
    if len(set(names)) != len(names):
        raise UsageError("assessor names must be unique")
    labels = [as_pairs(lab) for _, lab in assessors]
    cube = _cube(prepared, prim, labels, names, spec, threshold, base)
    primary_idx = len(assessors)
    cands = [(c + [primary_idx]) if (c and include_primary) else (c or [primary_idx]) for c in cube.covered]

    rng = np.random.default_rng(seed)
    n_sys, n_top = len(prepared.names), len(base.topics)
    sample_means = np.zeros((samples, n_sys))
    for t, c in enumerate(cands):
        pick = np.asarray(c)[rng.integers(0, len(c), size=samples)]
        sample_means += cube.scores[pick, :, t]
    sample_means /= n_top
    primary_means = cube.scores[-1].mean(axis=1)
    nat = _natural(natural, cube, names, base, prepared.names, rbo_p) if natural else None
    aggs = tuple(_aggregation(how, labels, prim, prepared, spec, threshold, base, rbo_p) for how in AGGREGATIONS)
    topics = list(base.topics)
    rankers = assessors_as_rankers(assessors, prim, ranker_measures, shuffles, seed, threshold, topics)
    rankers += aggregated_rankers(assessors, prim, ranker_measures, shuffles, seed, threshold, topics)
    rk_specs = resolve_measures(ranker_measures, threshold)
    return Stability(
        spec[0].key, samples, seed, rbo_p, prepared.names, n_top, cube.coverage, sum(1 for c in cube.covered if not c),
        float(math.prod(len(c) for c in cands)),
        kendall_tau_batch(primary_means[None], sample_means), tau_ap_batch(primary_means[None], sample_means),
        spearman_rho_batch(primary_means[None], sample_means), rbo_batch(primary_means[None], sample_means, rbo_p),
        _swap_probabilities(primary_means, sample_means, prepared.names), nat, aggs, rankers,
        best_system(evaluate_runs(prepared, prim, rk_specs, threshold), rk_specs), include_primary,
        assessor_groups(assessors, prim, threshold),
    )


def _natural(natural: Mapping[str, str], cube: _Cube, names, base, systems, rbo_p: float) -> RankAgreement:
    """Each topic's assigned assessor (the primary where the file names none and nobody judged it)."""
    missing = [t for i, t in enumerate(base.topics) if cube.covered[i] and t not in natural]
    if missing:
        raise UsageError(f"the natural combination names no assessor for topic(s) {', '.join(missing[:10])}")
    per_topic = np.array(cube.scores[-1])
    for t, q in enumerate(base.topics):
        if q in natural:
            a = names.index(natural[q])
            if np.isnan(cube.scores[a, 0, t]):
                raise UsageError(f"assessor {natural[q]!r} did not judge topic {q}")
            per_topic[:, t] = cube.scores[a, :, t]
    return _agreement("natural", cube.scores[-1], per_topic, systems, rbo_p)


def _aggregation(how, labels, prim, prepared, spec, threshold, base, rbo_p) -> RankAgreement:
    """The secondary assessors' grades per pair combined by ``how``, over the primary's labels."""
    agg = {p: g for p, g in aggregate_grades(labels, how).items() if p[0] in set(base.topics)}
    changed = sum(1 for p, g in agg.items() if prim.get(p) != g)
    q = dict(prim)
    q.update(agg)
    ts = evaluate_runs(prepared, q, spec, threshold, topics=base.topics)
    return _agreement(how, base.of(spec[0].key), ts.of(spec[0].key), prepared.names, rbo_p, changed)


def _agreement(name: str, ref: np.ndarray, other: np.ndarray, systems: Sequence[str], p: float,
               changed: int = 0) -> RankAgreement:
    """``ref`` and ``other``: ``[system, topic]`` scores under the primary and the alternative."""
    from qrelkit.evaluate.correlation import kendall_tau, meta_evaluation, spearman_rho

    a, b = ref.mean(axis=1), other.mean(axis=1)
    bounds = rbo_bounds(ranking(a, systems), ranking(b, systems), p)
    return RankAgreement(
        name, kendall_tau(a, b), float(tau_ap_batch(a[None], b[None])[0]), spearman_rho(a, b), bounds.ext, changed,
        bounds.min, bounds.res, system_differences(ref, other, systems), meta_evaluation(a, b),
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


def _f(x: float) -> Optional[float]:
    x = float(x)
    return None if math.isnan(x) else x
