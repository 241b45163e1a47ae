"""The RCL paper's people-only baseline: significance decisions under a partly judged pool.

The paper (Table 1, "Baseline (Human assessor judgements)") scores the runs by AP@1000,
tests every pair of runs with a two-sided Wilcoxon signed-rank test corrected by
Benjamini-Hochberg (its §2.2.5), and reports the Matthews correlation between the
decisions under the baseline's qrels and under the full qrels. Its baseline qrels, by
allocation:

- ``depth``: people's labels on the whole depth-10 pool of the official runs (everything
  else unjudged, i.e. not relevant);
- ``stratified``: people's labels on a 10 % stratified sample of that pool only, averaged
  over ``repeat`` seeded samples as the paper averages its DL executions over 10.

Binary relevance is grade >= 2 (the TREC DL convention) for AP, as in every qrelkit measure
(``threshold`` auto on graded qrels).
"""
from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Optional, Sequence

Pair = tuple[str, str]


@dataclass(frozen=True)
class Baseline:
    allocation: str
    mcc: float
    mcc_std: Optional[float]
    labelled: int  # pairs people labelled (mean over repeats)
    repeats: int
    significant_full: int  # significant pairs under the full qrels
    pairs: int
    measure: str

    def to_dict(self) -> dict:
        return asdict(self)


def decisions(prepared: Any, labels: Mapping[Pair, int], topics: Sequence[str], measure: str, threshold: int = 2):
    from qrelkit.evaluate.significance import pairwise_significance
    from qrelkit.evaluate.systems import evaluate_runs

    ts = evaluate_runs(prepared, labels, [measure], threshold=threshold, topics=topics, label="qrels")
    return pairwise_significance(ts.of(measure), ts.systems, test="wilcoxon", correction="bh", measure=measure)


def people_only(runs: Sequence[Any], qrels: Mapping[Pair, int], allocation: str = "depth", depth: int = 10,
                measure: str = "AP@1000", repeat: int = 10, rate: float = 0.1) -> Baseline:
    """MCC of significance decisions: people-only labels of the pool vs the full ``qrels``."""
    from qrelkit.evaluate.significance import decision_agreement
    from qrelkit.evaluate.systems import prepare_runs
    from qrelkit.pooling.allocation import parse_allocation
    from qrelkit.pooling.pool import build_pool

    topics = sorted({q for q, _ in qrels})
    prepared = prepare_runs(runs)
    full = decisions(prepared, qrels, topics, measure)
    seeds = [None] if allocation == "depth" else list(range(repeat))
    mccs, sizes = [], []
    for seed in seeds:
        if seed is None:
            pool = build_pool(runs, depth=depth, qrels=qrels, topics=topics)
            keys = [(c.qid, c.docid) for c in pool.cases]
        else:
            people = parse_allocation(f"stratified(rate={rate},seed={seed})")
            pool = build_pool(runs, depth=depth, qrels=qrels, topics=topics, people=people, reference=qrels)
            keys = [(c.qid, c.docid) for c in pool.cases if c.share == "people"]
        labels = {k: qrels[k] for k in keys if k in qrels}
        mccs.append(decision_agreement(full, decisions(prepared, labels, topics, measure)).matthews)
        sizes.append(len(labels))
    return Baseline(allocation, statistics.fmean(mccs), statistics.stdev(mccs) if len(mccs) > 1 else None,
                    round(statistics.fmean(sizes)), len(seeds), int((full.decisions != 0).sum()),
                    len(full.pairs), measure)
