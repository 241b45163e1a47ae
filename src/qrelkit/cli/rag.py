"""``qrelkit rag generate`` and ``qrelkit rag grade``: the inputs RAGAlign needs.

Parsing and printing only; the work is in :mod:`qrelkit.rag`. With ``-w`` the
answers and grades are stored in the workspace (resume, report) and the calls
use its LLM cache; without it they run in memory and only the files remain.
"""
from __future__ import annotations

import asyncio
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, List, Optional

import typer
from rich.table import Table

from qrelkit.cli._app import JsonOpt, RunNamesOpt, WorkspaceOpt, app, console, print_json, require_runs
from qrelkit.errors import UsageError

if TYPE_CHECKING:
    from qrelkit.llm.client import Client
    from qrelkit.store import Store

rag_app = typer.Typer(help="RAG answers from each run's top-k, and their correctness.", no_args_is_help=True)
app.add_typer(rag_app, name="rag")

ModelOpt = typer.Option(..., "--model", help="Model spec: local, local:/path.gguf, openai:MODEL@URL.")
ConcurrencyOpt = typer.Option(8, "--concurrency", min=1, help="Calls in flight at once.")
NoCacheOpt = typer.Option(False, "--no-cache", help="Do not read cached answers (they are still written).")


def _store(stack: ExitStack, workspace: Optional[Path]) -> Any:
    from qrelkit.store import Store

    return None if workspace is None else stack.enter_context(Store.create(workspace))


def _topics(path: Optional[Path], store: Store) -> dict:
    from qrelkit.data import load_topics

    if path is not None:
        return load_topics(path)
    if store is None:
        raise UsageError("pass --topics FILE (or -w WS of a workspace that holds the topics)")
    topics = store.topics()
    if not topics:
        raise UsageError(f"{store.workspace}: the workspace holds no topics; pass --topics FILE")
    return topics


def _docs(stack: ExitStack, path: Optional[Path], store: Store) -> Callable:
    from qrelkit.data import DocIndex

    if path is not None:
        cache = None if store is None else store.workspace / "docindex"
        return stack.enter_context(DocIndex.open(path, cache_dir=cache)).get
    if store is None:
        raise UsageError("pass --docs FILE (or -w WS of a workspace that holds the documents)")
    return store.doc


def _runs(runs: Optional[List[str]], store: Store, run_names: str = "auto") -> list:
    """``--runs``, or without it the workspace's runs."""
    return require_runs(list(runs or []) or ([r.path for r in store.runs()] if store is not None else []),
                        run_names=run_names)


