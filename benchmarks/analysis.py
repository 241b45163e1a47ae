"""The full TREC DL 2019 analysis (needs ../shared/data): wall time, and the
shelf-life table.

61 runs (37 official + 24 post-hoc) x 6 qrels versions (NIST, four published
LLM qrels, and one merged version: the rounded mean of the four LLM grades),
all seven default measures; every LLM/merged version compared with NIST
(1,000 bootstrap resamples, pairwise Wilcoxon + BH for 1,830 system pairs);
agreement of each LLM qrels with NIST; ranking stability over the eight
re-judgment assessors with 10,000 samples (plus the shelf-life analyses:
aggregated rankers, per-system tests, per-group kappa, a natural combination);
pool growth over 10 orders; and the leave-one-group-out simulation on the
official runs.

Simulated holes for the pool growth: the "original" qrels are NIST without the
labels that only the post-hoc runs bring into the depth-10 pool (as if the
pool had been the official runs' top-10 plus NIST's deeper labels); NIST's own
labels are then the "new" qrels, so a detected hole is a relevant pair that
only post-hoc runs retrieve in their top 10.

The natural combination: ../shared/data publishes no topic -> assessor
assignment, and each topic was judged by two assessors; the script uses the
first assessor (by name) of each topic's pair and says so.

Run: ``python benchmarks/analysis.py`` from the repository root. It prints a
table of the steps and their wall time, then the shelf-life tables.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "trec-dl-2019"
STEPS = (1, 2, 4, 8, 16, 32, 61)
LLM = ("farzi_dl19_4prompts_flant5-large", "farzi_dl19_4prompts_llama3-8b", "farzi_dl19_4prompts_llama3.3-70b",
       "farzi_dl19_baseline_llama3-8b")


def main() -> int:
    console = Console(width=150)  # the shelf-life tables are wide
    if not DATA.is_dir():
        console.print(f"skipped: real data not found at {DATA.resolve()} (expects ../shared/data)")
        return 0
    from qrelkit.data import load_qrels, read_runs
    from qrelkit.evaluate.agreement import compare_labels
    from qrelkit.evaluate.assessors import read_assessors
    from qrelkit.evaluate.compare import compare_versions
    from qrelkit.evaluate.leaveout import leave_out
    from qrelkit.evaluate.saturation import pool_growth
    from qrelkit.evaluate.stability import stability
    from qrelkit.evaluate.systems import DEFAULT_MEASURES, evaluate_versions, prepare_runs

    rows: list[tuple[str, float, str]] = []
    t_all = time.perf_counter()

    def step(name: str, fn, note=lambda r: ""):
        t = time.perf_counter()
        result = fn()
        rows.append((name, time.perf_counter() - t, note(result)))
        return result

    runs = step("read 61 runs (qrelkit.data.read_runs)",
                lambda: read_runs([DATA / "runs" / "official", DATA / "runs" / "post-hoc"]),
                lambda r: f"{len(r)} runs, {sum(len(x) for x in r):,} entries")
    nist, llm = step("read NIST + 4 LLM qrels", lambda: (
        load_qrels(DATA / "qrels.txt").pairs, {n: load_qrels(DATA / "llm-qrels" / f"{n}.qrel").pairs for n in LLM}))
    merged = {p: int(math.floor(sum(llm[n][p] for n in LLM) / len(LLM) + 0.5)) for p in nist}
    versions = [("nist", nist), *llm.items(), ("merged-llm-mean", merged)]
    prepared = prepare_runs(runs)
    scored = step("evaluate 61 runs x 6 qrels x 7 measures",
                  lambda: evaluate_versions(prepared, versions, DEFAULT_MEASURES, 2),
                  lambda r: f"{len(r)} versions x {len(r[0].systems)} systems x {len(r[0].topics)} topics")
    comps = step("compare 5 versions with NIST (bootstrap 1000, Wilcoxon+BH)",
                 lambda: [compare_versions(scored[0], s, measure="nDCG@10", bootstrap=1000) for s in scored[1:]],
                 lambda r: "tau " + ", ".join(f"{c.correlation.kendall_tau.value:.3f}" for c in r))
    step("agreement of 4 LLM qrels with NIST",
         lambda: [compare_labels(nist, llm[n]) for n in LLM],
         lambda r: "kappa " + ", ".join(f"{a.cohen_kappa:.3f}" for a in r))
    assessors = read_assessors([str(DATA / "rejudgments" / "main" / "assessor-*.qrels.txt")])
    natural: dict[str, str] = {}
    for name, labels in assessors:
        for q, _ in labels:
            natural[q] = min(natural.get(q, name), name)
    stab = step("stability: 8 assessors, 10,000 samples (+ aggregations, rankers, groups, natural)",
                lambda: stability(prepared, nist, assessors, samples=10_000, seed=0, natural=natural),
                lambda r: f"tau mean {r.kendall_tau.mean():.3f}, {sum(s.probability > 0 for s in r.swaps)} pairs swap")
    official = [r for r in runs if "/official/" in r.path.replace("\\", "/")]
    pooled_official = {(q, e.docid) for r in official for q, es in r.by_topic.items() for e in es[:10]}
    post_only = {(q, e.docid) for r in runs if r not in official for q, es in r.by_topic.items() for e in es[:10]}
    original = {p: g for p, g in nist.items() if p in pooled_official or p not in post_only}
    growth = step("pool growth: 61 runs, 10 orders, depth 10, Hit@10 and nDCG@10",
                  lambda: [pool_growth(runs, original, nist, depth=10, orders=10, seed=0, measure=m)
                           for m in ("Hit@10", "nDCG@10")],
                  lambda r: f"{r[0].pooled} pooled, {r[0].holes} detected holes")
    step("leave-one-group-out: 37 official runs",
         lambda: leave_out(official, nist, depth=10),
         lambda r: f"{len(r.groups)} groups, {sum(g.dropped for g in r.groups)} labels dropped")
    total = time.perf_counter() - t_all
    del comps

    table = Table(title="qrelkit: full TREC DL 2019 analysis")
    table.add_column("step")
    table.add_column("seconds", justify="right")
    table.add_column("result")
    for name, sec, note in rows:
        table.add_row(name, f"{sec:.2f}", note)
    analysis = sum(sec for name, sec, _ in rows if not name.startswith("read"))
    table.add_row("[b]analysis (excluding reading files)[/]", f"[b]{analysis:.2f}[/]", "")
    table.add_row("[b]total[/]", f"[b]{total:.2f}[/]", "")
    console.print(table)
    shelf_life(console, stab, growth)
    return 0


def shelf_life(console: Console, stab, growth) -> None:
    """The shelf-life tables (the README records them)."""
    d = stab.to_dict()
    t = Table(title=f"shelf life of DL 2019 ({d['measure']}, threshold 2): {d['samples']:,} sampled assessor "
                    f"combinations vs NIST, RBO p = {d['rbo_p']}")
    for c in ("ranking", "kendall_tau", "spearman_rho", "rbo_ext", "rbo_min", "rbo_res", "systems differing"):
        t.add_column(c, justify="left" if c == "ranking" else "right")
    t.add_row("sampled (mean, 95% interval)",
              *[f"{d[k]['mean']:.3f} [{d[k]['p025']:.3f}, {d[k]['p975']:.3f}]" for k in ("kendall_tau", "spearman_rho",
                                                                                   "rbo")], "", "", "")
    rows = dict(d["aggregations"], **({"natural (first assessor of each pair)": d["natural"]} if d["natural"] else {}))
    for name, a in rows.items():
        t.add_row(name if name.startswith("natural") else f"aggregated {name}",
                  *[f"{a[k]:.3f}" for k in ("kendall_tau", "spearman_rho", "rbo", "rbo_min", "rbo_res")],
                  f"{a['significant_systems']}/{d['systems']}")
    console.print(t)
    r = Table(title="assessors as rankers vs NIST (mean ± std over topics)")
    r.add_column("ranker")
    measures = list(d["best_system"])
    for m in measures:
        r.add_column(m, justify="right")
    for name in ["aggregated max", "aggregated min", "aggregated mean", "best system"]:
        row = d["best_system"] if name == "best system" else d["rankers"][name]
        r.add_row(name, *[f"{row[m]['mean']:.3f} ± {row[m]['std']:.3f}" for m in measures])
    console.print(r)
    g = Table(title="per assessor group: Fleiss' kappa without / with NIST, overlap binary / graded")
    for c in ("group", "topics", "pairs", "κ graded", "κ graded +NIST", "κ binary", "κ binary +NIST", "overlap",
              "overlap graded"):
        g.add_column(c, justify="left" if c == "group" else "right")
    for x in d["groups"]:
        g.add_row("+".join(x["members"]), str(x["topics"]), str(x["pairs"]), *[
            f"{x[k]:.3f}" if x[k] is not None else "-" for k in (
                "fleiss_kappa", "fleiss_kappa_with_primary", "fleiss_kappa_binary", "fleiss_kappa_binary_with_primary",
                "overlap", "overlap_graded")])
    console.print(g)
    for gw in growth:
        gr = gw.to_dict()["growth"]
        console.print(f"pool growth ({gw.holes} detected holes), averaged over {gw.orders} orders; t = 1, 2, 4, 8, 16, "
                      f"32, 61: growth rate " + ", ".join(f"{gr['growth_rate'][t - 1]:.3f}" for t in STEPS)
                      + f"; marginal contribution ({gw.measure}) "
                      + ", ".join(f"{gr['marginal_contribution'][t - 1]:+.4f}" for t in STEPS))


if __name__ == "__main__":
    sys.exit(main())
