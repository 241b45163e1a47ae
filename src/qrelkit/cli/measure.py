"""Commands that measure what changed: agree, evaluate, stability,
simulate leave-out, ragalign, report. Parsing and printing only; the work is
in :mod:`qrelkit.evaluate` and :mod:`qrelkit.report`."""
from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from qrelkit.cli._app import AllowEmptyOpt, JsonOpt, WorkspaceOpt, app, console, print_json
from qrelkit.data.qrels import unique_names as _unique
from qrelkit.data.qrels import version_name as _qrels_name
from qrelkit.errors import UsageError
from qrelkit.specs import split_list

simulate_app = typer.Typer(help="Simulations on real data (pool bias).", no_args_is_help=True)
app.add_typer(simulate_app, name="simulate")

ThresholdOpt = typer.Option(
    "auto", "--threshold",
    help="Grade at or above which a label counts as relevant: auto (1 for binary reference qrels, 2 for graded "
         "ones as in TREC DL) or a number.")
SeedOpt = typer.Option(0, "--seed", help="Seed of every sampling step (bootstrap, orders, samples).")
RunsOpt = typer.Option(None, "--runs", help="Runs: files, folders or globs (repeat --runs for several).")


# ------------------------------------------------------------------ helpers
def _load_versions(paths: list[str], allow_empty: bool = False) -> list[tuple[str, dict]]:
    from qrelkit.data import load_qrels

    names = _unique([_qrels_name(p) for p in paths])
    return [(n, dict(load_qrels(p, allow_empty=allow_empty).pairs)) for n, p in zip(names, paths)]


def _read_runs(runs: Optional[List[str]], allow_empty: bool = False):
    from qrelkit.data import read_runs

    if not runs:
        raise UsageError("pass at least one --runs PATH (file, folder or glob)")
    out = read_runs(list(runs), allow_empty=allow_empty)
    if not out:
        raise UsageError("no runs found")
    return out


def _evaluate_streaming(runs, versions, specs, threshold: int, judged_only: bool, allow_empty: bool = False):
    """Score runs read one at a time (fast reader, top max-cut-off only), named
    as :func:`qrelkit.data.runs.unique_names` would; returns the scores and the
    seconds spent reading. All runs in memory at once cost 650 MB on TREC DL
    2019's 61 runs; one at a time, the scores are all that stays."""
    from dataclasses import replace

    from qrelkit.data.rankings import Ranking, final_names, iter_rankings
    from qrelkit.evaluate.systems import evaluate_stream

    if not runs:
        raise UsageError("pass at least one --runs PATH (file, folder or glob)")
    cutoffs = [sp.cutoff for sp in specs]
    depth = None if judged_only or None in cutoffs else max(cutoffs)
    stubs: list[Ranking] = []
    read = 0.0

    def stream():
        nonlocal read
        it = iter_rankings(list(runs), depth, allow_empty)
        while True:
            t = time.perf_counter()
            r = next(it, None)
            read += time.perf_counter() - t
            if r is None:
                return
            stubs.append(Ranking(r.name, r.path, {}, r.tags))
            yield Ranking(str(len(stubs)), r.path, r.docids, r.tags)  # placeholder name: unique until renamed

    scored = evaluate_stream(stream(), versions, specs, threshold, judged_only)
    if not stubs:
        raise UsageError("no runs found")
    names = tuple(final_names(stubs))
    return tuple(replace(s, systems=names) for s in scored), read


def _threshold(spec: str, reference, path):
    """``--threshold`` resolved against the reference qrels (see :mod:`qrelkit.evaluate.threshold`)."""
    from qrelkit.evaluate.threshold import resolve_threshold

    return resolve_threshold(spec, reference, path)


def _split_measures(values: Optional[List[str]]) -> list[str]:
    """Measures from repeated options and/or comma lists (commas inside
    parentheses belong to ir_measures parameters)."""
    return [m for v in values or [] for m in split_list(v)]


