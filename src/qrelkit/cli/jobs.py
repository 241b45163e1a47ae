"""The main jobs: fill, build, and the demo that runs fill on bundled data."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from qrelkit.cli._app import JsonOpt, WorkspaceOpt, app, console, print_json, require_workspace

_PlanOpt = typer.Option(None, "--plan", help="TOML plan file; command-line options override it.")
_Topics = typer.Option(None, "--topics", help="Topics file (TSV or JSONL).")
_Docs = typer.Option(None, "--docs", help="Docs file (JSONL or TSV, .gz ok).")
_Runs = typer.Option(None, "--runs", help="Runs: files, folders or globs.")
_Depth = typer.Option(None, "--depth", min=1, help="Pool depth k (default 10).")
_Method = typer.Option(None, "--method", help="Judge spec, e.g. 'debate(rounds=2)' (default: likelihood for the embedded model, else debate for fill / narrative for build).")
_Model = typer.Option(None, "--model", help="Model spec: local, local:/path.gguf, openai:MODEL@URL[,URL2] (default local).")
_Task = typer.Option(None, "--task", help="auto | answer | graded.")
_Budget = typer.Option(None, "--budget", help="Cap on escalations to people: N or P%.")
_Conc = typer.Option(None, "--concurrency", min=1, help="Concurrent model calls.")
_Prefilter = typer.Option(None, "--prefilter", help="Prefilter spec chained before the judge, e.g. 'prefilter(keep=0.9)'.")
_Limit = typer.Option(None, "--limit", min=1, help="Judge at most N cases (for a trial).")
_Auto = typer.Option(False, "--auto", help="Do not wait for people: the LLM adjudicator settles escalations.")
_NoCache = typer.Option(False, "--no-cache", help="Do not read the call cache (calls are still written to it).")
_NoReport = typer.Option(False, "--no-report", help="Skip the HTML report.")


def _plan(plan_path: Optional[Path]):
    from qrelkit.plan import Plan, load_plan

    return load_plan(plan_path) if plan_path else Plan()


def _progress_cb():
    """A rich progress bar fed by the runner's ProgressUpdate callbacks."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    prog = Progress(TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[info]}"),
                    TimeElapsedColumn(), console=console, transient=True)
    task = prog.add_task("judge", total=None, info="")

    def cb(u) -> None:
        prog.update(task, completed=u.done, total=u.total,
                    info=f"calls {u.calls} · cached {u.cache_hits} · tokens {u.prompt_tokens + u.completion_tokens}"
                         f" · ${u.cost_usd:.4f} · escalations {u.escalations}")

    return prog, cb


