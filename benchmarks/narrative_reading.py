"""How RCL's instructor reads a topic's judged documents (``narrative``, docs=all), on TREC DL 2019.

    python benchmarks/narrative_reading.py [--topics 2] [--model local | openai:MODEL@URL]
        [--budget auto] [--doc-tokens 120] [--plan-only]

The people's share of the hybrid table (``benchmarks/hybrid_paper.py``: official runs pooled at
depth 10, people judge every run's top 3, NIST labels) is what the instructor reads. Per topic:
judged documents, batches, merge calls, documents cut to fit, instructor calls, tokens and
seconds. ``--plan-only`` answers every call at once (a scripted instructor named like the
chosen model, so ``budget=auto`` resolves as for it) to count batches over all 43 topics
without a model; otherwise the first ``--topics`` topics are induced with ``--model`` — with
the embedded model this shows that the default budget fits its 2,048-token context (a prompt
that did not would fail the topic, listed under ``failed``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from hybrid_paper import DL19, load, split, workspace  # noqa: E402


def plan_client(model: str):
    from qrelkit.llm import Client, ScriptedBackend
    from qrelkit.llm.spec import canonical_model_id

    return Client(ScriptedBackend(lambda m, p: "Narrative: planned.\nInstructions: none",
                                  model_id=canonical_model_id(model)), backoff_base=0.0)


def induce_all(store, client, qids, reading) -> list[dict]:
    from qrelkit.judges.narrative import induce_narratives
    from qrelkit.judging.selection import resolve_task

    rows = []
    for q in qids:
        t0 = time.perf_counter()
        out = asyncio.run(induce_narratives(store, client, resolve_task(store, "graded", 2), [q], reading=reading))
        prov = (store.narratives().get(q) or {}).get("provenance") or {}
        rows.append({"qid": q, "docs": len(prov.get("docs") or ()), "batches": len(prov.get("batches") or ()),
                     "merges": len(prov.get("merges") or ()), "cut": len(prov.get("cut") or ()),
                     "calls": out["calls"], "prompt_tokens": out["prompt_tokens"],
                     "completion_tokens": out["completion_tokens"], "seconds": time.perf_counter() - t0,
                     "failed": "; ".join(out["failed"].values())})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=2)
    ap.add_argument("--model", default="local")
    ap.add_argument("--budget", default="auto")
    ap.add_argument("--doc-tokens", type=int, default=120)
    ap.add_argument("--plan-only", action="store_true")
    a = ap.parse_args(argv)
    if not DL19.exists():
        print(f"needs {DL19} (see ../shared/data/README.md)", file=sys.stderr)
        return 2
    from qrelkit.judges.narrative import EVERY, Reading, budget_value
    from qrelkit.llm import make_client

    topics, nist, runs = load(DL19)
    every = sorted({q for q, _ in nist})
    chosen = every if a.plan_only else every[: a.topics]
    _, people, _ = split(runs, nist, "depth(k_human=3)", 0, set(chosen), 0)
    reading = Reading(EVERY, seed=0, budget=budget_value(a.budget), doc_tokens=a.doc_tokens)
    with workspace(Path(tempfile.mkdtemp(prefix="qrelkit-narr-")), topics, nist, people, people,
                   DL19 / "passages.jsonl") as store:
        client = plan_client(a.model) if a.plan_only else make_client(a.model, store=store)
        rows = induce_all(store, client, chosen, reading)
    cols = ["qid", "docs", "batches", "merges", "cut", "calls", "prompt_tokens", "completion_tokens", "seconds",
            "failed"]
    print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(f"{r[c]:.1f}" if c == "seconds" else str(r[c]) for c in cols) + " |")
    n = len(rows)
    print(f"\n{n} topics: {sum(r['docs'] for r in rows)} judged documents, {sum(r['batches'] for r in rows)} "
          f"batches ({sum(r['batches'] > 1 for r in rows)} topics batched), {sum(r['merges'] for r in rows)} merges, "
          f"{sum(r['cut'] for r in rows)} documents cut, {sum(r['calls'] for r in rows)} calls, "
          f"{sum(r['seconds'] for r in rows):.0f} s, failed {sum(bool(r['failed']) for r in rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
