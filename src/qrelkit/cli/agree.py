"""``qrelkit agree``: agreement of labels with a reference and among assessors.

Parsing and printing only; the work is in :mod:`qrelkit.evaluate.agreement` and
:mod:`qrelkit.evaluate.persistence` (``--by-round``)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from qrelkit.cli._app import JsonOpt, WorkspaceOpt, app, console, fmt, print_json
from qrelkit.cli._shown import shown
from qrelkit.cli.measure import ThresholdOpt, groups_table, threshold_of
from qrelkit.data.qrels import unique_names as _unique
from qrelkit.data.qrels import version_name as _qrels_name
from qrelkit.errors import UsageError


@app.command()
def agree(
    reference: Optional[Path] = typer.Option(None, "--reference", help="Reference qrels (e.g. the NIST qrels)."),
    labels: Optional[List[str]] = typer.Option(None, "--labels", help="Qrels to compare (repeat for several assessors)."),
    workspace: Optional[Path] = WorkspaceOpt,
    threshold: str = ThresholdOpt,
    assessor_column: bool = typer.Option(
        False, "--assessor-column",
        help="The --labels file holds several assessors: its second column (normally 0) names the assessor.",
    ),
    by_round: bool = typer.Option(
        False, "--by-round",
        help="With -w: per debate round, consensus share, persistence of round-1 consensus, spurious consensus "
             "rate, bAcc and recall per class of consensus labels (run the debate with stop=never).",
    ),
    as_json: bool = JsonOpt,
) -> None:
    """Agreement of labels with a reference (kappa, alpha, balanced accuracy, ...) and among assessors (Fleiss)."""
    from qrelkit.data import load_qrels
    from qrelkit.evaluate.agreement import compare_labels, multi_assessor
    from qrelkit.evaluate.judge_agreement import judgments_agreement

    if not labels and workspace is None:
        raise UsageError("pass --labels QRELS (one or more) or -w/--workspace DIR")
    t0 = time.perf_counter()
    ref_pairs = dict(load_qrels(str(reference)).pairs) if reference else None
    out: dict = {"reference": str(reference) if reference else None}
    results: list[dict] = []
    sources = _sources(labels or [], assessor_column)
    if workspace is not None:
        from qrelkit.store import Store

        with Store.open(workspace) as store:
            if ref_pairs is None:
                ref_pairs = store.qrels()
                out["reference"] = f"{workspace} (original qrels)"
                if not ref_pairs:
                    raise UsageError(f"{workspace} has no original qrels; pass --reference QRELS")
            judgments = store.judgments()
        if not judgments:
            raise UsageError(f"{workspace} has no judgments yet; run `qrelkit judge -w {workspace} ...` first")
    if ref_pairs is None and len(sources) < 2:
        raise UsageError("pass --reference QRELS, or at least two --labels files to measure assessor agreement")
    thr = threshold_of(threshold, ref_pairs if ref_pairs is not None else sources[0][1],
                     out["reference"] if ref_pairs is not None else labels[0])
    out.update(thr.to_dict())
    threshold = thr.value
    if workspace is not None and by_round:
        out["by_round"] = _by_round(judgments, ref_pairs, threshold, workspace)
    elif workspace is not None:
        results.extend(j.to_dict() for j in judgments_agreement(judgments, ref_pairs, threshold))
    if ref_pairs is not None:
        results.extend(compare_labels(ref_pairs, s, threshold, name=n).to_dict() for n, s in sources)
    out["results"] = results
    if len(results) == 1:  # one comparison: its figures at the top level too
        out.update({k: v for k, v in results[0].items() if k not in out})
    if len(sources) >= 2:
        out["assessors"] = multi_assessor(sources, threshold, ref_pairs).to_dict()
    out["seconds"] = round(time.perf_counter() - t0, 3)
    if as_json:
        print_json(out)
        return
    if "by_round" in out:
        _print_by_round(out["by_round"], out["reference"], thr.describe())
    if results:
        _print_agreement(results, out["reference"], thr.describe())
    if "assessors" in out:
        _print_assessors(out["assessors"])


def _sources(labels: List[str], assessor_column: bool) -> list[tuple[str, dict]]:
    """(assessor name, pairs) of every ``--labels`` file (or every assessor of its second column),
    names made unique."""
    from qrelkit.data import load_qrels
    from qrelkit.evaluate.assessors import read_assessor_column

    sources: list[tuple[str, dict]] = []
    for path in labels:
        if assessor_column:
            sources.extend(read_assessor_column(path))
        else:
            sources.append((_qrels_name(path), dict(load_qrels(path).pairs)))
    names = _unique([n for n, _ in sources])
    return [(n, s) for n, (_, s) in zip(names, sources)]


def _by_round(judgments: list, ref_pairs: dict, threshold: int, workspace: Path) -> dict:
    from qrelkit.evaluate.persistence import by_round, debates_by_method

    debates = debates_by_method(judgments)
    if not debates:
        raise UsageError(f"{workspace} has no debate judgments; --by-round reads debate histories")
    return {m: [r.to_dict() for r in by_round(d, ref_pairs, threshold)] for m, d in debates.items()}


def _print_by_round(tables: dict, reference: str, relevant: str) -> None:
    cols = ["debates", "consensus", "persistence", "spurious", "balanced_accuracy", "recall_relevant",
            "recall_nonrelevant"]
    for method, rows in tables.items():
        table = Table(title=f"{method}: consensus by round vs {reference} ({relevant})")
        table.add_column("round")
        for c in cols:
            table.add_column(c.replace("_", " "), justify="right")
        for r in rows:
            table.add_row(str(r["round"]), *("-" if r[c] is None else f"{r[c]:.3f}" if isinstance(r[c], float)
                                             else str(r[c]) for c in cols))
        console.print(table)


def _print_agreement(results: list[dict], reference: str, relevant: str) -> None:
    cols = ["pairs", "accuracy", "balanced_accuracy", "recall_relevant", "recall_nonrelevant", "precision", "f1",
            "cohen_kappa", "cohen_kappa_graded", "cohen_kappa_linear", "krippendorff_alpha", "per_topic_f1"]
    # a judge's headline first (DREAM): balanced accuracy on its decided cases next to its escalation ratio
    head = [c for c in ("decided_balanced_accuracy", "escalation_ratio") if any(c in r for r in results)]
    extra = [c for c in ("auto_accuracy",) if any(c in r for r in results)]
    table = Table(title=f"agreement with {reference} ({relevant})")
    table.add_column("measure")
    for r in results:
        table.add_column(shown(r["name"]), justify="right", overflow="fold")
    for c in head + cols + extra:
        table.add_row(c, *[fmt(r.get(c)) for r in results])
    console.print(table)
    for r in results:
        for rnd, v in (r.get("by_round") or {}).items():
            console.print(f"{r['name']}: consensus in round {rnd}: balanced accuracy {fmt(v['balanced_accuracy'])} "
                          f"on {v['pairs']} decided pairs ({fmt(v['decided_share'])} of its cases)")
        cm = r["confusion_matrix"]["matrix"]
        console.print(f"{r['name']}: confusion (rows reference, cols labels; non-rel, rel) = {cm}")


def _print_assessors(a: dict) -> None:
    console.print(
        f"assessors: Fleiss' kappa graded {fmt(a['fleiss_kappa'])}, binary {fmt(a['fleiss_kappa_binary'])} "
        f"over {a['fleiss_pairs']} pairs with {a['raters_per_pair']} raters each; overlap {fmt(a['overlap'])}, "
        f"graded overlap {fmt(a['overlap_graded'])}"
    )
    table = Table(title="pairwise assessor agreement")
    for c in ("a", "b", "pairs", "cohen_kappa", "cohen_kappa_graded", "overlap", "overlap_graded"):
        table.add_column(c, justify="right" if c not in ("a", "b") else "left")
    for p in a["pairwise"]:
        if p["pairs"]:
            table.add_row(shown(p["a"]), shown(p["b"]), str(p["pairs"]), *[fmt(p[c]) for c in (
                "cohen_kappa", "cohen_kappa_graded", "overlap", "overlap_graded")])
    console.print(table)
    if a["groups"]:
        console.print(groups_table(a["groups"]))
