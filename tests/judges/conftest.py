"""Shared helpers for judge tests: scripted clients and tiny workspaces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from qrelkit.judges import JudgeInput, Task
from qrelkit.llm import Client, ScriptedBackend
from qrelkit.types import Case, Doc, Qrel, Topic

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
LLMJUDGE = DATA / "llmjudge-dev"


def embedded_model_workspace(path: Path):
    """A workspace of one LLMJudge-dev topic for the embedded model: its 5 shortest relevant and
    5 shortest non-relevant passages as (labelled) cases, the next 30 as people's labels — short,
    because the model is slow on 2 cores. Skips without the data or the model.

    ``store.oracle`` holds the cases' grades, ``store.cases_docids`` their docids."""
    import json

    from qrelkit.store import Store

    if not (LLMJUDGE / "qrels.txt").exists():
        pytest.skip(f"real data not found at {LLMJUDGE} (needs ../shared/data/llmjudge-dev)")
    try:
        from qrelkit.llm.local import load

        load()
    except Exception as e:  # noqa: BLE001 - any failure to load means: no embedded model here
        pytest.skip(f"the embedded model cannot be loaded: {e}")
    topics = {}
    for line in (LLMJUDGE / "topics.tsv").read_text().splitlines():
        qid, text = line.split("\t", 1)
        topics[qid] = Topic(qid, text)
    qrels = [
        Qrel(q, d, int(g))
        for q, _, d, g in (
            ln.split() for ln in (LLMJUDGE / "qrels.txt").read_text().splitlines() if ln.strip()
        )
    ]
    qid = sorted(topics)[0]
    mine = {q.docid: q for q in qrels if q.qid == qid}
    docs = {}
    with (LLMJUDGE / "passages.jsonl").open() as f:
        for line in f:
            obj = json.loads(line)
            if obj["docid"] in mine:
                docs[obj["docid"]] = Doc(obj["docid"], obj["doc"])
    by_len = sorted(mine.values(), key=lambda q: (len(docs[q.docid].text), q.docid))
    cases = [q for q in by_len if q.grade >= 2][:5] + [q for q in by_len if q.grade < 2][:5]
    people = [q for q in by_len if q not in cases][:30]
    store = Store.create(path)
    store.upsert_topics([topics[qid]])
    store.upsert_docs([docs[q.docid] for q in cases + people])
    store.upsert_qrels(cases + people)
    store.upsert_cases([Case(q.qid, q.docid, "llm", i, (), True) for i, q in enumerate(cases)])
    store.oracle = {(q.qid, q.docid): q.grade for q in cases}
    store.cases_docids = {q.docid for q in cases}
    return store


def stance_of(messages) -> str:
    """Which debate role a request is for: relevant | irrelevant | adjudicator | zeroshot | prefilter."""
    system = messages[0].content
    if "senior relevance assessor" in system:
        return "adjudicator"
    if "IS relevant" in system:
        return "relevant"
    if "NOT relevant" in system:
        return "irrelevant"
    if "sort out documents" in system:
        return "prefilter"
    return "zeroshot"


def round_of(messages) -> int:
    # search every message: on a retry the client appends a corrective turn
    m = re.search(r"^Round (\d+)\.", "\n".join(x.content for x in messages), re.M)
    return int(m.group(1)) if m else 0


def agent(grade=None, label=None, evidence=(), reasoning="because"):
    out = {"evidence": list(evidence), "reasoning": reasoning}
    if grade is not None:
        out["grade"] = grade
    if label is not None:
        out["label"] = label
    return out


def make_client(fn, score_fn=None, store=None, **kw):
    backend = ScriptedBackend(fn, score_fn=score_fn)
    return Client(backend, store=store, backoff_base=0.0, **kw)


@pytest.fixture
def graded_input():
    def make(text="The quick brown fox jumps over the lazy dog.", qid="q1", docid="d1", narrative=None):
        return JudgeInput(
            Case(qid, docid),
            Topic(qid, "what does the fox do", narrative=narrative),
            Doc(docid, text),
            Task("graded", 2),
        )

    return make


@pytest.fixture
def answer_input():
    def make(text="Paris is the capital of France.", qid="q1", docid="d1"):
        return JudgeInput(
            Case(qid, docid),
            Topic(qid, "capital of france", answers=("Paris",)),
            Doc(docid, text),
            Task("answer"),
        )

    return make
