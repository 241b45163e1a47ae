"""The people A/B setting: half the escalations (or half the annotators) see the debate history;
Fleiss' kappa and agreement with the reference per arm, read back from the votes."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from qrelkit.annotate.ab import ab_report
from qrelkit.annotate.settings import AnnotateSettings, load_settings, save_settings
from qrelkit.cli import app as cli
from qrelkit.cli import main
from qrelkit.types import Qrel

ESCALATIONS = [("q1", "d1"), ("q2", "d2")]


def split_seed(kind: str) -> int:
    """A seed under which the two escalations land in different arms."""
    return next(s for s in range(100) if len({AnnotateSettings(history_ab=kind, seed=s).shows_history(q, d, None)
                                              for q, d in ESCALATIONS}) == 2)


@pytest.fixture
def voted(store, annotator):
    """history_ab=case; three annotators vote both escalations, all agreeing with the reference."""
    save_settings(store, AnnotateSettings(history_ab="case", seed=split_seed("case")))
    store.upsert_qrels([Qrel("q1", "d1", 3), Qrel("q2", "d2", 0)])
    served = {}
    for name in ("a", "b", "c"):
        ann = annotator(name)
        for _ in ESCALATIONS:
            case = ann.next()
            served[(name, case["qid"], case["docid"])] = case["history"] is not None
            grade = {"d1": 1, "d2": 0}[case["docid"]] if case["task"] == "answer" else {"d1": 3, "d2": 0}[case["docid"]]
            assert ann.vote(case["qid"], case["docid"], grade).status_code == 200
    return served


def test_a_case_arm_shows_the_history_as_the_setting_says(store, voted):
    s = load_settings(store)
    assert all(shown == s.shows_history(q, d, None) for (_, q, d), shown in voted.items())


def test_each_arm_holds_one_escalation(store, voted):
    arms = ab_report(store, load_settings(store))
    assert [a.cases for a in arms] == [1, 1]


def test_agreement_with_the_reference_per_arm(store, voted):
    arms = ab_report(store, load_settings(store))
    assert [a.vote_agreement for a in arms] == [1.0, 1.0]


def test_kappa_of_unanimous_votes_is_undefined_not_invented(store, voted):
    assert [a.fleiss_kappa for a in ab_report(store, load_settings(store))] == [None, None]


def test_the_annotator_arm_depends_on_the_annotator_only():
    s = AnnotateSettings(history_ab="annotator")
    assert {s.shows_history(q, d, 7) for q, d in ESCALATIONS} == {s.shows_history("q", "x", 7)}


def test_the_cli_prints_both_arms(ws, voted):
    res = CliRunner().invoke(cli, ["annotate", "ab", "-w", str(ws), "--json"])
    assert [a["history_shown"] for a in json.loads(res.stdout)["arms"]] == [True, False]


def test_a_bad_arm_setting_exits_2_with_a_message(ws, capsys):
    with pytest.raises(SystemExit) as e:
        main(["annotate", "settings", "-w", str(ws), "--history-ab", "sometimes"])
    assert e.value.code == 2
    assert "history_ab must be off, case or annotator" in capsys.readouterr().err
