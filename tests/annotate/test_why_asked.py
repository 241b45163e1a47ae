"""Why a case comes to people and how many votes it needs (issue 24, point 7), over HTTP and as a
table of the judges' reasons; and quotes that are the prompts' placeholders count as no quote."""
from __future__ import annotations

import json

import pytest

from qrelkit.annotate.content import NOT_SETTLED, is_placeholder, parse_history, placeholder_quotes, why_asked

from .helpers import debate_provenance

DEBATE = parse_history(debate_provenance("gravitational pull of the Moon", "sailing schedules"))

WHY = [
    pytest.param({"status": "escalate", "reason": "the agents still disagree after 2 rounds"}, DEBATE,
                 "The two AI assessors still disagreed after round 2", id="debate"),
    pytest.param({"status": "error", "reason": "call failed: unparseable reply"}, (),
                 "The AI judge could not decide (its answers could not be used)", id="error"),
    pytest.param({"status": "error", "reason": "call failed: unparseable reply"}, DEBATE,
                 "The AI judge could not decide (its answers could not be used)", id="error-mid-debate"),
    pytest.param({"status": "escalate", "reason": "probability 0.48 within the uncertain band"}, (),
                 "The AI judge was not sure enough (probability 0.48 within the uncertain band)", id="uncertain"),
    pytest.param("not json", (), "The AI judge was not sure enough", id="unreadable"),
]


@pytest.mark.parametrize("provenance, history, says", WHY)
def test_the_reason_a_case_came_is_said_in_words(provenance, history, says):
    assert says in why_asked(json.dumps(provenance) if isinstance(provenance, dict) else provenance, history)


SERVER_ERROR = ("round 1: relevant agent: HTTP 500 from http://127.0.0.1:8765/v1: 1 validation error for "
                "CreateChatCompletionRequest response_format Input should be a valid dictionary "
                "/srv/venv/lib/python3.11/site-packages/llama_cpp/server/types.py")


@pytest.mark.parametrize("needle", ["HTTP 500", "validation error", "/srv/venv", "site-packages", "127.0.0.1"])
def test_a_failed_calls_server_message_is_not_shown_to_people(needle):
    assert needle not in why_asked(json.dumps({"status": "error", "reason": SERVER_ERROR}), ())


def test_an_escalation_over_http_says_why_it_came(annotator):
    case = annotator("ann").next()
    assert case["why"].startswith("The two AI assessors still disagreed after round 2")


def test_an_escalation_over_http_counts_its_votes(annotator):
    case = annotator("ann").next()
    assert case["votes"] == {"cast": 0, "needed": 3}


def test_a_second_annotator_sees_the_first_vote_counted(annotator):
    ann, bob = annotator("ann"), annotator("bob")
    first = ann.next()
    assert ann.vote(first["qid"], first["docid"], 2).status_code == 200
    assert bob.next()["votes"]["cast"] == 1


def test_a_case_of_the_peoples_share_says_it_is_theirs_by_design(annotator):
    ann = annotator("ann")
    seen = []
    for _ in range(8):
        case = ann.next()
        if case["done"]:
            break
        seen.append(case)
        if case["kind"] == "escalation":
            ann.skip(case["qid"], case["docid"])
        else:
            ann.vote(case["qid"], case["docid"], 1)
    people = [c["why"] for c in seen if c["kind"] == "people"]
    assert people and all("by design" in w for w in people)


def test_the_reason_is_neutral_when_the_debate_is_hidden():
    assert "disagreed" not in NOT_SETTLED


@pytest.mark.parametrize("quote, placeholder", [
    ("<verbatim quote from the document>", True),
    ("  “<Verbatim quote from the document>”  ", True),
    ("...", True),
    ("…", True),
    ("", True),
    ("gravitational pull of the Moon", False),
    ("<b>a real quote with markup</b>", False),
])
def test_placeholder_quotes_are_recognised(quote, placeholder):
    assert is_placeholder(quote) is placeholder


def test_the_placeholders_come_from_the_prompt_templates():
    assert "<verbatim quote from the document>" in placeholder_quotes()


def test_a_turn_keeps_its_real_quotes_and_drops_the_placeholder():
    prov = json.dumps({"history": [{"round": 1, "agents": [
        {"stance": "relevant", "label": 1, "grade": 2, "reasoning": "r",
         "evidence": [{"quote": "<verbatim quote from the document>", "found": False},
                      {"quote": "the Moon", "found": True}]}]}]})
    (round1,) = parse_history(prov)
    assert [q.text for q in round1.agents[0].evidence] == ["the Moon"]


@pytest.mark.parametrize("stance, label, grade, started, says", [
    ("relevant", 0, 1, "relevant", "not relevant (grade 1)"),
    ("not_relevant", 1, 3, "not relevant", "relevant (grade 3)"),
    ("relevant", 1, None, "relevant", "relevant"),
    ("not_relevant", None, 2, "not relevant", "grade 2"),  # no label: the page does not guess one
    ("", None, None, "", "undecided"),
])
def test_a_turn_names_its_starting_stance_and_its_decision(stance, label, grade, started, says):
    from qrelkit.annotate.content import AgentTurn

    turn = AgentTurn(stance, label, grade, "", ())
    assert (turn.started, turn.says) == (started, says)
