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
four published label sets does (they are grades), so it is skipped for them; ``--labels learned`` is the
embedded learned judge's model (lexical and dense signals, fitted on 200 people's labels of other topics:
benchmarks/learned_judge.py), whose grades and probabilities it runs with every design.

Run from the repository root::

    python benchmarks/estimates.py --draws 200                 # the full grid (hours on 2 cores)
    python benchmarks/estimates.py --labels farzi_dl19_4prompts_llama3.3-70b --designs weighted \\
        --budgets 10 --draws 30                                # the issue's DONE criteria
    python benchmarks/estimates.py --synthetic --budgets 12.5 25 50 --draws 120   # the tests' collection
    python benchmarks/estimates.py --labels learned --designs uniform weighted active --budgets 10 --draws 30

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


def one_cell(runs, nist, universe, labels, design, size, draws, measures, true, probability=None) -> dict:
    from qrelkit.estimate import draw_sample, estimate_runs

    names = list(runs)
    acc = {m: {"cover": [], "width": [], "people": [], "people_cover": [], "tau": [], "sig": 0, "wrong": 0}
           for m in measures}
    for seed in range(draws):
        sample = draw_sample(universe, size=size, design=design, seed=seed, runs=runs, depth=10,
                             judge_probability=probability)
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


def judge_labels(name: str, universe, nist: dict, features: Path) -> tuple[dict, dict | None]:
    """A published label set (grades, no probability), or ``learned``: the embedded learned judge's model
    fitted on other topics' people's labels (benchmarks/learned_judge.py), grades and probabilities."""
    from qrelkit.data.qrels import load_qrels

    if name != "learned":
        return dict(load_qrels(DATA / "llm-qrels" / f"{name}.qrel").pairs), None
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import learned_judge

    probability = learned_judge.probabilities(list(universe), nist, DATA, features)
    return learned_judge.labels_of(probability), probability


def labels_only_tau(runs, universe, labels, measures, true) -> dict[str, float]:
    from qrelkit.estimate.frame import Frame, exact_scores
    from qrelkit.estimate.measures import parse_measures

    frame = Frame.build(universe, runs)
    grades = np.array([labels.get(p, 0) for p in frame.pairs])
    return {k.key: float(kendalltau(exact_scores(frame, k, grades), true[k.key])[0]) for k in parse_measures(measures, 2)}


COPIES = {10: None, 3: ("TUA1-1", "TUW19-p1-f", "TUW19-p3-re"), 0: ()}  # None: the first ten official runs


def favoured(runs, nist, draws: int, first_seed: int = 0) -> None:
    """Issue 44 point 3: add copies of official runs re-ranked by the Llama-3.3-70B labels (judge's grade
    first, the run's order within a grade) and count the flagged copies and originals per draw, with 10,
    3 and 0 copies among the 37 runs (each its own universe, sample and estimate), by the product's rule
    (estimate.favoured) and by the rule it replaced (favour's lower end above the other runs' upper
    quartile)."""
    from qrelkit.data.qrels import load_qrels
    from qrelkit.estimate import draw_sample, estimate_runs, universe_of
    from qrelkit.estimate.favoured import favoured_runs

    labels = dict(load_qrels(DATA / "llm-qrels" / f"{LABELS[0]}.qrel").pairs)
    originals = sorted(runs)
    print("favoured | copies | measure | rule | copies flagged: mean (range) | originals flagged (of 37): mean (range)"
          " | per draw (copies/originals)", flush=True)
    for n, chosen in COPIES.items():
        extended = dict(runs)
        for name in (originals[:n] if chosen is None else chosen):
            extended[f"{name}+judge"] = {q: sorted(ds, key=lambda d: -labels.get((q, d), -1))
                                         for q, ds in runs[name].items()}
        universe = universe_of(nist, extended, 10)
        counts: dict = {}
        for seed in range(first_seed, first_seed + draws):
            sample = draw_sample(universe, size=926, design="weighted", seed=seed, runs=extended, depth=10)
            people = {(p.qid, p.docid): nist.get((p.qid, p.docid), 0) for p in sample.pairs}
            est = estimate_runs(extended, labels, people, sample, ["P@10", "nDCG@10"], seed=seed, threshold=2)
            for measure in ("P@10", "nDCG@10"):
                rows = [r for r in est.rows if r.measure == measure]
                for rule, flags in (("holm", [f.flagged for f in favoured_runs(rows, est.alpha)]),
                                    ("quartile", _quartile_rule(rows))):
                    c = sum(f for r, f in zip(rows, flags) if r.run.endswith("+judge"))
                    counts.setdefault((measure, rule), []).append((c, sum(flags) - c))
        for (measure, rule), per in counts.items():
            c, o = np.array(per).T
            print(f"favoured | {n} | {measure} | {rule} | {c.mean():.1f} ({c.min()}–{c.max()}) | "
                  f"{o.mean():.1f} ({o.min()}–{o.max()}) | {' '.join(f'{a}/{b}' for a, b in per)}", flush=True)


