"""The typer application and the conventions every command shares.

Commands live in sibling modules by command group and register themselves on
``app``; they parse, call library functions and print, nothing more.
Conventions (see DESIGN.md's command-line contract):
- ``--json`` prints exactly one JSON object on stdout; tables go to stderr.
- user errors (:class:`qrelkit.errors.QrelkitError`) print one line, exit 2.
"""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import typer
from rich.console import Console

app = typer.Typer(
    name="qrelkit",
    help="Build, complete and audit relevance judgments (qrels) with LLM assessors and people in the loop.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Human-readable output goes to stderr so that stdout stays clean for --json.
console = Console(stderr=True)

WorkspaceOpt = typer.Option(None, "-w", "--workspace", help="Workspace folder (holds qrelkit.sqlite and exports).")
JsonOpt = typer.Option(False, "--json", help="Print exactly one JSON object on stdout instead of tables.")


def print_json(obj: Any) -> None:
    """The single JSON object of a --json command, on stdout."""
    sys.stdout.write(json.dumps(obj, indent=2, sort_keys=False, default=_json_default) + "\n")
    sys.stdout.flush()


def _json_default(o: Any) -> Any:
    if hasattr(o, "item"):  # numpy scalars
        return o.item()
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def require_workspace(workspace: Optional[Path]) -> Path:
    from qrelkit.errors import UsageError

    if workspace is None:
        raise UsageError("this command needs a workspace: pass -w/--workspace DIR")
    return workspace


@contextmanager
def judging_progress(transient: bool = False) -> Iterator[Callable[[Any], None]]:
    """A progress bar on stderr for anything that judges (judge, fill, build, demo), fed by the
    runner's ProgressUpdate callbacks: cases done, calls (cached), tokens, cost, escalations (errors)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[info]}"), console=console, transient=transient) as prog:
        task = prog.add_task("judging", total=None, info="")

        def update(p: Any) -> None:
            info = (
                f"calls {p.calls} (cached {p.cache_hits}) · tokens {p.prompt_tokens}+{p.completion_tokens}"
                f" · ${p.cost_usd:.4f} · escalations {p.escalations} (errors {p.errors})"
            )
            prog.update(task, total=p.total, completed=p.done, info=info)

        yield update
