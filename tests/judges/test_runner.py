"""The judging pipeline on a tiny workspace with scripted models."""

from __future__ import annotations

import json

import pytest

from qrelkit.errors import UsageError
from qrelkit.judging.escalation import list_escalations
from qrelkit.judging.runner import run_judging
from qrelkit.judging.selection import select_cases
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

from .conftest import agent, make_client, stance_of
from .fake_openai import GRADES  # doc text -> (relevant agent's grade, irrelevant agent's grade)


def debate_fn(m, p):
    s = stance_of(m)
    if s == "adjudicator":
        return {"reason": "settled", "grade": 1}
    if s == "zeroshot":
        return {"reason": "z", "grade": 2}
    text = m[-1].content
    key = next(k for k in GRADES if k in text)
    return agent(grade=GRADES[key][0 if s == "relevant" else 1])


@pytest.fixture
def ws(tmp_path):
    store = Store.create(tmp_path / "ws")
    store.upsert_topics([Topic("q1", "fox"), Topic("q2", "dog")])
    docs = [Doc(f"d{i}", f"passage {k}") for i, k in enumerate(GRADES)]
    store.upsert_docs(docs)
    store.upsert_cases([Case("q1" if i < 3 else "q2", d.docid, "llm", i + 1) for i, d in enumerate(docs)])
    yield store
    store.close()


def test_judges_pending_cases_and_writes_provenance(ws):
    client = make_client(debate_fn, store=ws)
    s = run_judging(ws, "debate", client, concurrency=3)
    assert (s.cases, s.judged, s.escalations, s.errors) == (6, 3, 3, 0)
    assert s.relevant == 2 and s.escalation_ratio == 0.5 and s.calls == client.usage.calls == 3 * 2 + 3 * 4
    assert s.task == "graded" and s.model == "scripted"
    js = {j.docid: j for j in ws.judgments(method=s.method)}
    assert js["d0"].status == "consensus" and js["d0"].grade == 3 and js["d0"].round == 1
    prov = json.loads(js["d2"].provenance)
    assert prov["method"] == "debate(adjudicator=human,doc_tokens=1024,first=relevant,prompt=v2,rounds=2)"
    assert prov["model"] == "scripted" and prov["task"] == {"name": "graded", "threshold": 2}
    assert prov["status"] == "escalate" and "disagree" in prov["reason"] and len(prov["history"]) == 2
    assert set(prov["templates"]) == {"debate_agent", "task_graded"}
    runs = ws.command_runs("judge")
    assert runs[-1].status == "done" and runs[-1].usage.calls == s.calls
    assert runs[-1].totals["escalations"] == 3


def test_rerun_does_nothing_and_errors_are_retried(ws):
    def flaky(m, p):
        if "agree0" in m[-1].content and stance_of(m) == "relevant":
            raise RuntimeError("down")
        return debate_fn(m, p)

    c1 = make_client(flaky, store=ws, max_attempts=2)
    s1 = run_judging(ws, "debate", c1)
    assert s1.errors == 1 and s1.escalations == 4
    err = ws.judgments(status="error")[0]
    assert err.label is None and err.docid == "d1"
    c2 = make_client(debate_fn, store=ws)
    s2 = run_judging(ws, "debate", c2)
    # only the error case is redone; its successful call from the first run is a cache hit
    assert s2.new == 1 and s2.errors == 0 and s2.calls == 2 and s2.cache_hits == 1
    assert c2.backend.calls == 1
    c3 = make_client(debate_fn, store=ws)
    s3 = run_judging(ws, "debate", c3)
    assert s3.new == 0 and c3.backend.calls == 0 and s3.judged == 3


def test_concurrency_bounds_cases_in_flight(ws):
    client = make_client(lambda m, p: {"reason": "x", "grade": 1}, store=ws)
    run_judging(ws, "zero-shot", client, concurrency=2)
    assert client.backend.max_in_flight <= 2


