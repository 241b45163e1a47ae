"""One definition of "waiting for people", read by status, the jobs and the annotation queue."""
from __future__ import annotations

import json

import pytest

from qrelkit.annotate.tasks import sync_tasks
from qrelkit.status import workspace_status
from qrelkit.store import Store, wants_people
from qrelkit.types import Case, Doc, Judgment, Topic

OVER_BUDGET = json.dumps({"budget": {"for_people": False}})
WITHIN_BUDGET = json.dumps({"budget": {"for_people": True}})


def _judgment(docid: str, status: str, provenance: str = "{}", method: str = "debate", source: str = "llm"):
    label = 1 if status in ("relevant", "human") else None
    return Judgment("q1", docid, method, "m", label, label, status, source, provenance=provenance)


@pytest.fixture
def ws(tmp_path):
    """Escalations within and over budget, an error, a decided escalation, and a people's share."""
    with Store.create(tmp_path / "ws") as s:
        s.upsert_topics([Topic("q1", "dogs")])
        s.upsert_docs(Doc(f"d{i}", f"text {i}") for i in range(1, 9))
        s.upsert_cases(
            [Case("q1", f"d{i}", "llm", i, ("run",), False) for i in range(1, 6)]
            + [Case("q1", "d6", "people", 6, ("run",), False), Case("q1", "d7", "people", 7, ("run",), False)]
        )
        s.put_judgments([
            _judgment("d1", "escalate", WITHIN_BUDGET),
            _judgment("d2", "escalate", OVER_BUDGET),
            _judgment("d3", "error"),
            _judgment("d4", "escalate"),  # decided by people below
            _judgment("d5", "relevant"),
            Judgment("q1", "d4", "people", "", 1, 1, "human", "human"),
            Judgment("q1", "d7", "people", "", 0, 0, "human", "human"),
        ])
        yield s


@pytest.mark.parametrize(
    "status, provenance, expected",
    [
        ("escalate", "{}", True),
        ("escalate", WITHIN_BUDGET, True),
        ("escalate", OVER_BUDGET, False),
        ("error", OVER_BUDGET, True),
        ("relevant", "{}", False),
        ("human", "{}", False),
    ],
)
def test_wants_people(status, provenance, expected):
    assert wants_people(status, provenance) is expected


def test_waiting_escalations_leave_out_over_budget_and_decided(ws):
    assert ws.waiting_for_people().escalations == {("q1", "d1"), ("q1", "d3")}


def test_waiting_people_share_leaves_out_decided(ws):
    assert ws.waiting_for_people().people_share == {("q1", "d6")}


def test_waiting_counts_each_case_once(ws):
    assert ws.waiting_for_people().to_json() == {"escalations": 2, "people_share": 1, "waiting": 3}


def test_meant_for_people_keeps_decided_cases_in_serving_order(ws):
    assert [(m.docid, m.kind) for m in ws.meant_for_people()] == [
        ("d1", "escalation"), ("d3", "escalation"), ("d4", "escalation"), ("d6", "people"), ("d7", "people"),
    ]


def test_status_does_not_count_over_budget_escalations(ws):
    assert workspace_status(ws)["escalations_waiting"] == 2


def test_status_people_pending_leaves_out_decided(ws):
    assert workspace_status(ws)["people_pending"] == 1


def test_annotation_queue_has_no_task_for_over_budget_escalations(ws):
    sync_tasks(ws, votes_needed=1, attention_share=0.0)
    assert ws.task("q1", "d2") is None


def test_annotation_queue_serves_escalations_within_budget(ws):
    sync_tasks(ws, votes_needed=1, attention_share=0.0)
    assert ws.task("q1", "d1").kind == "escalation"
