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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from qrelkit.cli import _coercion
from qrelkit.cli._shown import SafeConsole, shown
from qrelkit.job import options as _opts

_coercion.install()  # plain option values without pydantic (see the module)

app = typer.Typer(
    name="qrelkit",
    help="Build, complete and audit relevance judgments (qrels) with LLM assessors and people in the loop.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Human-readable output goes to stderr so that stdout stays clean for --json; values from the
# data go through `shown` (qrelkit.cli._shown), and the console escapes control characters anyway.
console = SafeConsole(stderr=True)

WorkspaceOpt = typer.Option(None, "-w", "--workspace", help="Workspace folder (holds qrelkit.sqlite and exports).")
JsonOpt = typer.Option(False, "--json", help="Print exactly one JSON object on stdout instead of tables.")
# Where judging runs (qrelkit.engines); a --ray-* option alone means --engine ray.
EngineOpt = typer.Option(None, "--engine", help="local (default) | ray | ray(address=auto, actors=4, cpus=1, gpus=1).")
RayAddressOpt = typer.Option(None, "--ray-address", help="Ray cluster: auto | ray://host:10001 (default: a local Ray "
                             "started for the command).")
RayActorsOpt = typer.Option(None, "--ray-actors", min=1, help="Ray actors, each holding one loaded model (default 2).")
RayCpusOpt = typer.Option(None, "--ray-cpus", min=0.0, help="CPUs per Ray actor (default 1).")
RayGpusOpt = typer.Option(None, "--ray-gpus", min=0.0, help="GPUs per Ray actor (default 0).")
# one definition with fill's and build's --run-names (the job's option table): every command that reads runs
RunNamesOpt = typer.Option(
    _opts.BY_NAME["run_names"].default, "--run-names",
    help=_opts.BY_NAME["run_names"].help + " A run not named as its file is reported once, on stderr.",
)
AllowEmptyOpt = typer.Option(
    False, "--allow-empty", help="Accept empty qrels and run files (by default an empty one is an error: usually the wrong file)."
)


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
    """Progress on stderr for anything that judges (judge, fill, build, demo), fed by the
    runner's ProgressUpdate callbacks; a bar on a terminal, a line every few seconds elsewhere
    (:mod:`qrelkit.cli.progress`). Its ``stage`` method names a long stage."""
    from qrelkit.cli.progress import interrupted_message, progress_reporter

    try:
        with progress_reporter(console, transient) as reporter:
            yield reporter
    except KeyboardInterrupt:
        # here, not in main(): click would print "Aborted!" and exit 1
        console.print(interrupted_message(), highlight=False, soft_wrap=True)
        raise typer.Exit(130) from None


@contextmanager
def writing(out: Path, folder: bool = False) -> Iterator[None]:
    """Around code that writes ``out`` (a file, or with ``folder`` a folder of
    files): a path of the wrong kind or one that cannot be written becomes one
    line naming it, not a traceback from deep inside the writer."""
    from qrelkit.errors import InputError

    if folder and out.exists() and not out.is_dir():
        raise InputError(out, None, "exists and is not a folder (--out names a folder to write into)")
    if not folder and out.is_dir():
        raise InputError(out, None, "is a folder (--out names the file to write)")
    try:
        yield
    except OSError as e:
        raise InputError(e.filename or out, None, f"cannot write: {e.strerror or e}") from None


def fmt(v: object) -> str:
    """A value in a table cell: 4 decimals for a float, ``-`` for a missing one, anything
    else :func:`shown` (it may come from the data)."""
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4f}"
    return shown(v)


def require_runs(runs: Optional[list[str]], allow_empty: bool = False, run_names: str = "auto",
                 max_depth: Optional[int] = None) -> list:
    """The runs that ``--runs`` names (files, folders, globs), named by ``--run-names`` (their top
    ``max_depth`` only, when given); none named or none found is a user error."""
    from qrelkit.data import read_runs
    from qrelkit.errors import UsageError

    if not runs:
        raise UsageError("pass at least one --runs PATH (file, folder or glob)")
    out = read_runs(list(runs), max_depth=max_depth, allow_empty=allow_empty, by=check_run_names(run_names))
    if not out:
        raise UsageError("no runs found")
    warn_run_names(out, run_names)
    return out


def check_run_names(run_names: str) -> str:
    from qrelkit.data.runs import RUN_NAMES
    from qrelkit.errors import UsageError

    if run_names not in RUN_NAMES:
        raise UsageError(f"--run-names: expected {', '.join(RUN_NAMES)}, got {run_names!r}")
    return run_names


def warn_run_names(runs: list, run_names: str = "auto") -> None:
    """Say once, on stderr, which runs are not named as their files are (:func:`qrelkit.data.runs.name_warning`)."""
    from qrelkit.data.runs import name_warning

    note = name_warning(runs, run_names)
    if note:
        print_warning(note)


def print_warning(note: str) -> None:
    """One warning line on stderr."""
    from rich.text import Text

    console.print(Text("warning: ", style="yellow") + Text(note), highlight=False, soft_wrap=True)
