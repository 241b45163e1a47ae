"""The methods that learn from people, each on 5 LLMJudge-dev pairs (the confidence methods on
10, the debate on 1) with the embedded model: they run end to end and write complete
provenance. The 30 other labelled pairs of the topic play the people's labels (labels from a
135M model are weak; quality is measured in benchmarks/judges.py, not here)."""

from __future__ import annotations

import json

import pytest

from qrelkit.judges import STATUSES
from qrelkit.judging.runner import run_judging

from .conftest import embedded_model_workspace

pytestmark = [pytest.mark.model, pytest.mark.realdata]
METHODS = [
    "icl(k=2)",
    "narrative",
    "narrative(icl=1)",
    "debate(rounds=1,narrative=true)",  # on 1 of the cases: two agents write at length
    "confidence(score=likelihood,budget=20%,batch=5)",
    "confidence(score=yesno,budget=20%,batch=5)",
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    store = embedded_model_workspace(tmp_path_factory.mktemp("learning") / "ws")
    yield store
    store.close()


@pytest.mark.parametrize("method", METHODS)
def test_learning_method_on_the_embedded_model(workspace, method):
    from qrelkit.llm import make_client

    ws = workspace
    client = make_client("local", store=ws, max_attempts=1)  # one attempt: errors are fine here
    oracle = ws.oracle if method.startswith("confidence") else None
    # the debate's agents write at length, and the few-shot prompts are long: fewer cases for them
    # (the confidence methods need ten: 20 % of them escalate)
    n = 1 if method.startswith("debate") else 10 if method.startswith("confidence") else 5
    s = run_judging(ws, method, client, task="graded", share="judged", concurrency=2, oracle=oracle, limit=n)
    assert s.cases == n and s.judged + s.escalations == n
    js = ws.judgments(method=s.method, model=s.model)
    assert len(js) == n
    for j in js:
        assert j.status in STATUSES and (j.label is None) == (j.status in ("escalate", "error"))
        prov = json.loads(j.provenance)
        assert prov["method"] == s.method and prov["model"] == s.model and s.model.startswith("local")
        assert prov["task"] == {"name": "graded", "threshold": 2}
        if j.status == "error":
            assert prov["reason"]
        assert prov["templates"] and all("+" in v for v in prov["templates"].values())
        assert prov["truncation"]["budget_tokens"] > 0
        if method.startswith("icl") or "icl=" in method:
            ex = prov["examples"]
            assert len(ex["docids"]) == (2 if method.startswith("icl") else 1)
            assert not set(ex["docids"]) & ws.cases_docids  # examples are people's labels, never cases
        if "narrative" in method:
            assert prov["narrative"]["source"] == "induced" and prov["narrative"]["digest"]
        if method.startswith("debate"):
            assert prov["history"] and all(len(r["agents"]) == 2 for r in prov["history"])
        if method.startswith("confidence"):
            conf = prov["confidence"]
            assert conf["calibration"]["n"] >= 20 and conf["budget"] == "20%"
            if j.status != "error":
                assert conf["raw"] is not None and 0.0 <= conf["probability"] <= 1.0
            if j.status == "escalate":
                assert prov["reason"] == "uncertain" and prov["oracle"] == ws.oracle[(j.qid, j.docid)]
    if method.startswith("confidence"):
        assert sum(j.status == "escalate" for j in js) == 2  # 20% of 10
    if "narrative" in method:
        (row,) = ws.narratives().values()  # induced once for the topic, by the first narrative method
        assert row["narrative"].strip() and row["model"] == s.model and not row["edited"]
        prov = row["provenance"]
        assert prov["docs"] and prov["template"].startswith("narrative_instructor.v1+")
        # every judged document, in batches that fit the embedded model's budget, then merged
        assert prov["reading"]["budget_tokens"] == 1400
        assert sorted(d for b in prov["batches"] for d in b["docids"]) == sorted(d["docid"] for d in prov["docs"])
        assert prov["calls"] == len(prov["batches"]) + len(prov.get("merges", []))
        # learnt from people's labels only, never from the pairs it judges
        assert not {d["docid"] for d in prov["docs"]} & {j.docid for j in js}
    # a second run redoes only the errors (which are retried) and induces nothing again
    again = run_judging(
        ws,
        method,
        make_client("local", store=ws, max_attempts=1),
        task="graded",
        share="judged",
        oracle=oracle,
        limit=n,
    )
    assert again.new == s.errors
    if "narrative" in method:
        assert again.narrative_calls == 0
