r"""Holes (Hole@k as BRIDGE defines it), pool growth and marginal contribution.

Words, as in ../shared/DESIGN.md and the DREAM/BRIDGE paper:

- ``Unjudged@k``: the share of a run's top-k without an original label
  (1 - Judged@k); per topic over the entries the run returned (at most k),
  averaged over the original qrels' topics the run answered.
- a *detected hole* (newly identified relevant document): a pair without an
  original label that the new qrels label relevant (grade >= threshold).
- ``Hole@k`` (BRIDGE's Hole@10 ratio): detected holes in the top-k ÷ k, averaged
  over the original qrels' topics the run answered. The denominator is k even
  when a run returns fewer than k documents for a topic (as P@k does): missing
  ranks are not holes. Without new qrels there are no detected holes, so
  ``Hole@k`` is not defined and only ``Unjudged@k`` is reported.

Pool saturation (BRIDGE Figure 3): runs join the pool one at a time in M random
orders (seeded). Let H be the detected holes in the full depth-d pool, H_t the
holes the first t runs of an order have pooled, and qrels_t = the original
qrels + the labels of H_t (qrels_0 = the original qrels). Averaged over orders:

    growth rate(t)            = |H_t \ H_{t-1}| / |H|
    marginal contribution(t)  = 1/S * sum_s [ m_s(qrels_t) - m_s(qrels_{t-1}) ]

where m_s is system s's mean score (``Hit@10`` by default as in the paper's
re-benchmark, or ``nDCG@10``, ``P@k``) over the original qrels' topics. Only
holes count: labels already in the original qrels are known from the start and
are never "found" by a run; new labels below the threshold are not holes and
never join the qrels (they would move nDCG's gains without being "found"). Per run, the same quantities are also averaged over
the orders in which it was added (its own marginal contribution).

Scores inside the simulation: R runs and M orders mean R*R*M system
evaluations (61*61*10 = 37,210 for DL 2019), each against different qrels.
Calling pytrec_eval that often would take minutes, so the measures are computed
here in closed form on the top-k arrays with trec_eval's definitions: nDCG@k
(gains = positive grades, log2(rank+1) discount, ideal from the known pairs'
grades), P@k (relevant = grade >= threshold, divided by k) and Hit@k (1 when a
relevant document is in the top-k; ir_measures' Success@k). Tests check all
three against ir_measures on the same partial qrels. Everywhere else scores
come from ir_measures.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from qrelkit.data.qrels import as_pairs, by_topic
from qrelkit.errors import UsageError

Pair = tuple[str, str]
DEFAULT_GROWTH_MEASURE = "Hit@10"


def _mean(x: list) -> float:
    return float(np.mean(x)) if x else 0.0


# --------------------------------------------------------------- pool growth
@dataclass(frozen=True)
class MarginalContribution:
    """What adding one run to a partial pool brings, averaged over orders."""

    run: str
    new_holes: float  # detected holes it is the first to pool
    new_holes_fraction: float  # the same over all detected holes of the full pool
    score_change: float  # mean change of every system's score caused by the addition
    own_score_change: float  # change of its own score when it is added


@dataclass(frozen=True, eq=False)
class PoolGrowth:
    depth: int
    orders: int
    seed: int
    measure: str
    threshold: int
    runs: tuple[str, ...]
    pooled: int
    holes: int  # detected holes in the full pool (|H|)
    found_mean: np.ndarray  # [step]: fraction of H found after t runs
    found_std: np.ndarray
    growth_rate: np.ndarray  # [step]: |H_t minus H_t-1| / |H|
    marginal_contribution: np.ndarray  # [step]: mean change of the systems' scores at step t
    score_error: np.ndarray  # [step]: mean |score - final score| over systems after t runs
    marginal: tuple[MarginalContribution, ...]

    def to_dict(self) -> dict:
        return {
            "depth": self.depth,
            "orders": self.orders,
            "seed": self.seed,
            "measure": self.measure,
            "threshold": self.threshold,
            "runs": len(self.runs),
            "pooled": self.pooled,
            "holes": self.holes,
            "growth": {
                "runs_added": list(range(1, len(self.runs) + 1)),
                "found_fraction": [float(x) for x in self.found_mean],
                "found_fraction_std": [float(x) for x in self.found_std],
                "growth_rate": [float(x) for x in self.growth_rate],
                "marginal_contribution": [float(x) for x in self.marginal_contribution],
                "score_error": [float(x) for x in self.score_error],
            },
            "marginal": {
                m.run: {
                    "new_holes": m.new_holes,
                    "new_holes_fraction": m.new_holes_fraction,
                    "score_change": m.score_change,
                    "own_score_change": m.own_score_change,
                }
                for m in self.marginal
            },
        }


@dataclass(frozen=True, eq=False)
class TopK:
    """Runs' top-k as integer ids of (topic, doc) pairs, the fixed input of the
    simulation. ``ids[s, q, r]`` is -1 past the end of a list."""

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    pairs: tuple[Pair, ...]
    ids: np.ndarray
    grades: np.ndarray  # grade of each pair id (0 when unlabelled)
    labelled: np.ndarray  # bool per pair id
    topic_of: np.ndarray  # topic index per pair id


class _Pairs(Sequence):
    """The pair of each id, as ``(qid, docid)`` made when asked for: the ids' docids and topic
    indices are what is held (a tuple of 10^6 pair tuples was ~60 MB, benchmarks/scale.py)."""

    def __init__(self, topics: tuple[str, ...], docids: list[str], topic_of: np.ndarray):
        self._topics, self._docids, self._topic_of = topics, docids, topic_of

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return self._topics[int(self._topic_of[i])], self._docids[i]

    def __len__(self) -> int:
        return len(self._docids)


def top_k(runs: Sequence[Any], qrels: Mapping[Pair, int], k: int, topics: Optional[Sequence[str]] = None) -> TopK:
    """The runs' top-k as pair ids; every label of the topics gets an id too."""
    nested = by_topic(qrels)
    topic_list = tuple(sorted(topics if topics is not None else nested))
    return _top_k(runs, lambda q: nested.get(q, {}), topic_list, k)


