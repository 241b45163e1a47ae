"""Debate protocol, branch by branch, with a scripted model."""

from __future__ import annotations

import asyncio

import pytest

from qrelkit.judges import build
from qrelkit.judges.debate import round_half_up_mean

from .conftest import agent, make_client, round_of, stance_of


def run(spec, inp, fn):
    client = make_client(fn)
    v = asyncio.run(build(spec)(inp, client))
    return v, client


def test_round1_agreement_is_consensus_with_two_calls(graded_input):
    v, client = run("debate", graded_input(), lambda m, p: agent(grade=3, evidence=["quick brown fox"]))
    assert (v.status, v.label, v.grade, v.round, v.usage.calls) == ("consensus", 1, 3, 1, 2)
    assert client.backend.calls == 2
    assert v.evidence == ("quick brown fox",)
    h = v.provenance["history"]
    assert len(h) == 1 and [a["stance"] for a in h[0]["agents"]] == ["relevant", "irrelevant"]
    assert h[0]["agents"][0] == {
        "stance": "relevant",
        "label": 1,
        "grade": 3,
        "evidence": [{"quote": "quick brown fox", "found": True}],
        "reasoning": "because",
        "error": None,
    }


def _converge_in_round2(m, p):
    s, r = stance_of(m), round_of(m)
    if r == 1:
        return agent(grade=2 if s == "relevant" else 0)
    return agent(grade=2 if s == "relevant" else 1, reasoning=f"round {r}")


def test_round2_agreement_accepted_at_round2(graded_input):
    v, client = run("debate(rounds=3)", graded_input(), _converge_in_round2)
    # binary sides agree at round 2 only when both are >= 2: 2 and 1 disagree, so this goes on
    assert v.round == 3 and v.status == "escalate" and v.usage.calls == 6

    def fn(m, p):
        s, r = stance_of(m), round_of(m)
        return agent(grade=(3 if s == "relevant" else 0) if r == 1 else 2)

    v, client = run("debate", graded_input(), fn)
    assert (v.status, v.label, v.grade, v.round, v.usage.calls) == ("consensus", 1, 2, 2, 4)
    assert client.backend.calls == 4
    assert [h["round"] for h in v.provenance["history"]] == [1, 2]


def test_round2_prompt_carries_both_previous_outputs(graded_input):
    def fn(m, p):
        s, r = stance_of(m), round_of(m)
        return agent(grade=3 if s == "relevant" else 0, reasoning=f"{s}-argument-r{r}")

    v, client = run("debate", graded_input(), fn)
    later = [msgs for msgs, _ in client.backend.requests if round_of(msgs) == 2]
    assert len(later) == 2
    for msgs in later:
        text = msgs[-1].content
        assert "relevant-argument-r1" in text and "irrelevant-argument-r1" in text
        # the agent's own output comes first ("You"), the opponent's second
        own = "relevant-argument-r1" if stance_of(msgs) == "relevant" else "irrelevant-argument-r1"
        assert text.index("You decided") < text.index(own) < text.index("The other assessor decided")


def test_persistent_disagreement_escalates_with_history(graded_input):
    v, client = run(
        "debate", graded_input(), lambda m, p: agent(grade=3 if stance_of(m) == "relevant" else 0)
    )
    assert (v.status, v.label, v.grade, v.round, v.usage.calls) == ("escalate", None, None, 2, 4)
    assert "disagree after 2 rounds" in v.reason
    h = v.provenance["history"]
    assert [r["round"] for r in h] == [1, 2]
    assert all(len(r["agents"]) == 2 for r in h)
    assert v.provenance["disagreement"] == {"grade_gap": 3, "rounds": 2}
    assert v.escalated


def test_llm_adjudicator_decides_with_one_more_call(graded_input):
    def fn(m, p):
        s = stance_of(m)
        if s == "adjudicator":
            assert "<<<DEBATE" in m[-1].content and "grade 3" in m[-1].content
            return {"reason": "the quotes support it", "grade": 2}
        return agent(grade=3 if s == "relevant" else 1)

    v, client = run("debate(adjudicator=llm)", graded_input(), fn)
    assert (v.status, v.label, v.grade, v.round, v.usage.calls) == ("adjudicated", 1, 2, 2, 5)
    assert v.provenance["ruling"]["grade"] == 2
    assert v.rationale == "the quotes support it"


