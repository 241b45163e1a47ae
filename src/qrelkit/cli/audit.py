"""``qrelkit audit``: how a judge behaves under probes built from the workspace's labelled pairs.

Parsing and printing only; the work is in :mod:`qrelkit.audit`."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

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


def _pct(v: Optional[float]) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def _ci(rate: Optional[float], low: Optional[float], high: Optional[float]) -> str:
    return "-" if rate is None else f"{_pct(rate)} [{_pct(low)}, {_pct(high)}]"


@app.command("audit")
def audit_cmd(
    workspace: Optional[Path] = WorkspaceOpt,
    method: str = typer.Option(..., "--method", help="Judge spec to audit (auto, zero-shot, learned, debate(...), ...)."),
    model: str = typer.Option("local", "--model", help="Model spec (local, openai:MODEL@URL, ...)."),
    pairs: int = typer.Option(50, "--pairs", help="Labelled pairs per class (non-relevant, relevant) each probe alters."),
    seed: int = typer.Option(0, "--seed", help="Seed of the pairs drawn and of the probes' choices."),
    threshold: str = typer.Option("auto", "--threshold", help="Relevant = grade >= THRESHOLD (auto: 1 binary, 2 graded)."),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="Cases (and calls) in flight at once."),
    max_attempts: Optional[int] = typer.Option(None, "--max-attempts", min=1, help="Client attempts per call."),
    as_json: bool = JsonOpt,
) -> None:
    """Stuff query words into non-relevant passages, tell the assessor they are relevant, append off-topic
    text to relevant ones: how often does the judge's label flip? (judged with the guard off)"""
    from qrelkit.audit import AuditRequest, audit
    from qrelkit.relevance import parse_threshold
    from qrelkit.store import Store

    ws = require_workspace(workspace)
    req = AuditRequest(method=method, model=model, pairs=pairs, seed=seed, threshold=parse_threshold(threshold),
                       concurrency=concurrency, max_attempts=max_attempts)
    with Store.open(ws) as store, judging_progress() as update:
        out = audit(store, req, update).to_dict()
    if as_json:
        print_json(out)
        return
    _print(out)


def _print(out: dict) -> None:
    from rich import box
    from rich.table import Table

    console.print(f"audit of {out['method']} on {out['model']} (guard {out['guard']}): {out['pairs']} pairs per "
                  f"class, seed {out['seed']}, threshold {out['threshold']}; {out['cases']} cases, "
                  f"{out['calls']} calls ({out['new_calls']} new, {out['cache_hits']} cached), "
                  f"${out['cost_usd']:.4f}", soft_wrap=True, highlight=False, markup=False)
    t = Table(title="Flips under the probes; before/after: the judge's relevant % on the untouched/altered pairs",
              box=box.SIMPLE_HEAD, title_justify="left")
    for col in ("probe", "n", "flips", "flip % [95% CI]", "before", "after"):
        t.add_column(col, no_wrap=True)
    for p in out["probes"]:
        t.add_row(p["probe"], str(p["decided"]), str(p["flips"]), _ci(p["flip_rate"], p["flip_rate_low"],
                  p["flip_rate_high"]), _pct(p["baseline_relevant"]), _pct(p["probe_relevant"]))
    console.print(t)