def _quartile_rule(rows) -> list[bool]:
    """The rule estimate.favoured used before: favour's lower end above the others' upper quartile."""
    def fav(lo, t):
        return (lo - t) / (1 - t) if t < 1 else 0.0
    point = np.array([fav(r.labels_only, r.estimate) for r in rows])
    return [fav(r.labels_only, r.high) > np.quantile(np.delete(point, i), 0.75) for i, r in enumerate(rows)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--labels", nargs="+", default=list(LABELS))
    ap.add_argument("--designs", nargs="+", default=["uniform", "weighted"])
    ap.add_argument("--budgets", nargs="+", type=float, default=[5, 10, 20], help="percent of the NIST pairs")
    ap.add_argument("--measures", nargs="+", default=["P@10", "nDCG@10"])
    ap.add_argument("--out", type=Path, help="write the results as JSON too")
    ap.add_argument("--features", type=Path, default=Path("/tmp/qrelkit-dl19-learned-features.npz"),
                    help="--labels learned: where the signals are cached (benchmarks/learned_judge.py)")
    ap.add_argument("--favoured", action="store_true", help="measure the judge-favoured check instead (issue 44)")
    ap.add_argument("--synthetic", action="store_true", help="the tests' synthetic collection instead of DL 2019")
    ap.add_argument("--first-seed", type=int, default=0, help="--favoured: the first draw's seed")
    args = ap.parse_args(argv)
    if args.synthetic:
        return run_grid(args, *synthetic())
    if not DATA.exists():
        print(f"needs {DATA} (TREC DL 2019 in ../shared/data)", file=sys.stderr)
        return 2
    runs, nist, universe = load()
    if args.favoured:
        favoured(runs, nist, args.draws, args.first_seed)
        return 0
    return run_grid(args, runs, nist, universe)


def run_grid(args, runs: dict, nist: dict, universe: tuple, judge: dict | None = None) -> int:
    """Every (label set, design, budget) cell: a table on stdout, JSON with ``--out``."""
    true = truth(runs, nist, universe, args.measures)
    results = []
    print("labels | design | budget | measure | coverage | width | vs people | people coverage | tau | labels-only tau"
          " | significant/draw | wrong sign | seconds", flush=True)
    for name in (["synthetic"] if judge is not None else args.labels):
        labels, probability = (judge, None) if judge is not None else judge_labels(name, universe, nist,
                                                                                   args.features)
        base = labels_only_tau(runs, universe, labels, args.measures, true)
        for design in args.designs:
            if design == "active" and probability is None:
                print(f"{name} | active | - | skipped: these labels carry no probability (use --labels learned)",
                      flush=True)
                continue
            for budget in args.budgets:
                size = round((len(universe) if judge is not None else len(nist)) * budget / 100)
                start = time.time()
                cell = one_cell(runs, nist, universe, labels, design, size, args.draws, args.measures, true,
                                probability)
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
