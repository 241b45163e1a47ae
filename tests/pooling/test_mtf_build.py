"""`build --pool 'mtf(n=N)'` grows its pool in rounds of judging, by the labels the judge and people give.

The judge is zero-shot on a scripted OpenAI-compatible server on 127.0.0.1 (real HTTP,
tests/pooling/fake_mtf.py): a document mentioning a fox is grade 3 (relevant), any other grade 0.
Its log names each judged docid, in the order the calls came.

The hand-worked example, one topic, two runs (f: mentions a fox):

    run a: a1(f) a2 a3 a4 a5 a6          run b: b1 b2(f) b3(f) b4(f) b5 b6

mtf(n=7), one document per round (Cormack et al.'s MTF; both runs start at priority 0, ties to
the first run):

    round 1: a1 relevant      -> a stays 0        round 5: b2 relevant -> b stays -1
    round 2: a2 not relevant  -> a -1             round 6: b3 relevant
    round 3: b1 not relevant  -> b -1             round 7: b4 relevant; 7 pairs read: the budget
    round 4: a3 (tie, first)  -> a -2

So run b, which keeps finding foxes, is read to depth 4 and run a to depth 3; a4..a6, b5, b6 are never read.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import serve

from qrelkit.errors import UsageError
from qrelkit.job.run import build

FOXES = {"a1", "b2", "b3", "b4"}
RUN_A = ("a1", "a2", "a3", "a4", "a5", "a6")
RUN_B = ("b1", "b2", "b3", "b4", "b5", "b6")
MTF_ORDER = ["a1", "a2", "b1", "a3", "b2", "b3", "b4"]  # the trace above


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("mtf") / "requests.log"
    with serve("pooling.fake_mtf", log) as url:
        yield f"openai:fake@{url}", log


def calls(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


def collection(d: Path, ghost: bool = False) -> dict:
    """The example; ``ghost``: run b retrieves first a document the collection has no text for."""
    d.mkdir()
    (d / "topics.jsonl").write_text(json.dumps({"qid": "q1", "text": "where do red animals live"}) + "\n")
    docs = [{"docid": x, "text": f"passage {x} about {'a fox in the woods' if x in FOXES else 'the weather'}"}
            for x in RUN_A + RUN_B]
    (d / "docs.jsonl").write_text("".join(json.dumps(doc) + "\n" for doc in docs))
    for name, docids in (("a", RUN_A), ("b", ("ghost",) * ghost + RUN_B)):
        (d / f"{name}.run").write_text("".join(f"q1 Q0 {x} {r} {10 - r} {name}\n" for r, x in enumerate(docids, 1)))
    return {"topics": str(d / "topics.jsonl"), "docs": str(d / "docs.jsonl"),
            "runs": (str(d / "a.run"), str(d / "b.run"))}


def judged_build(ws: Path, model: str, **extra):
    return build(ws, model=model, method="zero-shot", pool="mtf(n=7)", report=False, **extra)


@pytest.fixture(scope="module")
def by_judge(server, tmp_path_factory):
    """A build whose judge labels every pair (no people's share)."""
    model, log = server
    before = len(calls(log))
    tmp = tmp_path_factory.mktemp("by_judge")
    ws = tmp / "ws"
    result = judged_build(ws, model, human_depth=0, **collection(tmp / "c"))
    return ws, model, log, result, calls(log)[before:]


def test_the_rounds_judge_the_pairs_in_mtf_order(by_judge):
    assert by_judge[4] == MTF_ORDER


def test_the_run_that_keeps_finding_relevant_documents_is_read_deeper(by_judge):
    read = set(by_judge[4])
    assert max(RUN_B.index(d) + 1 for d in read if d in RUN_B) == 4
    assert max(RUN_A.index(d) + 1 for d in read if d in RUN_A) == 3


def test_the_budget_is_spent_exactly(by_judge):
    assert by_judge[3].pool["pooled"] == 7


def test_one_round_per_pair_with_one_document_per_round(by_judge):
    assert by_judge[3].pool["rounds"] == 7


def test_the_finished_rounds_leave_nothing(by_judge):
    assert by_judge[3].left == {}


def test_the_finished_rounds_are_done(by_judge):
    assert by_judge[3].state == "done"


def test_the_merged_qrels_hold_the_judges_labels_of_the_pool(by_judge):
    lines = Path(by_judge[3].qrels).read_text().split("\n")
    merged = {line.split()[2]: int(line.split()[3]) for line in lines if line}
    assert merged == {d: 3 if d in FOXES else 0 for d in MTF_ORDER}


def test_the_calls_are_counted_in_the_summary(by_judge):
    assert by_judge[3].judge["calls"] == 7


def test_a_rerun_replays_the_rounds_with_no_call(by_judge):
    ws, model, log, _, _ = by_judge
    before = len(calls(log))
    again = judged_build(ws, model)
    assert len(calls(log)) - before == 0
    assert again.pool["pooled"] == 7
    assert again.state == "done"


def test_a_limit_holds_the_rounds_and_a_larger_one_continues_them(server, tmp_path):
    model, log = server
    ws, before = tmp_path / "ws", len(calls(log))
    first = judged_build(ws, model, human_depth=0, limit=3, **collection(tmp_path / "c"))
    assert calls(log)[before:] == MTF_ORDER[:3]
    assert first.state == "partial"
    assert first.left == {"limit": 1, "unsettled": 4}  # b1 proposed past the limit; 4 of the 7 without a label
    judged_build(ws, model, limit=7)
    assert calls(log)[before:] == MTF_ORDER


def test_a_document_without_text_is_read_past(server, tmp_path):
    model, log = server
    before = len(calls(log))
    result = judged_build(tmp_path / "ws", model, human_depth=0, **collection(tmp_path / "c", ghost=True))
    assert calls(log)[before:] == MTF_ORDER
    assert result.state == "done"


def test_a_pairs_best_rank_is_its_rank_in_the_run_file(server, tmp_path):
    from qrelkit.store import Store

    model, _ = server
    judged_build(tmp_path / "ws", model, human_depth=0, **collection(tmp_path / "c", ghost=True))
    with Store.open(tmp_path / "ws") as s:
        assert {c.docid: c.best_rank for c in s.cases()}["b1"] == 2  # the ghost above it counts


def test_the_command_line_builds_in_rounds_with_no_people_at_human_depth_0(server, tmp_path):
    import subprocess
    import sys

    model, log = server
    c, before = collection(tmp_path / "c"), len(calls(log))
    out = subprocess.run([sys.executable, "-m", "qrelkit", "build", "-w", str(tmp_path / "ws"), "--topics", c["topics"],
                          "--docs", c["docs"], "--runs", *c["runs"], "--pool", "mtf(n=7)", "--human-depth", "0",
                          "--method", "zero-shot", "--model", model, "--no-report", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout)["pool"]["people"] == 0  # `--human-depth 0` is a given value, not "not given"
    assert calls(log)[before:] == MTF_ORDER


@pytest.mark.parametrize("option", [{"budget": "2"}, {"people": "stratified(rate=0.5, by=rank)"}],
                         ids=["budget", "stratified-people"])
def test_what_needs_the_whole_pool_is_refused_with_rounds(tmp_path, option):
    with pytest.raises(UsageError, match="grows the pool round by round"):
        build(tmp_path / "ws", model="openai:fake@http://127.0.0.1:9/v1", method="zero-shot", pool="mtf(n=7)",
              report=False, **option, **collection(tmp_path / "c"))


# ---- people in the loop --------------------------------------------------------------------------
def people_vote(ws: Path, grades: dict[str, int], names: str) -> list[str]:
    """Three annotators (the votes a case needs) vote in the app over HTTP; the docids they were shown."""
    from annotate.helpers import ServerThread, add_login

    from qrelkit.annotate import create_app
    from qrelkit.annotate.client import AnnotatorClient
    from qrelkit.store import Store

    with Store.open(ws) as s:
        tokens = [add_login(s, name) for name in names.split()]
    server, shown = ServerThread(create_app(ws)).start(), []
    try:
        for token in tokens:
            with AnnotatorClient(server.url, token) as person:
                while case := person.next():
                    shown.append(case["docid"])
                    assert person.vote("q1", case["docid"], grades[case["docid"]]).status_code == 200
    finally:
        server.stop()
    return sorted(set(shown))


def test_a_round_waits_for_people_and_the_next_build_reads_on_by_their_labels(server, tmp_path):
    model, log = server
    ws, before = tmp_path / "ws", len(calls(log))
    first = judged_build(ws, model, human_depth=1, **collection(tmp_path / "c"))  # a1, b1: people's share
    assert first.state == "waiting"
    assert first.pool["read"] == 1  # a1 only: the one topic holds until people label it
    assert first.left == {"unsettled": 7}
    assert calls(log)[before:] == []
    assert people_vote(ws, {"a1": 3}, "ann bob cy") == ["a1"]
    second = judged_build(ws, model)  # people said a1 is relevant: run a is read on, a2 by the judge, then b1
    assert second.state == "waiting"
    assert calls(log)[before:] == ["a2"]
    assert people_vote(ws, {"b1": 0}, "dee eve fay") == ["b1"]
    third = judged_build(ws, model)
    assert third.state == "done"
    assert calls(log)[before:] == ["a2", "a3", "b2", "b3", "b4"]  # MTF's order, without people's a1 and b1
    assert third.pool["pooled"] == 7
