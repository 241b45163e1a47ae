"""Each method on 10 LLMJudge-dev pairs (zero-shot on 5, the debate on 2) with the embedded model:
it runs end to end and writes complete provenance (labels from a 135M model are weak; their
quality is measured in benchmarks/judges.py, not here)."""

from __future__ import annotations

import json

import pytest

from qrelkit.judges import STATUSES
from qrelkit.judging.runner import run_judging

from .conftest import embedded_model_workspace

pytestmark = [pytest.mark.model, pytest.mark.realdata]
METHODS = [
    "likelihood",
    "likelihood(threshold=auto)",
    "zero-shot",
    "debate(rounds=1,adjudicator=llm)",  # debate and adjudicator in at most 3 calls per case
    "prefilter(keep=0.9)+zero-shot",
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    store = embedded_model_workspace(tmp_path_factory.mktemp("real") / "ws")
    yield store
    store.close()


# The debate writes arguments in three calls per case (two agents, the adjudicator), about
# 5 s each on 2 cores, and zero-shot writes a reason per case: a few of the ten cases exercise
# them as well as ten would, in a fraction of the suite's time.
LIMIT = {"debate(rounds=1,adjudicator=llm)": 2, "zero-shot": 5}


@pytest.mark.parametrize("method", METHODS)
def test_method_runs_on_the_embedded_model_with_complete_provenance(workspace, method):
    from qrelkit.llm import make_client

    n = LIMIT.get(method, 10)
    client = make_client("local", store=workspace, max_attempts=1)  # one attempt: errors are fine here
    s = run_judging(
        workspace, method, client, task="graded", share="judged", concurrency=2,
        limit=LIMIT.get(method),
    )
    assert s.cases == n and s.judged + s.escalations + s.undecided == n
    js = workspace.judgments(method=s.method, model=s.model)
    assert len(js) == n
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
        workspace, method, make_client("local", store=workspace), task="graded", share="judged",
        limit=LIMIT.get(method),
    )
    assert again.new == errors
    if errors == 0:
        assert again.calls == 0
