"""narrative(docs=all): every judged document reaches the instructor, in batches that fit its
budget, partial narratives merged; provenance says how; failures invent nothing (issue 16)."""

from __future__ import annotations

import json
import re

import pytest

from qrelkit.judges.instructor import plan_batches, prompt_tokens
from qrelkit.judging.runner import run_judging
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

from .conftest import make_client

MERGER = "partial relevance narratives were written"
INSTRUCTOR = "You write guidance"
RELEVANT = [f"r{i}" for i in range(4)]
NONRELEVANT = [f"n{i}" for i in range(6)]
# 1,000 characters = 250 estimated tokens a document (+ its item's header): with budget=1200 three
# fit one instructor prompt and four do not, whatever the fixed part (between 72 and 354 tokens)
PAD = 1000


def is_merge(messages) -> bool:
    return MERGER in messages[0].content


def is_batch(messages) -> bool:
    return INSTRUCTOR in messages[0].content and not is_merge(messages)


def seen(messages) -> list[str]:
    return re.findall(r"DOC-(\w+)\b", messages[-1].content)


def reply(messages, params):
    if is_merge(messages):
        n = messages[-1].content.count("Partial narrative ")
        return f"Narrative: MERGED from {n} partials.\nInstructions: M"
    if is_batch(messages):
        return f"Narrative: PART {' '.join(sorted(seen(messages)))}\nInstructions: P"
    return {"reason": "per the narrative", "grade": 2}


def batch_calls(client) -> list:
    return [m for m, _ in client.backend.requests if is_batch(m)]


def merge_calls(client) -> list:
    return [m for m, _ in client.backend.requests if is_merge(m)]


def doc(docid: str, chars: int = PAD) -> Doc:
    head = f"DOC-{docid} "
    return Doc(docid, head + "x" * (chars - len(head)))


@pytest.fixture
def ws(tmp_path):
    store = Store.create(tmp_path / "ws")
    store.upsert_topics([Topic("q1", "fox jumps")])
    store.upsert_docs([doc(d) for d in RELEVANT + NONRELEVANT] + [Doc(f"h{i}", f"hole {i}") for i in range(3)])
    store.upsert_qrels([Qrel("q1", d, 3) for d in RELEVANT] + [Qrel("q1", d, 0) for d in NONRELEVANT])
    store.upsert_cases([Case("q1", f"h{i}", "llm", i + 1) for i in range(3)])
    yield store
    store.close()


def stored_prov(ws) -> dict:
    return ws.narratives()["q1"]["provenance"]


@pytest.mark.parametrize(
    ("fixed", "sizes", "budget", "expected"),
    [
        (100, [50] * 7, 260, [[0, 1, 2], [3, 4, 5], [6]]),
        (100, [50] * 6, 250, [[0, 1, 2], [3, 4, 5]]),
        (100, [200, 10, 10], 250, [[0], [1, 2]]),
        (100, [500, 10], 250, [[0], [1]]),  # too large alone: a batch of its own (cut before, in practice)
        (100, [], 250, []),
    ],
)
def test_batches_are_packed_in_order_to_the_budget(fixed, sizes, budget, expected):
    assert plan_batches(fixed, sizes, budget) == expected


def test_every_judged_document_reaches_the_instructor_in_one_call_when_they_fit(ws):
    client = make_client(reply, store=ws)
    s = run_judging(ws, "narrative", client)
    assert s.judged == 3
    assert len(batch_calls(client)) == 1
    assert sorted(seen(batch_calls(client)[0])) == sorted(RELEVANT + NONRELEVANT)
    assert merge_calls(client) == []
    prov = stored_prov(ws)
    assert [sorted(b["docids"]) for b in prov["batches"]] == [sorted(RELEVANT + NONRELEVANT)]
    assert "merges" not in prov
    assert prov["cut"] == []
    assert prov["reading"] == {"docs": "all", "budget": "auto", "budget_tokens": 6000, "doc_tokens": 400}
    assert prov["calls"] == 1
    j = json.loads(ws.judgments(method=s.method)[0].provenance)
    assert j["narrative"]["docs"] == 10
    assert j["narrative"]["batches"] == 1


