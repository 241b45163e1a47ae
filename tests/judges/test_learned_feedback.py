"""learned with the feedback signal and per-topic z-scores (real store, no model calls)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from qrelkit.judges import canonical, parse_spec
from qrelkit.judging.runner import run_judging
from qrelkit.signals import combine, minilm

from .test_learned import client, truth, ws  # noqa: F401  (fixture)

try:
    minilm.model_zip()
    HAVE_MODEL = True
except minilm.ModelMissing:
    HAVE_MODEL = False


def _provenance(store, method):
    return {(j.qid, j.docid): json.loads(j.provenance)["learned"] for j in store.judgments(method=method)}


def test_per_topic_z_scores_are_those_of_the_one_function_over_each_topics_pool(ws):  # noqa: F811
    s = run_judging(ws, "learned(signals=lexical,per_topic=true)", client(ws))
    prov = _provenance(ws, s.method)
    pairs = sorted(prov)
    cols = prov[pairs[0]]["combination"]["columns"]
    raw = np.array([[prov[p]["signals"][c] for c in cols] for p in pairs])
    z = combine.per_topic_z(raw, [q for q, _ in pairs])
    comb = prov[pairs[0]]["combination"]
    model = combine.Combination(tuple(cols), tuple(comb["mean"]), tuple(comb["scale"]), tuple(comb["coef"]),
                                comb["intercept"], True, comb["n"], comb["relevant"])
    assert np.allclose(model.probabilities(z), [prov[p]["probability"] for p in pairs], atol=1e-5)


@pytest.mark.skipif(not HAVE_MODEL, reason=f"weights package missing: {minilm.INSTALL_HINT}")
def test_feedback_learned_from_the_judged_documents_decides_every_case_correctly(ws):  # noqa: F811
    s = run_judging(ws, "learned(signals=feedback)", client(ws))
    js = ws.judgments(method=s.method)
    assert [j.label for j in js] == [truth(j.docid) for j in js]


@pytest.mark.skipif(not HAVE_MODEL, reason=f"weights package missing: {minilm.INSTALL_HINT}")
def test_feedback_is_not_dropped_when_the_topics_have_judged_documents(ws):  # noqa: F811
    s = run_judging(ws, "learned(signals=lexical+feedback)", client(ws))
    prov = next(iter(_provenance(ws, s.method).values()))
    assert "feedback.dense_rel_max" in prov["combination"]["columns"] and prov["dropped"] == []


OLD_ID = "learned(batch=50,budget=0,calib=200,doc_tokens=400,per_topic=false,seed=0,signals=pmi+ql+dense+lexical+pool)"


def test_a_stored_learned_id_canonicalises_to_itself():
    assert canonical(OLD_ID) == OLD_ID


def test_a_stored_learned_id_keeps_the_fixed_regularisation_it_was_fitted_with():
    assert parse_spec(OLD_ID)["c"] == combine.C


FEEDBACK_ID = OLD_ID.replace("+pool)", "+pool+feedback)")  # the default from feedback to per_topic=query
QUERY_ID = FEEDBACK_ID.replace("per_topic=false", "per_topic=query")  # the default until feedback_z
FZ_ID = QUERY_ID.replace("doc_tokens=400,", "doc_tokens=400,feedback_z=40,")  # the default until the _u signals
NEW_ID = ("learned(batch=50,budget=0,c=0.03,calib=200,doc_tokens=400,feedback_z=40,per_topic=query,seed=0,"
          "signals=pmi_u+ql_u+dense_u+lexical_u+pool+feedback+prior)")
EARLIER = [OLD_ID, FEEDBACK_ID, QUERY_ID, FZ_ID]  # every earlier default, oldest first


def test_the_default_learned_reads_without_stuffing_with_the_topics_prior_at_c_0_03():
    assert canonical("learned") == NEW_ID


@pytest.mark.parametrize("stored", EARLIER)
def test_the_default_learned_is_a_new_canonical_form(stored):
    assert canonical("learned") != stored


@pytest.mark.parametrize("stored", EARLIER + [NEW_ID])
def test_each_earlier_default_learned_id_canonicalises_to_itself(stored):
    assert canonical(stored) == stored


@pytest.mark.parametrize("stored", [OLD_ID, FEEDBACK_ID, QUERY_ID])
def test_an_id_stored_before_feedback_z_keeps_feedback_raw(stored):
    assert parse_spec(stored)["feedback_z"] == "off"


@pytest.mark.parametrize("stored", EARLIER)
def test_an_id_stored_before_c_0_03_keeps_c_0_1(stored):
    assert parse_spec(stored)["c"] == combine.C


def test_the_new_default_id_keeps_c_0_03():
    assert parse_spec(NEW_ID)["c"] == 0.03


def test_a_default_learned_job_resumes_a_workspace_under_the_stored_id():
    assert str(parse_spec("learned").as_before()) == OLD_ID


def test_a_default_learned_job_looks_for_each_earlier_default_the_most_recent_first():
    forms = [str(s) for s in parse_spec("learned").earlier()]
    assert [forms.index(f) for f in reversed(EARLIER)] == sorted(forms.index(f) for f in EARLIER)


def test_a_bare_learned_resumes_a_workspace_judged_under_the_query_default(ws):  # noqa: F811
    first = run_judging(ws, QUERY_ID.replace("signals=pmi+ql+dense+lexical+pool+feedback", "signals=lexical"),
                        client(ws))
    again = run_judging(ws, "learned(signals=lexical)", client(ws))
    assert (again.method, again.new) == (first.method, 0)


def score(prefix: str, cont: str) -> float:
    """The scripted model's log-probability: high for on-topic text (pmi and ql make calls)."""
    return -5.0 if ("Everest" in prefix or "sourdough" in prefix) else -20.0


