"""``qrelkit ragalign``: does retrieval success predict generation correctness?

Parsing and printing only; the work is in :mod:`qrelkit.evaluate.ragalign_multi`."""
from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from qrelkit.cli._app import JsonOpt, RunNamesOpt, app, console, fmt, print_json, require_runs
from qrelkit.cli._shown import shown
from qrelkit.cli.measure import RunsOpt, ThresholdOpt, load_versions, threshold_of
from qrelkit.errors import UsageError


@app.command()
def ragalign(
    runs: Optional[List[str]] = RunsOpt,
    qrels: Optional[List[str]] = typer.Option(None, "--qrels", help="Qrels versions (repeat), shown side by side."),
    generation: Optional[List[Path]] = typer.Option(
        None, "--generation", help="Generation correctness, one file per generator (a column each): TSV "
        "system<TAB>qid<TAB>correct(0/1), or JSONL such as `qrelkit rag grade` writes."),
    workspace: Optional[Path] = typer.Option(
        None, "-w", "--workspace", help="Use the graded answers stored in this workspace (and its runs "
        "when no --runs is given)."),
    k: int = typer.Option(10, "--k", min=1, help="Cut-off k of Hit@k, nDCG@k and R@k."),
    threshold: str = ThresholdOpt,
    run_names: str = RunNamesOpt,
    as_json: bool = JsonOpt,
) -> None:
    """RAGAlign@k: does retrieval success predict generation correctness? (per generator and qrels version)"""
    from qrelkit.evaluate.ragalign_multi import rag_align_multi

    t0 = time.perf_counter()
    if not qrels:
        raise UsageError("pass at least one --qrels QRELS")
    gens, run_paths = _generators(list(generation or []), workspace)
    versions = load_versions(list(qrels))
    thr = threshold_of(threshold, versions[0][1], qrels[0])
    res = rag_align_multi(require_runs(list(runs or []) or run_paths, run_names=run_names), versions, gens, k, thr.value)
    first = res[0]
    out = {"k": k, **thr.to_dict(), "generation": first.source,
           "versions": {v.alignment.qrels: v.to_dict() for v in first.versions},
           "generators": {g.generator: g.to_dict() for g in res}, "seconds": round(time.perf_counter() - t0, 3)}
    if as_json:
        print_json(out)
        return
    _ragalign_tables(res, k, thr.describe())


def _generators(files: list[Path], workspace: Optional[Path]) -> tuple[list, list[str]]:
    """Generators from --generation files and/or a workspace's graded answers; the workspace's run paths."""
    from qrelkit.evaluate.ragalign_multi import generators_from_store, read_generator

    gens = [read_generator(str(f)) for f in files]
    run_paths: list[str] = []
    if workspace is not None:
        from qrelkit.store import Store

        with Store.open(workspace) as store:
            gens += list(generators_from_store(store))
            run_paths = [r.path for r in store.runs()]
    if not gens:
        raise UsageError("pass --generation FILE (from `qrelkit rag grade`) or -w WS with graded answers")
    return gens, run_paths


def _ragalign_tables(res: tuple, k: int, threshold: str) -> None:
    several = len(res) > 1
    table = Table(title=f"RAGAlign@{k} (Hit@{k} == generation correct) and point-biserial correlations; "
                        f"{threshold}")
    cols = ("generator",) * several + ("qrels", "system", "queries", "correct", f"Hit@{k}", "RAGAlign",
                                       f"r(nDCG@{k})", f"r(R@{k})")
    for c in cols:
        table.add_column(c, justify="left" if c in ("generator", "qrels", "system") else "right")
    for g in res:
        for gv in g.versions:
            v = gv.alignment
            for a in (v.overall, *v.systems):
                pb = {c.measure: c.r for c in a.pointbiserial}
                table.add_row(*(shown(g.generator),) * several, shown(v.qrels), shown(a.name), str(a.queries), fmt(a.correct_rate),
                              fmt(a.hit_rate), fmt(a.ragalign), fmt(pb.get(f"nDCG@{k}")), fmt(pb.get(f"R@{k}")))
    console.print(table)
    corr = Table(title="Across systems: mean retrieval score vs generation accuracy (Pearson / Spearman)")
    for c in ("generator", "qrels", "systems", *(f"{m}@{k}" for m in ("Success", "nDCG", "R"))):
        corr.add_column(c, justify="left" if c in ("generator", "qrels") else "right")
    for g in res:
        for gv in g.versions:
            cs = gv.correlations
            corr.add_row(shown(g.generator), shown(gv.alignment.qrels), str(cs[0].systems),
                         *(f"{fmt(c.pearson)} / {fmt(c.spearman)}" for c in cs))
    console.print(corr)
