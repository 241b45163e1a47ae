"""Measure RAG generation and grading per system: time, calls, tokens and cost.

    python benchmarks/rag.py [--systems bm25 monot5 ...] [--topics 2] [--k 3] [--model local]
                             [--runs PATH ...] [--topics-file F] [--docs F] [--qrels F ...] [--json]

Default collection: the bundled demo (six topics with gold answers, six runs);
any collection whose topics carry answers works with ``--runs``,
``--topics-file``, ``--docs`` and ``--qrels``. The first ``--topics`` topics
(sorted by id) and the named systems are used, because the embedded 135M
model needs 10-30 s per call on a loaded 2-core machine.

Systems are processed one after another with ONE client and one in-memory
cache, so a system whose top-k for a topic equals an earlier system's costs
no generation call (it shows up as a cache hit), exactly as in
``qrelkit rag generate``: the per-system rows add up to the cost of the whole
run. Per system: seconds (generation + grading), generation and grading calls
that reached the model, cache hits, prompt/completion tokens, dollars (0 for
the local model; an ``openai:`` spec with known prices gives real ones), the
answers' accuracy as graded, and RAGAlign@k against each qrels version.

Caveat: with the embedded 135M model the answers and the grades are weak
(it often copies a passage or misjudges a paraphrase); the numbers measure
the pipeline's cost and bookkeeping, not answer quality.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path


def _load(a):
    from qrelkit.data import DocIndex, load_qrels, load_topics, read_runs
    from qrelkit.demo import demo_paths

    d = demo_paths()
    runs = read_runs(a.runs or [str(p) for p in d.runs])
    if a.systems:
        missing = sorted(set(a.systems) - {r.name for r in runs})
        if missing:
            sys.exit(f"no run named {', '.join(missing)}; have {', '.join(r.name for r in runs)}")
        runs = [r for r in runs if r.name in a.systems]
    topics = load_topics(a.topics_file or d.topics)
    topics = {q: topics[q] for q in sorted(topics)[: a.topics]}
    if not any(t.answers for t in topics.values()):
        sys.exit("the topics carry no gold answers: nothing to grade")
    qrels = [(Path(p).name, dict(load_qrels(p).pairs)) for p in (a.qrels or [d.qrels, d.full_qrels])]
    return runs, topics, DocIndex.open(a.docs or d.docs), qrels


async def _one(run, topics, docs, client, k):
    from qrelkit.rag import agenerate, agrade

    t0 = time.perf_counter()
    answers, gen = await agenerate([run], topics, docs.get, client, k=k, concurrency=1)
    grades, grd = await agrade(answers, topics, client, concurrency=1)
    ok = [g for g in grades if g.ok]
    return {
        "system": run.name, "seconds": round(time.perf_counter() - t0, 1),
        "gen_calls": gen.usage.calls - gen.usage.cache_hits, "grade_calls": grd.usage.calls - grd.usage.cache_hits,
        "cache_hits": gen.usage.cache_hits + grd.usage.cache_hits,
        "prompt_tokens": gen.usage.prompt_tokens + grd.usage.prompt_tokens,
        "completion_tokens": gen.usage.completion_tokens + grd.usage.completion_tokens,
        "cost_usd": gen.usage.cost_usd + grd.usage.cost_usd, "answers": gen.answers,
        "errors": gen.errors + grd.errors, "accuracy": (sum(g.correct for g in ok) / len(ok)) if ok else None,
    }, ok


def _align(runs, qrels, grades, k):
    from qrelkit.evaluate.ragalign import GenerationLabel
    from qrelkit.evaluate.ragalign_multi import Generator, rag_align_multi

    labels = tuple(GenerationLabel(g.system, g.qid, int(g.correct)) for g in grades)
    if not labels:
        return {}
    (res,) = rag_align_multi(runs, qrels, [Generator("bench", "", labels)], k, threshold=2)
    return {v.alignment.qrels: {a.name: a.ragalign for a in v.alignment.systems} for v in res.versions}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", nargs="+", default=["bm25", "monot5"])
    ap.add_argument("--topics", type=int, default=2, help="use the first N topics")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--model", default="local")
    ap.add_argument("--runs", nargs="+", default=None)
    ap.add_argument("--topics-file", default=None)
    ap.add_argument("--docs", default=None)
    ap.add_argument("--qrels", nargs="+", default=None)
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    a = ap.parse_args(argv)
    from qrelkit.llm import make_client

    runs, topics, docs, qrels = _load(a)
    client = make_client(a.model, concurrency=1)
    load_seconds = _warm_up(a.model)
    rows, grades = [], []
    t0 = time.perf_counter()
    for run in runs:
        row, ok = asyncio.run(_one(run, topics, docs, client, a.k))
        rows.append(row)
        grades += ok
    total = round(time.perf_counter() - t0, 1)
    align = _align(runs, qrels, grades, a.k)
    for r in rows:
        r.update({f"RAGAlign@{a.k} {q}": v.get(r["system"]) for q, v in align.items()})
    if a.json:
        print(json.dumps({"model": client.model_id, "k": a.k, "topics": len(topics), "seconds": total,
                          "load_seconds": load_seconds, "systems": rows}))
        return 0
    cols = list(rows[0])
    print(f"model {client.model_id}, k={a.k}, {len(topics)} topics, {len(runs)} systems, {total} s in all "
          f"(+ {load_seconds} s loading the model)")
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(_fmt(r[c]) for c in cols) + " |")
    return 0


def _warm_up(spec: str) -> float:
    """Load the embedded model before timing, so the first system's row is not charged for it."""
    from qrelkit.llm.spec import parse_model_spec

    t0 = time.perf_counter()
    if parse_model_spec(spec).kind == "local":
        from qrelkit.llm.local import load

        load(parse_model_spec(spec).model or None)
    return round(time.perf_counter() - t0, 1)


def _fmt(v) -> str:
    if v is None:
        return "-"
    return f"{v:.3f}" if isinstance(v, float) else str(v)


if __name__ == "__main__":
    sys.exit(main())