@pytest.mark.parametrize("stored", EARLIER)
def test_a_bare_learned_resumes_a_workspace_judged_under_each_earlier_default(ws, stored):  # noqa: F811
    first = run_judging(ws, stored, client(ws, score))
    again = run_judging(ws, "learned", client(ws, score))
    assert (again.method, again.new, again.judged) == (stored, 0, first.judged)


@pytest.mark.parametrize("stored", EARLIER)
def test_resuming_an_earlier_default_calls_no_model_and_judges_nothing_again(ws, stored):  # noqa: F811
    """No model call, the stored judgments untouched and none under today's id (the signal and
    answer caches would make a re-judging free too, so the judgments are what tells them apart)."""
    run_judging(ws, stored, client(ws, score))
    before = ws.judgments(method=stored)
    again = client(ws, score)
    run_judging(ws, "learned", again)
    assert (again.backend.calls, ws.judgments(method=NEW_ID), ws.judgments(method=stored)) == (0, [], before)


def test_a_stored_id_computes_what_it_did_with_c_fixed(ws):  # noqa: F811
    s = run_judging(ws, "learned(batch=50,budget=0,calib=200,doc_tokens=400,per_topic=false,seed=0,signals=lexical)",
                    client(ws))
    prov = next(iter(_provenance(ws, s.method).values()))
    assert "fit" not in prov["combination"] and "prior" not in prov


def test_cross_validated_c_is_recorded_in_provenance(ws):  # noqa: F811
    s = run_judging(ws, "learned(signals=lexical,c=cv)", client(ws))
    prov = next(iter(_provenance(ws, s.method).values()))
    assert prov["combination"]["fit"]["c"] in combine.C_GRID and "cv_log_loss" in prov["combination"]["fit"]


def test_the_estimated_share_of_relevant_cases_is_recorded(ws):  # noqa: F811
    s = run_judging(ws, "learned(signals=lexical,c=cv)", client(ws))
    prior = next(iter(_provenance(ws, s.method).values()))["prior"]
    assert abs(prior["cases_estimate"] - 14 / 40) < 0.1  # 14 of the 40 cases are relevant


def test_query_z_scores_use_each_topics_cases_and_labelled_pairs(ws):  # noqa: F811
    """per_topic=query: the moments of a topic are over its cases and the labelled pairs fitted on
    (the one function, :func:`qrelkit.signals.combine.per_topic_z`), so the cases' probabilities
    follow from their raw values, those moments and the recorded combination."""
    import asyncio

    from qrelkit import signals

    s = run_judging(ws, "learned(signals=lexical)", client(ws))
    prov = _provenance(ws, s.method)
    comb = next(iter(prov.values()))["combination"]
    pairs = sorted(prov)
    labelled = sorted(ws.qrels())
    ctx = signals.context_from_store(ws)
    x = asyncio.run(signals.values(signals.build("lexical"), pairs + labelled, ctx))
    z = combine.per_topic_z(x, [q for q, _ in pairs + labelled])[: len(pairs)]
    model = combine.Combination(tuple(comb["columns"]), tuple(comb["mean"]), tuple(comb["scale"]),
                                tuple(comb["coef"]), comb["intercept"], True, comb["n"], comb["relevant"])
    assert np.allclose(model.probabilities(z), [prov[p]["probability"] for p in pairs], atol=1e-5)


def test_the_default_records_that_the_query_signals_were_z_scored_per_topic(ws):  # noqa: F811
    s = run_judging(ws, "learned(signals=lexical)", client(ws))
    assert next(iter(_provenance(ws, s.method).values()))["combination"]["per_topic"] == "query"


@pytest.mark.parametrize("text,value", [("query", "query"), ("true", True), ("false", False)])
def test_per_topic_takes_query_true_or_false(text, value):
    assert parse_spec(f"learned(per_topic={text})")["per_topic"] == value


def test_a_per_topic_value_that_is_none_of_them_names_the_three():
    from qrelkit.errors import UsageError

    with pytest.raises(UsageError, match="true, false or query"):
        parse_spec("learned(per_topic=maybe)")
