"""``qrelkit compare``: judge one stored sample with several methods and print DREAM's tables.

Parsing and printing only; the work is in :mod:`qrelkit.compare`."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, List, Optional

import typer

from qrelkit.cli._app import JsonOpt, RunNamesOpt, WorkspaceOpt, app, console, judging_progress, print_json


def _table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """A Markdown table on stderr: never cut to the terminal's width, pastes into docs as it is."""
    lines = [f"\n{title}\n", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    console.print("\n".join(lines), soft_wrap=True, highlight=False, markup=False)


def _sig(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.4g}"


def _pct(v: Optional[float]) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def _num(v: Optional[float], digits: int = 3) -> str:
    if v is None:
        return "-"
    return f"{v:.{digits}f}" if v == 0 or abs(v) >= 10 ** -digits else f"{v:.2e}"


@app.command("compare")
def compare_cmd(
    workspace: Optional[Path] = WorkspaceOpt,
    methods: Optional[List[str]] = typer.Option(None, "--methods", help="Judge specs to compare (several after one flag)."),
    preset: Optional[str] = typer.Option(
        None, "--preset", help="A seed paper's experiment with its published figures: dream-table1, dream-rounds, "
        "dream-ablations, dream-persistence, rcl, shelf-life, bridge."),
    model: str = typer.Option("local", "--model", help="Model spec (local, openai:MODEL@URL, ...)."),
    models: Optional[List[str]] = typer.Option(None, "--models", help="dream-ablations: the second model family."),
    adjust: Optional[List[str]] = typer.Option(
        None, "--with", help="Preset: parameters for one method, METHOD:NAME=VALUE,... (e.g. "
        "debate:doc_tokens=300 for a 2,048-token model); repeat per method."),
    reference: Optional[Path] = typer.Option(
        None, "--reference", help="Reference qrels (default: the workspace's original qrels)."),
    sample: Optional[int] = typer.Option(None, "--sample", min=1, help="Pairs to draw (first call; default 200)."),
    sample_file: Optional[Path] = typer.Option(None, "--sample-file", help="The pairs to judge, 'qid docid' a line."),
    draw: Optional[str] = typer.Option(None, "--draw", help="uniform | stratified (default: equal shares per grade)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of the draw and the bootstrap (default 0)."),
    name: str = typer.Option("default", "--name", help="Comparison name: another name draws another sample."),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Cases (and calls) in flight at once."),
    budgets: Optional[List[str]] = typer.Option(None, "--budgets", help="Budget curve points (default 3.5% 12.5% 25% 50%)."),
    no_curve: bool = typer.Option(False, "--no-curve", help="No budget curves for confidence methods."),
    threshold: str = typer.Option("auto", "--threshold", help="Relevant = grade >= THRESHOLD (auto: 1 binary, 2 graded)."),
    max_attempts: Optional[int] = typer.Option(None, "--max-attempts", min=1, help="Client attempts per call."),
    runs: Optional[List[str]] = typer.Option(None, "--runs", help="rcl, shelf-life: the runs whose significance "
                                             "decisions / ranking count."),
    assessors: Optional[List[str]] = typer.Option(None, "--assessors", help="shelf-life: one qrels per secondary "
                                                  "assessor (files, folders or quoted globs)."),
    combination: Optional[Path] = typer.Option(None, "--combination", help="shelf-life: the natural combination, "
                                               "TSV qid<TAB>assessor."),
    new_qrels: Optional[Path] = typer.Option(None, "--new-qrels", help="bridge: the labels hole filling added "
                                             "(or the filled qrels)."),
    generation: Optional[Path] = typer.Option(None, "--generation", help="bridge: generation correctness "
                                              "(qrelkit rag grade's file) for RAGAlign@10; default: the "
                                              "workspace's graded answers."),
    repeat: int = typer.Option(1, "--repeat", min=1, help="rcl: executions of the LLM rows (seed e each), "
                               "reported as mean and standard deviation."),
    topics: Optional[int] = typer.Option(None, "--topics", min=1, help="rcl: judge a seeded subset of N topics "
                                         "(default: every topic of the reference)."),
    per_topic: Optional[int] = typer.Option(None, "--per-topic", min=1, help="rcl: judge a seeded sample of N "
                                            "pairs of each topic's LLM share (default: all of it)."),
    html: Optional[Path] = typer.Option(None, "--html", help="Also write the comparison as a self-contained HTML page."),
    run_names: str = RunNamesOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Which judge, at what escalation budget and cost, on your labelled pairs (one stored sample for all)."""
    from qrelkit.compare import presets as P
    from qrelkit.errors import UsageError

    pre = P.preset(preset) if preset else None
    if pre is not None and pre.name == "rcl":
        from qrelkit.compare.hybrid import HybridRequest

        req = HybridRequest((), model=model, name=name, repeat=repeat, topics=topics, per_topic=per_topic,
                            seed=seed or 0, concurrency=concurrency, max_attempts=max_attempts)
        return _rcl(pre, workspace, (runs, run_names), reference, req, P.parse_adjust(adjust), threshold, html,
                    as_json)
    if pre is not None and pre.name == "bridge":
        from qrelkit.cli.bridge import bridge

        return bridge(pre, workspace, (runs, run_names), reference, new_qrels, generation, model, threshold,
                      seed or 0, concurrency, as_json)
    if pre is not None and pre.name == "shelf-life":
        return _shelf_life(pre, (runs, run_names), reference, assessors, combination, as_json)
    if workspace is None:
        raise UsageError("this command needs a workspace: pass -w/--workspace DIR")
    model2 = models[0] if models else None
    adj = P.parse_adjust(adjust)
    specs = list(methods or []) + ([m for m in pre.methods(model2, adj) if m not in (methods or [])] if pre else [])
    if not specs:
        raise UsageError("pass --methods SPEC ... or --preset NAME")
    out = _run(workspace, specs, model, reference, sample, sample_file, draw, seed, name, concurrency, budgets,
               no_curve, threshold, max_attempts)
    if pre is not None and pre.field == "rounds":
        out["persistence"] = _persistence(workspace, out, P.resolve(pre.method, model2, adj), model)
    if pre is not None:
        from qrelkit.compare.side_by_side import side_by_side

        out["preset"] = _preset_rows(pre, side_by_side(pre, out, model2, adj))
    _show(out, html, as_json, lambda: _print(out))


def _run(workspace, specs, model, reference, sample, sample_file, draw, seed, name, concurrency, budgets,
         no_curve, threshold, max_attempts) -> dict:
    from qrelkit.compare import CompareRequest, Draw, compare
    from qrelkit.compare.methods import BUDGETS
    from qrelkit.relevance import parse_threshold
    from qrelkit.store import Store

    explicit = any(v is not None for v in (sample, sample_file, draw, seed))
    d = Draw(None if sample_file else (sample or 200), draw or "stratified", seed or 0,
             str(sample_file) if sample_file else "reference")
    req = CompareRequest(methods=tuple(specs), model=model, name=name, draw=d, explicit_draw=explicit,
                         sample_file=sample_file, concurrency=concurrency, threshold=parse_threshold(threshold),
                         max_attempts=max_attempts, curve=not no_curve, budgets=tuple(budgets or BUDGETS))
    with Store.open(workspace) as store, judging_progress() as update:
        ref = _reference(store, reference, workspace)
        return compare(store, req, ref, progress=lambda m: update).to_dict()


def _reference(store, reference: Optional[Path], workspace: Path) -> dict:
    from qrelkit.data import load_qrels
    from qrelkit.errors import UsageError

    if reference is not None:
        return dict(load_qrels(str(reference)).pairs)
    ref = store.qrels()
    if not ref:
        raise UsageError(f"{workspace} has no original qrels; pass --reference QRELS")
    return ref


def _persistence(workspace: Path, out: dict, method: str, model: str) -> list[dict]:
    from qrelkit.compare.persistence import persistence_rows
    from qrelkit.store import Store

    with Store.open(workspace) as store:
        return persistence_rows(store, out, method)


def _rcl(pre, workspace, runs, reference, req, adj, threshold: str, html, as_json: bool) -> None:
    """The people-only baselines; with a workspace (topics and documents), the LLM rows on the hybrid pool."""
    import dataclasses
    import time

    from qrelkit.cli._app import require_runs
    from qrelkit.compare.rcl import people_only
    from qrelkit.data import load_qrels
    from qrelkit.errors import UsageError
    from qrelkit.relevance import parse_threshold, resolve_threshold

    if reference is None:
        raise UsageError("--preset rcl needs --reference QRELS (the full qrels) and --runs PATH ...")
    qrels = dict(load_qrels(str(reference)).pairs)
    run_list = require_runs(*runs)  # (--runs, --run-names)
    base = {a: people_only(run_list, qrels, allocation=a) for a in ("depth", "stratified")}
    out = {"preset": None, "runs": len(run_list), "rcl_baseline": {a: b.mcc for a, b in base.items()},
           "baselines": [b.to_dict() for b in base.values()]}
    if workspace is not None:
        from qrelkit.compare.presets import resolve

        thr = resolve_threshold(parse_threshold(threshold), qrels, str(reference)).value
        rows = tuple((r.row, resolve(r.method, None, adj), r.get("allocation")) for r in pre.rows if r.method)
        t0 = time.perf_counter()
        measured = _hybrid(workspace, run_list, qrels, dataclasses.replace(req, rows=rows), thr)
        out["rcl"] = {"model": req.model, "repeat": req.repeat, "topics": req.topics, "per_topic": req.per_topic,
                      "seed": req.seed, "threshold": thr, "seconds": round(time.perf_counter() - t0, 1)}
        out["rcl_rows"] = [m.to_dict() for m in measured]
    _emit_preset(pre, out, as_json, html)


def _hybrid(workspace, runs, qrels, req, threshold: int) -> list:
    import asyncio

    from qrelkit.compare.hybrid import ameasure
    from qrelkit.store import Store

    with Store.open(workspace) as store, judging_progress() as update:
        return asyncio.run(ameasure(store, runs, qrels, req, threshold, update))


def _shelf_life(pre, runs, reference, assessors, combination, as_json: bool) -> None:
    from qrelkit.cli._app import require_runs
    from qrelkit.compare.shelf_life import measure
    from qrelkit.data import load_qrels
    from qrelkit.errors import UsageError
    from qrelkit.evaluate.assessors import read_assessors, read_combination

    if reference is None or not assessors:
        raise UsageError("--preset shelf-life needs --reference QRELS (the primary), --assessors QRELS ... and --runs")
    sources = read_assessors(list(assessors))
    natural = read_combination(str(combination), [n for n, _ in sources]) if combination else None
    run_list = require_runs(*runs)  # (--runs, --run-names)
    out = {"runs": len(run_list), "assessors": [n for n, _ in sources],
           "shelf_life": measure(run_list, dict(load_qrels(str(reference)).pairs), sources, natural)}
    _emit_preset(pre, out, as_json)


def _print(out: dict) -> None:
    d = out["draw"]
    console.print(f"comparison {out['comparison']!r}: {out['cases']} pairs ({out['relevant']} relevant, threshold "
                  f"{out['threshold']}), drawn {d['draw']} seed {d['seed']}; model {out['model']}",
                  soft_wrap=True, highlight=False, markup=False)
    rows = []
    for m in out["methods"]:
        ci = (f" [{_pct(m['balanced_accuracy_low'])}, {_pct(m['balanced_accuracy_high'])}]"
              if m["balanced_accuracy_low"] is not None else "")
        rows.append([m["method"], _pct(m["balanced_accuracy"]) + ci, _pct(m["recall_relevant"]),
                     _pct(m["recall_nonrelevant"]), _pct(m["escalation_ratio"]), _num(m["cohen_kappa"]),
                     _pct(m["balanced_accuracy_overall"])])
    _table("Agreement on the decided cases (DREAM Table 1); bAcc all: every case, escalations answered by the "
           "reference (Table 2)", ["method", "bAcc % [95% CI]", "recall rel %", "recall non %", "escalated %",
                                   "kappa", "bAcc all %"], rows)
    _table("Cost per case (DREAM Table 11)",
           ["method", "calls", "tokens", "$", "latency serial s", "latency parallel s", "concurrency"],
           [[m["method"], _num(m["calls_per_case"], 2), _num(m["tokens_per_case"], 0), _num(m["usd_per_case"], 6),
             _num(m["latency_serial"]), _num(m["latency_parallel"]), str(m["concurrency"] or "-")]
            for m in out["methods"]])
    for cv in out["budget_curves"]:
        _table(f"Budget curve of {cv['method']}", ["budget", "escalated %", "bAcc % (decided)", "bAcc all %"],
               [[p["budget"], _pct(p["escalation_ratio"]), _pct(p["balanced_accuracy"]),
                 _pct(p["balanced_accuracy_overall"])] for p in cv["points"]])
        if cv["target"]:
            where = f"at {cv['matching_budget']}" if cv["matching_budget"] else "at none of these budgets"
            console.print(f"{cv['method']} matches {cv['target']} (bAcc {_pct(cv['target_balanced_accuracy'])} %) "
                          f"{where}", soft_wrap=True, highlight=False, markup=False)
    if out.get("persistence"):
        _table("Consensus by round (DREAM Table 12)",
               ["round", "debates", "consensus %", "persistence %", "spurious %", "bAcc %"],
               [[str(r["round"]), str(r["debates"]), _pct(r["consensus"]), _pct(r["persistence"]),
                 _pct(r["spurious"]), _pct(r["balanced_accuracy"])] for r in out["persistence"]])
    if out.get("preset"):
        _print_preset(out["preset"])


def _preset_rows(pre, rows) -> dict:
    """A preset's measured-beside-published rows as the JSON and the table show them."""
    return {"name": pre.name, "title": pre.title, "paper": pre.paper, "rows": [r.to_dict() for r in rows]}


def _emit_preset(pre, out: dict, as_json: bool, html: Optional[Path] = None) -> None:
    """A measuring preset's output: ``out`` with its rows beside the published ones."""
    from qrelkit.compare.side_by_side import side_by_side

    out["preset"] = _preset_rows(pre, side_by_side(pre, out))
    _show(out, html, as_json, lambda: _print_preset(out["preset"]))


def _show(out: dict, html: Optional[Path], as_json: bool, tables: Callable[[], None]) -> None:
    """The end of every comparison: the page when asked for, then one JSON object or the tables."""
    if html is not None:
        from qrelkit.compare.page import write_page

        write_page(out, html)
        out["html"] = str(html)
    if as_json:
        print_json(out)
        return
    tables()


def _print_rcl(out: dict) -> None:
    h = out["rcl"]
    console.print(f"rcl: model {h['model']}, {h['repeat']} execution(s), topics {h['topics'] or 'all'}, pairs per "
                  f"topic {h['per_topic'] or 'all'}, {h['seconds']} s", soft_wrap=True, highlight=False, markup=False)
    _table("The LLM rows on the hybrid pool (mean ± std over executions)",
           ["allocation", "row", "F1", "MCC", "LLM cases", "people", "undecided", "calls/case", "new calls"],
           [[r["allocation"], r["row"], _pm(r["f1"], r["f1_std"]), _pm(r["mcc"], r["mcc_std"]), str(r["cases"]),
             str(r["people"]), str(r["undecided"]), _num(r["calls_per_case"], 2), str(r["new_calls"])]
            for r in out["rcl_rows"]])


def _pm(v: Optional[float], std: Optional[float]) -> str:
    return _sig(v) if std is None else f"{_sig(v)} ± {_sig(std)}"


def _print_preset(pre: dict) -> None:
    _table(f"{pre['title']} ({pre['paper']})",
           ["table", "row", "figure", "published", "measured", "spec", "source"],
           [[r["table"], r["row"], r["figure"], _sig(r["published"]), _pm(r["measured"], r.get("measured_std")),
             r["method"] or "-", r["source"]] for r in pre["rows"]])
