"""The main jobs: fill, build, and the demo that runs fill on bundled data."""
from __future__ import annotations

import functools
import inspect
from pathlib import Path
from typing import Any, Callable, Optional

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
from qrelkit.job import options as opts


def table_options(command_name: str) -> Callable:
    """Give ``command(given: dict, **own)`` the option table's options of ``command_name``
    (:data:`qrelkit.job.options.OPTIONS`) on the command line, plus ``-w``, ``--plan`` (the jobs)
    and ``--json``; ``given`` holds the table's options by name, None where not given."""

    def decorate(command: Callable) -> Callable:
        own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "given"]
        table = opts.for_command(command_name)
        common = [("workspace", Optional[Path], WorkspaceOpt)]
        if command_name in opts.JOBS:
            common.append(("plan", Optional[Path], typer.Option(
                None, "--plan", help="TOML plan file (see the docs' plan reference); options override it.")))
        common.append(("as_json", bool, JsonOpt))
        shared = [inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=opts.typer_option(o),
                                    annotation=opts.annotation(o)) for o in table]
        shared += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d, annotation=t) for n, t, d in common]

        @functools.wraps(command)
        def wrapper(**values: Any) -> None:
            given = {o.name: values.pop(o.name) for o in table}
            opts.check_given(given)  # before anything is read or made (a typo leaves no workspace)
            for name, _, _ in common:
                given[name] = values.pop(name)
            command(given, **values)

        params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own] + shared
        wrapper.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in params}
        return wrapper

    return decorate


# the options that say how to run a job rather than what it is (not passed as plan overrides)
_RUN_FLAGS = ("auto", "no_cache", "no_report", "workspace", "plan", "as_json", "ray_address", "ray_actors",
              "ray_cpus", "ray_gpus")


def run_job_command(job: Callable, given: dict, **own: Any) -> None:
    """Run ``job`` (jobs.fill or jobs.build) with the command line's ``given`` options; print."""
    from qrelkit.engines import engine_option

    ws = require_workspace(given["workspace"])
    # `is`, not `in`: 0 == False, and `--human-depth 0` / `--limit 0` are given values
    overrides = {k: v for k, v in given.items() if k not in _RUN_FLAGS and v is not None and v is not False}
    overrides["engine"] = engine_option(given.get("engine"), given.get("ray_address"), given.get("ray_actors"),
                                        given.get("ray_cpus"), given.get("ray_gpus"))
    if given.get("runs") == []:
        overrides.pop("runs", None)
    with judging_progress(transient=True) as cb:
        result = job(ws, given.get("plan"), auto=bool(given.get("auto")), report=not given.get("no_report"),
                     read_cache=not given.get("no_cache"), progress=cb, stage=cb.stage, **overrides, **own)
    _show(result, bool(given.get("as_json")))


def _show(result, as_json: bool, extra: Optional[dict] = None) -> None:
    payload = result.to_dict()
    if extra:
        payload.update(extra)
    if as_json:
        print_json(payload)
        return
    from rich.table import Table  # here, not at import: --json and a run's start-up need no table

    table = Table(title=f"{result.job}: {result.state}", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    rows = [("workspace", str(result.workspace)), ("method", result.method or "-"), ("model", result.model or "-")]
    for k in ("pooled", "holes", "no_text"):
        if result.pool.get(k) or k != "no_text" and k in result.pool:
            rows.append((k, result.pool[k]))
    for k in ("cases", "judged", "relevant", "escalations", "guarded", "errors", "calls", "cache_hits",
              "prompt_tokens", "completion_tokens", "cost_usd", "seconds"):
        if k in result.judge:
            rows.append((f"judge.{k}", result.judge[k]))
    for k, v in result.left.items():
        rows.append((f"left.{k}", v))
    for k, v in result.merged.items():
        rows.append((f"merged.{k}", v))
    for k, v in result.evaluation.items():
        if k != "estimates":  # a table of its own, below
            rows.append((f"evaluation.{k}", v))
    for k, v in (extra or {}).get("recovered", {}).items():
        rows.append((f"recovered.{k}", v))
    for k, v in rows:
        table.add_row(k, f"{v:.4f}" if isinstance(v, float) else str(v))
    console.print(table)
    estimates = result.evaluation.get("estimates") or {}
    if estimates.get("available"):  # the people's sample: `qrelkit estimate`'s tables
        from qrelkit.cli.estimate import show

        show(estimates)
    console.print(result.message, soft_wrap=True, highlight=False)


@app.command()
@table_options("fill")
def fill(
    given: dict,
    rag: bool = typer.Option(False, "--rag", help="Also generate answers from each run's top-10 and grade them "
                             "(topics need gold answers); the report then shows RAG alignment."),
) -> None:
    """Complete an existing collection: pool -> holes -> judge -> people or adjudicator -> merge -> report.

    The first call stores the job in the workspace; run `qrelkit fill -w WS` again after an
    interruption, or after people have settled the escalations, and it continues exactly that
    job. An option that would change the job is refused unless you add --rejudge."""
    from qrelkit.job import run as jobs

    run_job_command(jobs.fill, given, rag=rag)


@app.command()
@table_options("build")
def build(given: dict) -> None:
    """Build a new collection by hybrid pooling: people judge the top of every run, the judge the rest.

    The first run stops after pooling and prints how to serve the app to
    people; run `qrelkit build -w WS` again once they are done."""
    from qrelkit.job import run as jobs

    run_job_command(jobs.build, given)


@app.command()
def demo(
    workspace: Path = typer.Option(Path("qrelkit-demo"), "-w", "--workspace", help="Where the demo workspace goes."),
    model: str = typer.Option("local", "--model", help="Model spec (default: the embedded model)."),
    method: Optional[str] = typer.Option(None, "--method", help=opts.BY_NAME["method"].help),
    as_json: bool = JsonOpt,
) -> None:
    """Run `fill --auto` on the bundled demo collection and say how many hidden relevant documents came back.

    The demo's qrels judge only the pool of three old runs; three newer runs
    retrieve relevant documents nobody judged. The full labels ship too, so
    the demo can score its own recovery."""
    from qrelkit.demo import demo_paths
    from qrelkit.job import run as jobs

    d = demo_paths()
    with judging_progress(transient=True) as cb:
        result = jobs.fill(workspace, None, auto=True, progress=cb, stage=cb.stage, topics=str(d.topics), docs=str(d.docs),
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

    main = parse_spec(result.method).main if result.method else None
    judge = main.name if main is not None else "judge"
    signals = str(main["signals"]).split("+") if judge == "learned" else []
    how = {
        "learned": "the learned judge (a logistic regression over cheap signals — the embedded model's "
                   "likelihood, MiniLM similarity, BM25, the runs' votes"
                   + (", similarity to the documents people judged" if "feedback" in signals else "")
                   + (", the topic's share of relevant labels" if "prior" in signals else "")
                   + " — fitted on the demo's own qrels)",
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
        wrong = rec["false_relevant"]
        called = {0: "and no other document was called relevant",
                  1: "1 document was called relevant that is not"}.get(
            wrong, f"{wrong} documents were called relevant that are not")
        lines.append(
            f"The demo had hidden {rec['hidden_relevant']} relevant documents among {rec['hidden']} labels; "
            f"{rec['recovered_relevant']} of them came back as relevant, {called}"
            + (f" (balanced accuracy {bal:.2f})." if bal is not None else "."))
    if result.qrels:
        lines.append(f"The merged qrels are in {result.qrels}.")
    if result.report:
        lines.append(f"The report, with agreement against the hidden labels, is {result.report}.")
    return "\n".join(lines)
