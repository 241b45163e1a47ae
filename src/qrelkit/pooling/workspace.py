"""A workspace pooled by a strategy other than plain depth-k (``qrelkit pool --pool SPEC``).

Plain ``depth(k=K)`` stays in the store's SQL pooling (:func:`qrelkit.workspace.pool_workspace`);
every other strategy looks at a topic's whole candidate set at once, so the runs are
read here, in memory, to the depth the strategy reads (the top k for a cut depth pool,
every retrieved document for fusion and MTF; with scores only for CombMNZ).

MTF needs labels as it goes. In a workspace the only labels known before judging are
the reference qrels, so ``mtf`` here is a simulation: it reads by the workspace's
qrels (relevant = grade >= the automatic threshold, unlabelled = not relevant) and is
refused without them. ``build`` runs MTF in real rounds of judging instead
(:mod:`qrelkit.pooling.live`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from qrelkit.errors import UsageError
from qrelkit.pooling.build import oracle, strategy_pool
from qrelkit.pooling.spec import PoolSpec
from qrelkit.types import Qrel

if TYPE_CHECKING:
    from qrelkit.store import Store


def pool_by_strategy(store: Store, paths: list[str], names: list[str], spec: PoolSpec, allocation: Any) -> dict:
    """Pool the workspace's runs (``paths``, stored under ``names``) by ``spec`` into its cases; the
    counts `qrelkit pool` prints."""
    import dataclasses

    from qrelkit.data import read_runs
    from qrelkit.relevance import resolve_threshold
    from qrelkit.workspace import _pool_counts, _pool_inputs

    reference = store.qrels()
    relevant = None
    if spec.strategy.needs_labels:
        if not reference:
            raise UsageError(f"pool {spec}: MTF reads deeper where relevant documents are found; in a workspace "
                             "that is a simulation by its reference qrels, and this workspace has none "
                             f"(`qrelkit init -w {store.workspace} --qrels QRELS`)")
        relevant = oracle(reference, resolve_threshold("auto", reference).value)
    depth = spec["k"] if spec.name == "depth" else None
    if spec.strategy.needs_scores:
        runs: list[Any] = [dataclasses.replace(r, name=n)  # named as init stored them (--run-names)
                           for r, n in zip(read_runs(paths, allow_empty=True), names)]  # accepted when loaded
    else:
        runs = _pool_inputs(paths, names, depth)
    qrels = [Qrel(q, d, g) for (q, d), g in reference.items()]
    pool = strategy_pool(spec, runs, qrels=qrels, topics=list(store.topics()), people=allocation,
                         reference=reference or None, relevant=relevant)
    changed, unchanged = store.upsert_cases(pool.cases)
    stale = store.remove_cases_except({(c.qid, c.docid) for c in pool.cases})
    if allocation.name == "sample":  # the draw, with its inclusion probabilities, for `estimate`
        from qrelkit.pooling.people_sample import record_pool

        record_pool(store, allocation, pool.cases, runs)
    return {**_pool_counts(pool.cases), "changed": changed + stale, "unchanged": unchanged, "depth": pool.depth}
