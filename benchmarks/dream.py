"""DREAM's ablations (appendix B.4) and its consensus-persistence study (B.3) on LLMJudge-dev.

    python benchmarks/judges.py --experiment dream-ablations --model SPEC [--n 40] [--seed 0]
        [--models SPEC SPEC]        # heterogeneous agents: one model per agent
        [--debate-params "doc_tokens=300,quotes=2,reasoning_chars=300"]   # e.g. for a 2048-token model
        [--rounds 5]                # persistence: rounds debated after consensus (stop=never)

Ablation table: the paper's debate (2 agents, opposing stances, temperature 0, R = 2) against
4 agents, non-zero temperatures (one value, and one per agent), and with ``--models`` one model
per agent (2 agents, and 4 agents with each model twice). Per variant: balanced accuracy, recall
of each class (binary, grade >= 2), escalation ratio, calls and $ per case. Escalations are
undecided (people would label them) and are left out of the agreement numbers.

Persistence table: ``debate(rounds=R, stop=never)`` on the same sample; per round the consensus
share, the persistence ratio of round-1 consensus, the spurious consensus rate and bAcc / recall
of the consensus labels (see :mod:`qrelkit.evaluate.persistence`).

Everything runs in one temporary workspace (``--workspace`` to keep it), so the LLM cache is
shared by the variants: agent calls that are the same request are answered once.
"""
from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path


def variants(models: list[str], extra: str) -> list[str]:
    base = ["debate", "debate(agents=4)", "debate(temperature=0.7)", "debate(temperature=[0.0,0.7])"]
    if len(models) >= 2:
        a, b = models[0], models[1]
        base += [f'debate(models=["{a}","{b}"])', f'debate(agents=4,models=["{a}","{a}","{b}","{b}"])']
    return [_with(v, extra) for v in base]


def _with(spec: str, extra: str) -> str:
    if not extra:
        return spec
    return spec[:-1] + "," + extra + ")" if spec.endswith(")") else f"{spec}({extra})"


def run(a, read_collection, stratified, metrics) -> dict:
    from qrelkit.data import read_docs
    from qrelkit.evaluate.persistence import by_round, debates_by_method
    from qrelkit.judging import JudgingJob, run_job
    from qrelkit.store import Store
    from qrelkit.types import Case

    topics, qrels, passages = read_collection(a.data)
    sample = stratified(qrels, a.n, a.seed)
    wanted = {q.docid for q in sample}
    docs = [d for d in read_docs(passages) if d.docid in wanted]
    ws = a.workspace or Path(tempfile.mkdtemp(prefix="qrelkit-dream-"))
    gold = {(q.qid, q.docid): q.grade for q in sample}
    rows, persistence = [], []
    with Store.create(ws) as store:
        store.upsert_topics(topics.values())
        store.upsert_docs(docs)
        store.upsert_qrels(sample)
        store.upsert_cases([Case(q.qid, q.docid, "llm", 0, (), True) for q in sample])

        def judge(spec: str):
            job = JudgingJob(method=spec, model=a.model, task="graded", share="judged", concurrency=a.concurrency,
                             max_attempts=a.max_attempts)
            t0 = time.perf_counter()
            s = run_job(store, job)
            js = [j for j in store.judgments(method=s.method, model=s.model) if (j.qid, j.docid) in gold]
            return s, js, time.perf_counter() - t0

        for spec in a.methods or variants(a.models or [], a.debate_params):
            s, js, secs = judge(spec)
            n = len(js) or 1
            rows.append({
                "method": spec, "canonical": s.method, "cases": len(gold),
                **metrics(gold, {(j.qid, j.docid): j.label for j in js}),
                "calls_per_case": sum(j.calls for j in js) / n, "usd_per_case": sum(j.cost_usd for j in js) / n,
                "seconds_per_case": secs / n, "errors": s.errors,
            })
        s, js, _ = judge(_with(f"debate(rounds={a.rounds},stop=never)", a.debate_params))
        debates = debates_by_method(js).get(s.method, {})
        persistence = [r.to_dict() for r in by_round(debates, gold, 2)]
    return {"workspace": str(ws), "model": a.model, "n": len(gold), "seed": a.seed, "ablations": rows,
            "persistence_method": s.method, "persistence": persistence}


def _cell(v, fmt: str) -> str:
    return "-" if v is None else fmt.format(v)


def print_tables(out: dict, data_name: str) -> None:
    print(f"model {out['model']}, {out['n']} pairs of {data_name} (seed {out['seed']}, binary threshold 2)")
    cols = [("method", "{}"), ("balanced_accuracy", "{:.3f}"), ("recall_rel", "{:.3f}"), ("recall_nonrel", "{:.3f}"),
            ("escalation_ratio", "{:.3f}"), ("calls_per_case", "{:.2f}"), ("usd_per_case", "{:.5f}"),
            ("seconds_per_case", "{:.2f}"), ("errors", "{}")]
    print("| " + " | ".join(c for c, _ in cols) + " |")
    print("|" + "---|" * len(cols))
    for r in out["ablations"]:
        print("| " + " | ".join(_cell(r.get(c), f) for c, f in cols) + " |")
    print(f"\npersistence: {out['persistence_method']}")
    pcols = [("round", "{}"), ("debates", "{}"), ("consensus", "{:.3f}"), ("persistence", "{:.3f}"),
             ("spurious", "{:.3f}"), ("balanced_accuracy", "{:.3f}"), ("recall_relevant", "{:.3f}"),
             ("recall_nonrelevant", "{:.3f}")]
    print("| " + " | ".join(c for c, _ in pcols) + " |")
    print("|" + "---|" * len(pcols))
    for r in out["persistence"]:
        print("| " + " | ".join(_cell(r.get(c), f) for c, f in pcols) + " |")
    print(f"workspace: {out['workspace']}")


def main(a, read_collection, stratified, metrics) -> int:
    out = run(a, read_collection, stratified, metrics)
    if a.json:
        print(json.dumps(out, indent=2))
    else:
        print_tables(out, a.data.name)
    return 0
