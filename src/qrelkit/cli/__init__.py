"""qrelkit's command line: ``qrelkit COMMAND ...``.

Importing this package registers every command group on :data:`app`.
"""
from __future__ import annotations

import sys

from qrelkit.cli._app import app, console

# Importing a command group registers its commands; this order is the order of `qrelkit --help`.
# isort: off
from qrelkit.cli import collection, judging, annotate, agree, evaluate, stability, ragalign, report  # noqa: F401, E402
from qrelkit.cli import jobs, narratives, rag  # noqa: F401, E402
from qrelkit.cli import interchange  # noqa: F401, E402
from qrelkit.cli import compare  # noqa: F401, E402
# isort: on

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


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning user errors into one line and exit 2 (3: a model that
    cannot be used), and an interrupt
    (Ctrl-C, SIGTERM) into a line saying how far it got and exit 130."""
    import signal

    from qrelkit.cli.progress import interrupted_message
    from qrelkit.errors import ModelUnavailable, QrelkitError

    args = expand_variadic(list(sys.argv[1:] if argv is None else argv))
    # SIGTERM (a scheduler, `kill`) stops a command the way Ctrl-C does: finished work is kept
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        # standalone mode: click reports its own usage errors (exit 2) and --help; our user
        # errors propagate here and become one line; an interrupt while judging is turned into
        # its message and exit 130 by the judging commands (judging_progress)
        app(args=args, prog_name="qrelkit", standalone_mode=True)
    except QrelkitError as e:
        from qrelkit.cli._shown import shown_text

        console.print(shown_text("error: ", style="bold red") + shown_text(e), highlight=False, soft_wrap=True)
        sys.exit(3 if isinstance(e, ModelUnavailable) else 2)  # 3: a model or server that cannot be used
    except KeyboardInterrupt:
        console.print(interrupted_message(), highlight=False, soft_wrap=True)
        sys.exit(130)
    finally:
        signal.signal(signal.SIGTERM, previous)
