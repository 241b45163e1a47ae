"""A vote's escalation shows people each member's verdict and reasoning, as a debate's shows its rounds.

The workspace is judged by the real ``vote`` judge through the runner; only the model's answers are
scripted (three zero-shot members: plain, with the topic's narrative, and with a document budget too
small to reach the passage's point). Two say relevant, one not, and ``agree=all`` needs all three, so
the case goes to people. What the app shows is read from the escalating judgment's provenance.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from qrelkit.annotate import create_app, sync_tasks
from qrelkit.annotate.content import load_case, parse_history, why_asked
from qrelkit.annotate.settings import load_settings
from qrelkit.judging.runner import run_judging
from qrelkit.llm import Client, ScriptedBackend
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Topic

from .helpers import add_login

NARRATIVE = "Relevant passages say where red foxes raise their young."
TEXT = ("Weather report for the valley. " * 40) + "Behind the barn a red fox keeps a den where her cubs were born."
VOTE = "vote(judges=[zero-shot,zero-shot(narrative=topic),zero-shot(doc_tokens=64)],agree=all)"
PLAIN = "zero-shot(doc_tokens=400,narrative=none)"
SAID = {  # member (as the vote's id writes it; narrative=topic is the default) -> (grade, reason) answered
    PLAIN: (2, "The last sentence places a fox den behind the barn."),
    "zero-shot(doc_tokens=400)": (3, "The narrative asks where foxes raise cubs; the den answers it."),
    "zero-shot(doc_tokens=64)": (0, "The part I read is a weather report."),
}


def answer(messages, params) -> dict:
    user = messages[-1].content
    if "cubs were born" not in user:  # the document was cut before its point
        member = "zero-shot(doc_tokens=64)"
    else:
        member = "zero-shot(doc_tokens=400)" if NARRATIVE in user else PLAIN
    grade, reason = SAID[member]
    return {"reason": reason, "grade": grade}


def vote_workspace(path: Path) -> Path:
    """One escalation by a vote whose members split, synced into the app's tasks."""
    with Store.create(path) as s:
        s.upsert_topics([Topic("q1", "where do red foxes raise their young", (), NARRATIVE)])
        s.upsert_docs([Doc("d1", TEXT, "Valley news")])
        s.upsert_cases([Case("q1", "d1", "llm", 4, ("runA",), False)])
        client = Client(ScriptedBackend(answer), store=s, backoff_base=0.0)
        run_judging(s, VOTE, client, task="graded", threshold=2)
        sync_tasks(s, votes_needed=1, attention_share=0.0)
    return path


@pytest.fixture
def vote_ws(tmp_path) -> Path:
    return vote_workspace(tmp_path / "ws")


@pytest.fixture
def shown(vote_ws):
    with Store.open(vote_ws) as s:
        return load_case(s, load_settings(s), "q1", "d1", "escalation")


def test_the_vote_escalated(vote_ws):
    with Store.open(vote_ws) as s:
        assert s.escalations_for_people() == [("q1", "d1")]


def test_the_vote_is_one_round_with_every_member(shown):
    assert [a.judge for a in shown.history[0].agents] == list(SAID)


def test_each_member_says_its_own_verdict(shown):
    assert [a.says for a in shown.history[0].agents] == ["relevant (grade 2)", "relevant (grade 3)",
                                                         "not relevant (grade 0)"]


def test_each_member_gives_its_reasoning(shown):
    assert [a.reasoning for a in shown.history[0].agents] == [r for _, r in SAID.values()]


def test_the_vote_round_states_the_rule(shown):
    assert shown.history[0].title == "The vote (all rule: 3 of 3 must agree)"


def test_why_it_came_says_how_the_vote_split(shown):
    assert shown.why == ("The 3 AI judges split (2 said relevant, 1 said not relevant; all rule: 3 of 3 must "
                         "agree), so people decide.")


def test_the_history_is_a_vote_not_a_debate(shown):
    assert shown.history_kind == "vote"


def test_a_members_colour_follows_what_it_said(shown):
    assert [a.css for a in shown.history[0].agents] == ["pro", "pro", "con"]


SAMPLES = {"vote": {"rule": "majority", "needed": 2, "counts": {"0": 1, "1": 1}, "samples": 2, "temperature": 0.7},
           "samples": [{"sample": 1, "status": "auto", "label": 1, "grade": 3, "reply": {"reason": "a den"}},
                       {"sample": 2, "status": "auto", "label": 0, "grade": 0, "reply": {"reason": "weather"}}]}


def test_why_a_sampled_judge_came_says_how_its_samples_split():
    samples = parse_history(json.dumps(SAMPLES))
    assert why_asked(json.dumps({"status": "escalate", **SAMPLES}), samples) == (
        "The AI judge's 2 samples split (1 said relevant, 1 said not relevant; majority rule: 2 of 2 must agree), "
        "so people decide.")


def test_a_judges_samples_show_as_the_voters():
    assert [(a.judge, a.says, a.reasoning) for a in parse_history(json.dumps(SAMPLES))[0].agents] == [
        ("sample 1", "relevant (grade 3)", "a den"), ("sample 2", "not relevant (grade 0)", "weather")]


@pytest.mark.parametrize("prov", [{"vote": {"rule": "all"}}, {"vote": {"members": "x", "needed": 2, "rule": "all"}},
                                  {"vote": "majority"}, {"vote": {"members": [], "needed": 1, "rule": "all"}}])
def test_a_malformed_vote_record_is_no_history(prov):
    assert parse_history(json.dumps(prov)) == ()


# ---- over HTTP ----------------------------------------------------------------------------------
@pytest.fixture
def page(vote_ws):
    with Store.open(vote_ws) as s:
        token = add_login(s, "ann")
    client = TestClient(create_app(vote_ws), base_url="https://testserver")
    assert client.post("/login", data={"token": token}, follow_redirects=False).status_code == 303
    return client


def test_the_api_gives_each_members_verdict(page):
    history = page.get("/api/next").json()["history"]
    assert [(a["judge"], a["grade"]) for a in history[0]["agents"]] == [(m, g) for m, (g, _) in SAID.items()]


def test_the_case_page_names_every_member(page):
    html = page.get("/").text
    assert [m in html for m in SAID] == [True, True, True]


def test_the_case_page_calls_it_a_vote(page):
    assert "AI vote" in page.get("/").text
