"""The RCL paper's hybrid-pooling table: two allocations of the people's effort x the assessor prompts.

    python benchmarks/judges.py --experiment hybrid --repeat 10 --measure AP@1000
        [--topics N] [--max-cases M] [--model local | openai:MODEL@URL] [--doc-tokens 400] [--out DIR]
        [--workers W] [--assessors "RCL,RICL"]

(``benchmarks/judges.py`` hands ``--experiment hybrid --repeat N`` to :func:`main` here.)

What is measured is ``qrelkit compare``'s: each assessor judges the execution's LLM-share subsample
as a comparison sample (:func:`qrelkit.compare.compare`, one workspace per execution and
allocation), and per-query F1 and the significance MCC are :mod:`qrelkit.compare.hybrid`'s. This
script only lays out the executions, allocations and rows and writes the table and the box plot.

TREC DL 2019 (``../shared/data/trec-dl-2019``): the official runs pooled at depth 10. The people's
share is allocated by ``depth(k_human=3)`` or ``stratified(rate=0.1)`` (stratified by the NIST
labels — an oracle, which is why it is a simulation) and labelled with the NIST qrels; the
LLM's share is judged by each assessor, always with ``output=label`` (the paper's grammar-
constrained "Relevant"/"Not Relevant") and ``per=document`` examples:

    zero-shot                  zero-shot(output=label)                         (no topic narrative)
    ICL k=1..3                 icl(k=K, per=document, select=random, ...)     examples of any label
    ICL Relevant k=1..3        icl(k=K, per=document, select=relevant, ...)
    RCL                        narrative(output=label, ...)                    induced narrative
    RICL                       narrative(icl=2, output=label, ...)             narrative + examples

Execution ``e`` (of ``--repeat``) uses seed ``e`` for the stratified sample, the LLM-share
subsample and every example draw, so executions differ exactly where the paper's do. Scores per
execution: per-query F1 of the assessor's binary labels (grade >= 2) against NIST on the judged
subsample (undecided cases are left out and counted), and the Matthews correlation between the
significance decisions (two-sided paired Wilcoxon + Benjamini-Hochberg over all run pairs,
``--measure``) under the hybrid qrels and under the NIST qrels. Hybrid qrels: NIST labels on the
depth-10 pool, except the subsample, which gets the assessor's labels. Reported: mean ± std over
executions, and the per-query F1 of every execution as box plots (PNG next to the table).

With the embedded model (2048-token context) use ``--doc-tokens 120`` and a small subsample;
README.md has the full-size command for a served model.

Long runs: every finished row is appended to ``records.jsonl`` in ``--out`` and the table and JSON
are rewritten from it (the box plot after each execution), so a run stopped early keeps what it
finished. ``--workers W`` judges W (execution, allocation) units at once in separate processes; with
the embedded model each gets one llama.cpp thread, which on two shared cores is faster than one
process with two threads (no thread barriers waiting on a descheduled partner; see
:mod:`qrelkit.llm.local`). ``--assessors`` runs only the named rows and keeps the other rows already
in ``--out``: the narrative-free rows and RCL/RICL can be run one after the other into one table
(the subsample depends only on the seed, so both runs judge the same cases).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
DL19 = ROOT.parent / "shared" / "data" / "trec-dl-2019"
ALLOCATIONS = ("depth(k_human=3)", "stratified(rate=0.1)")


def assessors(seed: int, doc_tokens: int) -> list[tuple[str, str]]:
    """(row name, judge spec) of the paper's table, for execution ``seed``."""
    common = f"doc_tokens={doc_tokens},output=label"
    zero = f"zero-shot(narrative=none,{common})"
    icl = f"per=document,example_tokens=doc,seed={seed},{common}"
    rows = [("zero-shot", zero)]
    rows += [(f"ICL k={k}", f"icl(k={k},select=random,{icl})") for k in (1, 2, 3)]
    rows += [(f"ICL Relevant k={k}", f"icl(k={k},select=relevant,{icl})") for k in (1, 2, 3)]
    rows += [("RCL", f"narrative(seed={seed},example_tokens={doc_tokens},{common})"),
             ("RICL", f"narrative(icl=2,seed={seed},example_tokens={doc_tokens},{common})")]
    return rows


def load(data: Path):
    from qrelkit.data import load_qrels, load_topics, read_runs

    topics = load_topics(data / "topics.tsv")
    nist = dict(load_qrels(data / "qrels.txt").pairs)
    runs = read_runs(str(data / "runs" / "official"), max_depth=1000)
    return topics, nist, runs


