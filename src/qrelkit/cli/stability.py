"""``qrelkit stability`` and ``qrelkit simulate leave-out``: how much a ranking depends on who
judged each topic, and on which runs were pooled.

Parsing and printing only; the work is in :mod:`qrelkit.evaluate.stability` and
:mod:`qrelkit.evaluate.leaveout`."""
from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from qrelkit.cli._app import JsonOpt, RunNamesOpt, app, console, fmt, print_json, require_runs
from qrelkit.cli._shown import shown
from qrelkit.cli.measure import RunsOpt, SeedOpt, ThresholdOpt, groups_table, split_measures, threshold_of
from qrelkit.errors import UsageError

simulate_app = typer.Typer(help="Simulations on real data (pool bias).", no_args_is_help=True)
app.add_typer(simulate_app, name="simulate")


@app.command()
def stability(
    runs: Optional[List[str]] = RunsOpt,
    primary: Path = typer.Option(..., "--primary", help="The primary qrels (e.g. NIST)."),
    assessors: Optional[List[str]] = typer.Option(
        None, "--assessors", help="One qrels per assessor: files, folders or quoted globs (repeat)."),
    samples: int = typer.Option(10_000, "--samples", min=1, help="Sampled assessor combinations."),
    seed: int = SeedOpt,
    measure: str = typer.Option("nDCG@10", "--measure", help="Measure that ranks the systems."),
    combination: Optional[Path] = typer.Option(
        None, "--combination", help="The natural combination: TSV qid<TAB>assessor (assessor = file name stem)."),
    assessor_column: bool = typer.Option(
        False, "--assessor-column", help="--assessors is one file whose second column names the assessor."),
    shuffles: int = typer.Option(10, "--shuffles", min=1, help="Random tie orders for assessors as rankers."),
    rbo_p: float = typer.Option(0.9, "--rbo-p", help="RBO persistence p."),
    include_primary: bool = typer.Option(
        False, "--include-primary", help="Let the primary qrels be one more candidate assessor for every topic."),
    threshold: str = ThresholdOpt,
    on_missing: str = typer.Option(
        "worst", "--on-missing", help="A run that ranks none of the primary's topics (on no leaderboard): error, "
                                      "drop it, or worst (scored 0 on every topic, as before the option)."),
    run_names: str = RunNamesOpt,
    as_json: bool = JsonOpt,
) -> None:
    """How much the system ranking depends on who judged each topic."""
    from qrelkit.data import load_qrels
    from qrelkit.evaluate.assessors import read_assessors, read_combination
    from qrelkit.evaluate.stability import stability as run_stability

    t0 = time.perf_counter()
    if not assessors:
        raise UsageError("pass --assessors QRELS (one file per assessor, or a folder/glob)")
    sources = read_assessors(list(assessors), assessor_column)
    run_list = require_runs(runs, run_names=run_names)
    prim = load_qrels(str(primary))
    run_list, alignment = _on_missing(run_list, prim, on_missing)
    thr = threshold_of(threshold, prim, primary)
    threshold = thr.value
    natural = read_combination(str(combination), [n for n, _ in sources]) if combination else None
    result = run_stability(run_list, prim, sources, measure=measure, samples=samples, seed=seed, threshold=threshold,
                           rbo_p=rbo_p, natural=natural, shuffles=shuffles, include_primary=include_primary)
    out = {"primary": str(primary), **thr.to_dict(), **result.to_dict(), **alignment.to_dict(),
           "seconds": round(time.perf_counter() - t0, 3)}
    if as_json:
        print_json(out)
        return
    _print_stability(out, thr.describe())


def _on_missing(run_list: list, prim, policy: str) -> tuple[list, object]:
    """The runs to rank under ``--on-missing``: a run ranking none of the primary's topics is on no
    leaderboard the assessors' qrels make (:func:`qrelkit.evaluate.correlation.align`)."""
    from qrelkit.evaluate.correlation import align

    topics = {q for q, _ in prim.pairs}
    names = [r.name for r in run_list]
    absent = [r.name for r in run_list if topics.isdisjoint(r.by_topic)]
    alignment = align(names, absent, (), policy, ("the primary qrels", "assessors"))
    keep = set(alignment.systems)
    return [r for r in run_list if r.name in keep], alignment


