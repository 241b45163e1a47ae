"""The RCL paper's hybrid-pooling table: two allocations of the people's effort x the assessor prompts.

    python benchmarks/judges.py --experiment hybrid --repeat 10 --measure AP@1000
        [--topics N] [--max-cases M] [--model local | openai:MODEL@URL] [--doc-tokens 400] [--out DIR]

(``benchmarks/judges.py`` hands ``--experiment hybrid --repeat N`` to :func:`main` here.)

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
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

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
    from qrelkit.data import load_qrels, read_runs
    from qrelkit.types import Topic

    topics = {}
    for line in (data / "topics.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip():
            qid, text = line.split("\t", 1)
            topics[qid] = Topic(qid, text.strip())
    nist = dict(load_qrels(data / "qrels.txt").pairs)
    runs = read_runs(str(data / "runs" / "official"), max_depth=1000)
    return topics, nist, runs


def split(runs, nist, allocation: str, seed: int, chosen, max_cases):
    """The pool under ``allocation`` (seeded), the people's cases and the LLM subsample of ``chosen``."""
    from qrelkit.allocation import parse_allocation
    from qrelkit.pool import build_pool

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


def per_query_f1(gold: dict, labels: dict) -> dict[str, float]:
    from sklearn.metrics import f1_score

    by_q: dict[str, tuple[list, list]] = defaultdict(lambda: ([], []))
    for k, lab in labels.items():
        by_q[k[0]][0].append(int(gold[k] >= 2))
        by_q[k[0]][1].append(lab)
    return {q: float(f1_score(t, p, zero_division=0.0)) for q, (t, p) in sorted(by_q.items())}


def execution(a, e: int, data: Path, topics, nist, runs, prepared, ref_sig, chosen, all_topics, out: list):
    """One execution: both allocations x every assessor; appends one record per (allocation, row)."""
    from qrelkit.judging import JudgingJob, run_job

    sys.path.insert(0, str(Path(__file__).parent))
    from judges import significance_mcc

    for allocation in ALLOCATIONS:
        pool, people, sample = split(runs, nist, allocation, e, chosen, a.max_cases)
        gold = {(c.qid, c.docid): nist[(c.qid, c.docid)] for c in sample}
        pool_nist = {(c.qid, c.docid): nist[(c.qid, c.docid)] for c in pool.cases if (c.qid, c.docid) in nist}
        ws = Path(tempfile.mkdtemp(prefix=f"qrelkit-rcl-{e}-"))
        with workspace(ws, topics, nist, people, sample, data / "passages.jsonl") as store:
            for row, spec in assessors(e, a.doc_tokens):
                t0 = time.perf_counter()
                s = run_job(store, JudgingJob(method=spec, model=a.model, task="graded", share="llm",
                                              concurrency=a.concurrency, max_attempts=a.max_attempts))
                js = {(j.qid, j.docid): j for j in store.judgments(method=s.method, model=s.model)}
                labels = {k: js[k].label for k in gold if k in js and js[k].label is not None}
                f1 = per_query_f1(gold, labels)
                hybrid = dict(pool_nist)
                hybrid.update({k: js[k].grade for k in labels})
                mcc, _ = significance_mcc(prepared, nist, hybrid, a.measure, ref_sig, all_topics)
                out.append({"execution": e, "allocation": allocation, "assessor": row, "spec": s.method,
                            "cases": len(gold), "people": len(people), "undecided": len(gold) - len(labels),
                            "per_query_f1": f1, "f1": statistics.fmean(f1.values()) if f1 else None,
                            "mcc": mcc["matthews_corrcoef"], "seconds": time.perf_counter() - t0})
                print(f"  e={e} {allocation:22s} {row:20s} F1={out[-1]['f1']} MCC={out[-1]['mcc']:.3f} "
                      f"({out[-1]['seconds']:.0f}s)", file=sys.stderr)


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
                     "undecided": sum(r["undecided"] for r in rs)})
    return rows


def table(header: dict, rows: list[dict]) -> str:
    def pm(m, s):
        return "-" if m is None else f"{m:.3f} ± {s:.3f}"

    lines = ["# Hybrid pooling, the RCL paper's comparison", "",
             "```", json.dumps(header, indent=1), "```", "",
             "| allocation | assessor | per-query F1 | MCC | executions | cases | people | undecided |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['allocation']} | {r['assessor']} | {pm(r['f1_mean'], r['f1_std'])} | "
                     f"{pm(r['mcc_mean'], r['mcc_std'])} | {r['executions']} | {r['cases']} | {r['people']} | "
                     f"{r['undecided']} |")
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
        ax.boxplot(data, tick_labels=names)
        ax.set_title(alloc)
        ax.tick_params(axis="x", rotation=60)
    axes[0].set_ylabel("per-query F1 (all executions)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(a) -> int:
    from qrelkit.evaluate.significance import pairwise_significance
    from qrelkit.evaluate.systems import evaluate_runs, prepare_runs

    data = a.data or DL19
    if not (data / "runs" / "official").exists():
        print(f"no data at {data} (expected topics.tsv, qrels.txt, passages.jsonl, runs/official/)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    topics, nist, runs = load(data)
    all_topics = sorted({q for q, _ in nist})
    chosen = set(sorted(random.Random(a.seed).sample(all_topics, a.topics))) if a.topics else set(all_topics)
    prepared = prepare_runs(runs)
    ref_ts = evaluate_runs(prepared, nist, [a.measure], topics=all_topics, label="nist")
    ref_sig = pairwise_significance(ref_ts.of(a.measure), ref_ts.systems, test="wilcoxon", correction="bh",
                                    label="nist", measure=a.measure)
    sys.path.insert(0, str(Path(__file__).parent))
    from judges import significance_mcc

    pool, _, _ = split(runs, nist, ALLOCATIONS[0], 0, chosen, a.max_cases)
    pool_nist = {(c.qid, c.docid): nist[(c.qid, c.docid)] for c in pool.cases if (c.qid, c.docid) in nist}
    ceiling, _ = significance_mcc(prepared, nist, pool_nist, a.measure, ref_sig, all_topics)
    print(f"MCC of NIST labels on the whole depth-10 pool (the ceiling): {ceiling['matthews_corrcoef']:.3f}",
          file=sys.stderr)
    records: list = []
    for e in range(a.repeat):
        execution(a, e, data, topics, nist, runs, prepared, ref_sig, chosen, all_topics, records)
    header = {"collection": data.name, "runs": len(runs), "topics": len(chosen), "topics_total": len(all_topics),
              "max_cases_per_topic": a.max_cases, "repeat": a.repeat, "model": a.model, "measure": a.measure,
              "doc_tokens": a.doc_tokens, "significant_pairs_nist": int((ref_sig.decisions != 0).sum()),
              "system_pairs": len(ref_sig.pairs), "mcc_nist_depth10_pool": ceiling["matthews_corrcoef"],
              "seconds": round(time.perf_counter() - t0, 1)}
    rows = summary(records)
    out = Path(a.out or tempfile.mkdtemp(prefix="qrelkit-rcl-"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "hybrid.md").write_text(table(header, rows))
    (out / "hybrid.json").write_text(json.dumps({**header, "rows": rows, "executions": records}, indent=1))
    box_plot(records, out / "hybrid_f1_boxplot.png")
    if a.json:
        print(json.dumps({**header, "rows": rows, "out": str(out)}, indent=2))
    else:
        print(table(header, rows))
        print(f"table, JSON and box plot in {out}")
    return 0
