"""Commands over the collection itself: init, pool, holes, export, status."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from qrelkit.cli._app import (
    AllowEmptyOpt,
    JsonOpt,
    RunNamesOpt,
    WorkspaceOpt,
    app,
    check_run_names,
    console,
    fmt,
    print_json,
    print_warning,
    require_workspace,
    warn_run_names,
    writing,
)
from qrelkit.cli._shown import shown
from qrelkit.errors import UsageError
from qrelkit.job.options import MAX_DEPTH


def _progress():
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=True,
    )


@app.command()
def init(
    workspace: Optional[Path] = WorkspaceOpt,
    topics: Path = typer.Option(..., "--topics", help="Topics: TSV qid<TAB>text, or JSONL with qid/text/answers/narrative."),
    docs: Path = typer.Option(..., "--docs", help="Docs: JSONL (docid, text, optional title) or TSV; .gz is fine."),
    qrels: Optional[Path] = typer.Option(None, "--qrels", help="Existing qrels (TREC format) to complete or audit."),
    runs: Optional[List[str]] = typer.Option(None, "--runs", help="Runs: files, folders or globs (TREC 6-column, .gz ok)."),
    allow_empty: bool = AllowEmptyOpt,
    run_names: str = RunNamesOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Create (or refresh) a workspace from a collection: topics, docs, qrels, runs.

    Re-running init with the same files changes nothing; with new files it
    upserts, so a workspace can grow (more runs, more docs)."""
    from qrelkit.store import Store
    from qrelkit.workspace import load_collection

    ws = require_workspace(workspace)
    check_run_names(run_names)
    with Store.create(ws) as store, _progress() as prog:
        task = prog.add_task("loading docs", total=None)
        counts = load_collection(
            store, str(topics), str(docs), str(qrels) if qrels else None, list(runs or ()),
            on_docs=lambda n: prog.update(task, completed=n), force=True, allow_empty=allow_empty,
            run_names=run_names, on_warning=print_warning,
        )
    counts.pop("reloaded", None)
    out = {"workspace": str(ws), **counts}
    _emit(out, as_json, "workspace ready")


PoolOpt = typer.Option(
    None, "--pool",
    help="Pooling strategy instead of --depth: depth(k=10), rrf(n=10,k=60), rbp(n=10,p=0.8), combmnz(n=10), "
         "mtf(n=10) (reads by the reference qrels: simulation); any of them with budget=N (pairs over all topics) "
         "instead of n. See docs/pooling.md.")


@app.command()
def pool(
    workspace: Optional[Path] = WorkspaceOpt,
    depth: Optional[int] = typer.Option(None, "--depth", min=1, max=MAX_DEPTH,
                                        help="Pool depth k: each run's top-k per topic [default: 10]."),
    pool_spec: Optional[str] = PoolOpt,
    human_depth: Optional[int] = typer.Option(
        None, "--human-depth", min=0, max=MAX_DEPTH,
        help="Hybrid split: pairs at rank <= this in any run are the people's share (0 = no people's share; 3 is the published default).",
    ),
    people: Optional[str] = typer.Option(
        None, "--people",
        help="People's-share strategy instead of --human-depth: depth(k_human=3), stratified(rate=0.1) "
        "(by the workspace's reference qrels: simulation only), stratified(rate=0.1, by=rank), "
        "sample(size=10%, design=weighted, seed=0, census=0) (a probability sample for `qrelkit estimate`).",
    ),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Also write the case list (qid, docid, share, runs, best rank, judged) to a .tsv or .jsonl file."
    ),
    as_json: bool = JsonOpt,
) -> None:
    """Pool the workspace's runs into cases (holes = pooled pairs without a label)."""
    from qrelkit.pooling import resolve_pool
    from qrelkit.store import Store
    from qrelkit.workspace import pool_workspace

    ws = require_workspace(workspace)
    spec = str(resolve_pool(pool_spec, depth))
    with Store.open(ws) as store:
        counts = pool_workspace(store, human_depth=human_depth, people=people, pool=spec)
        if out is not None:
            from qrelkit.data.cases import write_cases

            counts["cases_file"] = str(out)
            write_cases(out, store.cases())
    out = counts
    no_text = out["no_text"]
    if no_text:
        console.print(f"[yellow]{no_text} pooled docs have no text in the workspace; they cannot be judged[/]")
    if out.get("runs_missing"):
        console.print(f"[yellow]{len(out['runs_missing'])} run files are gone; the stored pool is kept "
                      f"(pass --runs again to a job to point the workspace at them)[/]")
    _emit(out, as_json, "pool")