def _run(coro_fn: Callable, client: Client, store: Store, command: str, args: dict) -> Any:
    """Run one async job with a progress bar, recorded as a command run in the workspace."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from qrelkit.rag.batch import usage_record

    run_id = store.start_command(command, args) if store is not None else None
    with Progress(TextColumn(command), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console) as prog:
        task = prog.add_task(command, total=None)

        async def go():
            try:
                return await coro_fn(lambda done, total: prog.update(task, completed=done, total=total))
            finally:
                await client.aclose()

        try:
            items, summary = asyncio.run(go())
        except BaseException:
            if run_id is not None:
                store.finish_command(run_id, client.usage_dict(), status="failed")
            raise
    if run_id is not None:
        store.finish_command(run_id, usage_record(summary.usage))
    return items, summary


def _fail_if_nothing(done: int, errors: list, what: str) -> None:
    """Every call failed (an unreachable server, a wrong model name): a user error, not a result.
    Some failures among successes are reported in the summary and retried by a re-run."""
    from qrelkit.errors import BackendError

    if errors and not done:
        raise BackendError(f"nothing was {what}: all {len(errors)} failed, e.g. {errors[0]}")
    if errors:
        console.print(f"[red]{len(errors)} answer(s) could not be {what}[/red] (not written as results; "
                      "a re-run retries them)")


def _print(summary: dict, title: str, as_json: bool) -> None:
    if as_json:
        print_json(summary)
        return
    table = Table(title=title, show_header=False)
    for key, value in summary.items():
        table.add_row(key, f"{value:.4g}" if isinstance(value, float) else str(value))
    console.print(table)


@rag_app.command("generate")
def generate(
    runs: Optional[List[str]] = typer.Option(None, "--runs", help="Runs: files, folders or globs."),
    topics: Optional[Path] = typer.Option(None, "--topics", help="Topics file (default: the workspace's)."),
    docs: Optional[Path] = typer.Option(None, "--docs", help="Documents file (default: the workspace's)."),
    k: int = typer.Option(10, "--k", min=1, help="Passages of each system's top-k given as context."),
    model: str = ModelOpt,
    workspace: Optional[Path] = WorkspaceOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="answers.jsonl to write (default: in the workspace, "
                                       "else ./answers.jsonl)."),
    concurrency: int = ConcurrencyOpt,
    context_tokens: str = typer.Option("auto", "--context-tokens",
                                       help="Token budget shared by the k passages; auto: 1200 for the embedded "
                                       "model, whole passages for a served one."),
    no_cache: bool = NoCacheOpt,
    run_names: str = RunNamesOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Answer every topic from every run's top-k with one generator model (identical contexts: one call)."""
    from qrelkit.llm import make_client
    from qrelkit.rag import agenerate, answer_record, write_jsonl

    with ExitStack() as stack:
        store = _store(stack, workspace)
        run_list, topic_map, lookup = _runs(runs, store, run_names), _topics(topics, store), _docs(stack, docs, store)
        target = out or ((workspace / "answers.jsonl") if workspace is not None else Path("answers.jsonl"))
        client = make_client(model, store=store, concurrency=concurrency, read_cache=not no_cache)
        answers, summary = _run(
            lambda progress: agenerate(run_list, topic_map, lookup, client, k=k, store=store,
                                       concurrency=concurrency, context_tokens=context_tokens, progress=progress),
            client, store, "rag generate", {"model": model, "k": k, "runs": [r.name for r in run_list]},
        )
    _fail_if_nothing(summary.answers, [a.error for a in answers if a.error], "generated")
    write_jsonl(target, (answer_record(a) for a in answers))
    _print({"out": str(target), **summary.as_dict()}, f"rag generate: {summary.answers} answers", as_json)


@rag_app.command("grade")
def grade(
    answers: Optional[Path] = typer.Option(None, "--answers", help="answers.jsonl from `rag generate` "
                                           "(default: the workspace's answers.jsonl)."),
    topics: Optional[Path] = typer.Option(None, "--topics", help="Topics with gold answers (default: the "
                                          "workspace's)."),
    model: str = ModelOpt,
    workspace: Optional[Path] = WorkspaceOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Correctness file to write (default: "
                                       "ANSWERS.graded.jsonl next to the answers); ragalign's --generation."),
    concurrency: int = ConcurrencyOpt,
    no_cache: bool = NoCacheOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Grade each answer against the topics' gold answers: true/false with the grader's reason."""
    from qrelkit.llm import make_client
    from qrelkit.rag import agrade, grade_record, read_answers, write_jsonl

    if answers is None:
        if workspace is None:
            raise UsageError("pass --answers FILE (answers.jsonl from `qrelkit rag generate`)")
        answers = workspace / "answers.jsonl"
    items = read_answers(answers)
    target = out or answers.with_name(answers.name.removesuffix(".jsonl") + ".graded.jsonl")
    with ExitStack() as stack:
        store = _store(stack, workspace)
        topic_map = _topics(topics, store)
        client = make_client(model, store=store, concurrency=concurrency, read_cache=not no_cache)
        grades, summary = _run(
            lambda progress: agrade(items, topic_map, client, store=store, concurrency=concurrency,
                                    progress=progress),
            client, store, "rag grade", {"model": model, "answers": str(answers)},
        )
    _fail_if_nothing(summary.graded, [g.error for g in grades if g.error], "graded")
    write_jsonl(target, (grade_record(g) for g in grades if g.ok))
    if summary.no_gold and not as_json:
        console.print(f"skipped {len(summary.no_gold)} topic(s) without gold answers: "
                      f"{', '.join(summary.no_gold[:10])}{' ...' if len(summary.no_gold) > 10 else ''}")
    _print({"out": str(target), **summary.as_dict()}, f"rag grade: {summary.graded} graded", as_json)
