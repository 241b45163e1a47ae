"""`vote(judges=[...])` and `zero-shot(samples=K)` as `qrelkit judge` subprocesses against a scripted
HTTP server (tests/judges/fake_vote.py): call counts, escalation on disagreement, provenance."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from fakeserver import serve

from qrelkit.judges import parse_spec
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

from .fake_vote import KEYS, NARRATIVE_MARK

TWO = "vote(judges=[zero-shot,zero-shot(narrative=topic)])"
SAMPLES = "zero-shot(samples=3,temperature=0.7)"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("srv") / "requests.log"
    log.write_text("")
    with serve("judges.fake_vote", log) as url:
        yield url, log


def make_ws(path: Path) -> Path:
    """One topic with a narrative, one document per keyword of the fake server, all to judge."""
    with Store.create(path) as s:
        s.upsert_topics([Topic("q0", "query zero", narrative=f"{NARRATIVE_MARK} what counts")])
        s.upsert_docs([Doc(f"d{i}", f"passage {k}") for i, k in enumerate(KEYS)])
        s.upsert_cases([Case("q0", f"d{i}", "llm", i + 1) for i in range(len(KEYS))])
    return path


def judge(ws: Path, url: str, method: str, *extra: str) -> dict:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    r = subprocess.run(
        [sys.executable, "-m", "qrelkit", "judge", "-w", str(ws), "--method", method, "--model",
         f"openai:fake@{url}", "--task", "graded", "--threshold", "2", "--json", *extra],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def run(tmp_path: Path, server, method: str, *extra: str) -> tuple[dict, Counter, dict]:
    """The summary, the server calls this run made (by log line), and the judgments by docid."""
    url, log = server
    before = len(log.read_text().splitlines())
    summary = judge(make_ws(tmp_path / "ws"), url, method, *extra)
    calls = Counter(log.read_text().splitlines()[before:])
    with Store.open(tmp_path / "ws") as s:
        rows = {j.docid: j for j in s.judgments(method=str(parse_spec(method)))}
    return summary, calls, rows


def by_key(rows: dict) -> dict:
    return {KEYS[int(d[1:])]: j for d, j in rows.items()}


def test_a_vote_of_two_zero_shot_members_makes_two_calls_per_case(server, tmp_path):
    summary, calls, _ = run(tmp_path, server, TWO)
    assert sum(calls.values()) == 2 * len(KEYS)


def test_a_vote_counts_its_calls_in_the_summary(server, tmp_path):
    summary, _, _ = run(tmp_path, server, TWO)
    assert summary["calls"] == 2 * len(KEYS)


def test_each_vote_member_is_asked_once_per_case(server, tmp_path):
    _, calls, _ = run(tmp_path, server, TWO)
    assert calls == Counter({f"{k} {m}": 1 for k in KEYS for m in ("narrative", "plain")})


def test_members_that_agree_decide_with_consensus(server, tmp_path):
    rows = by_key(run(tmp_path, server, TWO)[2])
    assert (rows["agree3"].status, rows["agree3"].label, rows["agree3"].grade) == ("consensus", 1, 3)


def test_members_that_disagree_escalate_like_a_debate(server, tmp_path):
    rows = by_key(run(tmp_path, server, TWO)[2])
    assert (rows["split"].status, rows["split"].label) == ("escalate", None)


def test_an_escalated_vote_records_the_disagreement_for_the_budget(server, tmp_path):
    rows = by_key(run(tmp_path, server, TWO)[2])
    assert json.loads(rows["split"].provenance)["disagreement"] == {"grade_gap": 3, "rounds": 1}


def test_a_budget_ranks_a_votes_disagreement_by_its_grade_gap(server, tmp_path):
    rows = by_key(run(tmp_path, server, TWO, "--budget", "0")[2])
    budget = json.loads(rows["split"].provenance)["budget"]
    assert (budget["strength"], budget["for_people"]) == ([3, 1], False)


def test_the_summary_counts_the_disagreements_as_escalations(server, tmp_path):
    summary, _, _ = run(tmp_path, server, TWO)
    assert summary["escalations"] == 1


def test_provenance_keeps_every_members_verdict_and_calls(server, tmp_path):
    rows = by_key(run(tmp_path, server, TWO)[2])
    members = json.loads(rows["split"].provenance)["vote"]["members"]
    got = [(m["judge"], m["label"], m["grade"], m["calls"]) for m in members]
    assert got == [("zero-shot(doc_tokens=400,narrative=none)", 0, 0, 1), ("zero-shot(doc_tokens=400)", 1, 3, 1)]


def test_provenance_keeps_the_rule_and_the_count(server, tmp_path):
    rows = by_key(run(tmp_path, server, TWO)[2])
    vote = json.loads(rows["split"].provenance)["vote"]
    assert (vote["rule"], vote["needed"], vote["counts"]) == ("majority", 2, {"0": 1, "1": 1})


def test_three_samples_make_three_calls_per_case(server, tmp_path):
    summary, calls, _ = run(tmp_path, server, SAMPLES)
    assert sum(calls.values()) == 3 * len(KEYS)


def test_three_samples_are_counted_as_three_calls_on_the_judgment(server, tmp_path):
    rows = run(tmp_path, server, SAMPLES)[2]
    assert [j.calls for j in rows.values()] == [3] * len(KEYS)


def test_a_majority_of_samples_decides(server, tmp_path):
    rows = by_key(run(tmp_path, server, SAMPLES)[2])
    assert (rows["mixed"].status, rows["mixed"].label, rows["mixed"].grade) == ("auto", 1, 3)


def test_samples_that_must_all_agree_escalate_on_a_split(server, tmp_path):
    rows = by_key(run(tmp_path, server, "zero-shot(samples=3,temperature=0.7,agree=all)")[2])
    assert (rows["mixed"].status, rows["mixed"].label) == ("escalate", None)


def test_provenance_keeps_every_samples_grade(server, tmp_path):
    rows = by_key(run(tmp_path, server, SAMPLES)[2])
    samples = json.loads(rows["mixed"].provenance)["samples"]
    assert sorted(s["grade"] for s in samples) == [0, 3, 3]


@pytest.mark.parametrize("spec", ["zero-shot", "zero-shot(narrative=topic)", "zero-shot(output=label)"])
def test_zero_shot_ids_at_the_default_sample_count_are_unchanged(spec):
    before = {"zero-shot": "zero-shot(doc_tokens=400,narrative=none)",
              "zero-shot(narrative=topic)": "zero-shot(doc_tokens=400)",
              "zero-shot(output=label)": "zero-shot(doc_tokens=400,narrative=none,output=label)"}
    assert str(parse_spec(spec)) == before[spec]


@pytest.mark.parametrize("spec", [TWO, SAMPLES, 'vote(agree=all,judges="[zero-shot,debate(temperature=[0,0.7])]")'])
def test_a_canonical_id_parses_back_to_itself(spec):
    canonical = str(parse_spec(spec))
    assert str(parse_spec(canonical)) == canonical


@pytest.mark.parametrize("spec,needle", [
    ("zero-shot(samples=3)", "needs temperature > 0"),
    ("vote(judges=[zero-shot])", "at least two judges"),
    ("vote(judges=[zero-shot,zero-shot])", "listed twice"),
    ("vote(judges=[zero-shot,prefilter+debate])", "prefilter"),
    ("vote(judges=[zero-shot,nonsense])", "unknown method"),
])
def test_a_bad_vote_spec_is_a_usage_error(server, tmp_path, spec, needle):
    url, _ = server
    r = subprocess.run(
        [sys.executable, "-m", "qrelkit", "judge", "-w", str(make_ws(tmp_path / "ws")), "--method", spec,
         "--model", f"openai:fake@{url}"],
        capture_output=True, text=True, timeout=120,
    )
    assert (r.returncode, needle in r.stderr, "Traceback" in r.stderr) == (2, True, False)


def test_methods_json_lists_vote_and_the_sample_parameters():
    r = subprocess.run([sys.executable, "-m", "qrelkit", "methods", "--json"], capture_output=True, text=True,
                       timeout=120)
    methods = {m["name"]: {p["name"] for p in m["params"]} for m in json.loads(r.stdout)["methods"]}
    assert (methods["vote"], {"samples", "temperature", "agree"} <= methods["zero-shot"]) == ({"agree", "judges"}, True)


# ---- samples for the other single-call judges ------------------------------------------------------
def make_labelled_ws(path: Path) -> Path:
    """make_ws plus labelled pairs of the topic for icl's examples."""
    make_ws(path)
    with Store.open(path) as s:
        s.upsert_docs([Doc(f"l{i}", f"example text number {i}") for i in range(4)])
        s.upsert_qrels([Qrel("q0", f"l{i}", 3 * (i % 2)) for i in range(4)])
    return path


