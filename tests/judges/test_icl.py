"""icl: few-shot examples from people's labels, with scripted models."""

from __future__ import annotations

import json
import random
import re

import pytest

from qrelkit.errors import UsageError
from qrelkit.judges import JudgeInput, Task, canonical, parse_spec
from qrelkit.judges.icl import ExamplePool
from qrelkit.judges.learning import HumanLabel, LearningContext
from qrelkit.judging.runner import run_judging
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

from .conftest import make_client


def reply(messages, params):
    return {
        "reason": "like the examples",
        "grade": 2 if "fox" in messages[-1].content.split("assess")[-1] else 0,
    }


def shown_examples(messages) -> list[str]:
    """Docids of the examples in a prompt (each example's text names its docid)."""
    return re.findall(r"<<<EXAMPLE [0-9a-f]{12}>>>\ntext of (\w+)", messages[-1].content)


@pytest.fixture
def ws(tmp_path):
    store = Store.create(tmp_path / "ws")
    store.upsert_topics([Topic("q1", "fox"), Topic("q2", "dog"), Topic("q3", "cat")])
    labelled = [(f"q{1 + i % 2}", f"l{i}", [0, 1, 2, 3][i % 4]) for i in range(16)]
    store.upsert_docs([Doc(d, f"text of {d} about {'fox' if g >= 2 else 'nothing'}") for _, d, g in labelled])
    store.upsert_docs([Doc(f"h{i}", f"text of h{i} fox") for i in range(6)] + [Doc("c1", "text of c1")])
    store.upsert_qrels([Qrel(q, d, g) for q, d, g in labelled])
    store.upsert_cases([Case(f"q{1 + i % 2}", f"h{i}", "llm", i + 1) for i in range(6)] + [Case("q3", "c1")])
    yield store
    store.close()


def test_examples_follow_the_seed_and_come_from_the_topic(ws):
    client = make_client(reply, store=ws)
    s = run_judging(ws, "icl(k=2,seed=0)", client)
    assert s.judged == 7 and client.backend.calls == 7 and s.calls == 7  # one call per case, none to learn
    grades = dict(ws.qrels())
    per_topic: dict[str, set] = {}
    for j in ws.judgments(method=s.method):
        ex = json.loads(j.provenance)["examples"]
        assert ex["select"] == "random" and ex["seed"] == 0 and ex["k"] == 2
        assert all((j.qid, d) in grades for d in ex["docids"])  # the topic's own human-judged documents
        assert [it["grade"] for it in ex["items"]] == [grades[(j.qid, d)] for d in ex["docids"]]
        per_topic.setdefault(j.qid, set()).add(tuple(ex["docids"]))
    assert len(per_topic["q1"]) == len(per_topic["q2"]) == 1  # same examples for every case of a topic
    (q1,) = per_topic["q1"]
    assert len(q1) == 2
    # the prompt shows exactly the recorded examples, delimited as data, with the people's grades
    for msgs, _ in client.backend.requests:
        if "text of h0" in msgs[-1].content:
            assert shown_examples(msgs) == list(q1)
            assert "people judged it grade" in msgs[-1].content
    # the selection is the seeded shuffle of the topic's labelled documents
    expected = sorted(d for q, d in grades if q == "q1")
    random.Random("0|q1").shuffle(expected)
    assert list(q1) == expected[:2]
    # another seed, another selection (for at least one topic); k=3 takes three
    other = run_judging(ws, "icl(k=2,seed=5)", make_client(reply, store=ws))
    sel5 = {tuple(json.loads(j.provenance)["examples"]["docids"]) for j in ws.judgments(method=other.method)}
    assert sel5 != {d for v in per_topic.values() for d in v}
    s3 = run_judging(ws, "icl(k=3)", make_client(reply, store=ws))
    assert all(
        len(json.loads(j.provenance)["examples"]["docids"]) == 3
        for j in ws.judgments(method=s3.method)
        if j.qid != "q3"
    )


def test_relevant_only_and_a_topic_without_labels(ws):
    client = make_client(reply, store=ws)
    s = run_judging(ws, "icl(k=3,select=relevant-only)", client)
    grades = dict(ws.qrels())
    for j in ws.judgments(method=s.method):
        ex = json.loads(j.provenance)["examples"]
        if j.qid == "q3":
            assert ex["docids"] == [] and ex["available"] == 0 and j.status == "auto"
            continue
        assert len(ex["docids"]) == 3 and all(grades[(j.qid, d)] >= 2 for d in ex["docids"])
    q3 = [m for m, _ in client.backend.requests if "text of c1" in m[-1].content][0]
    assert "No documents judged by people" in q3[-1].content and shown_examples(q3) == []


