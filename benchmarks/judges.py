"""Measure judging methods against human labels.

    python benchmarks/judges.py --methods likelihood zero-shot debate [--n 200] [--seed 0]
                                [--model local | openai:MODEL@URL] [--data ../shared/data/llmjudge-dev]
    python benchmarks/judges.py --experiment learning [--topics 3] [--max-cases 6] [--measure nDCG@10]
                                [--data ../shared/data/trec-dl-2019] [--methods ...] [--budgets ...]

``--experiment dream-ablations``: DREAM's ablations and consensus persistence (see
``benchmarks/dream.py``).

``--experiment embedded`` runs ``benchmarks/embedded.py`` (the cheap signals and the learned
judge's combination) with the options it takes. ``--experiment audit`` (the default) is described first; ``hybrid``, ``budget``
and ``learning`` (both, in one workspace so the LLM cache is shared) are the
experiments of the judges that learn from people, described after it.

Default sample: a stratified, seeded sample of ``--n`` pairs (equal shares of
grades 0-3 where the collection has enough) from the LLMJudge dev split
(topics.tsv, qrels.txt, passages.jsonl; graded, binary threshold 2). The
sample is judged in audit mode (``share=judged``) in a temporary workspace,
so the LLM cache works across methods (and across runs with ``--workspace``).
``likelihood(threshold=auto)`` is calibrated on a separate seeded sample of
labelled pairs (the workspace also holds ``--calib`` other pairs, excluded
from scoring).

Per method: balanced accuracy, recall of each class (binary, grade >= 2),
escalation ratio, Cohen's kappa (binary, over decided cases), calls/case,
tokens/case, seconds/case and $/case. Escalations and errors are undecided:
they count in the escalation ratio and are left out of the agreement numbers
(with people in the loop they would be labelled by people).

Hybrid pool (``--experiment hybrid``, TREC DL 2019 by default: topics.tsv,
qrels.txt, passages.jsonl, runs/official/*.run.gz): the official runs are
pooled at depth 10; the top 3 of every run is the people's share, labelled
with the NIST qrels (these are the workspace's human labels, which icl,
narrative and confidence learn from); the rest of the pool is the LLM's
share, judged by each method. The LLM share is thousands of pairs, so
``--topics N`` (seeded sample of topics) and ``--max-cases M`` (seeded sample
of each sampled topic's LLM share) subsample it; the output says so. Per
method: balanced accuracy of the labels the method decided (``auto``), of
the subsample's hybrid labels (escalations settled by people, i.e. NIST), the
per-topic F1 of the hybrid labels averaged over topics, and the Matthews
correlation of significance decisions (all run pairs, ``--measure``,
two-sided paired Wilcoxon, Benjamini-Hochberg) between the hybrid qrels and
the NIST qrels over *all* topics, where the hybrid qrels are NIST labels for
the depth-10 pool except the subsample, which gets the method's labels. With
a small subsample the MCC can only move a little; it is there so that a run
on the full LLM share (no ``--topics``/``--max-cases``) reports the real thing.
A reference row gives NIST labels on the whole depth-10 pool.

Budget curve (``--experiment budget``): ``confidence`` at budgets 3.5%,
12.5%, 25% and 50% (``--budgets``) on the same subsample; balanced accuracy
(and plain accuracy) of the auto-labelled cases against the escalation ratio,
and overall with NIST answering the escalations, next to debate's single
point (its consensus cases against its escalations).

The judging and the figures of ``hybrid``, ``budget`` and ``learning`` are ``qrelkit compare``'s:
the LLM-share subsample is a comparison sample (a sample file) in a workspace whose qrels are the
people's share, so learners learn from people and never from the pairs they judge; the budget
curves are compare's; :mod:`qrelkit.compare.hybrid` adds per-topic F1 and the significance MCC.
This script builds the hybrid pool's workspace and prints the tables.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "llmjudge-dev"
DL19 = ROOT.parent / "shared" / "data" / "trec-dl-2019"
HYBRID_METHODS = [
    "zero-shot",
    "icl(k=1)",
    "icl(k=2)",
    "icl(k=3)",
    "narrative",
    "narrative(icl=2)",
    "debate(rounds=1)",
    "debate(rounds=1,narrative=true)",
]
BUDGETS = ["3.5%", "12.5%", "25%", "50%"]


def read_collection(data: Path):
    from qrelkit.data import load_topics, read_qrels

    return load_topics(data / "topics.tsv"), list(read_qrels(data / "qrels.txt")), data / "passages.jsonl"


def stratified(qrels, n: int, seed: int, exclude=frozenset()):
    by_grade = defaultdict(list)
    for q in sorted(qrels, key=lambda q: (q.qid, q.docid)):
        if (q.qid, q.docid) not in exclude:
            by_grade[q.grade].append(q)
    rng = random.Random(seed)
    for v in by_grade.values():
        rng.shuffle(v)
    grades = sorted(by_grade)
    out, i = [], 0
    while len(out) < n and any(by_grade.values()):
        g = grades[i % len(grades)]
        if by_grade[g]:
            out.append(by_grade[g].pop())
        i += 1
    return sorted(out, key=lambda q: (q.qid, q.docid))


def metrics(gold: dict, judged: dict, threshold: int = 2) -> dict:
    from sklearn.metrics import balanced_accuracy_score, cohen_kappa_score

    keys = sorted(gold)
    decided = [k for k in keys if judged.get(k) is not None]
    y = [int(gold[k] >= threshold) for k in decided]
    p = [int(judged[k]) for k in decided]
    out = {"decided": len(decided), "escalation_ratio": 1 - len(decided) / len(keys) if keys else 0.0}
    if decided and len(set(y)) == 2:
        out["balanced_accuracy"] = balanced_accuracy_score(y, p)
        out["recall_rel"] = sum(1 for a, b in zip(y, p) if a and b) / sum(y)
        out["recall_nonrel"] = sum(1 for a, b in zip(y, p) if not a and not b) / (len(y) - sum(y))
        out["cohen_kappa"] = cohen_kappa_score(y, p) if len(set(p)) > 1 else 0.0
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if "embedded" in argv or "--experiment=embedded" in argv:  # its own options: see benchmarks/embedded.py
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import embedded

        return embedded.main([a for a in argv if a not in ("--experiment", "embedded", "--experiment=embedded")])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--experiment", choices=("audit", "hybrid", "budget", "learning", "dream-ablations"), default="audit",
        help="audit: methods on a labelled sample; hybrid / budget / learning (both): see above",
    )
    ap.add_argument("--methods", nargs="+", default=None, help="judge specs (defaults depend on the experiment)")
    ap.add_argument("--topics", type=int, default=None, help="hybrid/budget: sample this many topics")
    ap.add_argument("--max-cases", type=int, default=None, help="hybrid/budget: at most this many LLM-share cases per topic")
    ap.add_argument("--measure", default="nDCG@10", help="hybrid: measure of the significance tests (nDCG@10 or AP@1000)")
    ap.add_argument("--budgets", nargs="+", default=BUDGETS, help="budget: confidence budgets")
    ap.add_argument(
        "--curve", nargs="+",
        default=["confidence(score=likelihood,batch=4,calib=100)", "confidence(score=yesno,batch=4,calib=40)"],
        help="budget: confidence specs without the budget (one curve each; yesno needs top log-probabilities)",
    )
    ap.add_argument("--debate", default="debate(rounds=1)", help="budget: the debate whose single point is shown")
    ap.add_argument("--model", default="local")
    ap.add_argument("--models", nargs="+", default=None, help="dream-ablations: one model spec per agent")
    ap.add_argument("--debate-params", default="", help="dream-ablations: added to every debate spec")
    ap.add_argument("--rounds", type=int, default=5, help="dream-ablations: persistence rounds (stop=never)")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument(
        "--calib", type=int, default=200, help="labelled pairs (outside the sample) for calibration"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--max-attempts", type=int, default=4, help="client attempts per call (retries + 1)")
    ap.add_argument("--data", type=Path, default=None, help="collection folder (default by experiment)")
    ap.add_argument(
        "--workspace", type=Path, default=None, help="keep the workspace (and its LLM cache) here"
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    ap.add_argument("--repeat", type=int, default=None,
                    help="hybrid: the RCL paper's table over this many executions (benchmarks/hybrid_paper.py)")
    ap.add_argument("--doc-tokens", type=int, default=400, help="hybrid --repeat: document/example token budget")
    ap.add_argument("--out", type=Path, default=None, help="hybrid --repeat: folder for the table, JSON and PNG")
    ap.add_argument("--assessors", default=None,
                    help='hybrid --repeat: only these rows, comma-separated (e.g. "RCL,RICL"); rows of earlier '
                         "runs into the same --out are kept")
    ap.add_argument("--first-execution", type=int, default=0,
                    help="hybrid --repeat: run executions from this one on, keeping earlier ones already in --out")
    ap.add_argument("--workers", type=int, default=1,
                    help="hybrid --repeat: processes, one (execution, allocation) each at a time; with the "
                         "embedded model each uses 1 thread (QRELKIT_LOCAL_THREADS overrides)")
    a = ap.parse_args(argv)
    if a.experiment == "hybrid" and a.repeat:
        sys.path.insert(0, str(Path(__file__).parent))
        from hybrid_paper import main as paper_main

        return paper_main(a)
    if a.experiment == "dream-ablations":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import dream

        a.data = a.data or DEFAULT_DATA
        if not (a.data / "qrels.txt").exists():
            print(f"no data at {a.data} (expected topics.tsv, qrels.txt, passages.jsonl)", file=sys.stderr)
            return 2
        return dream.main(a, read_collection, stratified, metrics)
    if a.experiment != "audit":
        return learning_main(a)
    a.methods = a.methods or ["likelihood"]
    a.data = a.data or DEFAULT_DATA

    if not (a.data / "qrels.txt").exists():
        print(f"no data at {a.data} (expected topics.tsv, qrels.txt, passages.jsonl)", file=sys.stderr)
        return 2
    from qrelkit.compare import CompareRequest, Draw, compare
    from qrelkit.data import read_docs
    from qrelkit.store import Store

    topics, qrels, passages = read_collection(a.data)
    sample = stratified(qrels, a.n, a.seed)
    calib = stratified(qrels, a.calib, a.seed + 1, exclude={(q.qid, q.docid) for q in sample})
    wanted = {q.docid for q in sample + calib}
    docs = [d for d in read_docs(passages) if d.docid in wanted]
    ws = a.workspace or Path(tempfile.mkdtemp(prefix="qrelkit-bench-"))
    gold = {(q.qid, q.docid): q.grade for q in sample}
    pairs_file = Path(ws) / "audit-sample.txt"
    rows = []
    with Store.create(ws) as store:
        store.upsert_topics(topics.values())
        store.upsert_docs(docs)
        # the calibration pairs are labelled pairs outside the sample: what learners learn from
        store.upsert_qrels(sample + calib)
        pairs_file.write_text("".join(f"{q} {d}\n" for q, d in sorted(gold)))
        # judged and scored by qrelkit compare (one stored sample, the pipeline, its cache)
        req = CompareRequest(methods=tuple(a.methods), model=a.model, name=f"audit-n{a.n}-seed{a.seed}",
                             draw=Draw(None, "stratified", a.seed, str(pairs_file)), sample_file=pairs_file,
                             concurrency=a.concurrency, max_attempts=a.max_attempts, curve=False)
        out = compare(store, req, gold).to_dict()
        for m in out["methods"]:
            row = {
                "method": m["method"], "canonical": m["canonical"], "model": m["model"], "cases": m["cases"],
                "decided": m["decided"], "escalation_ratio": m["escalation_ratio"],
                "balanced_accuracy": m["balanced_accuracy"],
                "balanced_accuracy_ci": [m["balanced_accuracy_low"], m["balanced_accuracy_high"]],
                "recall_rel": m["recall_relevant"], "recall_nonrel": m["recall_nonrelevant"],
                "cohen_kappa": m["cohen_kappa"], "calls_per_case": m["calls_per_case"],
                "tokens_per_case": m["tokens_per_case"], "seconds_per_case": m["latency_parallel"],
                "usd_per_case": m["usd_per_case"], "errors": m["errors"], "calibration": m["calibration"],
            }
            if m["canonical"].startswith("prefilter"):
                statuses = {(j.qid, j.docid): j.status for j in store.judgments(method=m["canonical"], model=m["model"])}
                rel = [k for k, g in gold.items() if g >= 2]
                row["prefilter_recall"] = sum(statuses.get(k) != "dropped" for k in rel) / max(1, len(rel))
                row["dropped_share"] = sum(statuses.get(k) == "dropped" for k in gold) / max(1, len(gold))
            rows.append({k: v for k, v in row.items() if v is not None or k == "calibration"})
    if a.json:
        print(
            json.dumps(
                {"workspace": str(ws), "n": a.n, "seed": a.seed, "model": a.model, "methods": rows}, indent=2
            )
        )
        return 0
    cols = [
        ("method", "{}"),
        ("balanced_accuracy", "{:.3f}"),
        ("recall_rel", "{:.3f}"),
        ("recall_nonrel", "{:.3f}"),
        ("escalation_ratio", "{:.3f}"),
        ("cohen_kappa", "{:.3f}"),
        ("calls_per_case", "{:.2f}"),
        ("tokens_per_case", "{:.0f}"),
        ("seconds_per_case", "{:.2f}"),
        ("usd_per_case", "{:.5f}"),
    ]
    print(f"model {a.model}, {len(gold)} pairs of {a.data.name} (seed {a.seed}, binary threshold 2)")
    print("| " + " | ".join(c for c, _ in cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(fmt.format(r[c]) if c in r else "-" for c, fmt in cols) + " |")
    for r in rows:
        if "prefilter_recall" in r:
            print(f"{r['method']}: prefilter recall on the sample {r['prefilter_recall']:.3f}, "
                  f"dropped {r['dropped_share']:.3f} of the cases")
    for r in rows:
        if r["calibration"]:
            print(f"{r['method']}: calibration {json.dumps(r['calibration'], sort_keys=True)}")
    print(f"workspace: {ws}")
    return 0


# ---- judges that learn from people: the hybrid pool and the budget curve -----------------------
def load_hybrid(data: Path, n_topics, max_cases, seed: int):
    """Pool the official runs (depth 10, people's share = top 3), and subsample the LLM share."""
    from qrelkit.data import load_qrels, load_topics, read_runs
    from qrelkit.pooling.pool import build_pool

    topics = load_topics(data / "topics.tsv")
    nist = dict(load_qrels(data / "qrels.txt").pairs)
    runs = read_runs(str(data / "runs" / "official"), max_depth=1000)
    pool = build_pool(runs, depth=10, human_depth=3, qrels=nist, topics=sorted({q for q, _ in nist}))
    llm_by_topic = defaultdict(list)
    for c in pool.cases:
        if c.share == "llm":
            llm_by_topic[c.qid].append(c)
    rng = random.Random(seed)
    qids = sorted(llm_by_topic)
    chosen = sorted(rng.sample(qids, n_topics)) if n_topics and n_topics < len(qids) else qids
    sample = []
    for q in chosen:
        cs = sorted(llm_by_topic[q], key=lambda c: c.docid)
        if max_cases and max_cases < len(cs):
            cs = sorted(random.Random(f"{seed}|{q}").sample(cs, max_cases), key=lambda c: c.docid)
        sample.extend(cs)
    people = [c for c in pool.cases if c.share == "people" and c.qid in set(chosen)]
    return topics, nist, runs, pool, chosen, sample, people


def hybrid_workspace(store, topics, nist, sample, people, passages: Path) -> None:
    from qrelkit.data import read_docs
    from qrelkit.types import Case, Qrel

    wanted = {c.docid for c in sample + people}
    docs = [d for d in read_docs(passages) if d.docid in wanted]
    qids = {c.qid for c in sample}
    store.upsert_topics([t for q, t in topics.items() if q in qids])
    store.upsert_docs(docs)
    # the people's share, labelled by NIST, is what people said; the sample is left to the judges
    store.upsert_qrels([Qrel(c.qid, c.docid, nist[(c.qid, c.docid)]) for c in people if (c.qid, c.docid) in nist])
    store.upsert_cases([Case(c.qid, c.docid, "llm", c.best_rank, c.runs, False) for c in sample])
    # the people's share keeps its place in the pool (confidence's pool features read it)
    store.upsert_cases([Case(c.qid, c.docid, "people", c.best_rank, c.runs, True) for c in people])


def learning_main(a) -> int:
    """The hybrid pool and the budget curve, judged and scored by ``qrelkit compare``: the LLM-share
    subsample is the comparison's sample (a sample file), the people's share the labels learners
    learn from; :mod:`qrelkit.compare.hybrid` adds per-topic F1 and the significance MCC."""
    from qrelkit.compare import CompareRequest, Draw, compare
    from qrelkit.compare.hybrid import (
        decided_accuracy,
        decided_labels,
        full_decisions,
        hybrid_figures,
        pool_mcc,
    )
    from qrelkit.compare.methods import at_budget, parse
    from qrelkit.evaluate.systems import prepare_runs
    from qrelkit.store import Store

    data = a.data or DL19
    if not (data / "runs" / "official").exists():
        print(f"no data at {data} (expected topics.tsv, qrels.txt, passages.jsonl, runs/official/)", file=sys.stderr)
        return 2
    t_start = time.perf_counter()
    topics, nist, runs, pool, chosen, sample, people = load_hybrid(data, a.topics, a.max_cases, a.seed)
    gold = {(c.qid, c.docid): nist[(c.qid, c.docid)] for c in sample}
    all_topics = sorted({q for q, _ in nist})
    prepared = prepare_runs(runs)
    pool_nist = {(c.qid, c.docid): nist[(c.qid, c.docid)] for c in pool.cases if (c.qid, c.docid) in nist}
    ref_sig = full_decisions(prepared, nist, all_topics, a.measure)
    llm_share = sum(1 for c in pool.cases if c.share == "llm")
    header = {
        "collection": data.name, "runs": len(runs), "pool": len(pool.cases), "people_share": len(pool.cases) - llm_share,
        "llm_share": llm_share, "topics": len(chosen), "topics_total": len(all_topics),
        "max_cases_per_topic": a.max_cases, "cases": len(sample), "cases_relevant": sum(1 for g in gold.values() if g >= 2),
        "people_labels": len(people), "seed": a.seed, "model": a.model, "measure": a.measure,
        "significant_pairs_nist": int((ref_sig.decisions != 0).sum()), "system_pairs": len(ref_sig.pairs),
    }
    hybrid_methods = list(a.methods or HYBRID_METHODS) if a.experiment in ("hybrid", "learning") else []
    bases = {at_budget(parse(c), a.budgets[0]).canonical: c for c in a.curve} if a.experiment != "hybrid" else {}
    curves = list(bases)
    debate = [a.debate] if a.experiment != "hybrid" else []
    ws = a.workspace or Path(tempfile.mkdtemp(prefix="qrelkit-bench-learning-"))
    with Store.create(ws) as store:
        hybrid_workspace(store, topics, nist, sample, people, data / "passages.jsonl")
        pairs_file = Path(ws) / "hybrid-sample.txt"
        pairs_file.write_text("".join(f"{q} {d}\n" for q, d in sorted(gold)))
        req = CompareRequest(methods=tuple(dict.fromkeys(hybrid_methods + curves + debate)), model=a.model,
                             name=f"hybrid-seed{a.seed}", draw=Draw(None, "stratified", a.seed, str(pairs_file)),
                             sample_file=pairs_file, concurrency=a.concurrency, max_attempts=a.max_attempts,
                             threshold=2, curve=bool(curves), budgets=tuple(a.budgets))
        out = compare(store, req, gold)
        by_method = {m.method: m for m in out.methods}
        rows = []
        for m in hybrid_methods:
            r = by_method[m]
            hf = hybrid_figures(prepared, ref_sig, pool_nist, gold, decided_labels(store, r.canonical, r.model, gold),
                                all_topics, a.measure)
            rows.append({"method": m, "canonical": r.canonical, "cases": r.scores.cases, "decided": r.scores.decided,
                         "escalation_ratio": r.scores.escalation_ratio,
                         "balanced_accuracy_auto": r.scores.balanced_accuracy, **hf.to_dict(),
                         "cohen_kappa": r.scores.cohen_kappa, "calls_per_case": r.cost.calls_per_case,
                         "narrative_calls": r.narrative_calls,
                         "seconds_per_case": r.cost.latency_parallel, "errors": r.scores.errors})
        if rows:
            rows.append({"method": "NIST labels on the whole depth-10 pool (reference)", "cases": len(gold),
                         "decided": len(gold), "escalation_ratio": 0.0, "balanced_accuracy_auto": 1.0,
                         "balanced_accuracy": 1.0, "per_topic_f1": 1.0,
                         "mcc": pool_mcc(prepared, ref_sig, pool_nist, all_topics, a.measure)})
        curve = []
        for cv in out.curves:
            for p in cv.points:
                curve.append({"method": bases.get(cv.method, cv.method), "budget": p.budget, "canonical": p.canonical, "cases": p.scores.cases,
                              "auto": p.scores.decided, "escalation_ratio": p.scores.escalation_ratio,
                              "balanced_accuracy_auto": p.scores.balanced_accuracy,
                              "accuracy_auto": decided_accuracy(gold, decided_labels(store, p.canonical, p.model, gold)),
                              "balanced_accuracy_overall": p.scores.balanced_accuracy_overall,
                              "calls_per_case": p.cost.calls_per_case})
        for d in debate:
            r = by_method[d]
            curve.append({"method": d, "budget": "-", "canonical": r.canonical, "cases": r.scores.cases,
                          "auto": r.scores.decided, "escalation_ratio": r.scores.escalation_ratio,
                          "balanced_accuracy_auto": r.scores.balanced_accuracy,
                          "accuracy_auto": decided_accuracy(gold, decided_labels(store, r.canonical, r.model, gold)),
                          "balanced_accuracy_overall": r.scores.balanced_accuracy_overall,
                          "calls_per_case": r.cost.calls_per_case})
    header["seconds"] = round(time.perf_counter() - t_start, 1)
    if a.json:
        print(json.dumps({**header, "workspace": str(ws), "hybrid": rows, "budget_curve": curve}, indent=2))
        return 0
    print_learning(header, rows, curve, ws)
    return 0


def _f(v, fmt):
    return "-" if v is None else fmt.format(v)


def print_learning(h, rows, curve, ws) -> None:
    sub = (
        f"subsample: {h['topics']} of {h['topics_total']} topics x up to {h['max_cases_per_topic']} LLM-share cases "
        f"per topic = {h['cases']} cases ({h['cases_relevant']} relevant by NIST)"
        if h["cases"] < h["llm_share"] else f"the whole LLM share: {h['cases']} cases"
    )
    print(
        f"model {h['model']}, {h['collection']}: depth-10 pool of {h['runs']} official runs = {h['pool']} pairs "
        f"({h['people_share']} people's share = top 3 of each run, labelled by NIST; {h['llm_share']} LLM share)"
    )
    print(f"{sub}; the judges learn from the {h['people_labels']} people's labels of the sampled topics")
    if rows:
        print()
        print(f"Hybrid pool: labels of the {h['cases']} sampled LLM-share cases vs NIST; MCC of significance "
              f"decisions ({h['measure']}, {h['system_pairs']} run pairs, Wilcoxon + BH; NIST finds "
              f"{h['significant_pairs_nist']} significant) over all {h['topics_total']} topics, NIST labels "
              "outside the subsample")
        cols = [("method", "{}"), ("escalation_ratio", "{:.3f}"), ("balanced_accuracy_auto", "{:.3f}"),
                ("balanced_accuracy", "{:.3f}"), ("per_topic_f1", "{:.3f}"), ("mcc", "{:.4f}"),
                ("calls_per_case", "{:.2f}"), ("narrative_calls", "{}"), ("seconds_per_case", "{:.2f}"),
                ("errors", "{}")]
        print("| " + " | ".join(c for c, _ in cols) + " |")
        print("|" + "---|" * len(cols))
        for r in rows:
            print("| " + " | ".join(_f(r.get(c), fmt) for c, fmt in cols) + " |")
        print("balanced_accuracy_auto: on the cases the method decided; balanced_accuracy and per_topic_f1: "
              "hybrid labels (escalations and errors settled by people = NIST)")
    if curve:
        print()
        print(f"Budget curve: balanced accuracy of auto-labelled cases vs escalation ratio "
              f"(overall: escalations answered by NIST), {h['cases']} cases")
        cols = [("method", "{}"), ("budget", "{}"), ("escalation_ratio", "{:.3f}"), ("auto", "{}"),
                ("balanced_accuracy_auto", "{:.3f}"), ("accuracy_auto", "{:.3f}"),
                ("balanced_accuracy_overall", "{:.3f}"), ("calls_per_case", "{:.2f}")]
        print("| " + " | ".join(c for c, _ in cols) + " |")
        print("|" + "---|" * len(cols))
        for r in curve:
            print("| " + " | ".join(_f(r.get(c), fmt) for c, fmt in cols) + " |")
        print("calls_per_case: a case's calls, counted even when the LLM cache answered them (the budgets share "
              "one set of scores)")
    print(f"wall time {h['seconds']:.0f} s; workspace: {ws}")


if __name__ == "__main__":
    sys.exit(main())
