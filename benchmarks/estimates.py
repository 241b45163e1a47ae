"""Estimates with intervals on TREC DL 2019: are the intervals valid, and how narrow are they?

Truth: NIST's qrels (``qrels.txt``; a pair NIST did not judge is non-relevant). Runs: the 37 official runs.
The judge: each of the four published LLM label sets (``llm-qrels/*.qrel``). Universe: every NIST-judged
pair plus every pair in the runs' top 10 (one pair more). For each design, budget (a share of the 9,260
NIST-judged pairs: 926 is 10%) and draw: a sample is drawn (seed = draw), people's labels are NIST's
labels of the drawn pairs, and ``estimate_runs`` gives every run's estimate with a 95% interval.

Per (label set, design, budget, measure) the table gives: ``coverage`` (share of run x draw intervals
containing the NIST score), ``width`` (mean interval width), ``vs people`` (mean width / mean width of the
people-only interval from the same sample), ``tau`` (mean Kendall tau of the estimates with the NIST
ranking), ``wrong sign`` (share of the differences declared significant whose sign is wrong) and the
labels-only tau. The ``active`` design needs labels that carry a probability of relevance: none of the
four published label sets does (they are grades), so it is not run here; say ``--designs active`` with a
probability-carrying judge's labels once one is available.

Run from the repository root::

    python benchmarks/estimates.py --draws 200                 # the full grid (hours on 2 cores)
    python benchmarks/estimates.py --labels farzi_dl19_4prompts_llama3.3-70b --designs weighted \\
        --budgets 10 --draws 30                                # the issue's DONE criteria
    python benchmarks/estimates.py --synthetic --budgets 12.5 25 50 --draws 120   # the tests' collection

``--synthetic`` measures on the seeded synthetic collection of ``tests/estimate/synthetic.py`` (8 topics
of 60 pairs, 6 runs, a judge that over-grades) instead, its truth being the collection's own grades; the
budgets are then a share of its 480 pairs (25% is the 120 labels of tests/estimate/test_coverage.py).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from scipy.stats import kendalltau  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "trec-dl-2019"
LABELS = ("farzi_dl19_4prompts_llama3.3-70b", "farzi_dl19_4prompts_llama3-8b", "farzi_dl19_baseline_llama3-8b",
          "farzi_dl19_4prompts_flant5-large")


def load() -> tuple[dict, dict, tuple]:
    from qrelkit.data.qrels import load_qrels
    from qrelkit.data.runs import read_runs
    from qrelkit.estimate import rankings, universe_of

    runs = rankings(read_runs(DATA / "runs" / "official", max_depth=100))
    nist = dict(load_qrels(DATA / "qrels.txt").pairs)
    return runs, nist, universe_of(nist, runs, 10)


def synthetic() -> tuple[dict, dict, tuple, dict]:
    """The tests' synthetic collection: runs, true grades, universe and the judge's labels."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from estimate.synthetic import collection

    universe, grades, judge, runs = collection(seed=1)
    return runs, grades, tuple(universe), judge


def truth(runs: dict, nist: dict, universe: tuple, measures: list[str]) -> dict[str, np.ndarray]:
    from qrelkit.estimate.frame import Frame, exact_scores
    from qrelkit.estimate.measures import parse_measures

    frame = Frame.build(universe, runs)
    grades = np.array([nist.get(p, 0) for p in frame.pairs])
    return {k.key: exact_scores(frame, k, grades) for k in parse_measures(measures, 2)}


def one_cell(runs, nist, universe, labels, design, size, draws, measures, true) -> dict:
    from qrelkit.estimate import draw_sample, estimate_runs

    names = list(runs)
    acc = {m: {"cover": [], "width": [], "people": [], "people_cover": [], "tau": [], "sig": 0, "wrong": 0}
           for m in measures}
    for seed in range(draws):
        sample = draw_sample(universe, size=size, design=design, seed=seed, runs=runs, depth=10)
        people = {(p.qid, p.docid): nist.get((p.qid, p.docid), 0) for p in sample.pairs}
        est = estimate_runs(runs, labels, people, sample, measures, seed=seed, threshold=2)
        for m in measures:
            rows = [r for r in est.rows if r.measure == m]
            t, a = true[m], acc[m]
            a["cover"] += [r.low <= x <= r.high for r, x in zip(rows, t)]
            a["people_cover"] += [r.people_only.low <= x <= r.people_only.high for r, x in zip(rows, t)]
            a["width"] += [r.high - r.low for r in rows]
            a["people"] += [r.people_only.high - r.people_only.low for r in rows]
            a["tau"].append(kendalltau([r.estimate for r in rows], t)[0])
            where = {n: i for i, n in enumerate(names)}
            for d in est.differences:
                if d.measure == m and d.significant:
                    a["sig"] += 1
                    a["wrong"] += (t[where[d.a]] - t[where[d.b]]) * d.estimate < 0
    return {m: {"coverage": float(np.mean(a["cover"])), "width": float(np.mean(a["width"])),
                "vs_people": float(np.mean(a["width"]) / np.mean(a["people"])),
                "people_coverage": float(np.mean(a["people_cover"])), "tau": float(np.mean(a["tau"])),
                "significant_per_draw": a["sig"] / draws,
                "wrong_sign": float(a["wrong"] / a["sig"]) if a["sig"] else 0.0} for m, a in acc.items()}


