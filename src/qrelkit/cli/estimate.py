"""``qrelkit estimate``: scores and differences with confidence intervals, from the judge's labels on
everything and people's labels on a probability sample.

Parsing and printing only; the inputs are gathered by :mod:`qrelkit.estimate.workspace`, the estimators are
:mod:`qrelkit.estimate`'s."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from qrelkit.cli._app import JsonOpt, RunNamesOpt, WorkspaceOpt, app, console, print_json
from qrelkit.cli._shown import shown
from qrelkit.cli.measure import RunsOpt, SeedOpt, split_measures
from qrelkit.errors import UsageError


@app.command()
def estimate(
    runs: Optional[List[str]] = RunsOpt,
    labels: Optional[List[str]] = typer.Option(
        None, "--labels", help="The judge's labels: a qrels file (with --runs), or with -w a judged METHOD "
        "(default: the stored job's judge)."),
    people: Optional[Path] = typer.Option(None, "--people", help="People's labels (qrels) of the sample's pairs."),
    sample_file: Optional[Path] = typer.Option(None, "--sample", help="The sample (TSV of `qrelkit sample --out`)."),
    measures: Optional[List[str]] = typer.Option(
        None, "--measures", help="Measures (repeat or comma-separate), as ir_measures names them; default P@10 nDCG@10."),
    alpha: float = typer.Option(0.05, "--alpha", min=0.0001, max=0.5, help="1 - confidence level of the intervals."),
    seed: int = SeedOpt,
    workspace: Optional[Path] = WorkspaceOpt,
    model: Optional[str] = typer.Option(None, "--model", help="-w: the model of the judge's labels (default: any)."),
    run_names: str = RunNamesOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Estimate each run's score and every difference, with intervals (prediction-powered inference)."""
    from qrelkit.estimate.workspace import DEFAULT_MEASURES

    wanted = split_measures(measures) or list(DEFAULT_MEASURES)
    if workspace is not None:
        result = _from_workspace(workspace, runs, labels, people, sample_file, wanted, alpha, seed, model)
    else:
        result = _from_files(runs, labels, people, sample_file, wanted, alpha, seed, run_names)
    out = result.to_json()
    if as_json:
        _warn(out)
        print_json(out)
        return
    show(out)


def _from_files(runs, labels, people, sample_file, measures, alpha, seed, run_names):
    from qrelkit.cli._app import require_runs
    from qrelkit.estimate.sample_file import read_sample
    from qrelkit.estimate.workspace import estimate_files, read_labels, run_depth

    missing = [o for o, v in (("--labels QRELS", labels), ("--people QRELS", people), ("--sample TSV", sample_file))
               if not v]
    if missing or not runs:
        raise UsageError("estimate from files needs --runs PATH, --labels QRELS, --people QRELS and --sample TSV "
                         f"(missing: {', '.join((['--runs PATH'] if not runs else []) + missing)}); or -w WS")
    if len(labels) > 1:
        raise UsageError(f"--labels takes one qrels file, got {len(labels)}")
    drawn = read_sample(sample_file)
    # only the top the measures and the sample's universe read (evaluate's names, its warning once)
    read = require_runs(runs, run_names=run_names, max_depth=run_depth(measures, drawn.depth))
    return estimate_files(read, read_labels(labels[0]), read_labels(people), drawn, measures, alpha, seed)


def _from_workspace(ws, runs, labels, people, sample_file, measures, alpha, seed, model):
    from qrelkit.estimate.workspace import estimate_workspace
    from qrelkit.store import Store

    given = [o for o, v in (("--runs", runs), ("--people", people), ("--sample", sample_file)) if v]
    if given:
        raise UsageError(f"with -w the runs, people's labels and sample are the workspace's; drop {', '.join(given)}")
    if labels and len(labels) > 1:
        raise UsageError(f"--labels takes one judged method with -w, got {len(labels)}")
    with Store.open(ws) as store:
        return estimate_workspace(store, method=labels[0] if labels else None, model=model, measures=measures,
                                  alpha=alpha, seed=seed)


