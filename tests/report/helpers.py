"""A small but complete workspace for the report tests."""
from __future__ import annotations

import json
import random
from pathlib import Path

from qrelkit.data import write_run
from qrelkit.data.runs import Run, trec_eval_order
from qrelkit.store import Store
from qrelkit.types import Judgment, Qrel, RunEntry, Topic


def random_collection(seed: int = 0, n_topics: int = 5, n_docs: int = 40, n_runs: int = 6, depth: int = 25,
                      judged_share: float = 0.9):
    """Random runs and graded qrels (0-3)."""
    rng = random.Random(seed)
    topics = [f"q{i}" for i in range(n_topics)]
    qrels = {(q, f"d{d}"): rng.choice((0, 0, 0, 1, 1, 2, 3)) for q in topics for d in range(n_docs)
             if rng.random() < judged_share}
    runs = []
    for r in range(n_runs):
        by_topic = {}
        for q in topics:
            entries = [RunEntry(q, f"d{d}", 0, rng.random()) for d in rng.sample(range(n_docs), depth)]
            by_topic[q] = tuple(trec_eval_order(entries))
        runs.append(Run(name=f"sys{r}", path=f"<sys{r}>", by_topic=by_topic, tags=(f"sys{r}",)))
    return runs, qrels


def build_workspace(ws: Path, seed: int = 0) -> Path:
    """Original qrels with holes, runs on disk, LLM judgments of every status,
    people's labels for escalations, narratives and command records."""
    runs, full = random_collection(seed=seed)
    pairs = sorted(full)
    original = {p: g for i, p in enumerate(pairs) if i % 3 != 0 for g in [full[p]]}
    holes = [p for p in pairs if p not in original]
    with Store.create(ws) as store:
        store.set_meta("plan", {"job": "fill", "plan": {"depth": 7, "method": "debate"}, "qrelkit_version": "0.1.0"})
        store.upsert_topics(Topic(f"q{i}", f"topic {i}") for i in range(5))
        store.upsert_qrels(Qrel(q, d, g) for (q, d), g in original.items())
        for r in runs:
            path = ws / "runs" / f"{r.name}.run"
            write_run(path, r)
            meta = {"model": "llama-3-8b"} if r.name == "sys1" else {}
            store.upsert_run(r.name, str(path), meta)
        js = []
        statuses = ["consensus", "consensus", "auto", "escalate", "adjudicated", "error"]
        for i, (q, d) in enumerate(holes + pairs[:40:4]):  # holes, and some judged pairs (audit)
            status = statuses[i % len(statuses)]
            truth = full[(q, d)]
            grade = None if status in ("escalate", "error") else (truth if i % 4 else min(3, truth + 1))
            label = None if grade is None else int(grade >= 2)
            js.append(Judgment(q, d, "debate(rounds=2)", "meta-llama/Llama-3.1-8B", label, grade, status,
                               round=1 + i % 2, calls=2 + i % 3, prompt_tokens=300, completion_tokens=40,
                               cost_usd=0.001, provenance=json.dumps({"reason": "agents disagree <b>x</b>"}
                                                                     if status == "escalate" else {})))
            if status == "escalate" and i % 2:
                js.append(Judgment(q, d, "people", "", int(truth >= 2), truth, "human", source="human"))
        store.put_judgments(js)
        store.put_narrative("q0", "Relevant passages <script>alert(1)</script> define the term.")
        # an induced narrative carries its instructor call; a hand-written one costs nothing
        store.put_narrative("q1", "Passages that name the cause.", model="openai:teacher",
                            provenance={"instructor": "openai:teacher", "calls": 1, "cache_hits": 0,
                                        "prompt_tokens": 900, "completion_tokens": 150, "cost_usd": 0.004})
        run_id = store.start_command("judge", {"method": "debate"})
        store.finish_command(run_id, {"calls": 120, "cache_hits": 10, "prompt_tokens": 36000,
                                      "completion_tokens": 4800, "cost_usd": 0.12})
    return ws
