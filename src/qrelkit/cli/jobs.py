"""The main jobs: fill, build, and the demo that runs fill on bundled data."""
from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, List, Optional

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

_METHOD = typer.Option(None, "--method", help="Judge spec, e.g. 'debate(rounds=2)' (default: likelihood for the "
                       "embedded model, else debate for fill / narrative for build).")


def _option(option: Any) -> Any:
    """A JobOptions field declared by its typer option (whose default it takes)."""
    return field(default=option.default, metadata={"option": option})


@dataclass(frozen=True)
class JobOptions:
    """The options `fill` and `build` share, declared once: each field is one command-line
    option (see :func:`job_options`); a command receives them as this one value."""

    workspace: Optional[Path] = _option(WorkspaceOpt)
    plan: Optional[Path] = _option(typer.Option(None, "--plan", help="TOML plan file; command-line options override it."))
    topics: Optional[str] = _option(typer.Option(None, "--topics", help="Topics file (TSV or JSONL)."))
    docs: Optional[str] = _option(typer.Option(None, "--docs", help="Docs file (JSONL or TSV, .gz ok)."))
    runs: Optional[List[str]] = _option(typer.Option(None, "--runs", help="Runs: files, folders or globs."))
    depth: Optional[int] = _option(typer.Option(None, "--depth", min=1, help="Pool depth k (default 10)."))
    method: Optional[str] = _option(_METHOD)
    model: Optional[str] = _option(typer.Option(
        None, "--model", help="Model spec: local, local:/path.gguf, openai:MODEL@URL[,URL2], vllm:MODEL (default local)."))
    task: Optional[str] = _option(typer.Option(None, "--task", help="auto | answer | graded."))
    budget: Optional[str] = _option(typer.Option(None, "--budget", help="Cap on escalations to people: N or P%."))
    concurrency: Optional[int] = _option(typer.Option(None, "--concurrency", min=1, help="Concurrent model calls."))
    prefilter: Optional[str] = _option(typer.Option(
        None, "--prefilter", help="Prefilter spec chained before the judge, e.g. 'prefilter(keep=0.9)'."))
    limit: Optional[int] = _option(typer.Option(None, "--limit", min=1, help="Judge at most N cases (for a trial)."))
    auto: bool = _option(typer.Option(
        False, "--auto", help="Do not wait for people: the LLM adjudicator settles escalations."))
    no_cache: bool = _option(typer.Option(
        False, "--no-cache", help="Do not read the call cache (calls are still written to it)."))
    no_report: bool = _option(typer.Option(False, "--no-report", help="Skip the HTML report."))
    engine: Optional[str] = _option(EngineOpt)
    ray_address: Optional[str] = _option(RayAddressOpt)
    ray_actors: Optional[int] = _option(RayActorsOpt)
    ray_cpus: Optional[float] = _option(RayCpusOpt)
    ray_gpus: Optional[float] = _option(RayGpusOpt)
    as_json: bool = _option(JsonOpt)

    def run(self, job: Callable, **own: Any) -> None:
        """Run ``job`` (jobs.fill or jobs.build) with these options and the command's ``own`` ones; print."""
        ws = require_workspace(self.workspace)
        from qrelkit.engines import engine_option

        overrides = {k: getattr(self, k) for k in PLAN_OVERRIDES}
        overrides["engine"] = engine_option(self.engine, self.ray_address, self.ray_actors, self.ray_cpus,
                                            self.ray_gpus)
        with judging_progress(transient=True) as cb:
            result = job(ws, self.plan, auto=self.auto, report=not self.no_report,
                         read_cache=not self.no_cache, progress=cb, **overrides, **own)
        _show(result, self.as_json)


# The shared options that override the plan's values (the rest say how to run the job).
PLAN_OVERRIDES = ("topics", "docs", "runs", "depth", "method", "model", "task", "budget", "concurrency",
                  "prefilter", "limit")


def job_options(command: Callable) -> Callable:
    """Give ``command(opts: JobOptions, **own)`` the shared options on the command line."""
    own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "opts"]
    types = typing.get_type_hints(JobOptions)
    shared = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.metadata["option"],
                                annotation=types[f.name]) for f in dataclasses.fields(JobOptions)]

    @functools.wraps(command)
    def wrapper(**given: Any) -> None:
        opts = JobOptions(**{p.name: given.pop(p.name) for p in shared})
        command(opts, **given)

    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own] + shared
    wrapper.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper


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
@job_options
def fill(
    opts: JobOptions,
    qrels: Optional[str] = typer.Option(None, "--qrels", help="The existing qrels to complete."),
    rag: bool = typer.Option(False, "--rag", help="Also generate answers from each run's top-10 and grade them "
                             "(topics need gold answers); the report then shows RAG alignment."),
) -> None:
    """Complete an existing collection: pool -> holes -> judge -> people or adjudicator -> merge -> report.

    Resumable: run the same command again after an interruption, or after
    people have settled the escalations, and it continues where it stopped."""
    from qrelkit import jobs

    opts.run(jobs.fill, qrels=qrels, rag=rag)


@app.command()
@job_options
def build(
    opts: JobOptions,
    human_depth: Optional[int] = typer.Option(
        None, "--human-depth", min=0, help="People judge each run's top-k_human (default 3)."),
    people: Optional[str] = typer.Option(
        None, "--people", help="People's-share strategy instead of --human-depth: depth(k_human=3), "
        "stratified(rate=0.1) (by the reference qrels: simulation only), stratified(rate=0.1, by=rank)."),
) -> None:
    """Build a new collection by hybrid pooling: people judge the top of every run, the judge the rest.

    The first run stops after pooling and prints how to serve the app to
    people; run the same command again once they are done."""
    from qrelkit import jobs

    opts.run(jobs.build, human_depth=human_depth, people=people)


@app.command()
def demo(
    workspace: Path = typer.Option(Path("qrelkit-demo"), "-w", "--workspace", help="Where the demo workspace goes."),
    model: str = typer.Option("local", "--model", help="Model spec (default: the embedded model)."),
    method: Optional[str] = _METHOD,
    as_json: bool = JsonOpt,
) -> None:
    """Run `fill --auto` on the bundled demo collection and say how many hidden relevant documents came back.

    The demo's qrels judge only the pool of three old runs; three newer runs
    retrieve relevant documents nobody judged. The full labels ship too, so
    the demo can score its own recovery."""
    from qrelkit import jobs
    from qrelkit.demo import demo_paths

    d = demo_paths()
    with judging_progress(transient=True) as cb:
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