def test_documents_over_the_budget_are_batched_and_merged(ws):
    client = make_client(reply, store=ws)
    s = run_judging(ws, "narrative(budget=1200)", client)
    batches = batch_calls(client)
    assert len(batches) == 4  # 10 documents, 3 a prompt
    assert sorted(d for m in batches for d in seen(m)) == sorted(RELEVANT + NONRELEVANT)  # each once
    assert all(prompt_tokens(m) <= 1200 for m in batches)
    assert len(merge_calls(client)) == 1
    assert s.narrative_calls == 5
    row = ws.narratives()["q1"]
    assert row["narrative"] == "MERGED from 4 partials."
    prov = row["provenance"]
    assert [len(b["docids"]) for b in prov["batches"]] == [3, 3, 3, 1]
    assert [b["narrative"] for b in prov["batches"]] == [f"PART {' '.join(sorted(b['docids']))}" for b in prov["batches"]]
    assert prov["merges"] == [{"inputs": [b["digest"] for b in prov["batches"]], "digest": prov["merges"][0]["digest"]}]
    assert prov["merge_template"].startswith("narrative_merge.v1+")
    assert prov["calls"] == 5
    assert prov["reading"]["budget_tokens"] == 1200


def test_every_batch_holds_both_kinds_in_proportion(ws):
    run_judging(ws, "narrative(budget=1200)", make_client(reply, store=ws))
    kinds = [{d[0] for d in b["docids"]} for b in stored_prov(ws)["batches"][:3]]
    assert kinds == [{"r", "n"}] * 3


def test_partials_that_do_not_fit_one_merge_are_merged_in_rounds(ws):
    def wordy(messages, params):
        if is_batch(messages):  # ~1,000 characters a partial: three fit one merge prompt of 1,200
            return "Narrative: " + "long partial narrative " * 40 + "\nInstructions: P"
        return reply(messages, params)

    client = make_client(wordy, store=ws)
    run_judging(ws, "narrative(budget=1200)", client)
    merges = merge_calls(client)
    assert [m[-1].content.count("Partial narrative ") for m in merges] == [3, 2]
    assert all(prompt_tokens(m) <= 1200 for m in merges)
    prov = stored_prov(ws)
    assert len(prov["merges"]) == 2
    assert prov["merges"][1]["inputs"] == [prov["merges"][0]["digest"], prov["batches"][3]["digest"]]
    assert prov["calls"] == 6


def test_a_document_too_long_for_a_batch_is_cut_to_fit_and_recorded(ws):
    ws.upsert_docs([doc("big", 20000)])
    ws.upsert_qrels([Qrel("q1", "big", 3)])
    client = make_client(reply, store=ws)
    run_judging(ws, "narrative(budget=1200,doc_tokens=8000)", client)
    assert all(prompt_tokens(m) <= 1200 for m in batch_calls(client))
    cut = stored_prov(ws)["cut"]
    assert [c["docid"] for c in cut] == ["big"]
    assert cut[0]["tokens"] == 5000
    assert cut[0]["shown_tokens"] < 1200


def test_doc_tokens_caps_what_the_instructor_reads_of_each_document(ws):
    run_judging(ws, "narrative(doc_tokens=100)", make_client(reply, store=ws))
    cut = stored_prov(ws)["cut"]
    assert sorted(c["docid"] for c in cut) == sorted(RELEVANT + NONRELEVANT)
    assert {c["shown_tokens"] for c in cut} == {100}


def test_a_failing_batch_leaves_errors_stores_nothing_and_is_paid_once_more(ws):
    def broken(messages, params):
        if is_batch(messages) and "r0" in seen(messages):
            raise RuntimeError("instructor down")
        return reply(messages, params)

    s = run_judging(ws, "narrative(budget=1200)", make_client(broken, store=ws, max_attempts=1))
    assert s.errors == 3
    assert ws.narratives() == {}
    reasons = {json.loads(j.provenance)["reason"] for j in ws.judgments(method=s.method)}
    assert len(reasons) == 1
    assert re.search(r"instructor call failed \(batch \d of 4\)", reasons.pop())
    assert all(j.label is None for j in ws.judgments(method=s.method))
    client = make_client(reply, store=ws)
    s2 = run_judging(ws, "narrative(budget=1200)", client)
    assert s2.judged == 3
    assert s2.errors == 0
    assert len(batch_calls(client)) == 1  # the three good batches come from the LLM cache
    assert len(merge_calls(client)) == 1


