"""Commands that judge cases and list what waits for people: judge, escalations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from qrelkit.cli._app import (
    EngineOpt,
    JsonOpt,
    RayActorsOpt,
    RayAddressOpt,
    RayCpusOpt,
    RayGpusOpt,
    WorkspaceOpt,
    app,
    console,
    judging_progress,
    print_json,
    require_workspace,
)
from qrelkit.cli._shown import shown

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
def judge(
    workspace: Optional[Path] = WorkspaceOpt,
    method: str = typer.Option(
        "auto",
        "--method",
        help="Judge spec, e.g. 'debate(rounds=2,adjudicator=llm)', 'zero-shot', "
        "'likelihood(threshold=auto)', 'prefilter(by=likelihood,keep=0.95)+debate', "
        "'confidence(score=likelihood,budget=12.5%)', 'icl(k=2)', 'narrative(icl=2)', 'debate(narrative=true)'; "
        "auto = likelihood for the local model, debate otherwise.",
    ),
    model: str = typer.Option(
        "local", "--model", help="Model spec: local, local:/path.gguf, openai:MODEL@URL, vllm:MODEL."
    ),
    task: str = typer.Option(
        "auto", "--task",
        help="auto|answer|graded (auto: graded for a graded collection, else answer when every topic has answers).",
    ),
    share: str = typer.Option(
        "llm", "--share", help="llm (holes, default) | people | all (every unjudged case) | judged (audit)."
    ),
    limit: Optional[int] = typer.Option(None, "--limit", min=0, help="Only the first N selected cases."),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Cases (and calls) in flight at once."),
    budget: Optional[str] = typer.Option(
        None, "--budget", help="Cap escalations to people: N or P% of the cases."
    ),
    prefilter: Optional[str] = typer.Option(
        None, "--prefilter", help="Prefilter spec put in front of the method, e.g. 'prefilter(keep=0.95)'."
    ),
    threshold: str = typer.Option(
        "auto", "--threshold",
        help="Graded task: relevant = grade >= THRESHOLD; auto (default) is 1 when the workspace's qrels are "
        "binary, 2 when they are graded.",
    ),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Do not read cached answers (they are still written)."
    ),
    oracle: Optional[Path] = typer.Option(
        None,
        "--oracle",
        help="Simulation: answer escalations from these reference qrels (noted in provenance as 'oracle'; "
        "batch judges such as confidence learn from them). No label is written.",
    ),
    engine: Optional[str] = EngineOpt,
    ray_address: Optional[str] = RayAddressOpt,
    ray_actors: Optional[int] = RayActorsOpt,
    ray_cpus: Optional[float] = RayCpusOpt,
    ray_gpus: Optional[float] = RayGpusOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Judge the workspace's pending cases; re-running resumes where it stopped."""
    from qrelkit.engines import engine_option
    from qrelkit.evaluate.threshold import parse_threshold
    from qrelkit.judging import JudgingJob, run_job
    from qrelkit.store import Store

    ws = require_workspace(workspace)
    reference = None
    if oracle is not None:
        from qrelkit.data import load_qrels

        reference = dict(load_qrels(oracle).pairs)
    job = JudgingJob(method=method, model=model, task=task, share=share, limit=limit, concurrency=concurrency,
                     budget=budget, prefilter=prefilter, threshold=parse_threshold(threshold), read_cache=not no_cache,
                     oracle=reference, engine=engine_option(engine, ray_address, ray_actors, ray_cpus, ray_gpus))
    job.spec()  # a bad spec or budget is reported before the workspace is opened
    with Store.open(ws) as store, judging_progress() as update:
        summary = run_job(store, job, update)
    out = summary.as_dict()
    if as_json:
        print_json(
            {k: out[k] for k in SUMMARY_KEYS} | {k: v for k, v in out.items() if k not in SUMMARY_KEYS}
        )
        return
    table = Table(title=f"judge: {summary.method}", show_header=False)
    for k in SUMMARY_KEYS + ("task", "share", "new", "dropped", "undecided", "adjudicated", "seconds"):
        table.add_row(k, _fmt(out[k]))
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
    from qrelkit.judges import parse_spec
    from qrelkit.judges.runner import list_escalations
    from qrelkit.store import Store

    ws = require_workspace(workspace)
    canonical = parse_spec(method).canonical if method else None
    with Store.open(ws) as store:
        items = list_escalations(store, method=canonical, include_over_budget=include_over_budget)
    if as_json:
        print_json({"escalations": items, "count": len(items)})
        return
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
        table = Table(title=f"{m.name} — {m.summary}" + (f"\n({kind})" if kind else ""), title_justify="left")
        for col in ("parameter", "default", "meaning"):
            table.add_column(col, overflow="fold")
        for p in m.params:
            table.add_row(p.name, p.default, p.help)
        console.print(table)
