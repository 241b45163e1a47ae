"""learned: a logistic regression over cheap signals, fitted on people's labels (real store, scripted scores)."""
from __future__ import annotations

import json
import re

import pytest

from qrelkit.errors import UsageError
from qrelkit.judges import canonical, parse_spec
from qrelkit.judging.runner import run_judging
from qrelkit.llm import Client, ScriptedBackend
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

TOPICS = [Topic("q1", "mount everest height metres"), Topic("q2", "sourdough bread baking time")]
ON = {"q1": "Mount Everest rises to a height of 8,849 metres above sea level.",
      "q2": "Bake the sourdough bread for 40 minutes; baking time depends on the oven."}
OFF = "The committee met on Tuesday to discuss the annual budget of the library."


@pytest.fixture()
def ws(tmp_path):
    """20 labelled pairs per topic (not cases) and 20 cases per topic; relevant = on-topic text."""
    with Store.create(tmp_path / "ws") as s:
        s.upsert_topics(TOPICS)
        docs, qrels, cases = [], [], []
        for t in TOPICS:
            for i in range(40):
                rel = i % 3 == 0
                d = f"{t.qid}-{'l' if i < 20 else 'c'}{i}"
                docs.append(Doc(d, (ON[t.qid] if rel else OFF) + f" Note {i}."))
                (qrels.append(Qrel(t.qid, d, 2 if rel else 0)) if i < 20 else cases.append(Case(t.qid, d, "llm")))
        s.upsert_docs(docs)
        s.upsert_qrels(qrels)
        s.upsert_cases(cases)
        yield s


def truth(docid: str) -> int:
    return int(int(re.search(r"\d+$", docid).group()) % 3 == 0)


def client(store, score_fn=None):
    return Client(ScriptedBackend(lambda m, p: "", score_fn=score_fn), store=store, backoff_base=0.0)


def _judgments(ws, method):
    return ws.judgments(method=method)


def test_lexical_signals_learned_from_labels_decide_every_case_correctly(ws):
    s = run_judging(ws, "learned(signals=lexical)", client(ws))
    js = _judgments(ws, s.method)
    assert len(js) == 40
    assert [j.label for j in js] == [truth(j.docid) for j in js]


def test_provenance_holds_the_fitted_coefficients_and_the_signal_values(ws):
    s = run_judging(ws, "learned(signals=lexical)", client(ws))
    prov = json.loads(_judgments(ws, s.method)[0].provenance)["learned"]
    assert prov["combination"]["columns"] == ["lexical.bm25", "lexical.coverage", "lexical.log_length"]
    assert prov["combination"]["n"] == 40
    assert set(prov["signals"]) == {"lexical.bm25", "lexical.coverage", "lexical.log_length"}


def test_the_pool_signal_is_dropped_without_runs_and_provenance_says_why(ws):
    s = run_judging(ws, "learned(signals=lexical+pool)", client(ws))
    prov = json.loads(_judgments(ws, s.method)[0].provenance)["learned"]
    assert prov["dropped"][0]["name"] == "pool"
    assert prov["dropped"][0]["reason"].startswith("no runs")


def test_likelihood_signals_come_from_the_scoring_model(ws):
    def score(prefix, cont):
        return -5.0 if ("Everest" in prefix or "sourdough" in prefix) else -20.0

    s = run_judging(ws, "learned(signals=pmi+ql)", client(ws, score))
    js = _judgments(ws, s.method)
    assert [j.label for j in js] == [truth(j.docid) for j in js]


def test_pmi_and_ql_are_dropped_for_a_model_that_cannot_score(ws):
    s = run_judging(ws, "learned(signals=pmi+lexical)", client(ws))
    prov = json.loads(_judgments(ws, s.method)[0].provenance)["learned"]
    assert prov["dropped"][0]["reason"] == "model scripted cannot score continuations"


def test_a_budget_escalates_the_least_certain_cases(ws):
    def score(prefix, cont):  # a noisy score: the regression is unsure about some cases
        n = int(re.search(r"Note (\d+)\.", prefix).group(1)) if "Note" in prefix else 0
        return -10.0 + (n % 7) + (3 if "Everest" in prefix or "sourdough" in prefix else 0)

    s = run_judging(ws, "learned(signals=ql,budget=5,batch=40)", client(ws, score))
    js = _judgments(ws, s.method)
    esc = [j for j in js if j.status == "escalate"]
    probs = sorted(abs(json.loads(j.provenance)["learned"]["probability"] - 0.5) for j in js)
    assert len(esc) == 5
    assert max(abs(json.loads(j.provenance)["learned"]["probability"] - 0.5) for j in esc) == probs[4]


def test_without_labels_of_both_classes_no_label_is_guessed(tmp_path):
    with Store.create(tmp_path / "ws") as s:
        s.upsert_topics(TOPICS[:1])
        s.upsert_docs([Doc("a", ON["q1"]), Doc("b", OFF), Doc("c", OFF)])
        s.upsert_qrels([Qrel("q1", "a", 2)])
        s.upsert_cases([Case("q1", "b"), Case("q1", "c")])
        r = run_judging(s, "learned(signals=lexical)", client(s))
        js = s.judgments(method=r.method)
        assert {j.status for j in js} == {"error"}
        assert {j.label for j in js} == {None}
        assert "not enough labelled pairs to fit on (1 relevant, 0 not" in json.loads(js[0].provenance)["reason"]


