"""Pooling strategies at fixed judging budgets on TREC DL 2019: what a collection builder gets per judgment.

    python benchmarks/pooling.py [--data ../shared/data/trec-dl-2019] [--fractions 0.05,0.1,0.25,0.5]
        [--strategies "depth(k=10),rrf,rbp,combmnz,mtf,mtf(batch=10)"] [--json OUT]

The 37 official runs pool the 43 judged topics; the NIST qrels are the oracle (relevant =
grade >= 2, the track's convention; a pair NIST never judged counts as not relevant, which
is how trec_eval would score it). Budgets are shares of the depth-10 pool's size, split over
topics by :mod:`qrelkit.pooling.budget` (``STRATEGY(budget=N)``). For each strategy and
budget:

- ``relevant``: NIST-relevant pairs among those judged, and per judgment;
- ``recall``: the same over every relevant pair in the NIST qrels;
- ``no label``: judged pairs NIST has no label for (the fused pools and MTF read below the
  depth NIST pooled, and those reads count as misses here, so they are under-rated);
- ``tau``: Kendall's tau-b between the 37 systems' mean nDCG@10 (ir_measures, via
  :func:`qrelkit.evaluate.evaluate_runs`, over all 43 topics) under the pool's qrels (the NIST
  labels of the pooled pairs only) and under the full NIST qrels.

A last row gives the whole depth-10 pool for reference. ``mtf`` reads by the oracle one
document per topic per round (Cormack et al.'s MTF); ``mtf(batch=10)`` in rounds of ten.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DL19 = ROOT.parent / "shared" / "data" / "trec-dl-2019"
STRATEGIES = "depth(k=10),rrf,rbp,combmnz,mtf,mtf(batch=10)"
THRESHOLD = 2


def with_budget(strategy: str, budget: int) -> str:
    if "(" not in strategy:
        return f"{strategy}(budget={budget})"
    return f"{strategy[:-1]},budget={budget})"


def measure(spec: str, runs, prepared, nist, topics, full_means) -> dict:
    """One pool: its size, what it found, and the ranking its qrels give."""
    from qrelkit.evaluate import evaluate_runs, kendall_tau
    from qrelkit.pooling import choose, oracle, parse_pool

    start = time.perf_counter()
    chosen = choose(parse_pool(spec), runs, topics, relevant=oracle(nist, THRESHOLD))
    seconds = time.perf_counter() - start
    pairs = {(q, d) for q, docs in chosen.items() for d in docs}
    qrels = {p: nist[p] for p in pairs if p in nist}
    means = evaluate_runs(prepared, qrels, ["nDCG@10"], topics=topics).means("nDCG@10")
    relevant = sum(1 for g in qrels.values() if g >= THRESHOLD)
    return {"pool": spec, "judged": len(pairs), "relevant": relevant,
            "relevant_per_judgment": relevant / len(pairs) if pairs else 0.0,
            "recall": relevant / sum(1 for g in nist.values() if g >= THRESHOLD),
            "no_label": len(pairs) - len(qrels), "kendall_tau": kendall_tau(full_means, means),
            "seconds": seconds}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DL19)
    ap.add_argument("--fractions", default="0.05,0.1,0.25,0.5")
    ap.add_argument("--strategies", default=STRATEGIES)
    ap.add_argument("--json", type=Path, default=None, help="also write the rows as JSON")
    args = ap.parse_args(argv)
    if not args.data.exists():
        print(f"{args.data} is absent (the DL 2019 data lives in ../shared/data)", file=sys.stderr)
        return 2
    from qrelkit.data import load_qrels, read_runs
    from qrelkit.evaluate import evaluate_runs
    from qrelkit.evaluate.systems import prepare_runs
    from qrelkit.pooling.pool import build_pool
    from qrelkit.specs import split_list

    load_before = os.getloadavg()
    started = datetime.now(timezone.utc)
    nist = dict(load_qrels(args.data / "qrels.txt").pairs)
    topics = sorted({q for q, _ in nist})
    runs = read_runs(str(args.data / "runs" / "official"), max_depth=1000)
    prepared = prepare_runs(runs)
    full_means = evaluate_runs(prepared, nist, ["nDCG@10"], topics=topics).means("nDCG@10")
    depth10 = len(build_pool(runs, depth=10, topics=topics))
    rows = []
    for fraction in (float(f) for f in args.fractions.split(",")):
        budget = round(fraction * depth10)
        for strategy in split_list(args.strategies):
            row = measure(with_budget(strategy, budget), runs, prepared, nist, topics, full_means)
            rows.append({"fraction": fraction, "budget": budget, **row})
            print_row(rows[-1], first=len(rows) == 1)
    rows.append({"fraction": 1.0, "budget": depth10,
                 **measure("depth(k=10)", runs, prepared, nist, topics, full_means)})
    print_row(rows[-1], first=False)
    load_after = os.getloadavg()
    print(f"\n{len(runs)} runs, {len(topics)} topics, depth-10 pool {depth10} pairs; "
          f"{started:%Y-%m-%d %H:%M} UTC on {platform.node()} ({os.cpu_count()} cores), "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    if args.json:
        args.json.write_text(json.dumps({"date": started.isoformat(), "load": [load_before, load_after],
                                         "depth10_pool": depth10, "rows": rows}, indent=1))
    return 0


def print_row(row: dict, first: bool) -> None:
    if first:
        print(f"{'budget':>12} {'pool':<32} {'judged':>6} {'relevant':>8} {'per judgment':>12} "
              f"{'recall':>6} {'no label':>8} {'tau':>6} {'select s':>8}")
    print(f"{row['fraction']:>5.0%} {row['budget']:>6} {row['pool']:<32} {row['judged']:>6} {row['relevant']:>8} "
          f"{row['relevant_per_judgment']:>12.3f} {row['recall']:>6.3f} {row['no_label']:>8} "
          f"{row['kendall_tau']:>6.3f} {row['seconds']:>8.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