def test_never_the_case_itself():
    task = Task()
    labels = tuple(HumanLabel("q1", f"d{i}", 2, 1, "original") for i in range(4))

    class Docs:
        def doc(self, docid):
            return Doc(docid, f"text of {docid}")

    ctx = LearningContext(Docs(), task, {"q1": Topic("q1", "fox")}, ("q1",), labels)
    pool = ExamplePool(k=3, select="random", seed=0, tokens=50)
    pool.learn(ctx)
    everyone = [e.docid for e in pool.by_topic["q1"]]
    for d in everyone:  # a case whose document is one of the candidates gets the next one instead
        inp = JudgeInput(Case("q1", d), Topic("q1", "fox"), Doc(d, "x"), task)
        picked = [e.docid for e in pool.pick(inp)]
        assert d not in picked and len(picked) == 3


def test_audit_mode_never_shows_a_selected_pair(ws):
    # audit the labelled pairs of q1 that have cases; the rest of q1's labels are the examples
    ws.execute("DELETE FROM cases")
    audited = [d for q, d in sorted(ws.qrels()) if q == "q1"][:4]
    ws.upsert_cases([Case("q1", d, "llm", i, (), True) for i, d in enumerate(audited)])
    s = run_judging(ws, "icl(k=3)", make_client(reply, store=ws), share="judged")
    assert s.cases == 4
    for j in ws.judgments(method=s.method):
        docids = json.loads(j.provenance)["examples"]["docids"]
        assert len(docids) == 3 and not set(docids) & set(audited)


def test_bad_icl_specs():
    for bad in ("icl(k=0)", "icl(k=4)", "icl(select=best)", "icl(seed=-1)"):
        with pytest.raises(UsageError):
            parse_spec(bad)
    assert canonical("icl") == "icl(doc_tokens=400,example_tokens=150,k=2,seed=0,select=random)"


def _pool_for(per: str, seed: int = 0, select: str = "random", k: int = 2) -> tuple[ExamplePool, LearningContext]:
    labels = tuple(HumanLabel("q1", f"d{i}", i % 3, int(i % 3 > 0), "qrels") for i in range(10))

    class Docs:
        def doc(self, docid):
            return Doc(docid, f"text of {docid}")

    ctx = LearningContext(store=Docs(), task=Task("graded", 2), topics={"q1": Topic("q1", "fox")},
                          pending_qids=("q1",), labels=labels)
    pool = ExamplePool(k, select, seed, 400, per)
    pool.learn(ctx)
    return pool, ctx


def _inp(docid: str) -> JudgeInput:
    return JudgeInput(case=Case("q1", docid), topic=Topic("q1", "fox"), doc=Doc(docid, "x"), task=Task("graded", 2))


@pytest.mark.parametrize("docid", [f"d{i}" for i in range(10)])
def test_per_document_examples_never_include_the_case_itself(docid):
    pool, _ = _pool_for("document", k=3)
    assert docid not in [e.docid for e in pool.pick(_inp(docid))]


@pytest.mark.parametrize("docid", ["d0", "d4", "x9"])
def test_per_document_examples_follow_the_seed(docid):
    assert [e.docid for e in _pool_for("document", seed=1)[0].pick(_inp(docid))] == [
        e.docid for e in _pool_for("document", seed=1)[0].pick(_inp(docid))]


def test_per_document_examples_differ_between_documents():
    pool, _ = _pool_for("document", k=3)
    assert len({tuple(e.docid for e in pool.pick(_inp(f"x{i}"))) for i in range(8)}) > 1


def test_another_seed_draws_other_per_document_examples():
    picks = [tuple(e.docid for e in _pool_for("document", seed=s)[0].pick(_inp("x1"))) for s in range(5)]
    assert len(set(picks)) > 1


@pytest.mark.parametrize("k", [1, 2, 3])
def test_per_document_draws_k_examples(k):
    assert len(_pool_for("document", k=k)[0].pick(_inp("x1"))) == k


@pytest.mark.parametrize(("select", "labels"), [("relevant-only", {1}), ("nonrelevant", {0})])
def test_selection_by_label(select, labels):
    pool, _ = _pool_for("document", select=select, k=3)
    assert {e.label for e in pool.pick(_inp("x1"))} == labels


def test_relevant_is_spelled_relevant_only_in_the_id():
    assert canonical("icl(select=relevant)") == canonical("icl(select=relevant-only)")


def test_per_topic_keeps_the_id_it_had():
    assert canonical("icl(per=topic,example_tokens=150)") == (
        "icl(doc_tokens=400,example_tokens=150,k=2,seed=0,select=random)")


def test_example_tokens_doc_is_the_document_budget():
    from qrelkit.judges import build

    assert build("icl(example_tokens=doc,doc_tokens=300)").pool.tokens == 300
