"""qrelkit's command line: ``qrelkit COMMAND ...``.

Importing this package registers every command group on :data:`app`.
"""
from __future__ import annotations

import importlib
import sys

from qrelkit.cli._app import app, console

# Command groups, one module each; a module that is missing (work in progress)
# must not break the others.
_GROUPS = ("collection", "judging", "annotate", "measure", "jobs")
for _name in _GROUPS:
    try:
        importlib.import_module(f"qrelkit.cli.{_name}")
    except ModuleNotFoundError as e:  # only the group module itself may be absent
        if e.name != f"qrelkit.cli.{_name}":
            raise


def main() -> None:
    """Entry point: run the app, turning user errors into one line and exit 2."""
    from qrelkit.errors import QrelkitError

    try:
        app(standalone_mode=False)
    except QrelkitError as e:
        console.print(f"[bold red]error:[/] {e}", highlight=False, markup=True)
        sys.exit(2)
    except KeyboardInterrupt:
        console.print("interrupted; finished work is saved in the workspace")
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as e:  # click's own usage errors
        import click

        if isinstance(e, click.exceptions.ClickException):
            e.show()
            sys.exit(2)
        if isinstance(e, click.exceptions.Abort):
            sys.exit(1)
        raise
