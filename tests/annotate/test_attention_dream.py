"""Attention checks as the DREAM paper builds them: known-relevant items by default, shown with
the escalation badge and two conflicting arguments (borrowed from an unrelated item's debate)."""
from __future__ import annotations

import json

import pytest

from qrelkit.annotate import sync_tasks
from qrelkit.annotate.attention import FALLBACK, attention_history
from qrelkit.annotate.settings import AnnotateSettings, load_settings, save_settings
from qrelkit.store import Store
from qrelkit.types import Judgment, Qrel, Topic

from .helpers import build_load_workspace

N = 40


@pytest.fixture
def known(tmp_path):
    """40 people's cases and 40 known labels outside the pool, half relevant."""
    ws = build_load_workspace(tmp_path / "ws", 2 * N)
    s = Store.open(ws)
    s.remove_cases_except({(c.qid, c.docid) for c in s.cases() if int(c.docid[1:]) < N})
    s.upsert_qrels(Qrel("t1", f"L{i}", 3 * (i % 2)) for i in range(N, 2 * N))
    yield s
    s.close()


def expected_grades(store) -> set[int]:
    return {t.expected_grade for t in store.tasks(kind="attention")}


def test_checks_use_known_relevant_items_by_default(known):
    sync_tasks(known, attention_share=0.3)
    assert expected_grades(known) == {3}


def test_checks_may_use_both_labels_when_the_project_says_so(known):
    save_settings(known, AnnotateSettings(attention_labels="both"))
    sync_tasks(known, attention_share=0.3)
    assert expected_grades(known) == {0, 3}


def test_the_pass_rule_defaults_to_pass_all(known):
    s = load_settings(known)
    assert (s.min_pass_rate, s.min_checks) == (1.0, 1)


def test_without_any_debate_a_check_shows_two_fixed_conflicting_arguments(known):
    assert attention_history(known, "t1", "L41")[0].agents == FALLBACK


def _debate(qid: str, docid: str) -> Judgment:
    agents = [
        {"stance": "relevant", "label": 1, "grade": None, "reasoning": "for it",
         "evidence": [{"quote": "elsewhere", "found": True}], "error": None},
        {"stance": "irrelevant", "label": 0, "grade": None, "reasoning": "against it",
         "evidence": [], "error": None},
    ]
    prov = {"history": [{"round": 1, "agents": agents}, {"round": 2, "agents": agents}]}
    return Judgment(qid, docid, "debate", "m", None, None, "escalate", provenance=json.dumps(prov))


@pytest.fixture
def donor(known):
    known.upsert_topics([Topic("t2", "another topic")])
    known.put_judgments([_debate("t2", "d0")])
    return known


def test_a_check_borrows_the_arguments_of_an_unrelated_debate(donor):
    (r,) = attention_history(donor, "t1", "L41")
    assert [a.reasoning for a in r.agents] == ["for it", "against it"]


def test_borrowed_arguments_leave_the_other_documents_quotes_behind(donor):
    (r,) = attention_history(donor, "t1", "L41")
    assert all(a.evidence == () for a in r.agents)


def test_a_debate_on_the_same_topic_is_not_borrowed(known):
    known.put_judgments([_debate("t1", "d0")])
    assert attention_history(known, "t1", "L41")[0].agents == FALLBACK
