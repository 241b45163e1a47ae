"""``qrelkit import``: other tools' judgments as a labelled qrels version of the workspace.

Parsing and printing only; the work is in :mod:`qrelkit.interchange.imports`."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from qrelkit.cli._app import JsonOpt, WorkspaceOpt, app, console, print_json, require_workspace
from qrelkit.cli.measure import ThresholdOpt
from qrelkit.errors import UsageError


@app.command("import")
def import_cmd(
    workspace: Optional[Path] = WorkspaceOpt,
    qrels: Optional[Path] = typer.Option(None, "--qrels", help="TREC qrels of another tool or assessor."),
    umbrela: Optional[Path] = typer.Option(None, "--umbrela", help="UMBRELA's JSONL output (one record per pair)."),
    source: Optional[str] = typer.Option(
        None, "--source", help="Name of the version (default: the file's name); stored as method imported:NAME."),
    model: Optional[str] = typer.Option(None, "--model", help="The tool's model, for provenance (UMBRELA: its own)."),
    threshold: str = ThresholdOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Import another tool's judgments as a qrels version (provenance 'imported'): compare it with
    `agree -w`, merge it with `export --method imported:NAME`, evaluate the export."""
    from qrelkit.data.qrels import version_name
    from qrelkit.interchange.imports import import_trec, import_umbrela
    from qrelkit.relevance import resolve_threshold
    from qrelkit.store import Store

    ws = require_workspace(workspace)
    if (qrels is None) == (umbrela is None):
        raise UsageError("pass exactly one of --qrels FILE or --umbrela FILE")
    path = qrels if qrels is not None else umbrela
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    name = source or version_name(str(path))
    with Store.open(ws) as store:
        thr = resolve_threshold(threshold, store.qrels())
        if qrels is not None:
            report = import_trec(store, qrels, name, thr.value, model or "")
        else:
            report = import_umbrela(store, umbrela, name, thr.value, model)
    out = {**report.to_dict(), **thr.to_dict()}
    if as_json:
        print_json(out)
        return
    console.print(f"{report.labels} labels imported as {report.method} from {report.path} "
                  f"({report.errors} undecided, {report.unmatched} unmatched, {report.ambiguous} ambiguous; "
                  f"{report.replaced} replaced); compare with `qrelkit agree -w {ws}`")
