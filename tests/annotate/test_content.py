"""Pure pieces: highlighting, reading debate histories defensively, decision rules, task sync."""
from __future__ import annotations

import json

import pytest

from qrelkit.annotate import sync_tasks
from qrelkit.annotate.content import highlight, parse_history
from qrelkit.annotate.votes import decide
from qrelkit.store import Store
from qrelkit.types import Doc, Judgment

from .helpers import build_workspace, escalation


def test_highlight_escapes_the_document_and_marks_only_quotes():
    doc = 'A <b>bold</b> claim & "quotes" <script>x()</script> the End of text.'
    html = str(highlight(doc, [("<b>bold</b> claim &", "pro"), ("THE end", "con"), ("xx", "pro")]))
    assert html == (
        'A <mark class="pro">&lt;b&gt;bold&lt;/b&gt; claim &amp;</mark> &#34;quotes&#34; '
        '&lt;script&gt;x()&lt;/script&gt; <mark class="con">the End</mark> of text.'
    )


def test_highlight_never_splits_entities_and_merges_overlaps():
    html = str(highlight("fish &amp; chips", [("amp;", "pro")]))
    assert html == 'fish &amp;<mark class="pro">amp;</mark> chips'  # the raw text "&amp;" is text, marked as text
    html = str(highlight("one two three four", [("one two three", "pro"), ("three four", "con")]))
    assert html == '<mark class="pro">one two </mark><mark class="both">three</mark><mark class="con"> four</mark>'
    # whitespace re-flowed by a model still matches
    assert str(highlight("a  b\nc", [("a b c", "pro")])) == '<mark class="pro">a  b\nc</mark>'


@pytest.mark.parametrize("prov", [
    "", "not json", "[]", "{}", '{"history": "x"}', '{"history": [1, "a", null]}',
    '{"history": [{"round": 1}]}', '{"history": [{"round": 1, "agents": "x"}]}',
    '{"history": [{"round": 1, "agents": [5, null]}]}',
])
def test_parse_history_reads_garbage_as_no_history(prov):
    assert parse_history(prov) == ()


def test_parse_history_keeps_what_is_usable():
    prov = {"history": [{"agents": [{"stance": 3, "label": "1", "grade": True, "reasoning": None,
                                      "evidence": [{"quote": "q", "found": "yes"}, {"quote": ""}, "plain", 7]}]}]}
    (r,) = parse_history(json.dumps(prov))
    (a,) = r.agents
    assert r.number == 1 and a.stance == "" and a.label is None and a.grade is None and a.reasoning == ""
    assert [(q.text, q.found) for q in a.evidence] == [("q", None), ("plain", None)]


@pytest.mark.parametrize("grades,task,expected", [
    ([1, 1, 0], "answer", 1), ([0, 0, 1], "answer", 0), ([1, 0], "answer", None), ([], "answer", None),
    ([3, 1, 2], "graded", 2), ([0, 0, 3], "graded", 0), ([1, 2], "graded", None), ([2, 2], "graded", 2),
    ([0, 1, 2, 3], "graded", None), ([1, 1, 2, 3], "graded", None), ([1, 2, 2, 3], "graded", 2),
])
def test_decision_rules(grades, task, expected):
    assert decide(grades, task) == expected


def test_sync_is_idempotent_and_orders_escalations_first(tmp_path):
    ws = build_workspace(tmp_path / "ws")
    with Store.open(ws) as s:
        r1 = sync_tasks(s)
        rows1 = s.query("SELECT qid, docid, kind, priority, votes_needed, expected_grade FROM annot_tasks ORDER BY priority")
        r2 = sync_tasks(s)
        rows2 = s.query("SELECT qid, docid, kind, priority, votes_needed, expected_grade FROM annot_tasks ORDER BY priority")
    assert (r1.escalations, r1.people, r1.attention, r1.added) == (2, 4, 1, 7)
    assert (r2.added, rows2) == (0, rows1)
    kinds = [k for _, _, k, *_ in rows1 if k != "attention"]
    assert kinds == ["escalation"] * 2 + ["people"] * 4
    att = [r for r in rows1 if r[2] == "attention"]
    assert len(att) == 1 and att[0][5] is not None  # a known label, from the original qrels
    assert ("q1", "d7") not in {(q, d) for q, d, *_ in rows1 if _[0] != "attention"}  # judged people case