@pytest.mark.parametrize("spec", ["learned(signals=pmi+nope)", "learned(signals=ql+ql)", "learned(budget=lots)"])
def test_a_bad_learned_spec_is_a_usage_error(spec):
    with pytest.raises(UsageError):
        parse_spec(spec)


def test_the_canonical_spec_lists_the_default_signals():
    assert canonical("learned") == canonical("learned(signals=pmi_u+ql_u+dense_u+lexical_u+pool+feedback+prior,c=0.03)")


@pytest.mark.parametrize("labelled,command,expected", [
    (True, "judge", "learned"),
    (True, "fill", "learned"),
    (False, "judge", "likelihood"),
    (False, "fill", "likelihood"),
])
def test_auto_on_the_embedded_model_learns_when_there_are_labels(labelled, command, expected):
    from qrelkit.judges import auto_method

    assert auto_method("local", command, labelled).name == expected


def test_an_auto_chosen_learned_judge_takes_the_budget_into_its_spec(ws):
    from qrelkit.judging import JudgingJob

    spec = JudgingJob(method="auto", model="local", command="fill", budget="10%").spec(ws)
    assert spec.canonical == canonical("learned(budget=10%)")


def test_a_served_model_is_not_switched_to_the_learned_judge(ws):
    from qrelkit.judging import JudgingJob

    assert JudgingJob(model="openai:m@http://127.0.0.1:1/v1", command="fill").spec(ws).name == "debate"


def test_has_labels_sees_original_qrels(ws):
    from qrelkit.judging import has_labels

    assert has_labels(ws)


def test_prefilter_by_learned_drops_only_what_the_signals_call_irrelevant(ws):
    def fn(messages, params):  # the main judge: zero-shot says relevant to everything it sees
        return {"grade": 2}

    c = Client(ScriptedBackend(fn), store=ws, backoff_base=0.0)
    s = run_judging(ws, "prefilter(by=learned,signals=lexical,keep=1.0)+zero-shot", c)
    js = _judgments(ws, s.method)
    dropped = {j.docid for j in js if j.status == "dropped"}
    assert dropped == {j.docid for j in js if not truth(j.docid)}


def test_prefilter_by_learned_records_its_fit(ws):
    c = Client(ScriptedBackend(lambda m, p: {"grade": 2}), store=ws, backoff_base=0.0)
    s = run_judging(ws, "prefilter(by=learned,signals=lexical)+zero-shot", c)
    prov = json.loads(_judgments(ws, s.method)[0].provenance)["prefilter"]
    assert prov["calibration"]["combination"]["columns"][0] == "lexical.bm25"


def test_a_prefilter_spec_without_signals_keeps_its_old_id():
    assert "signals" not in canonical("prefilter(by=likelihood)+zero-shot")


def _on_topic_score(prefix, cont):
    return -5.0 if ("Everest" in prefix or "sourdough" in prefix) else -20.0


def test_each_verdict_carries_the_scoring_calls_its_signals_cost(ws):
    c = client(ws, _on_topic_score)
    s = run_judging(ws, "learned(signals=pmi+ql+lexical)", c)
    js = _judgments(ws, s.method)
    assert min(j.calls for j in js) >= 1


def test_verdict_calls_and_the_labelled_pairs_calls_add_up_to_the_clients_calls(ws):
    c = client(ws, _on_topic_score)
    s = run_judging(ws, "learned(signals=pmi+ql)", c)
    js = _judgments(ws, s.method)
    assert sum(j.calls for j in js) + s.calibration["labelled_calls"] == c.usage.calls


def test_verdict_tokens_are_the_scoring_calls_tokens(ws):
    c = client(ws, _on_topic_score)
    s = run_judging(ws, "learned(signals=pmi+ql)", c)
    js = _judgments(ws, s.method)
    assert sum(j.prompt_tokens for j in js) > 0


def test_cached_signal_values_cost_a_later_judge_nothing(ws):
    run_judging(ws, "learned(signals=pmi+ql)", client(ws, _on_topic_score))
    s = run_judging(ws, "learned(signals=pmi+ql,seed=1)", client(ws, _on_topic_score))
    assert sum(j.calls for j in _judgments(ws, s.method)) == 0


def test_per_topic_statistics_charge_their_up_front_calls_to_the_cases_judged(ws):
    c = client(ws, _on_topic_score)
    s = run_judging(ws, "learned(signals=pmi,per_topic=true)", c, limit=4)
    js = _judgments(ws, s.method)
    assert min(j.calls for j in js) >= 1


def test_per_topic_statistics_report_what_they_cost_for_the_whole_pool(ws):
    c = client(ws, _on_topic_score)
    s = run_judging(ws, "learned(signals=pmi,per_topic=true)", c, limit=4)
    js = _judgments(ws, s.method)
    assert s.calibration["topic_stats"]["calls"] > sum(j.calls for j in js)
