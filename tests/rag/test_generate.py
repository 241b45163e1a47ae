"""rag generate as a library: one call per distinct context, resume, errors never become answers."""
from __future__ import annotations

import asyncio
import dataclasses

import pytest

from qrelkit.rag import agenerate
from qrelkit.rag.generate import NO_TEXT, contexts
from qrelkit.store import Store

from .conftest import scripted_client

DISTINCT_K2 = 7  # q1: 2 contexts, q2: 2, q3: 3 (see conftest.RANKINGS)


def generate(loaded, client, **kw):
    return asyncio.run(agenerate(loaded["runs"], loaded["topics"], loaded["lookup"], client, k=2, **kw))


def test_identical_contexts_cost_one_call(loaded):
    client = scripted_client()
    answers, summary = generate(loaded, client)
    assert client.backend.calls == DISTINCT_K2
    assert summary.contexts == DISTINCT_K2
    assert len(answers) == 9


def test_a_shared_context_gives_every_system_the_answer_and_bills_it_once(loaded):
    answers, _ = generate(loaded, scripted_client())
    by = {(a.system, a.qid): a for a in answers}
    assert by[("a", "q1")].answer == by[("b", "q1")].answer == "right alpha"
    assert (by[("a", "q1")].usage + by[("b", "q1")].usage).calls == 1


def test_context_is_the_top_k_in_trec_eval_order(loaded):
    got = contexts(loaded["runs"], ["q1", "q2", "q3"], 2)
    assert got[("c", "q3")] == ("d6", "d2")


def test_a_tie_is_broken_by_docid_descending(tmp_path):
    from qrelkit.data import read_run

    p = tmp_path / "t.run"
    p.write_text("q1 Q0 dA 1 5 t\nq1 Q0 dB 2 5 t\n")
    assert contexts([read_run(p)], ["q1"], 2)[("t", "q1")] == ("dB", "dA")


def test_rerun_on_a_workspace_makes_no_call(loaded, tmp_path):
    with Store.create(tmp_path / "ws") as store:
        generate(loaded, scripted_client(store), store=store)
        again = scripted_client(store)
        answers, summary = generate(loaded, again, store=store)
    assert again.backend.calls == 0
    assert summary.resumed == 9


def test_a_changed_run_is_generated_again(loaded, tmp_path):
    with Store.create(tmp_path / "ws") as store:
        generate(loaded, scripted_client(store), store=store)
        c = next(r for r in loaded["runs"] if r.name == "c")
        changed = dataclasses.replace(c, by_topic={**c.by_topic, "q1": c.by_topic["q1"][1:]})
        loaded["runs"] = [r for r in loaded["runs"] if r.name != "c"] + [changed]
        _, summary = generate(loaded, scripted_client(store), store=store)
    assert summary.resumed == 8
    assert summary.contexts == 1


def test_a_malformed_reply_after_retries_is_an_error_not_an_answer(loaded, tmp_path):
    with Store.create(tmp_path / "ws") as store:
        answers, summary = generate(loaded, scripted_client(store, fn=lambda m, p: "no json here"), store=store)
        stored = store.rag_answers()
    assert summary.errors == 9
    assert all(a.answer is None for a in answers)
    assert all(a.error and "unparseable" in a.error for a in stored)


def test_errors_are_retried_on_the_next_run(loaded, tmp_path):
    with Store.create(tmp_path / "ws") as store:
        generate(loaded, scripted_client(store, fn=lambda m, p: "no json here"), store=store)
        retry = scripted_client(store)
        _, summary = generate(loaded, retry, store=store)
    assert summary.answers == 9
    assert retry.backend.calls == DISTINCT_K2


def test_documents_without_text_are_left_out_and_recorded(loaded):
    loaded["lookup"] = lambda d: None if d == "d2" else loaded_doc(d)
    answers, summary = generate(loaded, scripted_client())
    by = {(a.system, a.qid): a for a in answers}
    assert by[("a", "q1")].missing == ("d2",)
    assert summary.missing_docs == 1


def test_a_context_without_any_text_costs_no_call_and_is_an_error(loaded):
    loaded["lookup"] = lambda d: None
    client = scripted_client()
    answers, _ = generate(loaded, client)
    assert client.backend.calls == 0
    assert {a.error for a in answers} == {NO_TEXT}


def test_every_passage_is_delimited_as_data(loaded):
    client = scripted_client()
    generate(loaded, client)
    user = client.backend.requests[0][0][1].content
    assert user.count("<<<PASSAGE ") == 2


def loaded_doc(docid):
    from qrelkit.types import Doc

    from .conftest import DOCS

    return Doc(docid, DOCS[docid])


@pytest.mark.parametrize("k, budget", [(10, 120), (2, 600), (100, 48)])
def test_passages_share_the_context_budget(k, budget):
    from qrelkit.rag.generate import passage_tokens

    assert passage_tokens(k) == budget
