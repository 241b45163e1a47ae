"""Wall time of the full TREC DL 2019 analysis (needs ../shared/data).

61 runs (37 official + 24 post-hoc) x 6 qrels versions (NIST, four published
LLM qrels, and one merged version: the rounded mean of the four LLM grades),
all seven default measures; every LLM/merged version compared with NIST
(1,000 bootstrap resamples, pairwise Wilcoxon + BH for 1,830 system pairs);
agreement of each LLM qrels with NIST; ranking stability over the eight
re-judgment assessors with 10,000 samples; pool growth over 10 orders; and the
leave-one-group-out simulation on the official runs.

Run: ``python benchmarks/analysis.py`` from the repository root. It prints a
table of the steps and their wall time; the target is seconds, not minutes.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "trec-dl-2019"
LLM = ("farzi_dl19_4prompts_flant5-large", "farzi_dl19_4prompts_llama3-8b", "farzi_dl19_4prompts_llama3.3-70b",
       "farzi_dl19_baseline_llama3-8b")


def main() -> int:
    console = Console()
    if not DATA.is_dir():
        console.print(f"skipped: real data not found at {DATA.resolve()} (expects ../shared/data)")
        return 0
    from qrelkit.data import load_qrels, read_runs
    from qrelkit.evaluate.agreement import compare_labels
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
                 lambda: [compare_versions(scored[0], s, "nDCG@10", bootstrap=1000) for s in scored[1:]],
                 lambda r: "tau " + ", ".join(f"{c.correlation.kendall_tau.value:.3f}" for c in r))
    step("agreement of 4 LLM qrels with NIST",
         lambda: [compare_labels(nist, llm[n]) for n in LLM],
         lambda r: "kappa " + ", ".join(f"{a.cohen_kappa:.3f}" for a in r))
    assessors = [(p.name.split(".")[0], load_qrels(p).pairs)
                 for p in sorted((DATA / "rejudgments" / "main").glob("assessor-*.qrels.txt"))]
    stab = step("stability: 8 assessors, 10,000 samples (+ aggregations, rankers)",
                lambda: stability(prepared, nist, assessors, samples=10_000, seed=0),
                lambda r: f"tau mean {r.kendall_tau.mean():.3f}, {sum(s.probability > 0 for s in r.swaps)} pairs swap")
    step("pool growth: 61 runs, 10 orders, depth 10",
         lambda: pool_growth(runs, nist, depth=10, orders=10, seed=0),
         lambda r: f"{r.pooled} pooled, {r.relevant} relevant")
    official = [r for r in runs if "/official/" in r.path.replace("\\", "/")]
    step("leave-one-group-out: 37 official runs",
         lambda: leave_out(official, nist, depth=10),
         lambda r: f"{len(r.groups)} groups, {sum(g.dropped for g in r.groups)} labels dropped")
    total = time.perf_counter() - t_all
    del comps, stab

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