def test_budget_keeps_strongest_disagreements_for_people(ws):
    s = run_judging(ws, "debate", make_client(debate_fn, store=ws), budget="1")
    # escalations: gap3 (d2), gap1 (d3), gap2 (d4); the strongest (gap 3) goes to people
    assert s.escalations == 1 and s.undecided == 2
    items = list_escalations(ws)
    assert [e["docid"] for e in items] == ["d2"] and items[0]["history"]
    assert len(list_escalations(ws, include_over_budget=True)) == 3
    marks = {j.docid: json.loads(j.provenance)["budget"] for j in ws.judgments(status="escalate")}
    assert marks["d2"]["for_people"] and marks["d2"]["rank"] == 1
    assert marks["d4"]["rank"] == 2 and marks["d3"]["rank"] == 3 and marks["d3"]["action"] == "undecided"


def test_budget_overflow_goes_to_the_llm_adjudicator(ws):
    client = make_client(debate_fn, store=ws)
    s = run_judging(ws, "debate(adjudicator=llm)", client, budget="34%")  # 34% of 6 cases -> 2
    assert s.escalations == 2 and s.adjudicated == 1 and s.undecided == 0
    adj = ws.judgments(status="adjudicated")
    assert [j.docid for j in adj] == ["d3"]  # the weakest disagreement (grades 2 vs 1)
    prov = json.loads(adj[0].provenance)
    assert prov["budget"]["action"] == "llm-adjudicator" and prov["ruling"]["grade"] == 1
    assert adj[0].calls == 5 and adj[0].source == "adjudicator" and adj[0].grade == 1 and adj[0].label == 0
    # a deferred adjudication is never run without a budget decision
    assert all(
        json.loads(j.provenance).get("adjudication") == "deferred" for j in ws.judgments(status="escalate")
    )


def test_without_budget_llm_adjudicator_decides_everything(ws):
    s = run_judging(ws, "debate(adjudicator=llm)", make_client(debate_fn, store=ws))
    assert s.escalations == 0 and s.adjudicated == 3 and s.judged == 6


def test_share_judged_uses_qrels_when_there_are_no_cases(tmp_path):
    store = Store.create(tmp_path / "w")
    store.upsert_topics([Topic("q1", "fox")])
    store.upsert_docs([Doc("a", "passage agree3"), Doc("b", "passage agree0")])
    store.upsert_qrels([Qrel("q1", "a", 3), Qrel("q1", "b", 0)])
    assert [c.docid for c in select_cases(store, "judged")] == ["a", "b"]
    assert select_cases(store, "llm") == []
    s = run_judging(store, "debate", make_client(debate_fn, store=store), share="judged")
    assert s.cases == 2 and s.judged == 2 and s.relevant == 1


def test_task_auto_and_missing_docs(tmp_path):
    store = Store.create(tmp_path / "w")
    store.upsert_topics([Topic("q1", "capital of france", answers=("Paris",))])
    store.upsert_docs([Doc("a", "Paris is the capital.")])
    store.upsert_cases([Case("q1", "a"), Case("q1", "ghost")])
    client = make_client(lambda m, p: {"reason": "x", "label": 1}, store=store)
    s = run_judging(store, "zero-shot", client)
    assert s.task == "answer"
    assert s.judged == 1
    # a pair whose document has no text is not a case: never judged, never an error for people
    assert s.errors == 0
    assert s.no_text == 1
    assert store.judgments(status="error") == []
    with pytest.raises(UsageError):
        run_judging(store, "zero-shot", client, share="nobody")
    with pytest.raises(UsageError):
        run_judging(store, "zero-shot", client, budget="lots")


def test_limit_applies_before_resuming(ws):
    client = make_client(debate_fn, store=ws)
    assert run_judging(ws, "zero-shot", client, limit=2).cases == 2
    s = run_judging(ws, "zero-shot", client, limit=4)
    assert s.cases == 4 and s.new == 2


