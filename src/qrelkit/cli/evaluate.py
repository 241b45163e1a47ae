"""``qrelkit evaluate``: score runs under qrels versions and compare the rankings they give.

Parsing and printing only; the work is in :mod:`qrelkit.evaluate.systems`,
:mod:`qrelkit.evaluate.compare` and :mod:`qrelkit.evaluate.circularity`."""
from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from qrelkit.cli._app import AllowEmptyOpt, JsonOpt, RunNamesOpt, WorkspaceOpt, app, console, fmt, print_json
from qrelkit.cli._shown import shown
from qrelkit.cli.measure import RunsOpt, SeedOpt, load_versions, split_measures, threshold_of
from qrelkit.errors import UsageError


def _evaluate_streaming(runs, scorers, specs, threshold: int, judged_only: bool, allow_empty: bool = False,
                        absent: Optional[list] = None, run_names: str = "auto"):
    """Score runs read one at a time (fast reader, top max-cut-off only), named
    as :func:`qrelkit.data.runs.unique_names` would; returns the scores and the
    seconds spent reading. ``absent`` (a list) receives, per run, the labels of the versions none
    of whose topics the run ranks (it is not on their leaderboards: ``--on-missing``). All runs in memory at once cost 650 MB on TREC DL
    2019's 61 runs; one at a time, the scores are all that stays."""
    from dataclasses import replace

    from qrelkit.cli._app import check_run_names, warn_run_names
    from qrelkit.data.rankings import Ranking, final_names, iter_rankings
    from qrelkit.data.rankings import stubs as run_stubs
    from qrelkit.evaluate.systems import score_stream

    if not runs:
        raise UsageError("pass at least one --runs PATH (file, folder or glob)")
    check_run_names(run_names)
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
            if absent is not None:
                absent.append({label for label, sc in scorers if sc.topic_set.isdisjoint(r.docids)})
            yield Ranking(str(len(stubs)), r.path, r.docids, r.tags)  # placeholder name: unique until renamed

    scored = score_stream(stream(), scorers, threshold)
    if not stubs:
        raise UsageError("no runs found")
    names = tuple(final_names(stubs, run_names))
    warn_run_names(run_stubs(stubs), run_names)
    return tuple(replace(s, systems=names) for s in scored), read