def split(runs, nist, allocation: str, seed: int, chosen, max_cases):
    """The pool under ``allocation`` (seeded), the people's cases and the LLM subsample of ``chosen``."""
    from qrelkit.pooling.allocation import parse_allocation
    from qrelkit.pooling.pool import build_pool

    spec = parse_allocation(allocation)
    if spec.name == "stratified":
        spec = parse_allocation(f"{allocation.rstrip(')')},seed={seed})")
    pool = build_pool(runs, depth=10, qrels=nist, topics=sorted({q for q, _ in nist}), people=spec, reference=nist)
    people = [c for c in pool.cases if c.share == "people" and c.qid in chosen and (c.qid, c.docid) in nist]
    sample = []
    for q in sorted(chosen):
        cs = sorted((c for c in pool.cases if c.qid == q and c.share == "llm" and (c.qid, c.docid) in nist),
                    key=lambda c: c.docid)
        if max_cases and max_cases < len(cs):
            cs = sorted(random.Random(f"{seed}|{q}").sample(cs, max_cases), key=lambda c: c.docid)
        sample.extend(cs)
    return pool, people, sample


def workspace(path: Path, topics, nist, people, sample, passages: Path):
    from qrelkit.data import read_docs
    from qrelkit.store import Store
    from qrelkit.types import Case, Qrel

    store = Store.create(path)
    wanted = {c.docid for c in sample + people}
    store.upsert_topics([t for q, t in topics.items() if q in {c.qid for c in sample}])
    store.upsert_docs([d for d in read_docs(passages) if d.docid in wanted])
    store.upsert_qrels([Qrel(c.qid, c.docid, nist[(c.qid, c.docid)]) for c in people])
    store.upsert_cases([Case(c.qid, c.docid, "llm", c.best_rank, c.runs, False) for c in sample])
    store.upsert_cases([Case(c.qid, c.docid, "people", c.best_rank, c.runs, True) for c in people])
    return store


class Setup(NamedTuple):
    """What every execution reads: the collection, the chosen topics and NIST's significance decisions."""

    data: Path
    topics: dict
    nist: dict
    runs: dict
    prepared: object
    ref_sig: object
    chosen: set
    all_topics: list


def prepare(a) -> Setup:
    from qrelkit.compare.hybrid import full_decisions
    from qrelkit.evaluate.systems import prepare_runs

    data = a.data or DL19
    topics, nist, runs = load(data)
    all_topics = sorted({q for q, _ in nist})
    chosen = set(sorted(random.Random(a.seed).sample(all_topics, a.topics))) if a.topics else set(all_topics)
    prepared = prepare_runs(runs)
    ref_sig = full_decisions(prepared, nist, all_topics, a.measure)
    return Setup(data, topics, nist, runs, prepared, ref_sig, chosen, all_topics)


def judge_allocation(a, st: Setup, e: int, allocation: str, log: Path, saved=lambda: None) -> None:
    """Execution ``e`` under one allocation: every assessor judges the same subsample in one workspace.
    Each row's record is appended to ``log`` (JSON lines) as it finishes, then ``saved`` is called,
    so a run stopped early leaves every finished row on disk."""
    from qrelkit.compare import CompareRequest, Draw, compare
    from qrelkit.compare.hybrid import decided_labels, hybrid_figures, per_query_f1

    nist = st.nist
    pool, people, sample = split(st.runs, nist, allocation, e, st.chosen, a.max_cases)
    gold = {(c.qid, c.docid): nist[(c.qid, c.docid)] for c in sample}
    pool_nist = {(c.qid, c.docid): nist[(c.qid, c.docid)] for c in pool.cases if (c.qid, c.docid) in nist}
    ws = Path(tempfile.mkdtemp(prefix=f"qrelkit-rcl-{e}-"))
    pairs_file = ws / "sample.txt"
    with workspace(ws, st.topics, nist, people, sample, st.data / "passages.jsonl") as store:
        pairs_file.write_text("".join(f"{q} {d}\n" for q, d in sorted(gold)))
        for row, spec in assessors(e, a.doc_tokens):
            if a.assessors and row not in a.assessors:
                continue
            t0 = time.perf_counter()
            req = CompareRequest(methods=(spec,), model=a.model, name=f"rcl-{e}",
                                 draw=Draw(None, "stratified", e, str(pairs_file)), sample_file=pairs_file,
                                 concurrency=a.concurrency, max_attempts=a.max_attempts, threshold=2, curve=False)
            m = compare(store, req, gold).methods[0]
            decided = decided_labels(store, m.canonical, m.model, gold)
            f1 = per_query_f1(gold, {k: v[0] for k, v in decided.items()})
            hf = hybrid_figures(st.prepared, st.ref_sig, pool_nist, gold, decided, st.all_topics, a.measure)
            r = {"execution": e, "allocation": allocation, "assessor": row, "spec": m.canonical,
                 "cases": len(gold), "people": len(people), "undecided": len(gold) - len(decided),
                 "per_query_f1": f1, "f1": statistics.fmean(f1.values()) if f1 else None,
                 "said_relevant": sum(v[0] for v in decided.values()),
                 "nist_relevant": sum(g >= 2 for g in gold.values()),
                 "mcc": hf.mcc, "seconds": time.perf_counter() - t0, "load": round(os.getloadavg()[0], 2)}
            with log.open("a", encoding="utf-8") as f:
                f.write(json.dumps(r) + "\n")
            print(f"  e={e} {allocation:22s} {row:20s} F1={r['f1']} MCC={r['mcc']:.3f} "
                  f"({r['seconds']:.0f}s, load {r['load']:.1f})", file=sys.stderr, flush=True)
            saved()