def test_swapped_stances_give_the_same_result(graded_input):
    def fn(m, p):
        s, r = stance_of(m), round_of(m)
        if s == "adjudicator":
            return {"reason": "r", "grade": 1}
        if r == 1:
            return agent(grade=3 if s == "relevant" else 0, evidence=["lazy dog"])
        return agent(grade=2 if s == "relevant" else 1)

    for adj in ("human", "llm"):
        a, ca = run(f"debate(first=relevant,adjudicator={adj})", graded_input(), fn)
        b, cb = run(f"debate(first=irrelevant,adjudicator={adj})", graded_input(), fn)
        key = lambda v: (v.status, v.label, v.grade, v.round, v.usage.calls, v.evidence, v.reason)  # noqa: E731
        assert key(a) == key(b)
        # the same requests were made, only their order differs
        assert sorted(str(r) for r in ca.backend.requests) == sorted(str(r) for r in cb.backend.requests)
        def by_stance(v):
            return [sorted(r["agents"], key=lambda x: x["stance"]) for r in v.provenance["history"]]

        assert by_stance(a) == by_stance(b)
        assert b.provenance["history"][0]["agents"][0]["stance"] == "irrelevant"


def test_round_calls_run_concurrently(graded_input):
    seen = {"max": 0, "now": 0}

    async def fn(m, p):
        seen["now"] += 1
        seen["max"] = max(seen["max"], seen["now"])
        await asyncio.sleep(0.01)
        seen["now"] -= 1
        return agent(grade=2)

    run("debate", graded_input(), fn)
    assert seen["max"] == 2


def test_failed_call_is_retried_then_becomes_an_error(graded_input):
    def fn(m, p):
        if stance_of(m) == "relevant":
            raise RuntimeError("server exploded")
        return agent(grade=0)

    v, client = run("debate", graded_input(), fn)
    assert (v.status, v.label, v.grade, v.round) == ("error", None, None, 1)
    assert v.usage.calls == 2  # the judge made two calls; the client retried one of them
    assert client.backend.calls == 1 + client.max_attempts
    assert "relevant agent" in v.reason and v.escalated
    agents = v.provenance["history"][0]["agents"]
    assert agents[0]["error"] and agents[0]["label"] is None and agents[1]["label"] == 0


def test_unparseable_reply_is_retried_then_becomes_an_error(graded_input):
    def fn(m, p):
        if stance_of(m) == "irrelevant" and round_of(m) == 2:
            return "I think grade three, honestly"
        return agent(grade=3 if stance_of(m) == "relevant" else 0)

    v, client = run("debate", graded_input(), fn)
    assert (v.status, v.label, v.round, v.usage.calls) == ("error", None, 2, 4)
    assert client.backend.calls == 3 + client.max_attempts


def test_out_of_range_grade_is_an_error_not_a_guess(graded_input):
    v, _ = run("debate", graded_input(), lambda m, p: agent(grade=7))
    assert v.status == "error" and v.label is None


def test_quote_not_found_is_flagged(graded_input):
    v, client = run(
        "debate",
        graded_input(),
        lambda m, p: agent(grade=2, evidence=["The QUICK  brown\nfox", "a purple elephant"]),
    )
    ev = v.provenance["history"][0]["agents"][0]["evidence"]
    assert ev == [
        {"quote": "The QUICK  brown\nfox", "found": True},
        {"quote": "a purple elephant", "found": False},
    ]
    assert v.evidence == ("The QUICK  brown\nfox",)


def test_graded_final_grade_is_rounded_half_up_mean(graded_input):
    assert [round_half_up_mean(a, b) for a, b in ((2, 3), (0, 1), (2, 2), (0, 0), (3, 3))] == [3, 1, 2, 0, 3]
    v, _ = run("debate", graded_input(), lambda m, p: agent(grade=3 if stance_of(m) == "relevant" else 2))
    assert (v.status, v.label, v.grade) == ("consensus", 1, 3)
    v, _ = run("debate", graded_input(), lambda m, p: agent(grade=1 if stance_of(m) == "relevant" else 0))
    assert (v.status, v.label, v.grade) == ("consensus", 0, 1)


def test_answer_task_uses_labels(answer_input):
    def fn(m, p):
        assert "- Paris" in m[-1].content
        assert p["schema"]["properties"]["label"]["enum"] == [0, 1]
        return agent(label=1, evidence=["Paris is the capital"])

    v, _ = run("debate", answer_input(), fn)
    assert (v.status, v.label, v.grade) == ("consensus", 1, 1)
    assert v.provenance["history"][0]["agents"][0]["grade"] is None


@pytest.mark.parametrize("rounds,agree_at,calls", [(1, None, 2), (2, 1, 2), (3, 3, 6), (3, None, 6)])
def test_exact_call_counts(graded_input, rounds, agree_at, calls):
    def fn(m, p):
        r = round_of(m)
        if agree_at is not None and r >= agree_at:
            return agent(grade=2)
        return agent(grade=3 if stance_of(m) == "relevant" else 0)

    v, client = run(f"debate(rounds={rounds})", graded_input(), fn)
    assert v.usage.calls == calls == client.backend.calls
    v, client = run(
        f"debate(rounds={rounds},adjudicator=llm)",
        graded_input(),
        lambda m, p: {"reason": "x", "grade": 0} if stance_of(m) == "adjudicator" else fn(m, p),
    )
    assert v.usage.calls == calls + (1 if agree_at is None else 0)