def _top_k(runs: Sequence[Any], labels_of: Callable[[str], Mapping[str, int]], topic_list: tuple[str, ...],
           k: int) -> TopK:
    """:func:`top_k` a topic at a time (``labels_of(qid)``: ``{docid: grade}``): ids are given per
    topic, so no dictionary of every pair is built (1.3 million tuples at 10^6 pooled pairs). Which
    pair gets which id changes no figure: the scores, holes and sums read sets of ids."""
    ids = np.full((len(runs), len(topic_list), k), -1, dtype=np.int64)
    docids: list[str] = []
    grades: list[float] = []
    labelled: list[bool] = []
    topic_of: list[int] = []
    for t, q in enumerate(topic_list):
        local: dict[str, int] = {}
        for s, run in enumerate(runs):
            for r, e in enumerate(run.by_topic.get(q, ())[:k]):
                i = local.get(e.docid)
                if i is None:
                    i = local[e.docid] = len(docids)
                    docids.append(e.docid)
                ids[s, t, r] = i
        labels = labels_of(q)
        for d in sorted(labels):  # labels no run retrieved still count in nDCG's ideal ranking
            if d not in local:
                local[d] = len(docids)
                docids.append(d)
        for d in docids[len(topic_of):]:
            g = labels.get(d)
            grades.append(0.0 if g is None else float(g))
            labelled.append(g is not None)
        topic_of.extend([t] * (len(docids) - len(topic_of)))
    t_of = np.array(topic_of, dtype=np.int64)
    return TopK(tuple(r.name for r in runs), topic_list, _Pairs(topic_list, docids, t_of),
                ids, np.array(grades, dtype=float), np.array(labelled, dtype=bool), t_of)


def pool_scores(tk: TopK, known: np.ndarray, measure: str, cutoff: int, threshold: int) -> np.ndarray:
    """``[system, topic]`` scores when only ``known`` pair ids carry their labels
    (trec_eval definitions of nDCG@k, P@k and Hit@k, see module doc)."""
    ids = tk.ids[:, :, :cutoff]
    valid = ids >= 0
    safe = np.where(valid, ids, 0)
    judged = valid & known[safe] & tk.labelled[safe]
    g = tk.grades[safe]  # [system, topic, rank]: zeroed in place, one array of that size less (pool growth's peak)
    g[~judged] = 0.0
    if measure == "P":
        return (g >= threshold).sum(axis=2) / cutoff
    if measure == "Hit":
        return (g >= threshold).any(axis=2).astype(float)
    return _ndcg(tk, known, g, cutoff)


def _ndcg(tk: TopK, known: np.ndarray, g: np.ndarray, cutoff: int) -> np.ndarray:
    gains = np.maximum(g, 0.0)
    disc = 1.0 / np.log2(np.arange(2, cutoff + 2))
    dcg = (gains * disc[None, None, : gains.shape[2]]).sum(axis=2)
    # ideal DCG per topic from the known, labelled, positive grades
    n_t = len(tk.topics)
    idcg = np.zeros(n_t)
    use = known & tk.labelled & (tk.grades > 0)
    if use.any():
        tg = tk.topic_of[use]
        gv = tk.grades[use]
        order = np.lexsort((-gv, tg))
        tg, gv = tg[order], gv[order]
        starts = np.searchsorted(tg, np.arange(n_t))
        pos = np.arange(len(tg)) - starts[tg]
        keep = pos < cutoff
        np.add.at(idcg, tg[keep], gv[keep] * disc[pos[keep]])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(idcg[None] > 0, dcg / np.where(idcg > 0, idcg, 1)[None], 0.0)


def _parse_measure(measure: str, depth: int) -> tuple[str, int]:
    name, _, cut = measure.partition("@")
    name = "Hit" if name == "Success" else name
    if name not in ("nDCG", "P", "Hit"):
        raise UsageError(f"pool growth supports Hit@k, nDCG@k and P@k, not {measure!r}")
    try:
        k = int(cut) if cut else depth
    except ValueError:
        raise UsageError(f"bad cut-off in {measure!r}") from None
    if k < 1:
        raise UsageError(f"bad cut-off in {measure!r}")
    return name, k


