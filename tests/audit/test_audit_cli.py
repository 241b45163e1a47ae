"""`qrelkit audit` as a real subprocess against a scripted HTTP model that falls for every probe.

The workspace: 4 topics whose queries are "zq NAME"; relevant passages (grade 3) say agree3,
non-relevant ones (grade 0) agree0. The model (tests/audit/fake_gullible.py) answers by the text:
relevant for agree3, and relevant too for a passage repeating the query or telling the assessor
so; an agree3 passage with an agree0 text appended loses it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakeserver import serve

from qrelkit.store import Store
from qrelkit.types import Doc, Qrel, Topic

NAMES = ("alpha", "bravo", "charlie", "delta")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("srv") / "requests.log"
    log.write_text("")
    with serve("audit.fake_gullible", log) as url:
        yield f"openai:fake@{url}", log


def make_ws(path: Path, n: int = 60, grades=(0, 3)) -> Path:
    with Store.create(path) as s:
        s.upsert_topics([Topic(f"q{i}", f"zq {name}") for i, name in enumerate(NAMES)])
        s.upsert_docs([Doc(f"d{i}", f"Passage {'agree3' if i % 2 else 'agree0'} number {i}. It says little more.")
                       for i in range(n)])
        s.upsert_qrels([Qrel(f"q{i % 4}", f"d{i}", grades[i % 2]) for i in range(n)])
    return path


def qrelkit(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "qrelkit", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def audit(ws: Path, model: str, *args: str) -> dict:
    r = qrelkit("audit", "-w", str(ws), "--method", "zero-shot", "--model", model, "--json", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def requests(log: Path) -> int:
    return len(log.read_text().split())


@pytest.fixture(scope="module")
def first(server, tmp_path_factory):
    model, log = server
    ws = make_ws(tmp_path_factory.mktemp("a") / "ws")
    before = requests(log)
    out = audit(ws, model, "--pairs", "10", "--seed", "2")
    return ws, out, requests(log) - before


def probe(out: dict, name: str) -> dict:
    return next(p for p in out["probes"] if p["probe"] == name)


@pytest.mark.parametrize("name", ["stuffing-start", "stuffing-end", "stuffing-repeated", "injection"])
def test_every_non_relevant_pair_flips_to_relevant_for_a_judge_that_falls_for_the_probe(first, name):
    _, out, _ = first
    p = probe(out, name)
    assert (p["flips"], p["to_relevant"], p["decided"]) == (10, 10, 10)


def test_the_baseline_relevant_rate_of_the_untouched_non_relevant_pairs_is_the_judges(first):
    _, out, _ = first
    assert probe(out, "stuffing-start")["baseline_relevant"] == 0.0


def test_dilution_flips_exactly_the_relevant_pairs_that_got_a_non_relevant_text(first):
    ws, out, _ = first
    with Store.open(ws / "audit") as s:
        diluted = [d for d in s.docids() if "~audit.dilution." in d]
        expected = sum("agree0" in s.doc(d).text for d in diluted)
    p = probe(out, "dilution")
    assert (p["flips"], p["to_nonrelevant"]) == (expected, expected)


def test_the_flip_rate_comes_with_an_interval_around_it(first):
    _, out, _ = first
    p = probe(out, "dilution")
    assert p["flip_rate_low"] <= p["flip_rate"] <= p["flip_rate_high"]


def test_the_audit_makes_one_call_per_untouched_pair_and_per_probe(first):
    _, out, calls = first
    assert calls == 10 + 10 + 4 * 10 + 10  # untouched pairs of both classes, 4 probes on 10, dilution on 10


def test_the_json_reports_the_usual_accounting(first):
    _, out, calls = first
    assert (out["calls"], out["new_calls"], out["cache_hits"]) == (calls, calls, 0)


def test_the_json_has_the_contract_keys(first):
    _, out, _ = first
    assert set(out) >= {"method", "model", "threshold", "pairs", "seed", "guard", "cases", "probes", "calls",
                        "cache_hits", "new_calls", "prompt_tokens", "completion_tokens", "cost_usd"}


def test_the_audit_judges_with_the_guard_off(first):
    _, out, _ = first
    assert out["guard"] == "off"


def test_a_second_run_makes_no_call_and_reports_the_same_flips(server, first):
    model, log = server
    ws, out, _ = first
    before = requests(log)
    again = audit(ws, model, "--pairs", "10", "--seed", "2")
    assert requests(log) - before == 0
    assert again["probes"] == out["probes"]


def test_the_probes_documents_stay_out_of_the_workspace(first):
    ws, _, _ = first
    with Store.open(ws) as s:
        assert not [d for d in s.docids() if "~audit." in d]


def test_the_audit_is_stored_in_the_workspace(first):
    ws, out, _ = first
    with Store.open(ws) as s:
        assert [a.result["probes"] for a in s.audits()] == [out["probes"]]


def test_the_report_has_the_audit_section_and_its_json_twin(first, tmp_path):
    ws, out, _ = first
    r = qrelkit("report", "-w", str(ws), "--out", str(tmp_path / "report.html"))
    assert r.returncode == 0, r.stderr
    twin = json.loads((tmp_path / "report.json").read_text())
    assert twin["audit"]["audits"][0]["probes"] == out["probes"]


def test_the_report_page_shows_the_audit_table(first, tmp_path):
    ws, _, _ = first
    qrelkit("report", "-w", str(ws), "--out", str(tmp_path / "report.html"))
    assert 'class="audit-table"' in (tmp_path / "report.html").read_text()


def test_the_table_goes_to_stderr_without_json(server, first):
    model, _ = server
    ws, _, _ = first
    r = qrelkit("audit", "-w", str(ws), "--method", "zero-shot", "--model", model, "--pairs", "10", "--seed", "2")
    assert (r.returncode, r.stdout, "stuffing-repeated" in r.stderr) == (0, "", True)


def test_a_workspace_without_labels_exits_2_saying_so(server, tmp_path):
    model, _ = server
    with Store.create(tmp_path / "ws") as s:
        s.upsert_topics([Topic("q0", "zq alpha")])
        s.upsert_docs([Doc("d0", "agree0")])
    r = qrelkit("audit", "-w", str(tmp_path / "ws"), "--method", "zero-shot", "--model", model, "--json")
    assert (r.returncode, "no labelled pairs" in r.stderr, r.stdout) == (2, True, "")


def test_a_workspace_without_non_relevant_pairs_exits_2_naming_both_counts(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws", grades=(1, 3))  # grade 1 is below the threshold (2) but not judged non-relevant
    r = qrelkit("audit", "-w", str(ws), "--method", "zero-shot", "--model", model)
    assert (r.returncode, "0 judged non-relevant" in r.stderr, "30 relevant" in r.stderr) == (2, True, True)


def test_a_bad_method_exits_2_before_any_copy(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    r = qrelkit("audit", "-w", str(ws), "--method", "no-such-judge", "--model", model)
    assert (r.returncode, (ws / "audit").exists()) == (2, False)


def test_zero_pairs_exits_2(server, tmp_path):
    model, _ = server
    r = qrelkit("audit", "-w", str(make_ws(tmp_path / "ws")), "--method", "zero-shot", "--model", model,
                "--pairs", "0")
    assert r.returncode == 2
