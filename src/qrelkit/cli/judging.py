"""Commands that judge cases and list what waits for people: judge, escalations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from qrelkit.cli._app import (
    JsonOpt,
    WorkspaceOpt,
    app,
    console,
    judging_progress,
    print_json,
    require_workspace,
)
from qrelkit.cli._shown import shown, shown_text
from qrelkit.cli.jobs import table_options

SUMMARY_KEYS = (
    "method",
    "model",
    "cases",
    "judged",
    "relevant",
    "escalations",
    "errors",
    "escalation_ratio",
    "calls",
    "cache_hits",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
)


@app.command()
@table_options("judge")
def judge(
    given: dict,
    oracle: Optional[Path] = typer.Option(
        None,
        "--oracle",
        help="Simulation: answer escalations from these reference qrels (noted in provenance as 'oracle'; "
        "batch judges such as confidence learn from them). No label is written.",
    ),
) -> None:
    """Judge the workspace's pending cases; re-running resumes where it stopped.

    One process judges a workspace at a time: a second one stops naming the first (or waits,
    with --wait); read-only commands keep working."""
    from qrelkit.engines import engine_option
    from qrelkit.job import options as opts
    from qrelkit.judging import JudgingJob, run_job
    from qrelkit.relevance import parse_threshold
    from qrelkit.store import Store
    from qrelkit.store.lock import writer_lock

    ws = require_workspace(given["workspace"])
    value = {o.name: given[o.name] if given[o.name] is not None else o.default for o in opts.for_command("judge")}
    reference = None
    if oracle is not None:
        from qrelkit.data import load_qrels

        reference = dict(load_qrels(oracle).pairs)
    engine = engine_option(value["engine"], value["ray_address"], value["ray_actors"], value["ray_cpus"],
                           value["ray_gpus"])
    job = JudgingJob(method=value["method"], model=value["model"], task=value["task"], share=value["share"],
                     limit=value["limit"], concurrency=value["concurrency"], budget=value["budget"],
                     prefilter=value["prefilter"], threshold=parse_threshold(value["threshold"]),
                     read_cache=not value["no_cache"], oracle=reference, engine=engine,
                     guard=value["guard"] == "on")
    job.spec()  # a bad spec is reported before the workspace is opened
    with writer_lock(ws, "judge", wait=value["wait"], on_wait=console.print), Store.open(ws) as store, \
            judging_progress() as update:
        summary = run_job(store, job, update)
    out = summary.as_dict()
    if given["as_json"]:
        print_json(
            {k: out[k] for k in SUMMARY_KEYS} | {k: v for k, v in out.items() if k not in SUMMARY_KEYS}
        )
        return
    from rich.table import Table  # here, not at import: --json and a run's start-up need no table

    table = Table(title=f"judge: {summary.method}", show_header=False)
    for k in SUMMARY_KEYS + ("task", "share", "new", "dropped", "undecided", "adjudicated", "seconds"):
        table.add_row(k, _fmt(out[k]))
        if k == "escalations":  # of them, the documents that address the judge (docs/guard.md)
            table.add_row("guarded", _fmt(out["guarded"]))
    if summary.narrative_calls or summary.narrative_cost:
        table.add_row("narrative_calls", _fmt(summary.narrative_calls))
        table.add_row("narrative_cost", _fmt(summary.narrative_cost))
    if summary.calibration:
        table.add_row("calibration", json.dumps(summary.calibration, sort_keys=True))
    console.print(table)


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


@app.command()
def escalations(
    workspace: Optional[Path] = WorkspaceOpt,
    method: Optional[str] = typer.Option(None, "--method", help="Only this judge spec."),
    include_over_budget: bool = typer.Option(
        False, "--all", help="Also list escalations the --budget left undecided (not queued for people)."
    ),
    as_json: bool = JsonOpt,
) -> None:
    """List what waits for people: escalated and failed cases, with the debate history."""
    from qrelkit.judges.spec import method_filter
    from qrelkit.judging.escalation import list_escalations
    from qrelkit.store import Store

    ws = require_workspace(workspace)
    with Store.open(ws) as store:
        canonical = method_filter(method, store.models_of) if method else None
        items = list_escalations(store, method=canonical, include_over_budget=include_over_budget)
    if as_json:
        print_json({"escalations": items, "count": len(items)})
        return
    from rich.table import Table

    table = Table(title=f"{len(items)} escalation(s) waiting for people")
    for col in ("qid", "docid", "status", "query", "method", "reason"):
        table.add_column(col, overflow="fold")
    for e in items:
        table.add_row(*(shown(e[k]) for k in ("qid", "docid", "status", "query", "method", "reason")))
    console.print(table)


@app.command()
def methods(as_json: bool = JsonOpt) -> None:
    """List the judging methods and their spec parameters (defaults as they are written in a spec)."""
    import dataclasses

    from qrelkit.judges import describe

    infos = describe()
    if as_json:
        print_json({"methods": [dataclasses.asdict(m) for m in infos]})
        return
    for m in infos:
        kind = "; ".join(
            k
            for k, on in (
                ("prefilter: write it in front of a judge, NAME+METHOD", m.prefilter),
                ("learns from people's labels", m.learns),
                ("decides in batches, with its own human budget", m.batch),
            )
            if on
        )
        from rich.table import Table

        # Text cells, never markup: a help's bracketed example (`[prices."MODEL"]`) is shown as written
        table = Table(title=shown_text(f"{m.name} — {m.summary}" + (f"\n({kind})" if kind else "")),
                      title_justify="left")
        for col in ("parameter", "default", "meaning"):
            table.add_column(col, overflow="fold")
        for p in m.params:
            table.add_row(shown_text(p.name), shown_text(p.default), shown_text(p.help))
        console.print(table)
