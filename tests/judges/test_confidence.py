"""confidence: calibrated escalation within a human budget, with scripted models."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from qrelkit.errors import CapabilityError, UsageError
from qrelkit.judges import canonical, parse_spec
from qrelkit.judges.calibration import allowance, fit, sigmoid, uncertain_first
from qrelkit.judges.confidence import yes_no
from qrelkit.judging.runner import run_judging
from qrelkit.llm import CHAT, JSON_SCHEMA, TOP_LOGPROBS, Client, Completion, ScriptedBackend, TokenLogprob
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

TRUE_THRESHOLD = 3.0  # people call a document relevant when its strength is >= 3


# ---- calibration on synthetic data with a known answer -------------------------------------------
def _auto_accuracy(p_select, p_label, y, k):
    chosen = set(uncertain_first(list(p_select), k))
    rest = [i for i in range(len(y)) if i not in chosen]
    return sum(int(p_label[i] >= 0.5) == y[i] for i in rest) / len(rest), sorted(chosen)


def test_calibrated_escalation_picks_the_truly_uncertain_cases():
    rng = np.random.default_rng(7)

    def draw(n):
        x = rng.uniform(-2.0, 8.0, n)  # raw log-odds of a judge that says "yes" far too easily
        p_true = 1 / (1 + np.exp(-1.5 * (x - TRUE_THRESHOLD)))
        return x, p_true, (rng.random(n) < p_true).astype(int)

    x_lab, _, y_lab = draw(300)
    x, p_true, y = draw(1000)
    cal = fit([[v] for v in x_lab], y_lab.tolist(), ("score",))
    assert cal.fitted and cal.coef[0] > 0
    assert abs(-cal.intercept / cal.coef[0] - TRUE_THRESHOLD) < 0.5  # it finds where people draw the line
    p_raw = [sigmoid(v) for v in x]
    p_cal = [cal.probability([v]) for v in x]
    k = 200  # a 20% budget
    acc_raw, esc_raw = _auto_accuracy(p_raw, p_raw, y, k)
    acc_cal, esc_cal = _auto_accuracy(p_cal, p_cal, y, k)
    assert acc_cal > acc_raw + 0.15, (acc_cal, acc_raw)
    # the escalated cases are the ones whose true probability is near 0.5
    unc_cal = np.mean([abs(p_true[i] - 0.5) for i in esc_cal])
    unc_raw = np.mean([abs(p_true[i] - 0.5) for i in esc_raw])
    assert unc_cal < 0.2 < unc_raw
    # and at equal budget calibrated selection beats raw-score selection with calibrated labels too
    acc_mixed, _ = _auto_accuracy(p_raw, p_cal, y, k)
    assert acc_cal > acc_mixed


def test_calibration_without_both_classes_reads_the_score_as_log_odds():
    cal = fit([[1.0], [2.0], [3.0]], [1, 1, 1], ("score",))
    assert not cal.fitted and cal.probability([0.0]) == 0.5 and cal.n == 3


def test_allowance_spends_the_budget_evenly_and_carries_over():
    assert [allowance(10, 100, d, 0) for d in (25, 50, 100)] == [2, 5, 10]
    assert allowance(10, 100, 50, 5) == 0 and allowance(10, 100, 100, 7) == 3
    assert uncertain_first([0.9, 0.51, None, 0.45, 0.5], 2) == [4, 1]


# ---- yes/no from top log-probabilities --------------------------------------------------------------
def tok(*top):
    return TokenLogprob(top[0][0], top[0][1], tuple(top))


def test_yes_no_adds_spellings_and_normalises():
    raw, d = yes_no([tok(("Yes", math.log(0.5)), (" yes", math.log(0.1)), ("No", math.log(0.2)))])
    assert raw == pytest.approx(math.log(0.6 / 0.2)) and d["p_yes"] == pytest.approx(0.75)
    assert not d["bounded"] and d["position"] == 0
    # only "no" among the alternatives: "yes" is bounded by the least likely one shown
    raw, d = yes_no([tok(("No", math.log(0.7)), ("The", math.log(0.05)))])
    assert d["bounded"] and raw == pytest.approx(math.log(0.05 / 0.7))
    # a leading space token first: the next position is read
    raw, d = yes_no([tok((" ", -0.1)), tok(("Yes", -0.2), ("No", -2.0))])
    assert d["position"] == 1 and raw == pytest.approx(1.8)
    assert yes_no([tok(("Maybe", -0.1), ("The", -1.0))])[0] is None


# ---- the method through the runner --------------------------------------------------------------
def strength_of(messages) -> float:
    return float(re.search(r"strength (-?[\d.]+)", messages[-1].content).group(1))


def yesno_client(store=None, p_yes=lambda s: sigmoid(s), caps=(CHAT, JSON_SCHEMA, TOP_LOGPROBS)):
    """A judge whose P(yes) is sigmoid(strength): miscalibrated, since people draw the line at 3."""

    def fn(messages, params):
        assert params["top_logprobs"] > 0 and params["schema"] is None
        p = min(max(p_yes(strength_of(messages)), 1e-9), 1 - 1e-9)
        first = "Yes" if p >= 0.5 else "No"
        top = sorted((("Yes", math.log(p)), ("No", math.log(1 - p))), key=lambda t: -t[1])
        return Completion(
            text=first,
            logprobs=(TokenLogprob(first, max(t[1] for t in top), tuple(top)),),
            prompt_tokens=10,
            completion_tokens=1,
        )

    return Client(ScriptedBackend(fn, capabilities=frozenset(caps)), store=store, backoff_base=0.0)


def strengths(n, lo, hi):
    return [round(lo + (hi - lo) * i / (n - 1), 3) for i in range(n)]


@pytest.fixture
def ws(tmp_path):
    """40 labelled pairs (people's share) and 40 holes, strengths spread over [-2, 8]."""
    store = Store.create(tmp_path / "ws")
    store.upsert_topics([Topic("q1", "fox"), Topic("q2", "dog")])
    lab = strengths(40, -2, 8)
    holes = [s + 0.1 for s in strengths(40, -2, 8)]
    docs = [Doc(f"l{i}", f"labelled passage strength {s}") for i, s in enumerate(lab)]
    docs += [Doc(f"h{i}", f"hole passage strength {s}") for i, s in enumerate(holes)]
    store.upsert_docs(docs)
    store.upsert_qrels(
        [Qrel(f"q{1 + i % 2}", f"l{i}", 2 if s >= TRUE_THRESHOLD else 0) for i, s in enumerate(lab)]
    )
    store.upsert_cases([Case(f"q{1 + i % 2}", f"h{i}", "llm", i + 1) for i in range(40)])
    store.strengths = {f"h{i}": s for i, s in enumerate(holes)}
    yield store
    store.close()


def _by_status(store, method):
    out = {}
    for j in store.judgments(method=method):
        out.setdefault(j.status, []).append(j)
    return out


def test_confidence_escalates_the_calibrated_uncertain_and_labels_the_rest(ws):
    client = yesno_client(store=ws)
    s = run_judging(ws, "confidence(budget=25%,batch=10)", client)
    st = _by_status(ws, s.method)
    assert len(st["escalate"]) == 10 and len(st["auto"]) == 30 and s.escalations == 10
    esc = [ws.strengths[j.docid] for j in st["escalate"]]
    # near where people draw the line, not near raw P(yes) = 0.5 (strength 0); each batch spends
    # its share of the budget on its own closest cases, so a few lie a little further out
    assert all(1.5 < v < 5.5 for v in esc) and sum(abs(v - TRUE_THRESHOLD) < 1.1 for v in esc) >= 8, esc
    for j in st["auto"]:
        assert j.label == int(ws.strengths[j.docid] >= TRUE_THRESHOLD)
        assert j.grade == (2 if j.label else 0)
    prov = json.loads(st["escalate"][0].provenance)
    assert prov["reason"] == "uncertain" and prov["status"] == "escalate"
    conf = prov["confidence"]
    assert conf["calibration"]["fitted"] and 0.0 < conf["probability"] < 1.0 and conf["score"] == "yesno"
    assert "p_yes" in conf and conf["budget"] == "25%" and conf["cap"] == 10
    assert prov["answer"]["top"] and prov["templates"]["confidence"].startswith("confidence.v1+")
    # one call per hole and one per labelled pair used for calibration
    assert s.calls == 80 and all(j.calls == 1 for j in ws.judgments(method=s.method))
    assert s.calibration["labelled"] == 40 and s.calibration["calibration"]["fitted"]
    # a re-run has nothing to do
    again = run_judging(ws, "confidence(budget=25%,batch=10)", yesno_client(store=ws))
    assert again.new == 0 and again.calls == 0


def test_without_labels_the_raw_score_decides_and_is_worse(ws):
    ws.execute("DELETE FROM qrels")
    s = run_judging(ws, "confidence(budget=25%,batch=10)", yesno_client(store=ws))
    st = _by_status(ws, s.method)
    esc = [ws.strengths[j.docid] for j in st["escalate"]]
    assert all(abs(v) < 2.0 for v in esc)  # the raw P(yes) is uncertain near strength 0
    wrong = sum(j.label != int(ws.strengths[j.docid] >= TRUE_THRESHOLD) for j in st["auto"])
    assert wrong >= 5
    assert not json.loads(st["auto"][0].provenance)["confidence"]["calibration"]["fitted"]


def test_oracle_answers_teach_later_batches_and_write_no_labels(ws):
    ws.execute("DELETE FROM qrels")
    oracle = {
        ("q1" if i % 2 == 0 else "q2", f"h{i}"): (2 if s >= TRUE_THRESHOLD else 0)
        for i, s in ((int(d[1:]), v) for d, v in ws.strengths.items())
    }
    s = run_judging(ws, "confidence(budget=50%,batch=8)", yesno_client(store=ws), oracle=oracle)
    st = _by_status(ws, s.method)
    batches = {}
    for j in ws.judgments(method=s.method):
        c = json.loads(j.provenance)["confidence"]
        batches.setdefault(c["batch"], set()).add(c["calibration"]["fitted"])
    assert batches[0] == {False} and batches[max(batches)] == {True}
    for j in st["escalate"]:
        prov = json.loads(j.provenance)
        assert j.label is None and prov["oracle"] == oracle[(j.qid, j.docid)]
    assert s.calibration["oracle_answers"] == len(st["escalate"]) == 20
    assert ws.judgments(source="human") == [] and ws.judgments(method="people") == []
    # a resumed run counts the oracle's answers among the labels (nothing left to do here)
    assert run_judging(ws, "confidence(budget=50%,batch=8)", yesno_client(store=ws), oracle=oracle).new == 0


def test_count_budget_and_likelihood_scores(ws):
    def score(prefix, cont):
        if "Passage" not in prefix:
            return -10.0
        return -10.0 + float(re.search(r"strength (-?[\d.]+)", prefix).group(1))

    client = Client(ScriptedBackend(lambda m, p: "", score_fn=score), store=ws, backoff_base=0.0)
    s = run_judging(ws, "confidence(score=likelihood,budget=3,features=score+length)", client)
    st = _by_status(ws, s.method)
    assert len(st["escalate"]) == 3 and len(st["auto"]) == 37
    assert client.backend.calls == 80 + 2  # every document once, the no-document prior once per topic
    prov = json.loads(st["auto"][0].provenance)
    assert prov["confidence"]["likelihood"]["score"] is not None
    assert set(prov["confidence"]["features"]) == {"score", "log_length"}
    assert prov["templates"] == {"likelihood": prov["templates"]["likelihood"]}


def test_failed_scores_are_errors_not_guesses(ws):
    def fn(messages, params):
        if "strength 8" in messages[-1].content:
            return Completion(
                text="Maybe", logprobs=(tok(("Maybe", -0.1), ("The", -1.0)),), completion_tokens=1
            )
        return yesno_client().backend.fn(messages, params)

    client = Client(
        ScriptedBackend(fn, capabilities=frozenset({CHAT, TOP_LOGPROBS})), store=ws, backoff_base=0.0
    )
    s = run_judging(ws, "confidence", client)
    err = _by_status(ws, s.method)["error"]
    assert [ws.strengths[j.docid] for j in err] == [8.1]
    assert err[0].label is None and "neither yes nor no" in json.loads(err[0].provenance)["reason"]


def test_refusals_are_clear(ws):
    no_logprobs = yesno_client(caps=(CHAT, JSON_SCHEMA))
    with pytest.raises(CapabilityError, match=r"top log-probabilities.*confidence\(score=likelihood\)"):
        run_judging(ws, "confidence", no_logprobs)
    with pytest.raises(UsageError, match="budget"):
        run_judging(ws, "confidence", yesno_client(store=ws), budget="10%")
    with pytest.raises(UsageError, match="batches"):
        parse_spec("prefilter+confidence")
    for bad in ("confidence(budget=lots)", "confidence(budget=120%)", "confidence(score=guess)"):
        with pytest.raises(UsageError):
            parse_spec(bad)
    assert canonical("confidence(budget=12.50%)") == canonical("confidence")
    assert "budget=3.5%" in canonical("confidence(budget=3.5%)")


def test_cli_judge_with_an_oracle(ws, monkeypatch):
    from typer.testing import CliRunner

    from qrelkit.cli import app

    def score(prefix, cont):
        return (
            -10.0
            if "Passage" not in prefix
            else -10.0 + float(re.search(r"strength (-?[\d.]+)", prefix).group(1))
        )

    client = Client(ScriptedBackend(lambda m, p: "", score_fn=score), store=ws, backoff_base=0.0)
    monkeypatch.setattr("qrelkit.llm.make_client", lambda spec, store=None, **kw: client)
    ref = ws.workspace / "reference.qrels"
    ref.write_text(
        "".join(
            f"q{1 + int(d[1:]) % 2} 0 {d} {2 if v >= TRUE_THRESHOLD else 0}\n"
            for d, v in ws.strengths.items()
        )
    )
    r = CliRunner().invoke(
        app,
        [
            "judge",
            "-w",
            str(ws.workspace),
            "--method",
            "confidence(score=likelihood,budget=10%)",
            "--oracle",
            str(ref),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert (
        out["escalations"] == 4 and out["narrative_calls"] == 0 and out["calibration"]["oracle_answers"] == 4
    )
    esc = ws.judgments(status="escalate")
    assert len(esc) == 4 and all("oracle" in json.loads(j.provenance) for j in esc)


def test_calibration_sample_is_bounded_and_keeps_the_base_rate(ws):
    from qrelkit.judges.learning import HumanLabel, sample_labels

    client = yesno_client(store=ws)
    s = run_judging(ws, "confidence(calib=20,batch=40)", client)
    assert s.calibration["labelled"] == 20 and client.backend.calls == 40 + 20
    assert json.loads(ws.judgments(method=s.method)[0].provenance)["confidence"]["calibration"]["n"] == 20
    # 10% relevant: a random sample keeps roughly that share (a balanced one would make it half)
    items = [HumanLabel("q", f"d{i:03d}", 2 if i < 30 else 0, int(i < 30), "original") for i in range(300)]
    sample = sample_labels(items, 100, seed=0)
    assert len(sample) == 100 and 3 <= sum(h.label for h in sample) <= 20
    assert sample == sample_labels(list(reversed(items)), 100, seed=0)  # order of the input does not matter


def test_cli_refuses_a_second_budget_before_loading_a_model(ws, monkeypatch, capsys):
    from qrelkit.cli import main

    def no_model(*a, **kw):
        raise AssertionError("the model was loaded for a command that cannot run")

    monkeypatch.setattr("qrelkit.llm.make_client", no_model)
    with pytest.raises(SystemExit) as e:
        main(["judge", "-w", str(ws.workspace), "--method", "confidence", "--budget", "10%"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--budget does not apply to confidence" in err and "confidence(budget=12.5%)" in err
    assert "Traceback" not in err and ws.judgments() == []


def test_pool_position_corrects_the_base_rate_of_the_top_of_the_pool(tmp_path):
    """People label the top of the pool, where most pairs are relevant; the judge decides deeper
    pairs, where most are not. The score says nothing here (the same for every pair) and the
    number of runs that retrieved a pair says everything: fitted on the score alone, the top's
    base rate labels every deep pair relevant; with pool features, the deep pairs come out right."""
    store = Store.create(tmp_path / "ws")
    store.upsert_topics([Topic("q1", "fox")])
    runs = [f"r{i}" for i in range(10)]
    people, holes = [], []
    for i in range(60):  # top of the pool: ranks 1-3, 70 % retrieved by >= 5 runs
        n = 5 + i % 6 if i % 10 < 7 else 1 + i % 4
        people.append(Case("q1", f"p{i}", "people", 1 + i % 3, tuple(runs[:n]), True))
    for i in range(40):  # deeper: ranks 4-10, 25 % retrieved by >= 5 runs
        n = 5 + i % 6 if i % 4 == 0 else 1 + i % 4
        holes.append(Case("q1", f"h{i}", "llm", 4 + i % 7, tuple(runs[:n]), False))
    unpooled = Case("q1", "x0", "llm", 0, (), False)  # no pool position: an error, not a guess
    store.upsert_docs([Doc(c.docid, "passage strength 2.0") for c in people + holes + [unpooled]])
    store.upsert_cases(people + holes + [unpooled])
    store.upsert_qrels([Qrel("q1", c.docid, 2 if len(c.runs) >= 5 else 0) for c in people])
    store.upsert_qrels([Qrel("q1", "y0", 2)])  # labelled but never pooled: left out of a pool fit
    store.upsert_docs([Doc("y0", "passage strength 2.0")])
    truth = {c.docid: int(len(c.runs) >= 5) for c in holes}

    def accuracy(spec):
        s = run_judging(store, spec, yesno_client(store=store))
        auto = [j for j in store.judgments(method=s.method) if j.status == "auto" and j.docid in truth]
        assert len(auto) == 40
        return s, sum(j.label == truth[j.docid] for j in auto) / len(auto)

    s_plain, plain = accuracy("confidence(budget=0,batch=10,features=score)")
    s_pool, pooled = accuracy("confidence(budget=0,batch=10,features=score+pool)")
    assert plain == 0.25 and pooled >= 0.9, (plain, pooled)
    assert s_plain.calibration["labelled"] == 61 and s_pool.calibration["labelled"] == 61
    cal = s_pool.calibration["calibration"]
    assert cal["features"] == ["score", "log_best_rank", "log_runs"] and cal["n"] == 60 and cal["coef"][2] > 0
    err = [j for j in store.judgments(method=s_pool.method) if j.status == "error"]
    assert [j.docid for j in err] == ["x0"] and "no pool position" in json.loads(err[0].provenance)["reason"]
