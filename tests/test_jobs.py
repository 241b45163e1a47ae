"""The main jobs end to end: fill (resume, kill and re-run) and build (people through the app's HTTP API).

These run the real embedded model in subprocesses, as a user would. To keep
CI short the likelihood threshold is calibrated on 40 labelled pairs instead
of the default 200; everything else is the default path.
"""
from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_fill_people import serving

from qrelkit.demo import demo_paths
from qrelkit.job.plan import Plan, load_plan
from qrelkit.job.run import recovered

pytestmark = pytest.mark.model

METHOD = "likelihood(threshold=auto,calib=40)"


def qk(*args, check=True, timeout=900) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True,
                       timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError(f"qrelkit {' '.join(map(str, args))} exited {p.returncode}:\n{p.stderr[-3000:]}")
    return p


def fill_args(ws: Path) -> list:
    d = demo_paths()
    return ["fill", "-w", ws, "--topics", d.topics, "--docs", d.docs, "--qrels", d.qrels, "--runs", *d.runs,
            "--method", METHOD, "--auto", "--json"]


def _judgments(ws: Path) -> int:
    db = ws / "qrelkit.sqlite"
    if not db.exists():
        return 0
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return con.execute("SELECT COUNT(*) FROM judgments WHERE method LIKE 'likelihood%'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    ws = tmp_path_factory.mktemp("fill")
    out = json.loads(qk(*fill_args(ws)).stdout)
    return ws, out


def test_fill_end_to_end(filled):
    ws, out = filled
    d = demo_paths()
    assert out["state"] == "done" and out["job"] == "fill"
    assert out["pool"]["holes"] == 44 and out["judge"]["cases"] == 44
    assert out["judge"]["judged"] + out["judge"]["errors"] == 44
    assert out["merged"]["original"] == 143 and out["merged"]["llm"] == out["judge"]["judged"]
    merged = Path(out["qrels"]).read_text().splitlines()
    assert len(merged) == out["merged"]["labels"]
    # original labels are kept untouched
    original = set(d.qrels.read_text().splitlines())
    assert original <= {" ".join(x.split()) for x in merged}
    prov = [json.loads(x) for x in Path(out["qrels"] + ".provenance.jsonl").read_text().splitlines()]
    llm = [p for p in prov if p["source"] == "llm"]
    assert llm and all(p["method"].startswith("likelihood(") and p["model"].startswith("local:") for p in llm)
    assert all("score" in p["provenance"]["likelihood"] for p in llm)
    assert Path(out["report"]).exists() and (ws / "report.json").exists()
    rec = recovered(out["qrels"], d.qrels, d.full_qrels)
    assert rec["hidden"] == 44 and rec["filled"] == out["judge"]["judged"]
    st = json.loads(qk("status", "-w", ws, "--json").stdout)
    assert st["cases"]["pending_judge"] == 0 and st["spent"]["calls"] >= out["judge"]["calls"]
    plan = json.loads(sqlite3.connect(ws / "qrelkit.sqlite").execute(
        "SELECT value FROM meta WHERE key='plan'").fetchone()[0])
    # the plan shows the job's method id (the spec given, in canonical form), as every later call continues it
    assert plan["job"] == "fill" and plan["plan"]["method"] == out["method"] and plan["qrelkit_version"]
    assert out["method"].startswith("likelihood(") and "calib=40" in out["method"]


def test_fill_again_makes_no_new_calls(filled):
    ws, first = filled
    again = json.loads(qk(*fill_args(ws)).stdout)
    assert again["state"] == "done"
    assert again["judge"]["new"] == 0
    assert again["judge"]["calls"] - again["judge"]["cache_hits"] == 0
    assert Path(again["qrels"]).read_text() == Path(first["qrels"]).read_text()


def test_fill_killed_mid_judging_then_rerun_gives_the_same_qrels(filled, tmp_path):
    _, reference = filled
    ws = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "qrelkit", *map(str, fill_args(ws))],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    try:
        while time.time() < deadline and proc.poll() is None and _judgments(ws) < 8:
            time.sleep(0.2)
        assert proc.poll() is None, "the run finished before it could be killed"
        assert _judgments(ws) >= 8
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    partial = _judgments(ws)
    assert 8 <= partial < 44
    out = json.loads(qk(*fill_args(ws)).stdout)
    assert out["state"] == "done"
    assert out["judge"]["new"] == 44 - partial  # finished cases are not judged again
    assert out["judge"]["cache_hits"] > 0  # calibration scores replayed from the cache
    assert Path(out["qrels"]).read_text() == Path(reference["qrels"]).read_text()