def test_likelihood_auto_calibrates_on_original_labels(tmp_path):
    store = Store.create(tmp_path / "w")
    store.upsert_topics([Topic("q1", "fox")])
    docs = [Doc(f"l{i}", f"labelled {i} {'fox' if i % 2 else 'cat'}") for i in range(30)]
    docs += [Doc("h1", "hole fox"), Doc("h2", "hole cat")]
    store.upsert_docs(docs)
    store.upsert_qrels([Qrel("q1", f"l{i}", 2 if i % 2 else 0) for i in range(30)])
    store.upsert_cases([Case("q1", "h1"), Case("q1", "h2")])

    def score(prefix, cont):
        if "Passage" not in prefix:
            return -10.0
        return -8.0 if "fox" in prefix else -11.0

    s = run_judging(
        store, "likelihood(threshold=auto)", make_client(lambda m, p: "", score_fn=score, store=store)
    )
    assert s.calibration["n"] == 30 and s.calibration["balanced_accuracy"] == 1.0
    labels = {j.docid: j.label for j in store.judgments()}
    assert labels == {"h1": 1, "h2": 0}
    prov = json.loads(store.judgments()[0].provenance)
    assert prov["likelihood"]["calibration"]["n"] == 30


def test_a_case_waiting_for_a_duplicates_answer_holds_no_call_slot(tmp_path):
    """Four cases, two pairs of identical passages, two call slots: the second of each pair
    waits for the first's answer (sent once), and the two distinct prompts are in flight
    together; with one worker per slot, a waiting duplicate kept the second prompt back."""
    import asyncio

    store = Store.create(tmp_path / "ws")
    store.upsert_topics([Topic("q1", "fox")])
    store.upsert_docs([Doc("a1", "passage A"), Doc("a2", "passage A"), Doc("b1", "passage B"), Doc("b2", "passage B")])
    store.upsert_cases([Case("q1", d, "llm", i + 1) for i, d in enumerate(["a1", "a2", "b1", "b2"])])

    async def slow(m, p):
        await asyncio.sleep(0.2)
        return {"reason": "x", "grade": 2}

    client = make_client(slow, store=store, concurrency=2)
    s = run_judging(store, "zero-shot", client, concurrency=2)
    assert s.judged == 4 and client.backend.calls == 2 and s.cache_hits == 2
    assert client.backend.max_in_flight == 2
    store.close()


def test_a_client_allowing_more_calls_than_the_run_keeps_the_runs_bound(ws):
    client = make_client(lambda m, p: {"reason": "x", "grade": 1}, store=ws, concurrency=8)
    run_judging(ws, "zero-shot", client, concurrency=1)
    assert client.backend.max_in_flight == 1


def test_the_first_requests_leave_one_by_one_not_after_every_worker_has_prepared(ws):
    """Started together, all 2 x concurrency workers prepared their first case before the first
    request was written (0.1 s at 256 in flight); started one loop turn apart, each worker's
    request leaves while the next one prepares."""
    import asyncio

    from qrelkit.judges import build, parse_spec
    from qrelkit.judging.runner import _Inputs, _judge_each
    from qrelkit.judging.selection import resolve_task

    events: list[str] = []

    def answer(m, p):
        events.append("sent")
        return {"reason": "x", "grade": 1}

    client = make_client(answer, store=ws, concurrency=2)
    inputs = _Inputs(ws, resolve_task(ws))
    cases = [c for c in select_cases(ws)]
    inputs.prefetch(cases)

    def prepared(case):
        events.append("prepared")
        return inputs(case)

    class Record:
        total, unanswered, verdicts = len(cases), 0, []

        def __call__(self, case, v):
            self.verdicts.append(v)

    record = Record()
    asyncio.run(_judge_each(build(parse_spec("zero-shot")), cases, client, 2, prepared, record))
    assert len(record.verdicts) == len(cases) == 6 and events.count("sent") == 6
    assert events.index("sent") == 1, events  # the first request before the second case is prepared