def _show(result, as_json: bool, extra: Optional[dict] = None) -> None:
    payload = result.to_dict()
    if extra:
        payload.update(extra)
    if as_json:
        print_json(payload)
        return
    table = Table(title=f"{result.job}: {result.state}", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    rows = [("workspace", str(result.workspace)), ("method", result.method or "-"), ("model", result.model or "-")]
    for k in ("pooled", "holes"):
        if k in result.pool:
            rows.append((k, result.pool[k]))
    for k in ("cases", "judged", "relevant", "escalations", "errors", "calls", "cache_hits", "prompt_tokens",
              "completion_tokens", "cost_usd", "seconds"):
        if k in result.judge:
            rows.append((f"judge.{k}", result.judge[k]))
    for k, v in result.merged.items():
        rows.append((f"merged.{k}", v))
    for k, v in result.evaluation.items():
        rows.append((f"evaluation.{k}", v))
    for k, v in (extra or {}).get("recovered", {}).items():
        rows.append((f"recovered.{k}", v))
    for k, v in rows:
        table.add_row(k, f"{v:.4f}" if isinstance(v, float) else str(v))
    console.print(table)
    console.print(result.message, soft_wrap=True, highlight=False)


@app.command()
def fill(
    workspace: Optional[Path] = WorkspaceOpt,
    plan: Optional[Path] = _PlanOpt,
    topics: Optional[str] = _Topics,
    docs: Optional[str] = _Docs,
    qrels: Optional[str] = typer.Option(None, "--qrels", help="The existing qrels to complete."),
    runs: Optional[List[str]] = _Runs,
    depth: Optional[int] = _Depth,
    method: Optional[str] = _Method,
    model: Optional[str] = _Model,
    task: Optional[str] = _Task,
    budget: Optional[str] = _Budget,
    concurrency: Optional[int] = _Conc,
    prefilter: Optional[str] = _Prefilter,
    limit: Optional[int] = _Limit,
    auto: bool = _Auto,
    no_cache: bool = _NoCache,
    no_report: bool = _NoReport,
    as_json: bool = JsonOpt,
) -> None:
    """Complete an existing collection: pool -> holes -> judge -> people or adjudicator -> merge -> report.

    Resumable: run the same command again after an interruption, or after
    people have settled the escalations, and it continues where it stopped."""
    from qrelkit import jobs

    ws = require_workspace(workspace)
    prog, cb = _progress_cb()
    with prog:
        result = jobs.fill(ws, _plan(plan), auto=auto, report=not no_report, read_cache=not no_cache, progress=cb,
                           topics=topics, docs=docs, qrels=qrels, runs=runs, depth=depth, method=method,
                           model=model, task=task, budget=budget, concurrency=concurrency, prefilter=prefilter,
                           limit=limit)
    _show(result, as_json)


@app.command()
def build(
    workspace: Optional[Path] = WorkspaceOpt,
    plan: Optional[Path] = _PlanOpt,
    topics: Optional[str] = _Topics,
    docs: Optional[str] = _Docs,
    runs: Optional[List[str]] = _Runs,
    depth: Optional[int] = _Depth,
    human_depth: Optional[int] = typer.Option(None, "--human-depth", min=0, help="People judge each run's top-k_human (default 3)."),
    method: Optional[str] = _Method,
    model: Optional[str] = _Model,
    task: Optional[str] = _Task,
    budget: Optional[str] = _Budget,
    concurrency: Optional[int] = _Conc,
    prefilter: Optional[str] = _Prefilter,
    limit: Optional[int] = _Limit,
    auto: bool = _Auto,
    no_cache: bool = _NoCache,
    no_report: bool = _NoReport,
    as_json: bool = JsonOpt,
) -> None:
    """Build a new collection by hybrid pooling: people judge the top of every run, the judge the rest.

    The first run stops after pooling and prints how to serve the app to
    people; run the same command again once they are done."""
    from qrelkit import jobs

    ws = require_workspace(workspace)
    prog, cb = _progress_cb()
    with prog:
        result = jobs.build(ws, _plan(plan), auto=auto, report=not no_report, read_cache=not no_cache, progress=cb,
                            topics=topics, docs=docs, runs=runs, depth=depth, human_depth=human_depth,
                            method=method, model=model, task=task, budget=budget, concurrency=concurrency,
                            prefilter=prefilter, limit=limit)
    _show(result, as_json)


@app.command()
def demo(
    workspace: Path = typer.Option(Path("qrelkit-demo"), "-w", "--workspace", help="Where the demo workspace goes."),
    model: str = typer.Option("local", "--model", help="Model spec (default: the embedded model)."),
    method: Optional[str] = _Method,
    as_json: bool = JsonOpt,
) -> None:
    """Run `fill --auto` on the bundled demo collection and say how many hidden relevant documents came back.

    The demo's qrels judge only the pool of three old runs; three newer runs
    retrieve relevant documents nobody judged. The full labels ship too, so
    the demo can score its own recovery."""
    from qrelkit import jobs
    from qrelkit.demo import demo_paths

    d = demo_paths()
    prog, cb = _progress_cb()
    with prog:
        result = jobs.fill(workspace, None, auto=True, progress=cb, topics=str(d.topics), docs=str(d.docs),
                           qrels=str(d.qrels), runs=[str(p) for p in d.runs], model=model, method=method)
    rec = jobs.recovered(result.qrels, d.qrels, d.full_qrels)
    if result.report:
        from qrelkit.data import load_qrels
        from qrelkit.report.report import report_from_workspace

        hidden = ("the demo's full labels (qrels.full.txt)", load_qrels(str(d.full_qrels)).pairs)
        report_from_workspace(workspace, result.report, reference=hidden)  # Agreement against the hidden labels
    if as_json:
        _show(result, as_json, {"recovered": rec})
        return
    console.print(demo_story(result, rec, len(d.runs)), soft_wrap=True, highlight=False)


def demo_story(result, rec: dict, n_runs: int) -> str:
    """The demo's closing screen: what happened, in a few plain sentences."""
    from qrelkit.judges import parse_spec

    judge = parse_spec(result.method).main.name if result.method else "judge"
    how = {
        "learned": "the learned judge (a logistic regression over cheap signals — the embedded model's "
                   "likelihood, MiniLM similarity, BM25, the runs' votes — fitted on the demo's own qrels)",
        "likelihood": "query likelihood on the embedded model",
    }.get(judge, f"the {judge} judge")
    pool, j = result.pool, result.judge
    lines = [
        f"qrelkit pooled the top {pool.get('depth', 10)} of {n_runs} runs: {pool.get('pooled', '?')} pairs, "
        f"{pool.get('holes', '?')} of them holes that nobody had judged.",
        f"It judged the holes with {how}, on {result.model}: {j.get('relevant', '?')} found relevant"
        + (f", {j['escalations']} left undecided" if j.get("escalations") else "") + ".",
    ]
    if rec.get("hidden_relevant"):
        bal = rec.get("balanced_accuracy")
        lines.append(
            f"The demo had hidden {rec['hidden_relevant']} relevant documents among {rec['hidden']} labels; "
            f"{rec['recovered_relevant']} of them came back as relevant, {rec['false_relevant']} documents were "
            "called relevant that are not" + (f" (balanced accuracy {bal:.2f})." if bal is not None else "."))
    if result.qrels:
        lines.append(f"The merged qrels are in {result.qrels}.")
    if result.report:
        lines.append(f"The report, with agreement against the hidden labels, is {result.report}.")
    return "\n".join(lines)