def read_records(log: Path) -> list[dict]:
    """The finished rows in table order (execution, allocation, assessor), whatever order workers wrote them."""
    if not log.exists():
        return []
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    names = [n for n, _ in assessors(0, 1)]
    return sorted(rows, key=lambda r: (r["execution"], ALLOCATIONS.index(r["allocation"]), names.index(r["assessor"])))


def keep_others(log: Path, rows, executions: range) -> None:
    """Drop from ``log`` the records this run will write (its ``executions`` x ``rows``, every row
    without ``--assessors``) and keep the others: the narrative-free rows and RCL/RICL, or more
    executions (``--first-execution``), can be run one after the other into one table."""
    kept = [r for r in read_records(log)
            if r["execution"] not in executions or (rows and r["assessor"] not in rows)]
    log.write_text("".join(json.dumps(r) + "\n" for r in kept), encoding="utf-8")


_SETUP: list = []  # a worker process's Setup, loaded by its first unit


def _worker_init() -> None:
    # One llama.cpp thread per worker unless the user says otherwise: two single-thread workers
    # ask for the same two cores as one two-thread process, without its thread barriers.
    os.environ.setdefault("QRELKIT_LOCAL_THREADS", "1")
    os.environ.setdefault("QRELKIT_LOCAL_WORKERS", "1")  # one copy of the model per worker process


def _worker(a, e: int, allocation: str, log: Path) -> None:
    if not _SETUP:
        _SETUP.append(prepare(a))
    judge_allocation(a, _SETUP[0], e, allocation, log)


def run_units(a, st: Setup, log: Path, save_now) -> None:
    """Every (execution, allocation) unit, in this process or spread over ``--workers`` processes."""
    units = [(e, alloc) for e in range(a.first_execution, a.repeat) for alloc in ALLOCATIONS]
    if a.workers <= 1:
        for e, alloc in units:
            judge_allocation(a, st, e, alloc, log, saved=lambda: save_now(False))
            save_now(True)
        return
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(a.workers, mp_context=ctx, initializer=_worker_init) as ex:
        pending = {ex.submit(_worker, a, e, alloc, log) for e, alloc in units}
        while pending:
            done, pending = wait(pending, timeout=60, return_when=FIRST_COMPLETED)
            for f in done:
                f.result()  # a worker's error stops the run here, with its traceback
            save_now(bool(done))


def summary(records: list) -> list[dict]:
    groups: dict[tuple, list] = defaultdict(list)
    for r in records:
        groups[(r["allocation"], r["assessor"])].append(r)

    def ms(vals):
        vals = [v for v in vals if v is not None]
        if not vals:
            return None, None
        return statistics.fmean(vals), (statistics.stdev(vals) if len(vals) > 1 else 0.0)

    rows = []
    for (alloc, row), rs in groups.items():
        f1m, f1s = ms([r["f1"] for r in rs])
        mm, msd = ms([r["mcc"] for r in rs])
        rows.append({"allocation": alloc, "assessor": row, "executions": len(rs), "f1_mean": f1m, "f1_std": f1s,
                     "mcc_mean": mm, "mcc_std": msd, "cases": rs[0]["cases"], "people": rs[0]["people"],
                     "undecided": sum(r["undecided"] for r in rs),
                     "said_relevant": sum(r.get("said_relevant", 0) for r in rs) / max(1, sum(r["cases"] for r in rs)),
                     "nist_relevant": sum(r.get("nist_relevant", 0) for r in rs) / max(1, sum(r["cases"] for r in rs)),
                     "seconds_per_case": sum(r["seconds"] for r in rs) / max(1, sum(r["cases"] for r in rs))})
    return rows


