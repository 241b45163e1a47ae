"""The bridge preset's measurements on a filled collection: what hole filling changed per system.

BRIDGE (Ban et al., §4–5) pools 25 retrievers, fills the holes with DREAM and reports:

- Table 4, Hole@10 per system: detected holes (pairs without an original label that the new
  labels find relevant) in the top 10 ÷ 10 (:func:`qrelkit.evaluate.holes.hole_rates`);
- Table 5, Hit@10 (ir_measures' ``Success@10``) on the original and on the filled qrels, and the
  gain;
- Figure 3, growth rate and marginal contribution as retrievers join the pool one at a time in
  random orders (:func:`qrelkit.evaluate.saturation.pool_growth`, Hit@10, 10 seeded orders as the
  paper averages 10 runs). The paper gives the equation in its Appendix H, which the copy in
  ``/work/shared/papers`` does not contain; the definitions used are §4.3's words made exact:
  growth rate(t) = holes first pooled by the t-th retriever ÷ all detected holes, marginal
  contribution(t) = the mean, over every retriever, of the change of its Hit@10 when the t-th
  retriever's holes join the qrels. Figure 3 is a plot with no printed values (both "converge near
  zero"), so its rows have a measured column only;
- Table 6, RAGAlign@10 (:mod:`qrelkit.evaluate.ragalign`): the share of (system, query) pairs
  whose Hit@10 equals the generated answer's correctness, under the original and the filled qrels.

The filled qrels are the original labels plus the new labels of pairs the original did not
label: hole filling adds labels, it never overrules one. A run is matched to a paper row by its
name (case-insensitive: a run named ``bm25`` fills the BM25 row); ``*`` is the whole collection
(the average over the runs for Hole@10 and Hit@10, every (system, query) pair for RAGAlign).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

if TYPE_CHECKING:
    from qrelkit.store import Store

Pair = tuple[str, str]
K = 10
ORDERS = 10  # the paper's Figure 3 averages 10 random orders


def filled(original: Mapping[Pair, int], new: Mapping[Pair, int]) -> dict[Pair, int]:
    """The original labels, plus the new labels of pairs the original does not label."""
    return {**new, **original}


def hits(runs: Sequence[Any], original: Mapping[Pair, int], after: Mapping[Pair, int],
         threshold: int) -> dict[str, tuple[float, float]]:
    """Hit@10 (mean over the original qrels' topics) per run: (before, after)."""
    from qrelkit.evaluate.systems import evaluate_runs, prepare_runs

    topics = sorted({q for q, _ in original})
    prepared = prepare_runs(runs)
    m = f"Success@{K}"
    before = evaluate_runs(prepared, original, [m], threshold=threshold, topics=topics).of(m)
    now = evaluate_runs(prepared, after, [m], threshold=threshold, topics=topics).of(m)
    return {n: (float(before[i].mean()), float(now[i].mean())) for i, n in enumerate(prepared.names)}


def rag_alignment(runs: Sequence[Any], original: Mapping[Pair, int], after: Mapping[Pair, int],
                  generators: Sequence[Any], threshold: int) -> dict[str, dict]:
    """RAGAlign@10 per generator: ``{generator: {"before": v, "after": v, "systems": {...}}}``
    (generation labels of systems that are not among the runs are left out)."""
    from qrelkit.report.rag import rag_alignment as align

    out = {}
    for g in align(generators, runs, [("original", original), ("filled", after)], threshold, K):
        before, now = (v.alignment for v in g.versions)
        was = {a.name: a.ragalign for a in before.systems}
        out[g.generator] = {
            "before": before.overall.ragalign, "after": now.overall.ragalign, "queries": now.overall.queries,
            "systems": {a.name: {"before": was.get(a.name), "after": a.ragalign} for a in now.systems},
        }
    return out


def measure(runs: Sequence[Any], original: Mapping[Pair, int], new: Mapping[Pair, int], threshold: int,
            generators: Sequence[Any] = (), orders: int = ORDERS, seed: int = 0) -> dict:
    """``{"systems": {run name (lower case) or "*": {figure: value}}, "growth": Figure 3's curves,
    "ragalign": per generator}``; the first generator's RAGAlign fills the ``*`` row."""
    from qrelkit.evaluate.holes import hole_rates
    from qrelkit.evaluate.saturation import pool_growth

    after = filled(original, new)
    holes = {h.run: h for h in hole_rates(runs, original, new, K, threshold)}
    out: dict[str, dict] = {}
    for name, (b, a) in hits(runs, original, after, threshold).items():
        out[name.lower()] = {"hole_at_10": holes[name].hole_rate, "detected_holes": holes[name].holes,
                             "hit_at_10_before": b, "hit_at_10_after": a, "hit_at_10_gain": a - b}
    systems = list(out.values())
    growth = pool_growth(runs, original, new, depth=K, orders=orders, seed=seed, threshold=threshold,
                         measure=f"Hit@{K}")
    star = {f: _mean([s[f] for s in systems]) for f in ("hole_at_10", "hit_at_10_before", "hit_at_10_after",
                                                        "hit_at_10_gain")}
    star |= {"growth_rate_last": float(growth.growth_rate[-1]),
             "marginal_contribution_last": float(growth.marginal_contribution[-1])}
    rag = rag_alignment(runs, original, after, generators, threshold) if generators else {}
    first = next(iter(rag.values()), None)
    if first is not None:
        star |= {"ragalign_before": first["before"], "ragalign_after": first["after"]}
        for name, v in first["systems"].items():
            out.setdefault(name.lower(), {}).update(ragalign_before=v["before"], ragalign_after=v["after"])
    out["*"] = star
    return {"systems": out, "growth": growth.to_dict(), "ragalign": rag}


def _mean(values: list) -> Optional[float]:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def workspace_inputs(store: Store) -> tuple[list, dict, dict]:
    """A filled workspace's runs, original qrels and new labels (the merge of its people's and its
    latest judge's labels, as ``qrelkit export`` writes them)."""
    from qrelkit.errors import UsageError
    from qrelkit.rag.workspace import workspace_runs
    from qrelkit.report.gathering import MergedTally

    runs, original = workspace_runs(store), store.qrels()
    if not runs:
        raise UsageError(f"{store.workspace} has no readable runs; pass --runs PATH ...")
    if not original:
        raise UsageError(f"{store.workspace} has no original qrels; pass --reference QRELS")
    tally = MergedTally.from_store(store)
    if tally is None:
        raise UsageError(f"{store.workspace} is not filled yet (no judgments): run `qrelkit fill -w "
                         f"{store.workspace}` first, or pass --new-qrels QRELS")
    return runs, original, {k: g for k, g in tally.grades.items() if k not in original}


def ensure_answers(store: Store, model: str, concurrency: int = 8) -> dict:
    """Generate and grade the answers RAGAlign needs when the workspace has none (stored, so a
    second call pays nothing): every run's top-10 whole for a served model, as BRIDGE's released
    generation code gives them (``rag generate --context-tokens auto``)."""
    from qrelkit.evaluate.ragalign_multi import generators_from_store
    from qrelkit.llm import make_client
    from qrelkit.rag.workspace import rag_in_workspace

    if generators_from_store(store):
        return {}
    return rag_in_workspace(store, make_client(model, store=store, concurrency=concurrency), k=K,
                            concurrency=concurrency)