@app.command()
def holes(
    workspace: Optional[Path] = WorkspaceOpt,
    runs: Optional[List[str]] = typer.Option(None, "--runs", help="Runs (files, folders, globs); default: the workspace's."),
    qrels: Optional[Path] = typer.Option(None, "--qrels", help="Qrels; default: the workspace's original qrels."),
    depth: int = typer.Option(10, "--depth", min=1, help="Cut-off k for Judged@k / Unjudged@k / Hole@k."),
    pool_spec: Optional[str] = typer.Option(
        None, "--pool", help="Count the pool of this strategy (see `qrelkit pool --help`) instead of depth(k=DEPTH); "
                             "with --saturation only depth(k=K) (a fused pool is not monotone in the runs)."),
    new_qrels: Optional[Path] = typer.Option(
        None, "--new-qrels",
        help="Completed qrels: also report Hole@k, the detected holes (unlabelled before, relevant now) ÷ k; "
             "default with -w: the workspace's merged labels."),
    saturation: bool = typer.Option(False, "--saturation", help="Also measure pool growth over random run orders."),
    orders: int = typer.Option(10, "--orders", min=1, help="Random run orders for --saturation."),
    seed: int = typer.Option(0, "--seed", help="Seed for --saturation orders."),
    measure: str = typer.Option("Hit@10", "--measure", help="Marginal contribution measure: Hit@10 or nDCG@10."),
    threshold: str = typer.Option(
        "auto", "--threshold", help="Grade at or above which a label is relevant: auto (1 for binary qrels, 2 for "
                                    "graded) or a number."),
    allow_empty: bool = AllowEmptyOpt,
    run_names: str = RunNamesOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Per-run Judged@k and Unjudged@k, the unlabelled pooled pairs, and with new labels Hole@k."""
    from qrelkit.evaluate.holes import holes_report
    from qrelkit.relevance import resolve_threshold

    if workspace is None and (not runs or qrels is None):
        raise UsageError("pass -w/--workspace, or both --runs and --qrels")
    run_list, qrel_pairs, new_pairs = _holes_inputs(workspace, runs, qrels, new_qrels, allow_empty,
                                                    check_run_names(run_names))
    if not run_list:
        raise UsageError("no runs to measure")
    thr = resolve_threshold(threshold, qrel_pairs, qrels or f"{workspace} (original qrels)")
    report = {**thr.to_dict(), **holes_report(run_list, qrel_pairs, depth, new_pairs, thr.value)}
    pool_depth = depth
    if pool_spec is not None:
        from qrelkit.pooling import holes_pool

        pool_depth, counts = holes_pool(pool_spec, run_list, qrel_pairs, thr.value, saturation)
        report.update(counts)
    if saturation:
        from qrelkit.evaluate.saturation import pool_growth

        if new_pairs is None:
            raise UsageError("--saturation counts newly identified holes: pass --new-qrels QRELS or -w with judgments")
        report["saturation"] = pool_growth(run_list, qrel_pairs, new_pairs, depth=pool_depth, orders=orders,
                                           seed=seed, threshold=thr.value, measure=measure).to_dict()
    if as_json:
        print_json(report)
        return
    pooled_by = f"pool {report['pool']}" if "pool" in report else f"at depth {depth}"
    table = Table(title=f"holes {pooled_by}: {report['holes']} of {report['pooled']} pooled pairs unjudged; "
                        f"{thr.describe()}")
    table.add_column("run")
    cols = sorted({k for v in report["runs"].values() for k in v})
    for col in cols:
        table.add_column(col, justify="right")
    for name, vals in sorted(report["runs"].items()):
        table.add_row(shown(name), *[fmt(vals.get(c)) for c in cols])
    console.print(table)
    if "note" in report:
        console.print(report["note"])
    if "saturation" in report:
        _print_saturation(report["saturation"])


def _print_saturation(sat: dict) -> None:
    """Growth rate and marginal contribution per retriever added (BRIDGE Figure 3)."""
    g = sat["growth"]
    table = Table(title=f"pool saturation: {sat['holes']} detected holes, {sat['orders']} random orders "
                        f"(seed {sat['seed']})")
    for c in ("retrievers (t)", "growth rate", "found so far", f"marginal contribution ({sat['measure']})"):
        table.add_column(c, justify="right")
    for t, rate, found, mc in zip(g["runs_added"], g["growth_rate"], g["found_fraction"], g["marginal_contribution"]):
        table.add_row(str(t), fmt(rate), fmt(found), f"{mc:+.4f}")
    console.print(table)


def _holes_inputs(workspace, runs, qrels, new_qrels, allow_empty: bool = False, run_names: str = "auto"):
    """Runs, original qrels and new labels (or None) from files, else from the workspace
    (its runs under the names they were given at init)."""
    from dataclasses import replace

    from qrelkit.data import load_qrels, read_runs

    with console.status("reading runs and qrels"):
        run_list = read_runs(list(runs), allow_empty=allow_empty, by=run_names) if runs else None
    if run_list is not None:
        warn_run_names(run_list, run_names)
    with console.status("reading qrels"):
        qrel_pairs = dict(load_qrels(str(qrels), allow_empty=allow_empty).pairs) if qrels else None
        new_pairs = dict(load_qrels(str(new_qrels), allow_empty=allow_empty).pairs) if new_qrels else None
    if workspace is not None and (run_list is None or qrel_pairs is None or new_pairs is None):
        from qrelkit.merge import merge
        from qrelkit.store import Store

        with Store.open(workspace) as store:
            if run_list is None:
                from qrelkit.workspace import stored_run_paths

                stored = store.runs()
                read = read_runs(stored_run_paths(store), allow_empty=True)  # accepted when loaded
                run_list = [replace(r, name=n) for r, (n, _, _) in zip(read, stored)]
            if qrel_pairs is None:
                qrel_pairs = store.qrels()
            if new_pairs is None and store.judgments():
                new_pairs = {(m.qid, m.docid): m.grade for m in merge(store).labels}
    return run_list, qrel_pairs, new_pairs


@app.command()
def export(
    workspace: Optional[Path] = WorkspaceOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Merged qrels to write; provenance goes to OUT.provenance.jsonl."),
    method: Optional[str] = typer.Option(None, "--method", help="Which judge's labels to merge (default: the latest); "
                                                               "imported:NAME for an imported version."),
    model: Optional[str] = typer.Option(None, "--model", help="Which model's labels, when a method ran with several."),
    fmt: str = typer.Option("trec", "--format", help="trec | ir_measures (query_id, doc_id, relevance) | pyterrier "
                                                     "(qid, docno, label): a table, CSV when OUT ends in .csv, else TSV."),
    lara: Optional[Path] = typer.Option(None, "--lara", help="Also write the confidence judge's probabilities in "
                                                            "LARA's CSV (topic_id, doc_id, annotation, prob_yes, prob_no)."),
    as_json: bool = JsonOpt,
) -> None:
    """Write the merged qrels: original labels, then people's, then the judge's."""
    from qrelkit.interchange.columns import FORMATS
    from qrelkit.interchange.imports import is_imported
    from qrelkit.merge import export_merged
    from qrelkit.store import Store

    ws = require_workspace(workspace)
    if out is None and lara is None:
        raise UsageError("pass --out QRELS (and/or --lara FILE)")
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: choose from {', '.join(FORMATS)}")
    payload: dict = {}
    with Store.open(ws) as store:
        if model is not None:
            from qrelkit.llm import canonical_model_id

            model = canonical_model_id(model)
        if method is not None and not is_imported(method):
            from qrelkit.judges.spec import method_filter

            method = method_filter(method, store.models_of)
        if out is not None:
            with writing(out):
                payload = export_merged(store, out, method=method, model=model, fmt=fmt)
        if lara is not None:
            from qrelkit.interchange.lara import export_lara

            with writing(lara):
                lara_method = method if method is not None and method.startswith("confidence") else None
                payload = {**payload, "lara": export_lara(store, lara, lara_method, model)}
    _emit(payload, as_json, "export")


@app.command()
def status(
    workspace: Optional[Path] = WorkspaceOpt,
    missing_text: bool = typer.Option(False, "--missing-text", help="List the pooled pairs whose document has "
                                      "no text in the workspace (they are never judged)."),
    as_json: bool = JsonOpt,
) -> None:
    """Where a workspace stands: collection size, cases pending per step, escalations, cost so far."""
    from qrelkit.status import workspace_status
    from qrelkit.store import Store

    ws = require_workspace(workspace)
    with Store.open(ws, loading_ok=True) as store:
        if missing_text:
            pairs = store.pairs_without_text()
            if as_json:
                print_json({"missing_text": [list(p) for p in pairs], "count": len(pairs)})
                return
            for qid, docid in pairs:
                sys.stdout.write(f"{qid}\t{docid}\n")
            console.print(f"{len(pairs)} pooled pairs have no document text in {ws} (qid, docid on stdout); "
                          "add their documents with `qrelkit init ... --docs FILE` to have them judged")
            return
        st = workspace_status(store)
    if as_json:
        print_json(st)
        return
    if st["load"]["message"]:
        console.print(f"[bold yellow]{st['load']['message']}[/]")
    table = Table(title=f"workspace {ws}", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    for key, value in _flatten(st):
        table.add_row(shown(key), fmt(value))
    console.print(table)
    console.print("cases.holes: pooled pairs without an original label (what Unjudged@k counts); Hole@k, the "
                  f"holes new labels find relevant, is in `qrelkit holes -w {ws}`")


def _flatten(d: dict, prefix: str = ""):
    for k, v in d.items():
        if isinstance(v, dict):
            yield from _flatten(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}", v


def _emit(payload: dict, as_json: bool, title: str) -> None:
    if as_json:
        print_json(payload)
        return
    table = Table(title=title, show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    for key, value in _flatten(payload):
        table.add_row(key, fmt(value))
    console.print(table)
