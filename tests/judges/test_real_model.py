"""Each method on 10 LLMJudge-dev pairs with the embedded model: it runs end to
end and writes complete provenance (labels from a 135M model are weak; their
quality is measured in benchmarks/judges.py, not here)."""

from __future__ import annotations

import json

import pytest

from qrelkit.judges import STATUSES
from qrelkit.judges.runner import run_judging
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

from .conftest import DATA

pytestmark = [pytest.mark.model, pytest.mark.realdata]
LLMJUDGE = DATA / "llmjudge-dev"
METHODS = [
    "likelihood",
    "likelihood(threshold=auto)",
    "zero-shot",
    "debate(rounds=1,adjudicator=llm)",  # debate and adjudicator in at most 3 calls per case
    "prefilter(keep=0.9)+zero-shot",
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
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
    # the 5 shortest relevant and 5 shortest non-relevant passages (the model is slow on 2 cores)
    by_len = sorted(mine.values(), key=lambda q: (len(docs[q.docid].text), q.docid))
    cases = [q for q in by_len if q.grade >= 2][:5] + [q for q in by_len if q.grade < 2][:5]
    calib = [q for q in by_len if q not in cases][:30]
    docs = [docs[q.docid] for q in cases + calib]
    store = Store.create(tmp_path_factory.mktemp("real") / "ws")
    store.upsert_topics([topics[qid]])
    store.upsert_docs(docs)
    store.upsert_qrels(cases + calib)
    store.upsert_cases([Case(q.qid, q.docid, "llm", i, (), True) for i, q in enumerate(cases)])
    yield store
    store.close()


@pytest.mark.parametrize("method", METHODS)
def test_method_runs_on_the_embedded_model_with_complete_provenance(workspace, method):
    from qrelkit.llm import make_client

    client = make_client("local", store=workspace, max_attempts=1)  # one attempt: errors are fine here
    s = run_judging(workspace, method, client, task="graded", share="judged", concurrency=2)
    assert s.cases == 10 and s.judged + s.escalations + s.undecided == 10
    js = workspace.judgments(method=s.method, model=s.model)
    assert len(js) == 10
    for j in js:
        assert j.status in STATUSES
        assert (j.label is None) == (j.status in ("escalate", "error"))
        prov = json.loads(j.provenance)
        assert prov["method"] == s.method and prov["model"] == s.model and s.model.startswith("local")
        assert prov["task"] == {"name": "graded", "threshold": 2}
        if j.status == "dropped":
            assert "prefilter" in prov
            continue
        assert prov["templates"] and all("+" in v for v in prov["templates"].values())
        assert prov["truncation"]["budget_tokens"] > 0
        if method.startswith("debate"):
            assert prov["history"] and all(len(r["agents"]) == 2 for r in prov["history"])
            assert j.calls >= 2
        if "likelihood" in method and not method.startswith("prefilter"):
            assert prov["likelihood"]["score"] is not None or j.status == "error"
        if j.status == "error":
            assert prov["reason"]
    # a second run retries only the error verdicts (a slow machine can time a call
    # out); finished cases are not judged again, and with no errors nothing is called
    errors = sum(1 for j in js if j.status == "error")
    again = run_judging(
        workspace, method, make_client("local", store=workspace), task="graded", share="judged"
    )
    assert again.new == errors
    if errors == 0:
        assert again.calls == 0
