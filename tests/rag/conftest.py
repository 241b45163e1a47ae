"""A tiny literal RAG collection and a scripted generator/grader for the rag tests.

Three systems over three topics: ``a`` and ``b`` have the same top-2 for q1 and q2
(identical contexts) and differ on q3; ``c`` differs everywhere. Passages that
start with "right" make a correct answer (see fake_rag_server.reply_for).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from qrelkit.data import load_topics, read_runs
from qrelkit.llm import Client, ScriptedBackend

from .fake_rag_server import reply_for

TOPICS = [
    {"qid": "q1", "text": "first question", "answers": ["alpha"]},
    {"qid": "q2", "text": "second question", "answers": ["beta"]},
    {"qid": "q3", "text": "third question", "answers": ["gamma"]},
]
DOCS = {
    "d1": "right alpha", "d2": "wrong one", "d3": "right beta", "d4": "wrong two",
    "d5": "right gamma", "d6": "wrong three",
}
# system -> qid -> ranking (best first); scores are written so trec_eval order = this order
RANKINGS = {
    "a": {"q1": ["d1", "d2", "d6"], "q2": ["d4", "d3", "d6"], "q3": ["d5", "d6", "d1"]},
    "b": {"q1": ["d1", "d2", "d5"], "q2": ["d4", "d3", "d1"], "q3": ["d6", "d5", "d1"]},
    "c": {"q1": ["d2", "d1", "d6"], "q2": ["d3", "d4", "d6"], "q3": ["d6", "d2", "d5"]},
}
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 0\nq3 0 d5 1\nq3 0 d6 0\n"


def run_text(system: str) -> str:
    return "".join(
        f"{q} Q0 {d} {i} {10 - i} {system}\n" for q, ds in RANKINGS[system].items() for i, d in enumerate(ds, 1)
    )


@pytest.fixture
def collection(tmp_path: Path) -> dict:
    """Files of the tiny collection: topics, docs, qrels, runs/ (one file per system)."""
    (tmp_path / "topics.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TOPICS))
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps({"docid": d, "text": t}) + "\n" for d, t in DOCS.items()))
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    for s in RANKINGS:
        (runs / f"{s}.run").write_text(run_text(s))
    return {"dir": tmp_path, "topics": tmp_path / "topics.jsonl", "docs": tmp_path / "docs.jsonl",
            "qrels": tmp_path / "qrels.txt", "runs": runs}


@pytest.fixture
def loaded(collection: dict) -> dict:
    from qrelkit.types import Doc

    return {"runs": read_runs([collection["runs"]]), "topics": load_topics(collection["topics"]),
            "lookup": lambda d: Doc(d, DOCS[d]) if d in DOCS else None}


def scripted_client(store=None, fn=None) -> Client:
    """A client whose backend answers like the fake server (or with ``fn``); no retries' backoff."""
    def answer(messages, params):
        return reply_for([{"role": m.role, "content": m.content} for m in messages])[1]

    return Client(ScriptedBackend(fn or answer), store=store, max_attempts=2, backoff_base=0.0)