def test_sync_picks_up_new_escalations_and_counts_missing_docs(tmp_path):
    ws = build_workspace(tmp_path / "ws")
    with Store.open(ws) as s:
        sync_tasks(s, attention_share=0.0)
        s.upsert_docs([Doc("d20", "new doc")])
        s.put_judgments([escalation("q1", "d20", "{}"), escalation("q1", "gone", "{}"), escalation("q2", "d11", "{}"),
                         Judgment("q2", "d5", "zero", "m", None, None, "error", "llm")])
        r = sync_tasks(s, votes_needed=5, attention_share=0.0)
        rows = dict(((q, d), (k, p, n)) for q, d, k, p, n in s.query(
            "SELECT qid, docid, kind, priority, votes_needed FROM annot_tasks"))
    assert r.missing == 1 and r.added == 2 and r.attention == 0
    assert rows[("q1", "d20")][0] == "escalation"
    assert rows[("q2", "d5")][0] == "escalation"  # an error escalation of a people case, nobody voted yet
    order = sorted(rows, key=lambda k: rows[k][1])
    assert [rows[k][0] for k in order] == ["escalation"] * 5 + ["people"] * 3
    assert {n for _, _, n in rows.values()} == {5}
    # the error is retried into a label: the task goes (nobody voted); a voted-on escalation stays
    with Store.open(ws) as s:
        s.execute("INSERT INTO annot_users(name, created_at) VALUES('x', 0)")
        s.execute("INSERT INTO annot_votes(user_id, qid, docid, grade, created_at) VALUES(1, 'q1', 'd20', 1, 0)")
        s.put_judgments([Judgment("q2", "d5", "zero", "m", 1, 1, "auto", "llm"),
                         Judgment("q2", "d11", "debate(rounds=2)", "scripted", 1, 2, "consensus", "llm"),
                         Judgment("q1", "d20", "debate(rounds=2)", "scripted", 1, 2, "consensus", "llm")])
        r = sync_tasks(s, votes_needed=5, attention_share=0.0)
        kinds = dict(((q, d), k) for q, d, k in s.query("SELECT qid, docid, kind FROM annot_tasks"))
    assert r.removed == 1 and ("q2", "d11") not in kinds
    assert kinds[("q2", "d5")] == "people"  # still in the people's share
    assert kinds[("q1", "d20")] == "escalation"


def test_sync_rejects_bad_parameters(tmp_path):
    ws = build_workspace(tmp_path / "ws")
    with Store.open(ws) as s:
        with pytest.raises(ValueError):
            sync_tasks(s, votes_needed=0)
        with pytest.raises(ValueError):
            sync_tasks(s, attention_share=1.0)


def test_sync_skips_escalations_over_the_budget(tmp_path):
    ws = build_workspace(tmp_path / "ws")
    over = json.dumps({"budget": {"for_people": False, "action": "undecided"}})
    within = json.dumps({"budget": {"for_people": True, "action": "people"}})
    with Store.open(ws) as s:
        s.upsert_docs([Doc("d30", "x"), Doc("d31", "y")])
        s.put_judgments([escalation("q1", "d30", over), escalation("q1", "d31", within)])
        sync_tasks(s, attention_share=0.0)
        kinds = dict(((q, d), k) for q, d, k in s.query("SELECT qid, docid, kind FROM annot_tasks"))
    assert ("q1", "d30") not in kinds
    assert kinds[("q1", "d31")] == "escalation"