def _arrow(shift: int) -> str:
    return f"▲{shift}" if shift > 0 else (f"▼{-shift}" if shift < 0 else "=")


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
    on_missing: str = typer.Option(
        "worst", "--on-missing", help="A run on only one leaderboard (it ranks none of the other version's topics): "
                                      "error, drop it from the comparison, or worst (scored 0 on every topic)."),
    top_k: int = typer.Option(10, "--top-k", min=2, help="Systems the reference ranks best, for kendall_tau_topK."),
    workspace: Optional[Path] = WorkspaceOpt,
    allow_empty: bool = AllowEmptyOpt,
    run_names: str = RunNamesOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Score runs under one or more qrels versions; compare rankings and significance between versions."""
    from qrelkit.evaluate.correlation import ON_MISSING
    from qrelkit.evaluate.systems import DEFAULT_MEASURES, resolve_measures, version_scorers

    t0 = time.perf_counter()
    if not qrels:
        raise UsageError("pass at least one --qrels QRELS")
    if on_missing not in ON_MISSING:
        raise UsageError(f"--on-missing {on_missing!r}: choose from {', '.join(ON_MISSING)}")
    versions = load_versions(list(qrels), allow_empty)
    thr = threshold_of(threshold, versions[0][1], qrels[0])
    threshold = thr.value
    specs = resolve_measures(split_measures(measures) or list(DEFAULT_MEASURES), threshold)
    keys = [s.key for s in specs]
    rank_measure = measure or ("nDCG@10" if "nDCG@10" in keys else keys[0])
    if rank_measure not in keys:
        specs = specs + resolve_measures([rank_measure], threshold)
        keys.append(rank_measure)
    scorers = version_scorers(versions, specs, judged_only)
    del versions  # the pair dicts (250 bytes a label) are not needed once the scorers hold the qrels
    absent_in: list[set] = []
    scored, t_read = _evaluate_streaming(runs, scorers, specs, threshold, judged_only, allow_empty, absent_in,
                                         run_names)
    t_eval = time.perf_counter() - t0 - t_read
    systems = scored[0].systems
    if len(scored) > 1:  # imported here: scipy and statsmodels cost 60 MB that one version never uses
        from qrelkit.evaluate.compare import compare_versions
    def absent(label: str) -> list[str]:
        return [n for n, gone in zip(systems, absent_in) if label in gone]

    comparisons = [
        compare_versions(scored[0], s, measure=rank_measure, rbo_p=rbo_p, bootstrap=bootstrap, seed=seed, test=test,
                         correction=correction, alpha=alpha, on_missing=on_missing,
                         absent=(absent(scored[0].label), absent(s.label)), top_k=top_k)
        for s in scored[1:]
    ] if len(systems) >= 2 else []

    warnings = _circularity(systems, workspace, run_meta, list(judge_model or []))
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


def _circularity(systems: tuple, workspace: Optional[Path], run_meta: Optional[Path], judges: list) -> list:
    """Runs whose generating model is also the judge: the models from the workspace's run metadata
    and ``--run-meta``, the judges from ``--judge-model`` and the workspace's judgments."""
    from qrelkit.evaluate.circularity import circularity_warnings, read_run_meta

    run_models: dict[str, str] = {}
    if workspace is not None:
        from qrelkit.store import Store

        with Store.open(workspace) as store:
            for name, _, meta in store.runs():
                if isinstance(meta, dict) and meta.get("model"):
                    run_models[name] = str(meta["model"])
            judges += store.judge_models()
    if run_meta is not None:
        run_models.update(read_run_meta(run_meta))
    return circularity_warnings({r: m for r, m in run_models.items() if r in systems}, sorted(set(judges)))


def _print_scores(scored, keys: list[str], rank_measure: str, judged_only: bool, relevant: str) -> None:
    for s in scored:
        table = Table(title=f"{s.label}: {len(s.topics)} topics{' (judged only)' if judged_only else ''}; {relevant}")
        table.add_column("run")
        for k in keys:
            table.add_column(k, justify="right")
        means = {k: s.means(k) for k in keys}
        order = sorted(range(len(s.systems)), key=lambda i: -means[rank_measure][i])
        for i in order:
            table.add_row(shown(s.systems[i]), *[f"{means[k][i]:.4f}" for k in keys])
        console.print(table)


def _print_comparisons(comparisons, rank_measure: str) -> None:
    for c in comparisons:
        d = c.to_dict()
        table = Table(title=f"{c.version_a} -> {c.version_b} on {rank_measure}: tau {fmt(d['kendall_tau'])} "
                            f"tau_AP {fmt(d['tau_ap'])} rho {fmt(d['spearman_rho'])} RBO {fmt(d['rbo'])}")
        for col in ("run", "before", "after", "delta", "rank", "move"):
            table.add_column(col, justify="left" if col == "run" else "right")
        for sh in c.shifts:
            table.add_row(shown(sh.system), f"{sh.score_a:.4f}", f"{sh.score_b:.4f}", f"{sh.delta:+.4f}",
                          f"{sh.rank_a} -> {sh.rank_b}", _arrow(sh.rank_shift))
        console.print(table)
        sig = d["significance"]
        console.print(
            f"significance ({sig['test']}, {sig['correction']}, alpha {sig['alpha']}): {sig['significant_a']} vs "
            f"{sig['significant_b']} significant pairs; {sig['reversed']} reversed; Matthews correlation "
            f"{fmt(sig['matthews_corrcoef'])}; 95% CI of tau {d['ci']['kendall_tau']}"
        )