def _print_stability(out: dict, relevant: str) -> None:
    """The shelf-life table: sampled tau/rho/RBO, aggregations, natural, rankers, groups."""
    cols = ("mean", "std", "min", "p025", "median", "p975", "max")
    table = Table(title=f"ranking stability on {out['measure']}: {out['samples']} samples of {len(out['assessors'])} "
                        f"assessors, {out['topics']} topics, {out['systems']} systems; RBO p = {out['rbo_p']}; "
                        f"{relevant}")
    for c in ("statistic",) + cols:
        table.add_column(c, justify="left" if c == "statistic" else "right")
    for k in ("kendall_tau", "tau_ap", "spearman_rho", "rbo"):
        table.add_row(k, *[fmt(out[k][c]) for c in cols])
    console.print(table)
    alt = dict(out["aggregations"], **({"natural": out["natural"]} if out["natural"] else {}))
    t1 = Table(title="aggregated and natural qrels vs the primary (per-system: paired t-test + Bonferroni)")
    for c in ("qrels", "kendall_tau", "tau_ap", "spearman_rho", "rbo_ext", "rbo_min", "rbo_res", "changed",
              "systems differing"):
        t1.add_column(c, justify="left" if c == "qrels" else "right")
    for name, a in alt.items():
        t1.add_row(shown(name), *[fmt(a[k]) for k in ("kendall_tau", "tau_ap", "spearman_rho", "rbo", "rbo_min", "rbo_res",
                                                "changed_pairs")], f"{a['significant_systems']}/{out['systems']}")
    console.print(t1)
    _print_swaps(out)
    t3 = Table(title="assessors as rankers vs the primary qrels (mean ± std over topics)")
    t3.add_column("assessor")
    rk_measures = list(out["best_system"])
    for m in rk_measures:
        t3.add_column(m, justify="right")
    for name, r in out["rankers"].items():
        t3.add_row(shown(name), *[f"{r[m]['mean']:.3f} ± {r[m]['std']:.3f}" if m in r else "-" for m in rk_measures])
    t3.add_row("best system", *[f"{out['best_system'][m]['mean']:.3f} ± {out['best_system'][m]['std']:.3f}"
                                for m in rk_measures])
    console.print(t3)
    if out["groups"]:
        console.print(groups_table(out["groups"]))


def _print_swaps(out: dict) -> None:
    swaps = out["swap_probability"][:15]
    if not swaps:
        return
    t2 = Table(title=f"most likely swaps ({out['pairs_ever_swapped']} pairs swap at least once)")
    for c in ("above (primary)", "below (primary)", "P(swap)"):
        t2.add_column(c)
    for s in swaps:
        t2.add_row(shown(s["a"]), shown(s["b"]), fmt(s["probability"]))
    console.print(t2)




@simulate_app.command("leave-out")
def leave_out_cmd(
    runs: Optional[List[str]] = RunsOpt,
    qrels: Path = typer.Option(..., "--qrels", help="The full qrels."),
    depth: int = typer.Option(10, "--depth", min=1, help="Pool depth k."),
    groups: Optional[Path] = typer.Option(
        None, "--groups", help="Run -> group mapping (JSON/TOML object or TSV run<TAB>group); default: name prefix."),
    measures: Optional[List[str]] = typer.Option(
        None, "--measures", help="Measures (first one ranks); default nDCG@10 P@10 AP@1000."),
    threshold: str = ThresholdOpt,
    run_names: str = RunNamesOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Leave each group's unique pooled labels out and see how its runs' scores and ranks move."""
    from qrelkit.data import load_qrels
    from qrelkit.evaluate.leaveout import DEFAULT_LEAVEOUT_MEASURES, leave_out, read_groups

    t0 = time.perf_counter()
    run_list = require_runs(runs, run_names=run_names)
    q = load_qrels(str(qrels))
    thr = threshold_of(threshold, q, qrels)
    threshold = thr.value
    mapping = read_groups(groups) if groups else None
    res = leave_out(run_list, q, depth, mapping, split_measures(measures) or list(DEFAULT_LEAVEOUT_MEASURES),
                    threshold)
    out = {"qrels": str(qrels), **res.to_dict(), **thr.to_dict(), "seconds": round(time.perf_counter() - t0, 3)}
    if as_json:
        print_json(out)
        return
    m = res.rank_measure
    table = Table(title=f"leave one group out of the depth-{depth} pool ({m}); "
                        f"mean delta {fmt(out['summary']['mean_delta'])}, max rank drop {out['summary']['max_rank_shift']}; "
                        f"{thr.describe()}")
    for c in ("group (dropped/rel, tau)", "run", "full", "left out", "delta", "rank"):
        table.add_column(c, justify="left" if c.startswith(("group", "run")) else "right")
    for g in out["groups"]:
        for i, r in enumerate(g["runs"]):
            table.add_row(
                f"{g['group']} ({g['dropped']}/{g['dropped_relevant']}, {fmt(g['kendall_tau'])})" if i == 0 else "",
                shown(r["run"]), f"{r[m]['full']:.4f}", f"{r[m]['left_out']:.4f}", f"{r[m]['delta']:+.4f}",
                f"{r['rank_full']}→{r['rank_left_out']}",
            )
    console.print(table)