def test_a_failing_merge_stores_nothing(ws):
    def broken(messages, params):
        if is_merge(messages):
            raise RuntimeError("merge down")
        return reply(messages, params)

    s = run_judging(ws, "narrative(budget=1200)", make_client(broken, store=ws, max_attempts=1))
    assert s.errors == 3
    assert ws.narratives() == {}
    reason = json.loads(ws.judgments(method=s.method)[0].provenance)["reason"]
    assert "instructor call failed (merge of 3 partial narratives)" in reason or "(merge of 4" in reason


@pytest.mark.parametrize(
    ("variant", "docids", "labels"),
    [("all", RELEVANT + NONRELEVANT, {0, 1}), ("relevant", RELEVANT, {1}), ("nonrelevant", NONRELEVANT, {0})],
)
def test_the_variant_selects_which_judged_documents_are_read(ws, variant, docids, labels):
    client = make_client(reply, store=ws)
    run_judging(ws, f"narrative(variant={variant})", client)
    assert sorted(d for m in batch_calls(client) for d in seen(m)) == sorted(docids)
    prov = stored_prov(ws)
    assert {d["label"] for d in prov["docs"]} == labels
    assert prov["variant"] == variant


def test_a_narrative_is_reused_until_people_judge_another_document(ws):
    run_judging(ws, "narrative", make_client(reply, store=ws))
    again = make_client(reply, store=ws)
    run_judging(ws, "narrative(icl=1)", again)
    assert batch_calls(again) == []
    ws.upsert_docs([doc("r9", 200)])
    ws.upsert_qrels([Qrel("q1", "r9", 3)])
    ws.upsert_cases([Case("q1", "h9", "llm", 9)])
    ws.upsert_docs([Doc("h9", "hole 9")])
    after = make_client(reply, store=ws)
    run_judging(ws, "narrative(icl=1)", after)
    assert len(batch_calls(after)) == 1
    assert "r9" in seen(batch_calls(after)[0])


def test_the_sampled_reading_keeps_its_id_and_a_bare_narrative_resumes_it(ws):
    first = make_client(reply, store=ws)
    s = run_judging(ws, "narrative(docs=6)", first)
    assert "docs=6" in s.method
    assert len(seen(batch_calls(first)[0])) == 6  # the pre-issue-16 sample, one call
    assert "truncated by qrelkit" in batch_calls(first)[0][-1].content  # each cut to 120 tokens
    assert "batches" not in stored_prov(ws)
    ws.upsert_cases([Case("q1", "h9", "llm", 9)])
    ws.upsert_docs([Doc("h9", "hole 9")])
    resumed = make_client(reply, store=ws)
    s2 = run_judging(ws, "narrative", resumed)
    assert s2.method == s.method
    assert batch_calls(resumed) == []
    assert s2.new == 1


def test_budget_with_a_sampled_reading_is_refused(ws):
    from qrelkit.errors import UsageError

    with pytest.raises(UsageError, match="budget applies to docs=all"):
        run_judging(ws, "narrative(docs=6,budget=2000)", make_client(reply, store=ws))


def test_narratives_generate_reads_all_and_refuses_a_bad_budget(ws):
    from typer.testing import CliRunner

    from qrelkit.cli import app
    from qrelkit.errors import UsageError

    r = CliRunner().invoke(app, ["narratives", "generate", "-w", str(ws.workspace), "--budget", "100"])
    assert isinstance(r.exception, UsageError)
    assert "below 512" in str(r.exception)
    r = CliRunner().invoke(app, ["narratives", "generate", "-w", str(ws.workspace), "--docs", "many"])
    assert isinstance(r.exception, UsageError)
    assert "expected all or an integer" in str(r.exception)