def test_icl_with_three_samples_makes_three_calls_per_case_and_votes(server, tmp_path):
    url, log = server
    before = len(log.read_text().splitlines())
    judge(make_labelled_ws(tmp_path / "ws"), url, "icl(samples=3,temperature=0.7)")
    with Store.open(tmp_path / "ws") as s:
        rows = {KEYS[int(j.docid[1:])]: j for j in s.judgments(method=str(parse_spec("icl(samples=3,temperature=0.7)")))}
    calls = len(log.read_text().splitlines()) - before
    assert (calls, rows["mixed"].status, rows["mixed"].grade) == (3 * len(KEYS), "auto", 3)


def test_a_vote_can_hold_a_judge_that_learns_from_peoples_labels(server, tmp_path):
    url, _ = server
    method = "vote(judges=[zero-shot,icl],agree=all)"
    judge(make_labelled_ws(tmp_path / "ws"), url, method)
    with Store.open(tmp_path / "ws") as s:
        rows = {KEYS[int(j.docid[1:])]: j for j in s.judgments(method=str(parse_spec(method)))}
    members = json.loads(rows["agree3"].provenance)["vote"]["members"]
    assert ([m["judge"].split("(")[0] for m in members], rows["agree3"].status) == (["zero-shot", "icl"], "consensus")
