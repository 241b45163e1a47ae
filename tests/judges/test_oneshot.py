"""oneshot: the case next to known relevant documents, on a scripted model over real HTTP."""
from __future__ import annotations

import json
import random
import re

import pytest
from fakeserver import serve

from qrelkit.judges.oneshot import NO_REFERENCE
from qrelkit.judging.runner import run_judging
from qrelkit.llm import make_client
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

RELEVANT = ["r1", "r2", "r3", "r4"]


@pytest.fixture
def ws(tmp_path):
    store = Store.create(tmp_path / "ws")
    store.upsert_topics([Topic("q1", "what do foxes eat"), Topic("q2", "dog breeds")])
    store.upsert_docs([Doc(d, f"text of {d}: foxes eat mice") for d in RELEVANT]
                      + [Doc("n1", "text of n1: about nothing"), Doc("n2", "text of n2: about dogs"),
                         Doc("c1", "text of c1: a fox eats berries"), Doc("c2", "text of c2: the weather"),
                         Doc("c3", "text of c3: a poodle")])
    store.upsert_qrels([Qrel("q1", d, 2 + i % 2) for i, d in enumerate(RELEVANT)]
                       + [Qrel("q1", "n1", 0), Qrel("q2", "n2", 1)])
    store.upsert_cases([Case("q1", "c1"), Case("q1", "c2"), Case("q2", "c3")])
    yield store
    store.close()


@pytest.fixture
def server(tmp_path):
    log = tmp_path / "server.log"
    with serve("judges.fake_oneshot", log) as url:
        yield f"openai:fake@{url}", log


def judge(ws, server, method):
    model, log = server
    s = run_judging(ws, method, make_client(model, store=ws))
    prompts = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return {(j.qid, j.docid): j for j in ws.judgments(method=s.method)}, prompts


def references_in(prompt: str) -> list[str]:
    return re.findall(r"<<<REFERENCE [0-9a-f]{12}>>>\ntext of (\w+)", prompt)


def prompt_for(prompts, docid):
    (p,) = [p for p in prompts if f"text of {docid}:" in p.split("Now the document to assess")[-1]]
    return p


def test_the_prompt_shows_the_recorded_known_relevant_documents_next_to_the_case(ws, server):
    js, prompts = judge(ws, server, "oneshot(k=2)")
    recorded = json.loads(js[("q1", "c1")].provenance)["oneshot"]["docids"]
    assert references_in(prompt_for(prompts, "c1")) == recorded


def test_the_prompt_asks_whether_the_case_answers_the_query_as_well(ws, server):
    _, prompts = judge(ws, server, "oneshot")
    p = prompt_for(prompts, "c1")
    assert "as well as a reference does" in p and "what do foxes eat" in p


def test_no_non_relevant_document_is_shown_as_a_reference(ws, server):
    _, prompts = judge(ws, server, "oneshot(k=3)")
    assert all(d in RELEVANT for p in prompts for d in references_in(p))


@pytest.mark.parametrize("seed", [0, 3])
def test_the_references_are_the_seeded_shuffle_of_the_topics_relevant_documents(ws, server, seed):
    js, _ = judge(ws, server, f"oneshot(k=2,seed={seed})")
    expected = sorted(RELEVANT)
    random.Random(f"{seed}|q1").shuffle(expected)
    assert json.loads(js[("q1", "c2")].provenance)["oneshot"]["docids"] == expected[:2]


def test_the_seed_is_recorded_in_provenance(ws, server):
    js, _ = judge(ws, server, "oneshot(seed=3)")
    assert json.loads(js[("q1", "c1")].provenance)["oneshot"]["seed"] == 3


def test_the_label_is_the_models_decision(ws, server):
    js, _ = judge(ws, server, "oneshot")
    assert (js[("q1", "c1")].label, js[("q1", "c2")].label) == (1, 0)


def test_a_topic_without_a_known_relevant_document_is_escalated(ws, server):
    js, _ = judge(ws, server, "oneshot")
    j = js[("q2", "c3")]
    assert (j.status, j.label, json.loads(j.provenance)["reason"]) == ("escalate", None, NO_REFERENCE)


def test_an_escalated_case_costs_no_model_call(ws, server):
    _, prompts = judge(ws, server, "oneshot")
    assert len(prompts) == 2 and not any("poodle" in p for p in prompts)