def labels_only_tau(runs, universe, labels, measures, true) -> dict[str, float]:
    from qrelkit.estimate.frame import Frame, exact_scores
    from qrelkit.estimate.measures import parse_measures

    frame = Frame.build(universe, runs)
    grades = np.array([labels.get(p, 0) for p in frame.pairs])
    return {k.key: float(kendalltau(exact_scores(frame, k, grades), true[k.key])[0]) for k in parse_measures(measures, 2)}


def favoured(runs, nist, draws: int, copies: int = 10) -> None:
    """Issue 44 point 3: add ``copies`` official runs re-ranked by the Llama-3.3-70B labels (judge's grade
    first, the run's order within a grade) and count the flagged copies and originals per draw."""
    from qrelkit.data.qrels import load_qrels
    from qrelkit.estimate import draw_sample, estimate_runs, universe_of
    from qrelkit.estimate.favoured import judge_favoured

    labels = dict(load_qrels(DATA / "llm-qrels" / f"{LABELS[0]}.qrel").pairs)
    originals = sorted(runs)
    extended = dict(runs)
    for name in originals[:copies]:
        extended[f"{name}+judge"] = {q: sorted(ds, key=lambda d: -labels.get((q, d), -1))
                                     for q, ds in runs[name].items()}
    universe = universe_of(nist, extended, 10)
    for measure in ("P@10", "nDCG@10"):
        flagged_copies, flagged_originals = [], []
        for seed in range(draws):
            sample = draw_sample(universe, size=926, design="weighted", seed=seed, runs=extended, depth=10)
            people = {(p.qid, p.docid): nist.get((p.qid, p.docid), 0) for p in sample.pairs}
            est = estimate_runs(extended, labels, people, sample, [measure], seed=seed, threshold=2)
            flags = {f.run: f.flagged for f in judge_favoured(est, measure)}
            flagged_copies.append(sum(flags[r] for r in extended if r.endswith("+judge")))
            flagged_originals.append(sum(flags[r] for r in originals))
        print(f"favoured | {measure} | copies flagged (of {copies}) per draw {flagged_copies} | "
              f"originals flagged (of {len(originals)}) per draw {flagged_originals}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--labels", nargs="+", default=list(LABELS))
    ap.add_argument("--designs", nargs="+", default=["uniform", "weighted"])
    ap.add_argument("--budgets", nargs="+", type=float, default=[5, 10, 20], help="percent of the NIST pairs")
    ap.add_argument("--measures", nargs="+", default=["P@10", "nDCG@10"])
    ap.add_argument("--out", type=Path, help="write the results as JSON too")
    ap.add_argument("--favoured", action="store_true", help="measure the judge-favoured check instead (issue 44)")
    ap.add_argument("--synthetic", action="store_true", help="the tests' synthetic collection instead of DL 2019")
    args = ap.parse_args(argv)
    if args.synthetic:
        return run_grid(args, *synthetic())
    if not DATA.exists():
        print(f"needs {DATA} (TREC DL 2019 in ../shared/data)", file=sys.stderr)
        return 2
    from qrelkit.data.qrels import load_qrels

    runs, nist, universe = load()
    if args.favoured:
        favoured(runs, nist, args.draws)
        return 0
    return run_grid(args, runs, nist, universe)


def run_grid(args, runs: dict, nist: dict, universe: tuple, judge: dict | None = None) -> int:
    """Every (label set, design, budget) cell: a table on stdout, JSON with ``--out``."""
    from qrelkit.data.qrels import load_qrels

    true = truth(runs, nist, universe, args.measures)
    results = []
    print("labels | design | budget | measure | coverage | width | vs people | people coverage | tau | labels-only tau"
          " | significant/draw | wrong sign | seconds", flush=True)
    for name in (["synthetic"] if judge is not None else args.labels):
        labels = judge if judge is not None else dict(load_qrels(DATA / "llm-qrels" / f"{name}.qrel").pairs)
        base = labels_only_tau(runs, universe, labels, args.measures, true)
        for design in args.designs:
            for budget in args.budgets:
                size = round((len(universe) if judge is not None else len(nist)) * budget / 100)
                start = time.time()
                cell = one_cell(runs, nist, universe, labels, design, size, args.draws, args.measures, true)
                secs = time.time() - start
                for m, r in cell.items():
                    results.append({"labels": name, "design": design, "budget": budget, "size": size, "measure": m,
                                    "draws": args.draws, "labels_only_tau": base[m], **r})
                    print(f"{name} | {design} | {budget:g}% ({size}) | {m} | {r['coverage']:.3f} | {r['width']:.3f} | "
                          f"{r['vs_people']:.2f} | {r['people_coverage']:.3f} | {r['tau']:.3f} | {base[m]:.3f} | "
                          f"{r['significant_per_draw']:.0f} | {r['wrong_sign']:.3f} | {secs:.0f}", flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