def show(out: dict) -> None:
    """The estimates as tables on stderr: per measure the runs, then the tied groups and what waits."""
    measures = list(dict.fromkeys(r["measure"] for r in out.get("runs", [])))
    favoured = {(f["run"], f["measure"]) for f in out.get("favoured") or []}
    for m in measures:
        table = Table(title=f"{m}: estimate with its {_level(out)} interval · the judge's labels alone · people alone",
                      caption="labels: the judge's labels taken as true; people: the sample alone, same budget")
        table.add_column("run", overflow="fold", min_width=12)
        for col in ("estimate", "interval", "labels", "people", "interval "):
            table.add_column(col, justify="right", no_wrap=True)
        for r in sorted((r for r in out["runs"] if r["measure"] == m), key=lambda r: -r["estimate"]):
            po = r.get("people_only") or {}
            mark = " [yellow]⚑[/]" if (r["run"], m) in favoured else ""
            table.add_row(shown(r["run"]) + mark, _num(r["estimate"]), _span(r["low"], r["high"]), _num(r.get("labels_only")),
                          _num(po.get("estimate")), _span(po.get("low"), po.get("high")))
        console.print(table)
    for line in _favoured_lines(out):
        console.print(line, highlight=False, soft_wrap=True)
    for line in _tied_lines(out):
        console.print(line, highlight=False, soft_wrap=True)
    sample = out.get("sample") or {}
    unlabelled = sample.get("unlabelled") or []
    console.print(f"people's sample: {sample.get('labelled')} of {sample.get('size')} pairs labelled "
                  f"({sample.get('design')}), census {sample.get('census')}, universe {out.get('universe')} pairs",
                  highlight=False, soft_wrap=True)
    _warn(out)
    if unlabelled:
        n = len(unlabelled)
        what = "1 pair of the sample has" if n == 1 else f"{n} pairs of the sample have"
        console.print(f"[yellow]{what} no people's label yet[/] (--json lists "
                      "them): the estimate treats them as missing at random in their stratum; label them and "
                      "estimate again", highlight=False, soft_wrap=True)


def _warn(out: dict) -> None:
    """The estimate's warnings (intervals used where their coverage was not shown), a line each on stderr,
    with or without --json."""
    for line in out.get("warnings", []):
        console.print(f"[yellow]warning:[/] {line}", highlight=False, soft_wrap=True)


def _num(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def _span(low, high) -> str:
    return "-" if low is None or high is None else f"{low:.3f}–{high:.3f}"


def _level(out: dict) -> str:
    alpha = out.get("alpha")
    return f"{100 * (1 - alpha):g}%" if isinstance(alpha, (int, float)) else "confidence"


def _favoured_lines(out: dict) -> list[str]:
    """The judge-favoured runs, one line each, after a line saying what the flag means."""
    rows = out.get("favoured") or []
    if not rows:
        return []
    lines = [f"⚑ judge-favoured runs ({len(rows)}): the judge calls relevant a larger share of the pairs people "
             "reject in their top k than it does for runs of the same quality, beyond the interval: systems that "
             "share the judge's preferences; trust their estimate, not their labels-only score"]
    lines += [f"  {shown(f['run'])} ({f['measure']}): labels-only minus estimate {f['gap']:.3f} "
              f"({_span(f['low'], f['high'])}), favour {f['favour']:.2f} ({f['favour_low']:.2f}–{f['favour_high']:.2f}) "
              f"against {f['expected']:.2f} for its quality, p = {f['p_value']:.2g} (Holm)" for f in rows]
    return lines


def _tied_lines(out: dict) -> list[str]:
    """Per measure, the tied groups best first, one line each (runs in a group cannot be told apart:
    every interval of their differences includes 0)."""
    lines = []
    for measure, groups in (out.get("tied") or {}).items():
        lines.append(f"{measure}, tied groups (best first; no difference within a group is significant):")
        lines += [f"  {i}. " + ", ".join(shown(x) for x in g) for i, g in enumerate(groups, 1)]
    return lines
