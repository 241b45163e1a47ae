"""zero-shot, likelihood and prefilter with scripted models."""

from __future__ import annotations

import asyncio

import pytest

from qrelkit.errors import CapabilityError, UsageError
from qrelkit.judges import JudgeInput, Task, build
from qrelkit.judges.likelihood import balanced_accuracy_threshold, recall_threshold
from qrelkit.types import Case, Doc, Topic

from .conftest import agent, make_client, stance_of


def test_zero_shot_graded(graded_input):
    client = make_client(lambda m, p: {"reason": "it answers", "grade": 2})
    v = asyncio.run(build("zero-shot")(graded_input(), client))
    assert (v.status, v.label, v.grade, v.usage.calls, v.rationale) == ("auto", 1, 2, 1, "it answers")
    schema = client.backend.requests[0][1]["schema"]
    assert list(schema["properties"]) == ["reason", "grade"]
    assert v.provenance["templates"]["zeroshot"].startswith("zeroshot.v1+")


def test_zero_shot_answer(answer_input):
    client = make_client(lambda m, p: {"reason": "says Paris", "label": 1})
    v = asyncio.run(build("zero-shot")(answer_input(), client))
    assert (v.status, v.label, v.grade) == ("auto", 1, 1)
    assert "Answers:\n- Paris" in client.backend.requests[0][0][-1].content


def test_zero_shot_failure_is_an_error(graded_input):
    client = make_client(lambda m, p: "no json here")
    v = asyncio.run(build("zero-shot")(graded_input(), client))
    assert (v.status, v.label, v.grade) == ("error", None, None)
    assert client.backend.calls == client.max_attempts


def _ql_inputs():
    topic = Topic("q1", "fox")
    return [JudgeInput(Case("q1", f"d{i}"), topic, Doc(f"d{i}", f"doc {i}"), Task()) for i in range(4)]


def _score_fn(prefix, cont):
    if "Passage" not in prefix:
        return -10.0  # no-document prior
    i = int(prefix.split("doc ")[1][0])
    return [-12.0, -10.5, -9.0, -7.0][i]


def test_likelihood_scores_against_a_per_topic_prior():
    client = make_client(lambda m, p: "", score_fn=_score_fn)
    judge = build("likelihood")

    async def go():
        return await asyncio.gather(*(judge(inp, client) for inp in _ql_inputs()))

    vs = asyncio.run(go())
    assert [v.label for v in vs] == [0, 0, 1, 1]
    assert [v.grade for v in vs] == [0, 0, 2, 2]  # binary decision written as 0 / threshold grade
    assert [v.provenance["likelihood"]["score"] for v in vs] == [-2.0, -0.5, 1.0, 3.0]
    assert client.backend.calls == 5  # 4 documents + 1 prior for the topic
    assert sum(v.usage.calls for v in vs) == 5


def test_likelihood_needs_score_capability(graded_input):
    client = make_client(lambda m, p: "")
    with pytest.raises(CapabilityError):
        client.require(*build("likelihood").requires)


def test_likelihood_threshold_auto_maximises_balanced_accuracy():
    client = make_client(lambda m, p: "", score_fn=_score_fn)
    judge = build("likelihood(threshold=auto)")
    labelled = list(zip(_ql_inputs(), [0, 1, 1, 1]))
    cal = asyncio.run(judge.prepare(labelled, client))
    assert cal["n"] == 4 and cal["balanced_accuracy"] == 1.0
    assert -2.0 < judge.threshold < -0.5
    v = asyncio.run(judge(_ql_inputs()[1], client))
    assert v.label == 1 and v.provenance["likelihood"]["threshold_source"] == "calibrated"
    with pytest.raises(UsageError):
        asyncio.run(
            build("likelihood(threshold=auto)").prepare(list(zip(_ql_inputs(), [1, 1, 1, 1])), client)
        )


def test_threshold_helpers():
    t, ba = balanced_accuracy_threshold([0.0, 1.0, 2.0, 3.0], [0, 0, 1, 1])
    assert t == 1.5 and ba == 1.0
    assert recall_threshold([0.0, 1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1, 0], 0.75) == 1.0
    assert recall_threshold([0.0, 1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1, 0], 1.0) == 0.0


def test_prefilter_drops_with_provenance_and_keeps_for_the_main_judge():
    def chat(m, p):
        return agent(grade=2)

    client = make_client(chat, score_fn=_score_fn)
    judge = build("prefilter(keep=0.9)+debate")
    labelled = list(zip(_ql_inputs(), [0, 1, 1, 1]))
    cal = asyncio.run(judge.prepare(labelled, client))
    assert cal["prefilter"]["recall"] >= 0.9 and judge.threshold == -0.5
    dropped = asyncio.run(judge(_ql_inputs()[0], client))
    assert (dropped.status, dropped.label, dropped.grade) == ("dropped", 0, 0)
    assert dropped.provenance["prefilter"]["score"] == -2.0
    kept = asyncio.run(judge(_ql_inputs()[2], client))
    assert (kept.status, kept.label, kept.grade) == ("consensus", 1, 2)
    assert (
        kept.usage.calls == 1 + 2 and "history" in kept.provenance and kept.provenance["prefilter"]["score"] == 1.0
    )


def test_prefilter_without_labels_uses_threshold_zero():
    client = make_client(lambda m, p: {"reason": "x", "grade": 3}, score_fn=_score_fn)
    judge = build("prefilter+zero-shot")
    asyncio.run(judge.prepare([], client))
    assert [asyncio.run(judge(i, client)).status for i in _ql_inputs()] == [
        "dropped",
        "dropped",
        "auto",
        "auto",
    ]


def test_prefilter_by_llm_keeps_on_failure(graded_input):
    def chat(m, p):
        if stance_of(m) == "prefilter":
            return "garbage"
        return {"reason": "x", "grade": 1}

    v = asyncio.run(build("prefilter(by=llm)+zero-shot")(graded_input(), make_client(chat)))
    assert v.status == "auto" and "error" in v.provenance["prefilter"]
    v = asyncio.run(
        build("prefilter(by=llm)+zero-shot")(
            graded_input(), make_client(lambda m, p: {"possibly_relevant": False})
        )
    )
    assert v.status == "dropped" and v.usage.calls == 1