def check_growth_measure(measure: str) -> str:
    """``measure`` if pool growth can compute it, else a :class:`UsageError` naming it (for commands
    that check their options before they start the work)."""
    _parse_measure(measure, 10)
    return measure


def _full_labels(original: Mapping[str, Mapping[str, int]], new: Mapping[str, Mapping[str, int]]
                 ) -> Callable[[str], dict[str, int]]:
    """A topic's labels: the original ones as they are, plus the new labels of unlabelled pairs
    (made a topic at a time, by :func:`_top_k`)."""
    def labels_of(qid: str) -> dict[str, int]:
        out = dict(new.get(qid, {}))
        out.update(original.get(qid, {}))
        return out
    return labels_of


def pool_growth(
    runs: Sequence[Any],
    original: Any,
    new: Any = None,
    depth: int = 10,
    orders: int = 10,
    seed: int = 0,
    threshold: int = 2,
    measure: str = DEFAULT_GROWTH_MEASURE,
) -> PoolGrowth:
    """Growth rate and marginal contribution of detected holes over ``orders``
    random run orders (formulas in the module doc). ``new`` holds the new
    labels (e.g. the merged qrels); without it there are no holes to find."""
    if not runs:
        raise UsageError("pool growth needs at least one run")
    if orders < 1:
        raise UsageError("--orders must be at least 1")
    name, cutoff = _parse_measure(measure, depth)
    orig = by_topic(as_pairs(original))
    newt = by_topic(as_pairs(new)) if new is not None else {}
    topics = sorted(orig) or sorted(set(newt) | set(orig))
    tk = _top_k(runs, _full_labels(orig, newt), tuple(topics), max(depth, cutoff))
    n_runs, n_pairs = len(runs), len(tk.pairs)
    contrib = [np.unique(r[r >= 0]) for r in tk.ids[:, :, :depth].reshape(n_runs, -1)]
    in_original = np.array([d in orig.get(q, ()) for q, d in tk.pairs], dtype=bool)
    hole = tk.labelled & ~in_original & (tk.grades >= threshold)
    full = np.zeros(n_pairs, dtype=bool)
    for c in contrib:
        full[c] = True
    n_holes = int((hole & full).sum())
    known0 = in_original  # new labels that are not holes (non-relevant) never join the qrels

    score = lambda known: pool_scores(tk, known, name, cutoff, threshold).mean(axis=1)  # noqa: E731
    sim = _simulate(contrib, hole, known0, score, orders, seed)
    marginal = tuple(
        MarginalContribution(
            tk.runs[i], float(sim.holes_by_run[i] / orders),
            float(sim.holes_by_run[i] / orders / n_holes) if n_holes else 0.0,
            float(sim.change_by_run[i] / orders), float(sim.own_by_run[i] / orders),
        )
        for i in range(n_runs)
    )
    found = sim.found / n_holes if n_holes else np.ones_like(sim.found)
    rate = sim.brought / n_holes if n_holes else np.zeros_like(sim.brought)
    error = np.abs(sim.scores - score(known0 | (hole & full))[None, None]).mean(axis=2)
    return PoolGrowth(
        depth, orders, seed, f"{name}@{cutoff}", threshold, tk.runs, int(full.sum()), n_holes,
        found.mean(axis=0), found.std(axis=0), rate.mean(axis=0), sim.change.mean(axis=0), error.mean(axis=0),
        marginal,
    )


@dataclass(frozen=True, eq=False)
class _Simulation:
    """Per order and step: holes brought, holes found so far, mean score change,
    every system's scores; per run: totals over orders."""

    brought: np.ndarray
    found: np.ndarray
    change: np.ndarray
    scores: np.ndarray  # [order, step, system]
    holes_by_run: np.ndarray
    change_by_run: np.ndarray
    own_by_run: np.ndarray


def _simulate(contrib, hole, known0, score, orders: int, seed: int) -> _Simulation:
    """Add runs to the pool in ``orders`` seeded random orders; a run's newly
    pooled holes join the known labels (formulas in the module doc)."""
    n_runs = len(contrib)
    rng = np.random.default_rng(seed)
    brought, found, change = (np.zeros((orders, n_runs)) for _ in range(3))
    start = score(known0)
    scores = np.zeros((orders, n_runs, len(start)))
    by_run = np.zeros((3, n_runs))  # holes, mean change, own change
    for o in range(orders):
        pooled = np.zeros(len(hole), dtype=bool)
        before = start
        for step, r in enumerate(rng.permutation(n_runs)):
            fresh = contrib[r][~pooled[contrib[r]]]
            pooled[fresh] = True
            brought[o, step] = hole[fresh].sum()
            after = score(known0 | (hole & pooled)) if brought[o, step] else before
            delta = after - before
            found[o, step] = brought[o, : step + 1].sum()
            change[o, step] = delta.mean()
            scores[o, step] = after
            by_run[:, r] += (brought[o, step], delta.mean(), delta[r])
            before = after
    return _Simulation(brought, found, change, scores, *by_run)
