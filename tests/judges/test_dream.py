"""DREAM as the paper runs it: prompt v2, context limits, more agents, per-agent temperature and
model, debating on after consensus, what the adjudicator sees; call counts are exact."""

from __future__ import annotations

import asyncio
import json

import pytest

from qrelkit.errors import UsageError
from qrelkit.judges import build, describe
from qrelkit.judging import JudgingJob, run_job
from qrelkit.store import Store

from .conftest import agent, make_client, round_of, stance_of
from .test_cli import log_lines, make_ws, server  # noqa: F401  (the fake server fixture)


def run(spec, inp, fn):
    client = make_client(fn)
    return asyncio.run(build(spec)(inp, client)), client


def split(m, p):
    return agent(label=1 if stance_of(m) == "relevant" else 0)


def test_v2_agent_prompt_states_the_papers_rules(answer_input):
    _, client = run("debate", answer_input(), split)
    text = client.backend.requests[0][0][-1].content
    assert "FULLY SUPPORTS" in text


@pytest.mark.parametrize("rule", ["answer is correct", "valid answer to the question", "consistent with each other"])
def test_v2_agent_prompt_rules_out_judging_the_answers(answer_input, rule):
    _, client = run("debate", answer_input(), split)
    assert rule in client.backend.requests[0][0][-1].content


def test_v1_agent_prompt_is_the_old_one(answer_input):
    _, client = run("debate(prompt=v1)", answer_input(), split)
    assert "states, or clearly implies" in client.backend.requests[0][0][-1].content


def test_limits_are_recorded_in_provenance(answer_input):
    v, _ = run("debate(quotes=2,reasoning_chars=500,doc_tokens=300)", answer_input(), split)
    assert v.provenance["limits"]["quotes"] == 2
    assert v.provenance["limits"]["reasoning_chars"] == 500
    assert v.provenance["limits"]["doc_tokens"] == 300


def test_quotes_bound_the_reply_schema(answer_input):
    _, client = run("debate(quotes=2)", answer_input(), split)
    assert client.backend.requests[0][1]["schema"]["properties"]["evidence"]["maxItems"] == 2


@pytest.mark.parametrize("param", ["quotes=4", "agents=4", "stop=never", "adjudicator_sees=all"])
def test_v1_refuses_parameters_it_never_had(param):
    with pytest.raises(UsageError):
        build(f"debate(prompt=v1,{param})")


@pytest.mark.parametrize(
    ("spec", "calls"),
    [("debate(agents=4)", 8), ("debate(agents=3,rounds=3)", 9), ("debate(stances=[relevant,relevant,irrelevant])", 6)],
)
def test_more_agents_cost_agents_times_rounds_without_agreement(answer_input, spec, calls):
    v, client = run(spec, answer_input(), split)
    assert client.backend.calls == calls


def test_agents_split_between_the_two_stances(answer_input):
    v, _ = run("debate(agents=4)", answer_input(), split)
    assert [a["stance"] for a in v.provenance["history"][0]["agents"]] == ["relevant", "irrelevant"] * 2


def test_agreement_means_all_agents_agree(answer_input):
    def fn(m, p):  # one of four dissents in round 1, all agree in round 2
        dissent = round_of(m) == 1 and "Assessor" not in m[-1].content and stance_of(m) == "irrelevant"
        return agent(label=0 if dissent else 1)

    v, client = run("debate(agents=4)", answer_input(), fn)
    assert (v.status, v.round) == ("consensus", 2)


def test_each_agent_has_its_own_temperature(answer_input):
    _, client = run("debate(temperature=[0.0,0.7],rounds=1)", answer_input(), split)
    assert sorted(p["temperature"] for _, p in client.backend.requests) == [0.0, 0.7]


def test_a_temperature_list_must_fit_the_agents():
    with pytest.raises(UsageError):
        build("debate(agents=4,temperature=[0.0,0.7])")


def test_stop_never_debates_every_round_after_consensus(answer_input):
    v, client = run("debate(rounds=5,stop=never)", answer_input(), lambda m, p: agent(label=1))
    assert client.backend.calls == 10


def test_stop_never_records_every_rounds_labels(answer_input):
    def fn(m, p):  # consensus in round 1, broken in round 3, restored in round 5
        r = round_of(m)
        return agent(label=0 if r in (3, 4) and stance_of(m) == "irrelevant" else 1)

    v, _ = run("debate(rounds=5,stop=never)", answer_input(), fn)
    assert v.provenance["labels_by_round"] == [[1, 1], [1, 1], [1, 0], [1, 0], [1, 1]]


def test_stop_never_decides_by_the_final_round(answer_input):
    def fn(m, p):  # consensus in round 1, disagreement at the end
        return agent(label=0 if round_of(m) == 2 and stance_of(m) == "irrelevant" else 1)

    v, _ = run("debate(stop=never)", answer_input(), fn)
    assert v.status == "escalate"


def _adjudicated(spec, inp):
    def fn(m, p):
        if stance_of(m) == "adjudicator":
            return {"reason": "r", "label": 1}
        return agent(label=1 if stance_of(m) == "relevant" else 0, reasoning=f"argued-in-round-{round_of(m)}")

    _, client = run(spec, inp, fn)
    return client.backend.requests[-1][0][-1].content


def test_the_adjudicator_sees_the_final_round_by_default(answer_input):
    text = _adjudicated("debate(rounds=3,adjudicator=llm)", answer_input())
    assert "argued-in-round-1" not in text


def test_the_adjudicator_sees_the_final_round_of_every_agent(answer_input):
    text = _adjudicated("debate(rounds=3,adjudicator=llm)", answer_input())
    assert text.count("argued-in-round-3") == 2


def test_the_adjudicator_may_see_every_round(answer_input):
    text = _adjudicated("debate(rounds=3,adjudicator=llm,adjudicator_sees=all)", answer_input())
    assert "argued-in-round-1" in text


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_methods_lists_the_prompt_versions(version):
    debate = next(m for m in describe() if m.name == "debate")
    assert version in next(p.help for p in debate.params if p.name == "prompt")


def test_each_agent_model_has_its_own_client_and_calls(server, tmp_path):  # noqa: F811
    url, log = server
    ws = make_ws(tmp_path / "ws", n=3)
    before = len(log_lines(log))
    spec = f'debate(rounds=1,agents=4,models=["openai:a@{url}","openai:b@{url}",same,same])'
    job = JudgingJob(method=spec, model=f"openai:fake@{url}", task="graded", concurrency=2)
    with Store.open(ws) as store:
        s = run_job(store, job)
        prov = json.loads(store.judgments()[0].provenance)
    assert len(log_lines(log)) - before == 3 * 4  # agents x rounds, no early agreement possible at 1 round
    assert s.calls == 12
    assert [a["model"] for a in prov["agents"]] == ["openai:a", "openai:b", "same", "same"]