def test_build_with_people_through_the_app(tmp_path):
    from qrelkit.annotate.client import AnnotatorClient

    d = demo_paths()
    ws = tmp_path / "build"
    # depth 5: the people's depth-3 share (67 pairs) is the same, and the LLM's share is 29 pairs
    # instead of depth 10's 120, which is the same path in a third of the time
    args = ["build", "-w", ws, "--topics", d.topics, "--docs", d.docs, "--runs", *d.runs,
            "--depth", "5", "--method", METHOD, "--json"]
    first = json.loads(qk(*args).stdout)
    assert first["state"] == "waiting" and first["people"]["people_share"] > 0
    n_people = first["pool"]["people"]
    assert first["people"]["people_share"] == n_people
    # nothing was judged by the LLM before people are done
    assert first["judge"] == {}

    full = {}
    for line in d.full_qrels.read_text().splitlines():
        q, _, doc, g = line.split()
        full[(q, doc)] = int(g)
    tokens = [json.loads(qk("annotate", "users", "add", name, "-w", ws, "--json").stdout)["token"]
              for name in ("ann", "bob", "cy")]
    votes = 0
    with serving(ws) as url:
        for token in tokens:
            client = AnnotatorClient(url, token)
            for _ in range(1000):
                case = client.next()
                if case is None or case.get("done"):
                    break
                grade = 1 if full.get((case["qid"], case["docid"]), 0) >= 2 else 0
                assert client.vote(case["qid"], case["docid"], grade).status_code == 200
                votes += 1
    assert votes >= 3 * n_people

    done = json.loads(qk(*args, "--auto").stdout)
    assert done["state"] == "done"
    assert done["merged"]["human"] == n_people
    assert done["merged"]["llm"] + done["merged"]["unresolved"] == done["pool"]["pooled"] - n_people
    prov = [json.loads(x) for x in Path(done["qrels"] + ".provenance.jsonl").read_text().splitlines()]
    human = [p for p in prov if p["source"] == "human"]
    assert len(human) == n_people
    for p in human:  # unanimous simulated people: the decided label is theirs
        assert p["grade"] == (1 if full.get((p["qid"], p["docid"]), 0) >= 2 else 0)
        assert len(p["provenance"]["votes"]) == 3


def test_plan_file_and_overrides(tmp_path):
    d = demo_paths()
    plan = tmp_path / "plan.toml"
    (tmp_path / "runs").mkdir()
    plan.write_text(f"""
[inputs]
topics = "{d.topics}"
docs = "{d.docs}"
qrels = "q.txt"
runs = ["runs/*.run"]

[pool]
depth = 5

[judge]
method = "zero-shot"
concurrency = 3

[prices."openai:m"]
input = 0.5
output = 1.5
""")
    p = load_plan(plan)
    assert p.qrels == str(tmp_path / "q.txt") and p.runs == (str(tmp_path / "runs" / "*.run"),)
    assert p.depth == 5 and p.method == "zero-shot" and p.prices == (("openai:m", 0.5, 1.5),)
    q = p.override(depth=7, method=None, runs=[])
    assert q.depth == 7 and q.method == "zero-shot" and q.runs == p.runs
    assert Plan().override(model="openai:x@http://h/v1").model == "openai:x@http://h/v1"


@pytest.mark.parametrize("text, problem", [
    ("[judge]\nmethd = 'x'\n", "unknown key 'methd' in [judge]"),
    ("[jduge]\n", "unknown section [jduge]"),
    ("[pool]\ndepth = 'ten'\n", "depth must be an integer"),
    ("[pool\n", "not valid TOML"),
])
def test_bad_plan_is_a_clear_error(tmp_path, text, problem):
    plan = tmp_path / "plan.toml"
    plan.write_text(text)
    p = qk("fill", "-w", tmp_path / "ws", "--plan", plan, check=False)
    assert p.returncode == 2 and problem in p.stderr and str(plan) in p.stderr and "Traceback" not in p.stderr


def test_fill_without_qrels_is_a_usage_error(tmp_path):
    d = demo_paths()
    p = qk("fill", "-w", tmp_path / "ws", "--topics", d.topics, "--docs", d.docs, "--runs", *d.runs, check=False)
    assert p.returncode == 2 and "--qrels" in p.stderr and "Traceback" not in p.stderr


def test_demo_command_prints_recovery(filled, tmp_path):
    # The demo is `fill --auto` on the bundled data: on a copy of the filled
    # workspace it resumes with nothing left to judge, which keeps CI short.
    ws, _ = filled
    shutil.copytree(ws, tmp_path / "demo")
    out = json.loads(qk("demo", "-w", tmp_path / "demo", "--method", METHOD, "--json").stdout)
    assert out["state"] == "done" and out["judge"]["calls"] - out["judge"]["cache_hits"] == 0
    rec = out["recovered"]
    assert rec["hidden"] == 44 and rec["hidden_relevant"] == 15
    assert rec == recovered(out["qrels"], demo_paths().qrels, demo_paths().full_qrels)


@pytest.fixture(scope="module")
def demo_screen(filled, tmp_path_factory):
    ws = tmp_path_factory.mktemp("screen") / "demo"
    shutil.copytree(filled[0], ws)
    p = qk("demo", "-w", ws, "--method", METHOD)
    return p.stdout + p.stderr, json.loads((ws / "report.json").read_text())  # the screen is rich's (stderr)


@pytest.mark.parametrize("sentence", [
    "holes that nobody had judged",
    "query likelihood on the embedded model",
    "of them came back as relevant",
    "The report, with agreement against the hidden labels, is",
])
def test_the_demo_closing_screen_says_what_happened_in_sentences(demo_screen, sentence):
    assert sentence in demo_screen[0]


def test_the_demo_report_measures_agreement_against_the_hidden_labels(demo_screen):
    assert demo_screen[1]["agreement"]["reference"] == "the demo's full labels (qrels.full.txt)"


def test_the_demo_report_names_its_reference_once(demo_screen, tmp_path_factory):
    import html as html_module

    html = html_module.unescape(next(tmp_path_factory.getbasetemp().rglob("screen*/demo/report.html")).read_text())
    assert "Labels against the demo's full labels" in html
    assert "the the" not in html
