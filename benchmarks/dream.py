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
shared by the variants: agent calls that are the same request are answered once. The judging and
the figures are ``qrelkit compare``'s (:mod:`qrelkit.compare`): this script only chooses the
variants and prints the two tables (``seconds_per_case`` is compare's parallel latency per case).
"""
from __future__ import annotations

import json
import tempfile
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
    """The variants and the persistence debate, judged by ``qrelkit compare`` on the benchmark's
    stratified sample (given to it as a sample file, so the pairs are what they always were)."""
    from qrelkit.compare import CompareRequest, Draw, compare
    from qrelkit.compare.persistence import persistence_rows
    from qrelkit.data import read_docs
    from qrelkit.store import Store

    topics, qrels, passages = read_collection(a.data)
    sample = stratified(qrels, a.n, a.seed)
    wanted = {q.docid for q in sample}
    ws = a.workspace or Path(tempfile.mkdtemp(prefix="qrelkit-dream-"))
    gold = {(q.qid, q.docid): q.grade for q in sample}
    pairs_file = Path(ws) / "dream-sample.txt"
    persistence_spec = _with(f"debate(rounds={a.rounds},stop=never)", a.debate_params)
    methods = tuple(a.methods or variants(a.models or [], a.debate_params)) + (persistence_spec,)
    with Store.create(ws) as store:
        store.upsert_topics(topics.values())
        store.upsert_docs([d for d in read_docs(passages) if d.docid in wanted])
        store.upsert_qrels(sample)
        pairs_file.write_text("".join(f"{q} {d}\n" for q, d in sorted(gold)))
        req = CompareRequest(methods=methods, model=a.model, name=f"dream-n{a.n}-seed{a.seed}",
                             draw=Draw(None, "stratified", a.seed, str(pairs_file)), sample_file=pairs_file,
                             concurrency=a.concurrency, max_attempts=a.max_attempts, curve=False)
        out = compare(store, req, gold).to_dict()
        persistence = persistence_rows(store, out, persistence_spec)
    rows = [{
        "method": m["method"], "canonical": m["canonical"], "cases": m["cases"], "decided": m["decided"],
        "escalation_ratio": m["escalation_ratio"], "balanced_accuracy": m["balanced_accuracy"],
        "balanced_accuracy_ci": [m["balanced_accuracy_low"], m["balanced_accuracy_high"]],
        "recall_rel": m["recall_relevant"], "recall_nonrel": m["recall_nonrelevant"], "cohen_kappa": m["cohen_kappa"],
        "calls_per_case": m["calls_per_case"], "usd_per_case": m["usd_per_case"],
        "seconds_per_case": m["latency_parallel"], "errors": m["errors"],
    } for m in out["methods"] if m["method"] in methods[:-1]]
    return {"workspace": str(ws), "model": a.model, "n": len(gold), "seed": a.seed, "ablations": rows,
            "persistence_method": next(m["canonical"] for m in out["methods"] if m["method"] == persistence_spec),
            "persistence": persistence}


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
