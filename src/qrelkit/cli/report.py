"""``qrelkit report``: the workspace's HTML report and its JSON twin.

Parsing and printing only; the work is in :mod:`qrelkit.report`."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from qrelkit.cli._app import JsonOpt, WorkspaceOpt, app, console, print_json
from qrelkit.cli.measure import SeedOpt, ThresholdOpt


@app.command()
def report(
    workspace: Optional[Path] = WorkspaceOpt,
    out: Path = typer.Option(Path("report.html"), "--out", help="HTML file to write; report.json goes next to it."),
    measure: str = typer.Option("nDCG@10", "--measure", help="Measure that ranks systems."),
    depth: Optional[int] = typer.Option(None, "--depth", min=1, help="Pool depth for holes and saturation "
                                        "(default: the stored job's, else 10)."),
    orders: int = typer.Option(10, "--orders", min=1, help="Random run orders for the saturation curves."),
    saturation_measure: str = typer.Option(
        "Hit@10", "--saturation-measure",
        help="Measure of the saturation panel's marginal contribution: Hit@10 (as BRIDGE), nDCG@10 or P@10."),
    seed: int = SeedOpt,
    threshold: str = ThresholdOpt,
    as_json: bool = JsonOpt,
) -> None:
    """One self-contained HTML report (plots embedded) plus its JSON twin."""
    from qrelkit.cli._app import require_workspace
    from qrelkit.evaluate.saturation import check_growth_measure
    from qrelkit.report import report_from_workspace

    check_growth_measure(saturation_measure)
    ws = require_workspace(workspace)
    files = report_from_workspace(ws, out, measure=measure, depth=depth, orders=orders, seed=seed,
                                  threshold=threshold, saturation_measure=saturation_measure)
    payload = {"html": str(files.html), "json": str(files.json), **files.threshold, "sections": files.sections}
    if as_json:
        print_json(payload)
        return
    table = Table(title=f"wrote {files.html} and {files.json}")
    table.add_column("section")
    table.add_column("content")
    for name, state in files.sections.items():
        table.add_row(name, "shown" if state == "ok" else f"no data: {state}")
    console.print(table)
