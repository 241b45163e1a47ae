"""Measure judging methods against human labels.

    python benchmarks/judges.py --methods likelihood zero-shot debate [--n 200] [--seed 0]
                                [--model local | openai:MODEL@URL] [--data ../shared/data/llmjudge-dev]

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


def read_collection(data: Path):
    from qrelkit.types import Qrel, Topic

    topics = {}
    for line in (data / "topics.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip():
            qid, text = line.split("\t", 1)
            topics[qid] = Topic(qid, text.strip())
    qrels = []
    for line in (data / "qrels.txt").read_text().splitlines():
        if line.strip():
            q, _, d, g = line.split()
            qrels.append(Qrel(q, d, int(g)))
    return topics, qrels, data / "passages.jsonl"


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
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--methods", nargs="+", default=["likelihood"])
    ap.add_argument("--model", default="local")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument(
        "--calib", type=int, default=200, help="labelled pairs (outside the sample) for calibration"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--max-attempts", type=int, default=4, help="client attempts per call (retries + 1)")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument(
        "--workspace", type=Path, default=None, help="keep the workspace (and its LLM cache) here"
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    a = ap.parse_args(argv)

    if not (a.data / "qrels.txt").exists():
        print(f"no data at {a.data} (expected topics.tsv, qrels.txt, passages.jsonl)", file=sys.stderr)
        return 2
    from qrelkit.judges import parse_spec
    from qrelkit.judges.runner import run_judging
    from qrelkit.llm import make_client
    from qrelkit.store import Store
    from qrelkit.types import Case, Doc

    topics, qrels, passages = read_collection(a.data)
    sample = stratified(qrels, a.n, a.seed)
    calib = stratified(qrels, a.calib, a.seed + 1, exclude={(q.qid, q.docid) for q in sample})
    wanted = {q.docid for q in sample + calib}
    docs = []
    with passages.open(encoding="utf-8") as f:
        for line in f:
            obj = json.loads(line)
            if obj["docid"] in wanted:
                docs.append(Doc(obj["docid"], obj["doc"]))
    ws = a.workspace or Path(tempfile.mkdtemp(prefix="qrelkit-bench-"))
    gold = {(q.qid, q.docid): q.grade for q in sample}
    rows = []
    with Store.create(ws) as store:
        store.upsert_topics(topics.values())
        store.upsert_docs(docs)
        store.upsert_qrels(sample + calib)
        # the sample are the cases (audit mode); the calibration pairs are labelled non-cases
        store.upsert_cases([Case(q.qid, q.docid, "llm", 0, (), True) for q in sample])
        for m in a.methods:
            spec = parse_spec(m)
            client = make_client(a.model, store=store, concurrency=a.concurrency, max_attempts=a.max_attempts)
            t0 = time.perf_counter()
            s = run_judging(store, spec, client, task="graded", share="judged", concurrency=a.concurrency)
            secs = time.perf_counter() - t0
            labels = {(j.qid, j.docid): j.label for j in store.judgments(method=s.method, model=s.model)}
            met = metrics(gold, labels)
            statuses = {(j.qid, j.docid): j.status for j in store.judgments(method=s.method, model=s.model)}
            if spec.name == "prefilter":
                rel = [k for k, g in gold.items() if g >= 2]
                met["prefilter_recall"] = sum(statuses.get(k) != "dropped" for k in rel) / max(1, len(rel))
                met["dropped_share"] = sum(statuses.get(k) == "dropped" for k in gold) / max(1, len(gold))
            js = [j for j in store.judgments(method=s.method, model=s.model) if (j.qid, j.docid) in gold]
            n = len(js) or 1
            rows.append(
                {
                    "method": m,
                    "canonical": s.method,
                    "model": s.model,
                    "cases": len(gold),
                    **met,
                    "calls_per_case": sum(j.calls for j in js) / n,
                    "tokens_per_case": sum(j.prompt_tokens + j.completion_tokens for j in js) / n,
                    "seconds_per_case": secs / n,
                    "usd_per_case": sum(j.cost_usd for j in js) / n,
                    "errors": s.errors,
                    "calibration": s.calibration,
                }
            )
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


if __name__ == "__main__":
    sys.exit(main())
