"""qrelkit's command line: ``qrelkit COMMAND ...``.

Each command group lives in its own module and registers its commands on the typer app
(:mod:`qrelkit.cli._app`). A command imports only its own module (:data:`COMMANDS`):
`qrelkit judge` does not import the numpy behind `agree` and `evaluate`, which was a third of
its start-up. ``qrelkit.cli.app`` (what tests and the docs generator drive), ``--help``, no
command and an unknown one import them all, so every listing and error is the full one.
"""
from __future__ import annotations

import sys
from typing import Any

# Every command and command group -> the module that registers it, in the order of
# `qrelkit --help` (commands first, then groups, as typer lists them);
# tests/test_cli_lazy.py checks it against what the modules register.
COMMANDS: dict[str, str] = {
    "init": "collection", "pool": "collection", "holes": "collection", "export": "collection",
    "status": "collection",
    "fill": "jobs", "build": "jobs", "demo": "jobs",
    "judge": "judging", "escalations": "judging", "methods": "judging",
    "agree": "agree", "evaluate": "evaluate", "stability": "stability", "ragalign": "ragalign",
    "report": "report", "import": "interchange", "compare": "compare",
    "sample": "sample", "estimate": "estimate",
    "guard": "guard", "audit": "audit",
    "annotate": "annotate", "simulate": "stability", "narratives": "narratives", "rag": "rag",
}


def _load(names: Any = None) -> Any:
    """The typer app with the modules of ``names`` (default: every command) imported, its
    commands in :data:`COMMANDS` order whatever order their modules were imported in."""
    import importlib

    from qrelkit.cli._app import app

    for module in dict.fromkeys(COMMANDS[n] for n in (COMMANDS if names is None else names)):
        importlib.import_module(f"qrelkit.cli.{module}")
    order = {name: i for i, name in enumerate(COMMANDS)}
    app.registered_commands.sort(key=lambda c: order.get(_name(c), len(order)))
    app.registered_groups.sort(key=lambda g: order.get(g.name or "", len(order)))
    return app


def _name(info: Any) -> str:
    from typer.main import get_command_name

    return info.name or get_command_name(info.callback.__name__)


def __getattr__(name: str) -> Any:
    # ``from qrelkit.cli import app``: the whole command line, every module imported
    if name == "app":
        return _load()
    if name == "console":
        from qrelkit.cli._app import console

        return console
    raise AttributeError(f"module 'qrelkit.cli' has no attribute {name!r}")


# Options that take several values after one flag (`--runs a.run b.run c.run`,
# as a shell glob expands them). click has no variadic options, so argv is
# rewritten to the repeated form (`--runs a.run --runs b.run ...`) first.
VARIADIC = frozenset({"--runs", "--qrels", "--labels", "--assessors", "--measures", "--methods", "--generation",
                      "--budgets", "--models"})


def expand_variadic(argv: list[str]) -> list[str]:
    out: list[str] = []
    current: str | None = None
    for tok in argv:
        if tok.startswith("-") and len(tok) > 1:
            current = tok if tok in VARIADIC else None
            out.append(tok)
            continue
        if current is not None and out and out[-1] != current:
            out.append(current)
        out.append(tok)
    return out


def _quick_exit() -> None:
    """At exit, once the exit handlers registered after this one have run, freeze the objects
    still alive so that the interpreter's teardown does not garbage-collect them: its full
    collections over everything the command imported were most of its exit time (~35 of ~50 ms
    measured for `judge`). Teardown itself still runs, and so do the exit handlers; what the
    freeze skips is finalizing objects only a collection would free (reference cycles), which
    Python never promises at exit anyway. The commands close what they write themselves (the
    store by its ``with``: WAL checkpointed, files closed) before this runs."""
    import atexit
    import gc

    atexit.register(gc.freeze)  # atexit runs handlers in reverse: after those registered later


GC_THRESHOLD = (10_000, 10, 10)


def _fewer_collections() -> None:
    """Collect reference cycles after 10,000 net allocations instead of Python's 700. Nearly all
    of a command's objects are freed by reference counting; what the collector does at 700 is
    scan the same live objects again and again — the modules being imported at start-up, the
    cases in flight while judging (~100 collections, 55–65 ms of a 5,000-case `judge`, against
    ~25 ms at this threshold). Cycles still go, just later; the program itself only (a caller's
    process keeps its own settings)."""
    import gc

    gc.set_threshold(*GC_THRESHOLD)


def _option_error(e) -> None:
    """An error of the command-line framework (an unknown option, a value that is not a number):
    one line, as every user error is, exit 2 (typer drew the usage and a box of several lines)."""
    from qrelkit.cli._app import console
    from qrelkit.cli._shown import shown_text

    if type(e).__name__ != "NoArgsIsHelpError":  # the help is shown already
        ctx = getattr(e, "ctx", None)
        hint = f" (`{ctx.command_path} --help` lists the options)" if ctx is not None else ""
        console.print(shown_text("error: ", style="bold red") + shown_text(e.format_message() + hint),
                      highlight=False, soft_wrap=True)
    sys.exit(e.exit_code)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning user errors into one line and exit 2 (3: a model that
    cannot be used), and an interrupt
    (Ctrl-C, SIGTERM) into a line saying how far it got and exit 130."""
    if argv is None:  # the program itself, not a caller in a longer-lived process (tests)
        _fewer_collections()  # first: the imports below make most of start-up's objects
        _quick_exit()
    import signal

    import typer

    from qrelkit.cli._app import console
    from qrelkit.cli.progress import interrupted_message
    from qrelkit.errors import ModelUnavailable, QrelkitError

    args = expand_variadic(list(sys.argv[1:] if argv is None else argv))
    # a known command imports its own module; anything else (--help, a typo) lists them all
    app = _load([args[0]] if args and args[0] in COMMANDS else None)
    # SIGTERM (a scheduler, `kill`) stops a command the way Ctrl-C does: finished work is kept
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        # standalone mode: click reports its own usage errors (exit 2) and --help; our user
        # errors propagate here and become one line; an interrupt while judging is turned into
        # its message and exit 130 by the judging commands (judging_progress). A group even when
        # the modules imported register one command (typer would make that command the root).
        code = typer.main.get_group(app).main(args=args, prog_name="qrelkit", standalone_mode=False)
        if isinstance(code, int) and code:  # typer.Exit(N) (130 from judging_progress), returned here
            sys.exit(code)
    except typer.core._click.exceptions.ClickException as e:  # a bad option: typer drew a multi-line box
        _option_error(e)
    except typer.core.Abort:  # end of input at a prompt
        sys.exit(1)
    except QrelkitError as e:
        from qrelkit.cli._shown import shown_text

        console.print(shown_text("error: ", style="bold red") + shown_text(e), highlight=False, soft_wrap=True)
        sys.exit(3 if isinstance(e, ModelUnavailable) else 2)  # 3: a model or server that cannot be used
    except KeyboardInterrupt:
        console.print(interrupted_message(), highlight=False, soft_wrap=True)
        sys.exit(130)
    finally:
        signal.signal(signal.SIGTERM, previous)
