"""Holes against the original qrels, pool growth and marginal contribution.

Why: a pool is trustworthy when adding another run no longer finds new
relevant documents or moves anyone's score. Growth is measured by adding runs
to the pool one at a time in random order (M orders, seeded) and recording,
after each addition, the fraction of the pool's relevant documents that are
newly found (growth rate) and how much every system's score changes because
of the addition (marginal contribution), averaged over orders.

Scores inside the growth simulation: a run count of R means R*R*M system
evaluations (61*61*10 = 37,210 for DL 2019), each against a different partial
pool. Calling pytrec_eval that often would take minutes, so the two measures
the simulation supports are computed here in closed form on the top-k arrays,
with trec_eval's definitions: nDCG@k (gains = positive grades, log2(rank+1)
discount, ideal from the judged pairs' grades) and P@k (relevant = grade >=
threshold, divided by k). Tests check both against ir_measures on the same
partial pools. Everywhere else scores come from ir_measures.

Labels: ``qrels`` should be the most complete labels available (e.g. the
merged qrels with filled holes); inside the simulation a pair counts as judged
only once a run added so far has pooled it (the pool is every added run's
top-``depth``); labels deeper than any run's top-``depth`` are not used.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from qrelkit.data.qrels import as_pairs
from qrelkit.errors import UsageError

Pair = tuple[str, str]


# --------------------------------------------------------------------- holes
@dataclass(frozen=True)
class SystemHoles:
    """One run's top-k against the original and the completed qrels.

    Rates are per topic (over the entries the run returned, at most k) and
    averaged over the topics of the original qrels that the run answered."""

    run: str
    depth: int
    hole_rate: float  # Hole@k: share of the top-k without an original label
    new_relevant: int  # unlabelled originally, relevant in the new qrels (count over topics)
    new_relevant_rate: float  # NewRel@k: that share of the top-k
    judged_after: float  # Judged@k under the new qrels


def hole_rates(
    runs: Sequence[Any], original: Any, new: Any = None, depth: int = 10, threshold: int = 2
) -> tuple[SystemHoles, ...]:
    """Hole@k per run against ``original``; with ``new`` also the newly found relevant."""
    orig = as_pairs(original)
    newp = as_pairs(new) if new is not None else {}
    topics = {q for q, _ in orig}
    out = []
    for run in runs:
        holes, newrel, judged_after = [], [], []
        count = 0
        for q in sorted(topics):
            top = run.by_topic.get(q, ())[:depth]
            if not top:
                continue
            h = [e for e in top if (q, e.docid) not in orig]
            nr = [e for e in h if newp.get((q, e.docid), -1) >= threshold]
            holes.append(len(h) / len(top))
            newrel.append(len(nr) / len(top))
            judged_after.append(sum(1 for e in top if (q, e.docid) in orig or (q, e.docid) in newp) / len(top))
            count += len(nr)
        out.append(SystemHoles(
            run.name, depth, _mean(holes), count, _mean(newrel), _mean(judged_after),
        ))
    return tuple(out)


def new_relevant_at_k(runs: Sequence[Any], original: Any, new: Any, depth: int = 10, threshold: int = 2) -> dict[str, float]:
    """NewRel@k per run name (see :class:`SystemHoles`), for the ``holes`` command."""
    return {h.run: h.new_relevant_rate for h in hole_rates(runs, original, new, depth, threshold)}


def _mean(x: list) -> float:
    return float(np.mean(x)) if x else 0.0


# --------------------------------------------------------------- pool growth
@dataclass(frozen=True)
class MarginalContribution:
    """What adding one run to a partial pool brings, averaged over orders."""

    run: str
    new_relevant: float  # newly found relevant pairs when it is added
    new_relevant_fraction: float  # the same over all relevant pairs of the full pool
    mean_abs_score_change: float  # mean |change| of every system's score caused by the addition
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
    relevant: int
    found_mean: np.ndarray  # [step]: fraction of the pool's relevant found after n runs
    found_std: np.ndarray
    growth_rate: np.ndarray  # [step]: newly found relevant fraction at step n
    score_change: np.ndarray  # [step]: mean |score change| over systems caused by the n-th addition
    score_error: np.ndarray  # [step]: mean |score - final score| over systems after n runs
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
            "relevant": self.relevant,
            "growth": {
                "runs_added": list(range(1, len(self.runs) + 1)),
                "found_fraction": [float(x) for x in self.found_mean],
                "found_fraction_std": [float(x) for x in self.found_std],
                "growth_rate": [float(x) for x in self.growth_rate],
                "score_change": [float(x) for x in self.score_change],
                "score_error": [float(x) for x in self.score_error],
            },
            "marginal": {
                m.run: {
                    "new_relevant": m.new_relevant,
                    "new_relevant_fraction": m.new_relevant_fraction,
                    "mean_abs_score_change": m.mean_abs_score_change,
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


def top_k(runs: Sequence[Any], qrels: Mapping[Pair, int], k: int, topics: Optional[Sequence[str]] = None) -> TopK:
    topic_list = tuple(sorted(topics if topics is not None else {q for q, _ in qrels}))
    index: dict[Pair, int] = {}
    ids = np.full((len(runs), len(topic_list), k), -1, dtype=np.int64)
    for s, run in enumerate(runs):
        for t, q in enumerate(topic_list):
            for r, e in enumerate(run.by_topic.get(q, ())[:k]):
                ids[s, t, r] = index.setdefault((q, e.docid), len(index))
    pairs = tuple(index)
    grades = np.array([qrels.get(p, 0) for p in pairs], dtype=float)
    labelled = np.array([p in qrels for p in pairs], dtype=bool)
    t_of = {q: i for i, q in enumerate(topic_list)}
    topic_of = np.array([t_of[q] for q, _ in pairs], dtype=np.int64)
    return TopK(tuple(r.name for r in runs), topic_list, pairs, ids, grades, labelled, topic_of)


def pool_scores(tk: TopK, pooled: np.ndarray, measure: str, cutoff: int, threshold: int) -> np.ndarray:
    """``[system, topic]`` scores when only ``pooled`` pair ids carry their labels
    (trec_eval definitions of nDCG@k and P@k, see module doc)."""
    ids = tk.ids[:, :, :cutoff]
    valid = ids >= 0
    safe = np.where(valid, ids, 0)
    judged = valid & pooled[safe] & tk.labelled[safe]
    g = np.where(judged, tk.grades[safe], 0.0)
    if measure == "P":
        return (g >= threshold).sum(axis=2) / cutoff
    gains = np.maximum(g, 0.0)
    disc = 1.0 / np.log2(np.arange(2, cutoff + 2))
    dcg = (gains * disc[None, None, : gains.shape[2]]).sum(axis=2)
    # ideal DCG per topic from the pooled, labelled, positive grades
    n_t = len(tk.topics)
    idcg = np.zeros(n_t)
    use = pooled & tk.labelled & (tk.grades > 0)
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
    if name not in ("nDCG", "P"):
        raise UsageError(f"pool growth supports nDCG@k and P@k, not {measure!r}")
    try:
        k = int(cut) if cut else depth
    except ValueError:
        raise UsageError(f"bad cut-off in {measure!r}") from None
    if k < 1:
        raise UsageError(f"bad cut-off in {measure!r}")
    return name, k


def pool_growth(
    runs: Sequence[Any],
    qrels: Any,
    depth: int = 10,
    orders: int = 10,
    seed: int = 0,
    threshold: int = 2,
    measure: str = "nDCG@10",
) -> PoolGrowth:
    """Pool growth and marginal contribution over ``orders`` random run orders."""
    if not runs:
        raise UsageError("pool growth needs at least one run")
    if orders < 1:
        raise UsageError("--orders must be at least 1")
    name, cutoff = _parse_measure(measure, depth)
    pairs = as_pairs(qrels)
    tk = top_k(runs, pairs, max(depth, cutoff))
    n_runs, n_pairs = len(runs), len(tk.pairs)
    contrib = [np.unique(r[r >= 0]) for r in tk.ids[:, :, :depth].reshape(n_runs, -1)]
    relevant = tk.labelled & (tk.grades >= threshold)
    full = np.zeros(n_pairs, dtype=bool)
    for c in contrib:
        full[c] = True
    total_rel = int((relevant & full).sum())
    final = pool_scores(tk, full, name, cutoff, threshold).mean(axis=1)

    rng = np.random.default_rng(seed)
    found = np.zeros((orders, n_runs))
    rate = np.zeros((orders, n_runs))
    change = np.zeros((orders, n_runs))
    error = np.zeros((orders, n_runs))
    new_rel_by_run = np.zeros(n_runs)
    abs_change_by_run = np.zeros(n_runs)
    own_change_by_run = np.zeros(n_runs)
    for o in range(orders):
        order = rng.permutation(n_runs)
        pooled = np.zeros(n_pairs, dtype=bool)
        before = np.zeros(n_runs)
        found_so_far = 0
        for step, r in enumerate(order):
            fresh = contrib[r][~pooled[contrib[r]]]
            new_rel = int(relevant[fresh].sum())
            pooled[fresh] = True
            found_so_far += new_rel
            after = pool_scores(tk, pooled, name, cutoff, threshold).mean(axis=1)
            delta = after - before
            found[o, step] = found_so_far / total_rel if total_rel else 1.0
            rate[o, step] = new_rel / total_rel if total_rel else 0.0
            change[o, step] = np.abs(delta).mean()
            error[o, step] = np.abs(after - final).mean()
            new_rel_by_run[r] += new_rel
            abs_change_by_run[r] += np.abs(delta).mean()
            own_change_by_run[r] += delta[r]
            before = after
    marginal = tuple(
        MarginalContribution(
            tk.runs[i],
            float(new_rel_by_run[i] / orders),
            float(new_rel_by_run[i] / orders / total_rel) if total_rel else 0.0,
            float(abs_change_by_run[i] / orders),
            float(own_change_by_run[i] / orders),
        )
        for i in range(n_runs)
    )
    return PoolGrowth(
        depth, orders, seed, f"{name}@{cutoff}", threshold, tk.runs, int(full.sum()), total_rel,
        found.mean(axis=0), found.std(axis=0), rate.mean(axis=0), change.mean(axis=0), error.mean(axis=0), marginal,
    )
