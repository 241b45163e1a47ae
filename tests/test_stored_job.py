"""A workspace's job is stored once and continued exactly; one process judges a workspace at a time.

The sequence a new user hit, through the real CLI and a scripted OpenAI-compatible server on
127.0.0.1: `fill` with a debate and `--limit`, people vote in the app over HTTP, then a bare
`fill -w WS` (the README's continuation line) used to re-judge every hole with the default judge
and merge those labels instead. Now it continues the stored job with no new call.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakeserver import serve
from test_fill_people import _collection, model_server, qk, serving  # noqa: F401  (model_server: a fixture)

METHOD = "debate(rounds=2)"


def calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def people_vote(ws: Path, grade: int) -> None:
    """Three annotators (the app's votes per case) settle every escalation through its HTTP API."""
    from qrelkit.annotate.client import AnnotatorClient

    tokens = [json.loads(qk("annotate", "users", "add", n, "-w", ws, "--json").stdout)["token"] for n in "xyz"]
    with serving(ws) as url:
        for token in tokens:
            client = AnnotatorClient(url, token)
            while (case := client.next()) and not case.get("done"):
                assert client.vote(case["qid"], case["docid"], grade).status_code == 200


def provenance(result: dict) -> dict:
    lines = Path(result["qrels"] + ".provenance.jsonl").read_text().splitlines()
    return {(p["qid"], p["docid"]): p for p in map(json.loads, lines)}


@pytest.fixture
def waiting(model_server, tmp_path):  # noqa: F811  (the fixture, by name)
    """A workspace whose first `fill` (a debate, --limit 2) left one escalation for people."""
    model, log = model_server
    ws = tmp_path / "ws"
    first = json.loads(qk("fill", "-w", ws, *_collection(tmp_path / "c"), "--method", METHOD, "--model", model,
                          "--limit", "2", "--json").stdout)
    return ws, model, log, first


def test_the_first_fill_stores_its_job_and_waits_for_people(waiting):
    ws, _, log, first = waiting
    assert first["state"] == "waiting"
    assert first["method"].startswith("debate(")
    assert first["judge"]["cases"] == 2
    assert calls(log) == 2 + 4  # b agrees in round 1; c disagrees over two rounds


def test_a_bare_fill_continues_the_stored_job_with_no_new_call(waiting):
    ws, _, log, first = waiting
    before = calls(log)
    people_vote(ws, 3)
    done = json.loads(qk("fill", "-w", ws, "--json").stdout)
    assert calls(log) == before
    assert done["method"] == first["method"]
    assert Path(done["report"]).exists()
    prov = provenance(done)
    assert prov[("1", "b")]["source"] == "llm"
    assert prov[("1", "b")]["method"] == first["method"]
    assert prov[("1", "c")]["source"] == "human"
    assert prov[("1", "c")]["grade"] == 3
    assert ("1", "e") not in prov  # the limit left it unjudged; no other judge filled it


def test_the_same_options_again_are_fine(waiting):
    ws, model, log, first = waiting
    again = json.loads(qk("fill", "-w", ws, "--method", METHOD, "--model", model, "--limit", "2",
                          "--json").stdout)
    assert again["method"] == first["method"]
    assert again["state"] == "waiting"


def test_another_method_is_refused_naming_both(waiting):
    ws, _, log, first = waiting
    before = calls(log)
    p = qk("fill", "-w", ws, "--method", "zero-shot", check=False)
    assert p.returncode == 2
    assert METHOD.split("(")[0] in p.stderr
    assert "zero-shot" in p.stderr
    assert "--rejudge" in p.stderr
    assert "Traceback" not in p.stderr
    assert calls(log) == before


def test_status_shows_the_stored_job(waiting):
    ws, _, _, first = waiting
    status = json.loads(qk("status", "-w", ws, "--json").stdout)
    assert status["job"]["method"] == first["method"]
    assert status["job"]["kind"] == "fill"


def test_rejudge_starts_a_new_job_whose_labels_are_merged_and_reported(waiting):
    ws, model, log, first = waiting
    people_vote(ws, 3)
    before = calls(log)
    # --limit again: a new job keeps every stored option not given (the first job's --limit 2 too)
    new = json.loads(qk("fill", "-w", ws, "--method", "debate(rounds=1)", "--model", model, "--rejudge", "--auto",
                        "--limit", "1000", "--json").stdout)
    assert calls(log) > before
    assert new["method"] != first["method"]
    assert "rounds=1" in new["method"]
    assert new["state"] == "done"
    prov = provenance(new)
    assert prov[("1", "b")]["method"] == new["method"]
    assert prov[("1", "c")]["source"] == "human"  # people's labels win over any judge's
    report = json.loads((ws / "report.json").read_text())
    assert report["plan"]["job"]["method"] == new["method"]
    assert report["plan"]["earlier_jobs"][0]["method"] == first["method"]
    # every section speaks of the job whose labels are merged; the other judge is listed as such
    agreement = report["agreement"]
    if agreement["available"]:
        assert agreement["results"][0]["method"] == new["method"]
        assert agreement["results"][0]["merged"] is True
        assert all(not r["merged"] for r in agreement["results"][1:])
    assert {e["method"] for e in report["escalations"].get("cases", [])} <= {new["method"]}
    assert {c["name"] for c in report["costs"]["commands"]} <= {"fill", "annotate"}  # as the user ran them
    status = json.loads(qk("status", "-w", ws, "--json").stdout)
    assert status["job"]["method"] == new["method"]
    # the old judgments are still there, with their provenance
    old = [m for m in status["methods"] if m["method"] == first["method"]]
    assert old and old[0]["judgments"] == 2


# ------------------------------------------------------------------ one writer at a time
@pytest.fixture
def slow_server(tmp_path):
    log = tmp_path / "slow.log"
    with serve("judges.fake_openai", log, delay=0.3) as url:
        yield f"openai:fake@{url}", log


@pytest.fixture
def pooled(tmp_path):
    """A workspace with 12 holes on which a debate's two agents agree (two calls a case)."""
    d = tmp_path / "c"
    d.mkdir()
    (d / "topics.jsonl").write_text(json.dumps({"qid": "1", "text": "what is a passage"}) + "\n")
    docs = {f"d{i}": f"passage {i} agree0" for i in range(12)}
    (d / "docs.jsonl").write_text("".join(json.dumps({"docid": k, "text": v}) + "\n" for k, v in docs.items()))
    (d / "run.txt").write_text("".join(f"1 Q0 {k} {i} {20 - i} sys\n" for i, k in enumerate(docs, 1)))
    ws = tmp_path / "ws"
    qk("init", "-w", ws, "--topics", d / "topics.jsonl", "--docs", d / "docs.jsonl", "--runs", d / "run.txt")
    qk("pool", "-w", ws, "--depth", "12", "--human-depth", "0")
    return ws


def judge_cmd(ws: Path, model: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "qrelkit", "judge", "-w", str(ws), "--method", "debate(rounds=1)", "--model", model,
            "--task", "graded", "--concurrency", "1", "--json", *extra]


def test_a_second_judge_on_a_busy_workspace_stops_naming_the_first(pooled, slow_server):
    model, log = slow_server
    first = subprocess.Popen(judge_cmd(pooled, model), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while calls(log) == 0 and time.time() < deadline:
            time.sleep(0.1)
        second = subprocess.run(judge_cmd(pooled, model), capture_output=True, text=True, timeout=120)
        assert second.returncode == 2
        assert f"process {first.pid}" in second.stderr
        assert "qrelkit judge" in second.stderr or "`judge`" in second.stderr
        assert "--wait" in second.stderr
        # read-only commands keep working while the first judges
        assert subprocess.run([sys.executable, "-m", "qrelkit", "status", "-w", str(pooled), "--json"],
                              capture_output=True, timeout=120).returncode == 0
    finally:
        out, _ = first.communicate(timeout=300)
    assert json.loads(out)["new"] == 12
    assert calls(log) == 2 * 12  # each case reached the server once (two agents who agree)


def test_two_judges_started_together_make_each_call_once(pooled, slow_server):
    model, log = slow_server
    procs = [subprocess.Popen(judge_cmd(pooled, model, "--wait"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [json.loads(p.communicate(timeout=300)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(o["new"] for o in outs) == [0, 12]
    assert calls(log) == 2 * 12


def test_a_killed_judges_lock_does_not_block_the_next_run(pooled, slow_server):
    model, log = slow_server
    first = subprocess.Popen(judge_cmd(pooled, model), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while calls(log) < 6 and time.time() < deadline:
        time.sleep(0.1)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(30)
    assert (pooled / "qrelkit.lock").exists()  # the killed process's record is still there
    rest = subprocess.run(judge_cmd(pooled, model), capture_output=True, text=True, timeout=300)
    assert rest.returncode == 0, rest.stderr
    assert json.loads(rest.stdout)["judged"] == 12
