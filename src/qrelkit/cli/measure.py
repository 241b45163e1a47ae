"""What the measuring commands share: their common options and the helpers that read qrels
versions, resolve ``--threshold``, split ``--measures`` and tabulate assessor groups.

The commands themselves live one concept per module: :mod:`qrelkit.cli.agree`,
:mod:`qrelkit.cli.evaluate`, :mod:`qrelkit.cli.stability` (with ``simulate leave-out``),
:mod:`qrelkit.cli.ragalign` and :mod:`qrelkit.cli.report`. Parsing and printing only; the work
is in :mod:`qrelkit.evaluate` and :mod:`qrelkit.report`."""
from __future__ import annotations

from typing import List, Optional

import typer
from rich.table import Table

from qrelkit.cli._app import fmt
from qrelkit.cli._shown import shown
from qrelkit.data.qrels import unique_names as _unique
from qrelkit.data.qrels import version_name as _qrels_name
from qrelkit.specs import split_list

ThresholdOpt = typer.Option(
    "auto", "--threshold",
    help="Grade at or above which a label counts as relevant: auto (1 for binary reference qrels, 2 for graded "
         "ones as in TREC DL) or a number.")
SeedOpt = typer.Option(0, "--seed", help="Seed of every sampling step (bootstrap, orders, samples).")
RunsOpt = typer.Option(None, "--runs", help="Runs: files, folders or globs (repeat --runs for several).")


def load_versions(paths: list[str], allow_empty: bool = False) -> list[tuple[str, dict]]:
    from qrelkit.data import load_qrels

    names = _unique([_qrels_name(p) for p in paths])
    return [(n, dict(load_qrels(p, allow_empty=allow_empty).pairs)) for n, p in zip(names, paths)]


def threshold_of(spec: str, reference, path):
    """``--threshold`` resolved against the reference qrels (see :mod:`qrelkit.relevance`)."""
    from qrelkit.relevance import resolve_threshold

    return resolve_threshold(spec, reference, path)


def split_measures(values: Optional[List[str]]) -> list[str]:
    """Measures from repeated options and/or comma lists (commas inside
    parentheses belong to ir_measures parameters)."""
    return [m for v in values or [] for m in split_list(v)]


def groups_table(groups: list[dict]) -> Table:
    table = Table(title="per assessor group (assessors who judged the same topics)")
    cols = ("topics", "pairs", "fleiss_kappa", "fleiss_kappa_binary", "fleiss_kappa_with_primary",
            "fleiss_kappa_binary_with_primary", "overlap", "overlap_graded")
    table.add_column("group")
    for c in cols:
        table.add_column(c.replace("fleiss_kappa", "κ").replace("_with_primary", " +primary"), justify="right")
    for g in groups:
        table.add_row(shown("+".join(g["members"])), *[fmt(g[c]) for c in cols])
    return table