def table(header: dict, rows: list[dict]) -> str:
    def pm(m, s):
        return "-" if m is None else f"{m:.3f} ± {s:.3f}"

    lines = ["# Hybrid pooling, the RCL paper's comparison", "",
             "```", json.dumps(header, indent=1), "```", "",
             "| allocation | assessor | per-query F1 | MCC | executions | cases | people | undecided | "
             "said Relevant | NIST relevant | s/case |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['allocation']} | {r['assessor']} | {pm(r['f1_mean'], r['f1_std'])} | "
                     f"{pm(r['mcc_mean'], r['mcc_std'])} | {r['executions']} | {r['cases']} | {r['people']} | "
                     f"{r['undecided']} | {r['said_relevant']:.0%} | {r['nist_relevant']:.0%} | "
                     f"{r['seconds_per_case']:.1f} |")
    return "\n".join(lines) + "\n"


def box_plot(records: list, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(ALLOCATIONS), figsize=(12, 4.5), sharey=True)
    for ax, alloc in zip(axes, ALLOCATIONS):
        names = list(dict.fromkeys(r["assessor"] for r in records if r["allocation"] == alloc))
        data = [[f for r in records if r["allocation"] == alloc and r["assessor"] == n
                 for f in r["per_query_f1"].values()] for n in names]
        names, data = [n for n, d in zip(names, data) if d], [d for d in data if d]
        if not data:  # nothing decided yet under this allocation: an empty panel, not a crash
            ax.set_title(f"{alloc} (no F1 yet)")
            continue
        ax.boxplot(data, tick_labels=names)
        ax.set_title(alloc)
        ax.tick_params(axis="x", rotation=60)
    axes[0].set_ylabel("per-query F1 (all executions)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def save(out: Path, header: dict, records: list, t0: float, plot: bool) -> None:
    """Write the table, the JSON (every execution's records) and, with ``plot``, the box plot."""
    rows = summary(records)
    header = {**header, "executions_done": len({r["execution"] for r in records}), "rows_done": len(records),
              "seconds": round(time.perf_counter() - t0, 1), "load_end": round(os.getloadavg()[0], 2)}
    (out / "hybrid.md").write_text(table(header, rows))
    (out / "hybrid.json").write_text(json.dumps({**header, "rows": rows, "executions": records}, indent=1))
    if plot and records:
        box_plot(records, out / "hybrid_f1_boxplot.png")


def main(a) -> int:
    names = [n for n, _ in assessors(0, 1)]
    a.assessors = [n.strip() for n in (a.assessors or "").split(",") if n.strip()]
    if set(a.assessors) - set(names):
        print(f"--assessors: unknown {sorted(set(a.assessors) - set(names))}; known: {names}", file=sys.stderr)
        return 2
    data = a.data or DL19
    if not (data / "runs" / "official").exists():
        print(f"no data at {data} (expected topics.tsv, qrels.txt, passages.jsonl, runs/official/)", file=sys.stderr)
        return 2
    t0, load_start = time.perf_counter(), round(os.getloadavg()[0], 2)
    st = prepare(a)
    from qrelkit.compare.hybrid import pool_mcc

    pool, _, _ = split(st.runs, st.nist, ALLOCATIONS[0], 0, st.chosen, a.max_cases)
    pool_nist = {(c.qid, c.docid): st.nist[(c.qid, c.docid)] for c in pool.cases if (c.qid, c.docid) in st.nist}
    ceiling = pool_mcc(st.prepared, st.ref_sig, pool_nist, st.all_topics, a.measure)
    print(f"MCC of NIST labels on the whole depth-10 pool (the ceiling): {ceiling:.3f}", file=sys.stderr)
    header = {"collection": data.name, "runs": len(st.runs), "topics": len(st.chosen),
              "topics_total": len(st.all_topics), "topic_ids": sorted(st.chosen), "max_cases_per_topic": a.max_cases,
              "repeat": a.repeat, "model": a.model, "measure": a.measure, "doc_tokens": a.doc_tokens,
              "workers": a.workers, "this_run_assessors": a.assessors or "all", "significant_pairs_nist": int((st.ref_sig.decisions != 0).sum()),
              "system_pairs": len(st.ref_sig.pairs), "mcc_nist_depth10_pool": ceiling,
              "load_start": load_start}
    out = Path(a.out or tempfile.mkdtemp(prefix="qrelkit-rcl-"))
    out.mkdir(parents=True, exist_ok=True)
    log = out / "records.jsonl"
    keep_others(log, a.assessors, range(a.first_execution, a.repeat))
    run_units(a, st, log, lambda plot: save(out, header, read_records(log), t0, plot))
    save(out, header, read_records(log), t0, plot=True)
    final = json.loads((out / "hybrid.json").read_text())
    if a.json:
        print(json.dumps({**{k: v for k, v in final.items() if k != "executions"}, "out": str(out)}, indent=2))
    else:
        print((out / "hybrid.md").read_text())
        print(f"table, JSON and box plot in {out}")
    return 0 if final["rows"] else 1