def _fmt(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def _arrow(shift: int) -> str:
    return f"▲{shift}" if shift > 0 else (f"▼{-shift}" if shift < 0 else "=")


# -------------------------------------------------------------------- agree
@app.command()
def agree(
    reference: Optional[Path] = typer.Option(None, "--reference", help="Reference qrels (e.g. the NIST qrels)."),
    labels: Optional[List[str]] = typer.Option(None, "--labels", help="Qrels to compare (repeat for several assessors)."),
    workspace: Optional[Path] = WorkspaceOpt,
    threshold: str = ThresholdOpt,
    assessor_column: bool = typer.Option(
        False, "--assessor-column",
        help="The --labels file holds several assessors: its second column (normally 0) names the assessor.",
    ),
    by_round: bool = typer.Option(
        False, "--by-round",
        help="With -w: per debate round, consensus share, persistence of round-1 consensus, spurious consensus "
             "rate, bAcc and recall per class of consensus labels (run the debate with stop=never).",
    ),
    as_json: bool = JsonOpt,
) -> None:
    """Agreement of labels with a reference (kappa, alpha, balanced accuracy, ...) and among assessors (Fleiss)."""
    from qrelkit.data import load_qrels
    from qrelkit.evaluate.agreement import compare_labels, judgments_agreement, multi_assessor
    from qrelkit.evaluate.assessors import read_assessor_column

    if not labels and workspace is None:
        raise UsageError("pass --labels QRELS (one or more) or -w/--workspace DIR")
    t0 = time.perf_counter()
    ref_pairs = dict(load_qrels(str(reference)).pairs) if reference else None
    out: dict = {"reference": str(reference) if reference else None}
    results: list[dict] = []
    sources: list[tuple[str, dict]] = []
    for path in labels or []:
        if assessor_column:
            sources.extend(read_assessor_column(path))
        else:
            sources.append((_qrels_name(path), dict(load_qrels(path).pairs)))
    names = _unique([n for n, _ in sources])
    sources = [(n, s) for n, (_, s) in zip(names, sources)]
    if workspace is not None:
        from qrelkit.store import Store

        with Store.open(workspace) as store:
            if ref_pairs is None:
                ref_pairs = store.qrels()
                out["reference"] = f"{workspace} (original qrels)"
                if not ref_pairs:
                    raise UsageError(f"{workspace} has no original qrels; pass --reference QRELS")
            judgments = store.judgments()
        if not judgments:
            raise UsageError(f"{workspace} has no judgments yet; run `qrelkit judge -w {workspace} ...` first")
    if ref_pairs is None and len(sources) < 2:
        raise UsageError("pass --reference QRELS, or at least two --labels files to measure assessor agreement")
    thr = _threshold(threshold, ref_pairs if ref_pairs is not None else sources[0][1],
                     out["reference"] if ref_pairs is not None else labels[0])
    out.update(thr.to_dict())
    threshold = thr.value
    if workspace is not None and by_round:
        out["by_round"] = _by_round(judgments, ref_pairs, threshold, workspace)
    elif workspace is not None:
        results.extend(j.to_dict() for j in judgments_agreement(judgments, ref_pairs, threshold))
    if ref_pairs is not None:
        results.extend(compare_labels(ref_pairs, s, threshold, name=n).to_dict() for n, s in sources)
    out["results"] = results
    if len(results) == 1:  # one comparison: its figures at the top level too
        out.update({k: v for k, v in results[0].items() if k not in out})
    if len(sources) >= 2:
        out["assessors"] = multi_assessor(sources, threshold, ref_pairs).to_dict()
    out["seconds"] = round(time.perf_counter() - t0, 3)
    if as_json:
        print_json(out)
        return
    if "by_round" in out:
        _print_by_round(out["by_round"], out["reference"], thr.describe())
    if results:
        _print_agreement(results, out["reference"], thr.describe())
    if "assessors" in out:
        _print_assessors(out["assessors"])


def _by_round(judgments: list, ref_pairs: dict, threshold: int, workspace: Path) -> dict:
    from qrelkit.evaluate.persistence import by_round, debates_by_method

    debates = debates_by_method(judgments)
    if not debates:
        raise UsageError(f"{workspace} has no debate judgments; --by-round reads debate histories")
    return {m: [r.to_dict() for r in by_round(d, ref_pairs, threshold)] for m, d in debates.items()}


def _print_by_round(tables: dict, reference: str, relevant: str) -> None:
    cols = ["debates", "consensus", "persistence", "spurious", "balanced_accuracy", "recall_relevant",
            "recall_nonrelevant"]
    for method, rows in tables.items():
        table = Table(title=f"{method}: consensus by round vs {reference} ({relevant})")
        table.add_column("round")
        for c in cols:
            table.add_column(c.replace("_", " "), justify="right")
        for r in rows:
            table.add_row(str(r["round"]), *("-" if r[c] is None else f"{r[c]:.3f}" if isinstance(r[c], float)
                                             else str(r[c]) for c in cols))
        console.print(table)


def _print_agreement(results: list[dict], reference: str, relevant: str) -> None:
    cols = ["pairs", "accuracy", "balanced_accuracy", "recall_relevant", "recall_nonrelevant", "precision", "f1",
            "cohen_kappa", "cohen_kappa_graded", "cohen_kappa_linear", "krippendorff_alpha", "per_topic_f1"]
    # a judge's headline first (DREAM): balanced accuracy on its decided cases next to its escalation ratio
    head = [c for c in ("decided_balanced_accuracy", "escalation_ratio") if any(c in r for r in results)]
    extra = [c for c in ("auto_accuracy",) if any(c in r for r in results)]
    table = Table(title=f"agreement with {reference} ({relevant})")
    table.add_column("measure")
    for r in results:
        table.add_column(r["name"], justify="right", overflow="fold")
    for c in head + cols + extra:
        table.add_row(c, *[_fmt(r.get(c)) for r in results])
    console.print(table)
    for r in results:
        for rnd, v in (r.get("by_round") or {}).items():
            console.print(f"{r['name']}: consensus in round {rnd}: balanced accuracy {_fmt(v['balanced_accuracy'])} "
                          f"on {v['pairs']} decided pairs ({_fmt(v['decided_share'])} of its cases)")
        cm = r["confusion_matrix"]["matrix"]
        console.print(f"{r['name']}: confusion (rows reference, cols labels; non-rel, rel) = {cm}")


def _print_assessors(a: dict) -> None:
    console.print(
        f"assessors: Fleiss' kappa graded {_fmt(a['fleiss_kappa'])}, binary {_fmt(a['fleiss_kappa_binary'])} "
        f"over {a['fleiss_pairs']} pairs with {a['raters_per_pair']} raters each; overlap {_fmt(a['overlap'])}, "
        f"graded overlap {_fmt(a['overlap_graded'])}"
    )
    table = Table(title="pairwise assessor agreement")
    for c in ("a", "b", "pairs", "cohen_kappa", "cohen_kappa_graded", "overlap", "overlap_graded"):
        table.add_column(c, justify="right" if c not in ("a", "b") else "left")
    for p in a["pairwise"]:
        if p["pairs"]:
            table.add_row(p["a"], p["b"], str(p["pairs"]), *[_fmt(p[c]) for c in (
                "cohen_kappa", "cohen_kappa_graded", "overlap", "overlap_graded")])
    console.print(table)
    if a["groups"]:
        console.print(_groups_table(a["groups"]))


def _groups_table(groups: list[dict]) -> Table:
    table = Table(title="per assessor group (assessors who judged the same topics)")
    cols = ("topics", "pairs", "fleiss_kappa", "fleiss_kappa_binary", "fleiss_kappa_with_primary",
            "fleiss_kappa_binary_with_primary", "overlap", "overlap_graded")
    table.add_column("group")
    for c in cols:
        table.add_column(c.replace("fleiss_kappa", "κ").replace("_with_primary", " +primary"), justify="right")
    for g in groups:
        table.add_row("+".join(g["members"]), *[_fmt(g[c]) for c in cols])
    return table


# ----------------------------------------------------------------- evaluate
@app.command()
def evaluate(
    runs: Optional[List[str]] = RunsOpt,
    qrels: Optional[List[str]] = typer.Option(None, "--qrels", help="Qrels versions (repeat); the first is the reference."),
    measures: Optional[List[str]] = typer.Option(
        None, "--measures", help="ir_measures names (repeat or comma-separate); default nDCG@10 P@10 RR@10 R@100 "
                                 "AP@1000 Success@10 Judged@10."),
    judged_only: bool = typer.Option(False, "--judged-only", help="Remove unjudged documents before scoring."),
    threshold: str = typer.Option(
        "auto", "--threshold", help="Relevance level of binary measures (P, RR, R, AP, Success): rel=THRESHOLD; "
                                    "auto: 1 when the first --qrels is binary, 2 when graded."),
    measure: Optional[str] = typer.Option(None, "--measure", help="Measure that ranks systems in comparisons."),
    rbo_p: float = typer.Option(0.9, "--rbo-p", help="RBO persistence p."),
    bootstrap: int = typer.Option(1000, "--bootstrap", min=0, help="Bootstrap resamples of topics for CIs."),
    seed: int = SeedOpt,
    test: str = typer.Option("wilcoxon", "--test", help="Paired test per pair of systems: wilcoxon or ttest."),
    correction: str = typer.Option("bh", "--correction", help="Multiple-testing correction: bh, bonferroni, none."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level."),
    run_meta: Optional[Path] = typer.Option(None, "--run-meta", help="JSON/TOML: run name -> {\"model\": ...}."),
    judge_model: Optional[List[str]] = typer.Option(None, "--judge-model", help="Model of the LLM judge (circularity check)."),
    workspace: Optional[Path] = WorkspaceOpt,
    allow_empty: bool = AllowEmptyOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Score runs under one or more qrels versions; compare rankings and significance between versions."""
    from qrelkit.evaluate.circularity import circularity_warnings, read_run_meta
    from qrelkit.evaluate.systems import DEFAULT_MEASURES, resolve_measures

    t0 = time.perf_counter()
    if not qrels:
        raise UsageError("pass at least one --qrels QRELS")
    versions = _load_versions(list(qrels), allow_empty)
    thr = _threshold(threshold, versions[0][1], qrels[0])
    threshold = thr.value
    specs = resolve_measures(_split_measures(measures) or list(DEFAULT_MEASURES), threshold)
    keys = [s.key for s in specs]
    rank_measure = measure or ("nDCG@10" if "nDCG@10" in keys else keys[0])
    if rank_measure not in keys:
        specs = specs + resolve_measures([rank_measure], threshold)
        keys.append(rank_measure)
    scored, t_read = _evaluate_streaming(runs, versions, specs, threshold, judged_only, allow_empty)
    t_eval = time.perf_counter() - t0 - t_read
    systems = scored[0].systems
    if len(scored) > 1:  # imported here: scipy and statsmodels cost 60 MB that one version never uses
        from qrelkit.evaluate.compare import compare_versions
    comparisons = [
        compare_versions(scored[0], s, rank_measure, rbo_p, bootstrap, seed, test, correction, alpha)
        for s in scored[1:]
    ] if len(systems) >= 2 else []

    run_models: dict[str, str] = {}
    judges = list(judge_model or [])
    if workspace is not None:
        from qrelkit.store import Store

        with Store.open(workspace) as store:
            for name, _, meta in store.runs():
                if isinstance(meta, dict) and meta.get("model"):
                    run_models[name] = str(meta["model"])
            judges += store.judge_models()
    if run_meta is not None:
        run_models.update(read_run_meta(run_meta))
    warnings = circularity_warnings({r: m for r, m in run_models.items() if r in systems}, sorted(set(judges)))

    out = {
        "measures": keys,
        **thr.to_dict(),
        "rel_level": f"binary measures use rel={threshold} (grade >= {threshold} is relevant); nDCG uses the grades",
        "judged_only": judged_only,
        "rank_measure": rank_measure,
        "runs": len(systems),
        "versions": {
            s.label: {"path": p, **{k: v for k, v in s.to_dict().items() if k != "qrels"}}
            for s, p in zip(scored, qrels)
        },
        "comparisons": [c.to_dict() for c in comparisons],
        "circularity": [{**asdict(w), "message": w.message()} for w in warnings],
        "seconds": {"read": round(t_read, 3), "evaluate": round(t_eval, 3),
                    "total": round(time.perf_counter() - t0, 3)},
    }
    if as_json:
        print_json(out)
    else:
        _print_scores(scored, keys, rank_measure, judged_only, thr.describe())
        _print_comparisons(comparisons, rank_measure)
    for w in warnings:
        console.print(f"[yellow]warning:[/] {w.message()}")


def _print_scores(scored, keys: list[str], rank_measure: str, judged_only: bool, relevant: str) -> None:
    for s in scored:
        table = Table(title=f"{s.label}: {len(s.topics)} topics{' (judged only)' if judged_only else ''}; {relevant}")
        table.add_column("run")
        for k in keys:
            table.add_column(k, justify="right")
        means = {k: s.means(k) for k in keys}
        order = sorted(range(len(s.systems)), key=lambda i: -means[rank_measure][i])
        for i in order:
            table.add_row(s.systems[i], *[f"{means[k][i]:.4f}" for k in keys])
        console.print(table)


def _print_comparisons(comparisons, rank_measure: str) -> None:
    for c in comparisons:
        d = c.to_dict()
        table = Table(title=f"{c.version_a} -> {c.version_b} on {rank_measure}: tau {_fmt(d['kendall_tau'])} "
                            f"tau_AP {_fmt(d['tau_ap'])} rho {_fmt(d['spearman_rho'])} RBO {_fmt(d['rbo'])}")
        for col in ("run", "before", "after", "delta", "rank", "move"):
            table.add_column(col, justify="left" if col == "run" else "right")
        for sh in c.shifts:
            table.add_row(sh.system, f"{sh.score_a:.4f}", f"{sh.score_b:.4f}", f"{sh.delta:+.4f}",
                          f"{sh.rank_a} -> {sh.rank_b}", _arrow(sh.rank_shift))
        console.print(table)
        sig = d["significance"]
        console.print(
            f"significance ({sig['test']}, {sig['correction']}, alpha {sig['alpha']}): {sig['significant_a']} vs "
            f"{sig['significant_b']} significant pairs; {sig['reversed']} reversed; Matthews correlation "
            f"{_fmt(sig['matthews_corrcoef'])}; 95% CI of tau {d['ci']['kendall_tau']}"
        )


# ---------------------------------------------------------------- stability
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
    run_list = _read_runs(runs)
    prim = load_qrels(str(primary))
    thr = _threshold(threshold, prim, primary)
    threshold = thr.value
    natural = read_combination(str(combination), [n for n, _ in sources]) if combination else None
    result = run_stability(run_list, prim, sources, measure, samples, seed, threshold, rbo_p, natural, shuffles,
                           include_primary=include_primary)
    out = {"primary": str(primary), **thr.to_dict(), **result.to_dict(), "seconds": round(time.perf_counter() - t0, 3)}
    if as_json:
        print_json(out)
        return
    _print_stability(out, thr.describe())


def _print_stability(out: dict, relevant: str) -> None:
    """The shelf-life table: sampled tau/rho/RBO, aggregations, natural, rankers, groups."""
    cols = ("mean", "std", "min", "p025", "median", "p975", "max")
    table = Table(title=f"ranking stability on {out['measure']}: {out['samples']} samples of {len(out['assessors'])} "
                        f"assessors, {out['topics']} topics, {out['systems']} systems; RBO p = {out['rbo_p']}; "
                        f"{relevant}")
    for c in ("statistic",) + cols:
        table.add_column(c, justify="left" if c == "statistic" else "right")
    for k in ("kendall_tau", "tau_ap", "spearman_rho", "rbo"):
        table.add_row(k, *[_fmt(out[k][c]) for c in cols])
    console.print(table)
    alt = dict(out["aggregations"], **({"natural": out["natural"]} if out["natural"] else {}))
    t1 = Table(title="aggregated and natural qrels vs the primary (per-system: paired t-test + Bonferroni)")
    for c in ("qrels", "kendall_tau", "tau_ap", "spearman_rho", "rbo_ext", "rbo_min", "rbo_res", "changed",
              "systems differing"):
        t1.add_column(c, justify="left" if c == "qrels" else "right")
    for name, a in alt.items():
        t1.add_row(name, *[_fmt(a[k]) for k in ("kendall_tau", "tau_ap", "spearman_rho", "rbo", "rbo_min", "rbo_res",
                                                "changed_pairs")], f"{a['significant_systems']}/{out['systems']}")
    console.print(t1)
    _print_swaps(out)
    t3 = Table(title="assessors as rankers vs the primary qrels (mean ± std over topics)")
    t3.add_column("assessor")
    rk_measures = list(out["best_system"])
    for m in rk_measures:
        t3.add_column(m, justify="right")
    for name, r in out["rankers"].items():
        t3.add_row(name, *[f"{r[m]['mean']:.3f} ± {r[m]['std']:.3f}" if m in r else "-" for m in rk_measures])
    t3.add_row("best system", *[f"{out['best_system'][m]['mean']:.3f} ± {out['best_system'][m]['std']:.3f}"
                                for m in rk_measures])
    console.print(t3)
    if out["groups"]:
        console.print(_groups_table(out["groups"]))


def _print_swaps(out: dict) -> None:
    swaps = out["swap_probability"][:15]
    if not swaps:
        return
    t2 = Table(title=f"most likely swaps ({out['pairs_ever_swapped']} pairs swap at least once)")
    for c in ("above (primary)", "below (primary)", "P(swap)"):
        t2.add_column(c)
    for s in swaps:
        t2.add_row(s["a"], s["b"], _fmt(s["probability"]))
    console.print(t2)


# --------------------------------------------------------- simulate leave-out
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
    as_json: bool = JsonOpt,
) -> None:
    """Leave each group's unique pooled labels out and see how its runs' scores and ranks move."""
    from qrelkit.data import load_qrels
    from qrelkit.evaluate.leaveout import DEFAULT_LEAVEOUT_MEASURES, leave_out, read_groups

    t0 = time.perf_counter()
    run_list = _read_runs(runs)
    q = load_qrels(str(qrels))
    thr = _threshold(threshold, q, qrels)
    threshold = thr.value
    mapping = read_groups(groups) if groups else None
    res = leave_out(run_list, q, depth, mapping, _split_measures(measures) or list(DEFAULT_LEAVEOUT_MEASURES),
                    threshold)
    out = {"qrels": str(qrels), **res.to_dict(), **thr.to_dict(), "seconds": round(time.perf_counter() - t0, 3)}
    if as_json:
        print_json(out)
        return
    m = res.rank_measure
    table = Table(title=f"leave one group out of the depth-{depth} pool ({m}); "
                        f"mean delta {_fmt(out['summary']['mean_delta'])}, max rank drop {out['summary']['max_rank_shift']}; "
                        f"{thr.describe()}")
    for c in ("group (dropped/rel, tau)", "run", "full", "left out", "delta", "rank"):
        table.add_column(c, justify="left" if c.startswith(("group", "run")) else "right")
    for g in out["groups"]:
        for i, r in enumerate(g["runs"]):
            table.add_row(
                f"{g['group']} ({g['dropped']}/{g['dropped_relevant']}, {_fmt(g['kendall_tau'])})" if i == 0 else "",
                r["run"], f"{r[m]['full']:.4f}", f"{r[m]['left_out']:.4f}", f"{r[m]['delta']:+.4f}",
                f"{r['rank_full']}→{r['rank_left_out']}",
            )
    console.print(table)


# ----------------------------------------------------------------- ragalign
@app.command()
def ragalign(
    runs: Optional[List[str]] = RunsOpt,
    qrels: Optional[List[str]] = typer.Option(None, "--qrels", help="Qrels versions (repeat), shown side by side."),
    generation: Optional[List[Path]] = typer.Option(
        None, "--generation", help="Generation correctness, one file per generator (a column each): TSV "
        "system<TAB>qid<TAB>correct(0/1), or JSONL such as `qrelkit rag grade` writes."),
    workspace: Optional[Path] = typer.Option(
        None, "-w", "--workspace", help="Use the graded answers stored in this workspace (and its runs "
        "when no --runs is given)."),
    k: int = typer.Option(10, "--k", min=1, help="Cut-off k of Hit@k, nDCG@k and R@k."),
    threshold: str = ThresholdOpt,
    as_json: bool = JsonOpt,
) -> None:
    """RAGAlign@k: does retrieval success predict generation correctness? (per generator and qrels version)"""
    from qrelkit.evaluate.ragalign_multi import rag_align_multi

    t0 = time.perf_counter()
    if not qrels:
        raise UsageError("pass at least one --qrels QRELS")
    gens, run_paths = _generators(list(generation or []), workspace)
    versions = _load_versions(list(qrels))
    thr = _threshold(threshold, versions[0][1], qrels[0])
    res = rag_align_multi(_read_runs(list(runs or []) or run_paths), versions, gens, k, thr.value)
    first = res[0]
    out = {"k": k, **thr.to_dict(), "generation": first.source,
           "versions": {v.alignment.qrels: v.to_dict() for v in first.versions},
           "generators": {g.generator: g.to_dict() for g in res}, "seconds": round(time.perf_counter() - t0, 3)}
    if as_json:
        print_json(out)
        return
    _ragalign_tables(res, k, thr.describe())


def _generators(files: list[Path], workspace: Optional[Path]) -> tuple[list, list[str]]:
    """Generators from --generation files and/or a workspace's graded answers; the workspace's run paths."""
    from qrelkit.evaluate.ragalign_multi import generators_from_store, read_generator

    gens = [read_generator(str(f)) for f in files]
    run_paths: list[str] = []
    if workspace is not None:
        from qrelkit.store import Store

        with Store.open(workspace) as store:
            gens += list(generators_from_store(store))
            run_paths = [r.path for r in store.runs()]
    if not gens:
        raise UsageError("pass --generation FILE (from `qrelkit rag grade`) or -w WS with graded answers")
    return gens, run_paths


def _ragalign_tables(res: tuple, k: int, threshold: str) -> None:
    several = len(res) > 1
    table = Table(title=f"RAGAlign@{k} (Hit@{k} == generation correct) and point-biserial correlations; "
                        f"{threshold}")
    cols = ("generator",) * several + ("qrels", "system", "queries", "correct", f"Hit@{k}", "RAGAlign",
                                       f"r(nDCG@{k})", f"r(R@{k})")
    for c in cols:
        table.add_column(c, justify="left" if c in ("generator", "qrels", "system") else "right")
    for g in res:
        for gv in g.versions:
            v = gv.alignment
            for a in (v.overall, *v.systems):
                pb = {c.measure: c.r for c in a.pointbiserial}
                table.add_row(*(g.generator,) * several, v.qrels, a.name, str(a.queries), _fmt(a.correct_rate),
                              _fmt(a.hit_rate), _fmt(a.ragalign), _fmt(pb.get(f"nDCG@{k}")), _fmt(pb.get(f"R@{k}")))
    console.print(table)
    corr = Table(title="Across systems: mean retrieval score vs generation accuracy (Pearson / Spearman)")
    for c in ("generator", "qrels", "systems", *(f"{m}@{k}" for m in ("Success", "nDCG", "R"))):
        corr.add_column(c, justify="left" if c in ("generator", "qrels") else "right")
    for g in res:
        for gv in g.versions:
            cs = gv.correlations
            corr.add_row(g.generator, gv.alignment.qrels, str(cs[0].systems),
                         *(f"{_fmt(c.pearson)} / {_fmt(c.spearman)}" for c in cs))
    console.print(corr)


# ------------------------------------------------------------------- report
@app.command()
def report(
    workspace: Optional[Path] = WorkspaceOpt,
    out: Path = typer.Option(Path("report.html"), "--out", help="HTML file to write; report.json goes next to it."),
    measure: str = typer.Option("nDCG@10", "--measure", help="Measure that ranks systems."),
    depth: int = typer.Option(10, "--depth", min=1, help="Pool depth for holes and saturation."),
    orders: int = typer.Option(10, "--orders", min=1, help="Random run orders for the saturation curves."),
    seed: int = SeedOpt,
    threshold: str = ThresholdOpt,
    as_json: bool = JsonOpt,
) -> None:
    """One self-contained HTML report (plots embedded) plus its JSON twin."""
    from qrelkit.cli._app import require_workspace
    from qrelkit.report import report_from_workspace

    ws = require_workspace(workspace)
    files = report_from_workspace(ws, out, measure=measure, depth=depth, orders=orders, seed=seed,
                                  threshold=threshold)
    payload = {"html": str(files.html), "json": str(files.json), **files.threshold, "sections": files.sections}
    if as_json:
        print_json(payload)
        return
    table = Table(title=f"wrote {files.html} and {files.json}")
    table.add_column("section")
    table.add_column("content")
    for name, state in files.sections.items():
        table.add_row(name, "shown" if state == "ok" else f"no data: {state}")
    console.print(table)
