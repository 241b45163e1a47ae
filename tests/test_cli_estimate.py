"""`qrelkit estimate` through the real command, from files and from a workspace (real SQLite), its
Python twin ``qrelkit.estimate``, the report's estimates section and `fill` ending with estimates."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import serve
from test_cli_sample import TOPICS, qk, write_files

import qrelkit
from qrelkit.demo import demo_paths
from qrelkit.store import Store
from qrelkit.types import Judgment

ROW_KEYS = {"run", "measure", "estimate", "low", "high", "labels_only", "people_only", "lambda"}


@pytest.fixture
def drawn(tmp_path):
    """The literal two-run collection of test_cli_sample, and a 18-pair sample of it."""
    files = write_files(tmp_path / "in")
    files["sample"] = tmp_path / "s.tsv"
    qk("sample", "--runs", files["fwd"], files["bwd"], "--labels", files["judge"], "--size", "18", "--seed", "3",
       "--out", files["sample"])
    return files


def estimate_files(files, *extra, check=True):
    return qk("estimate", "--runs", files["fwd"], files["bwd"], "--labels", files["judge"], "--people", files["people"],
              "--sample", files["sample"], *extra, check=check)


def test_estimate_json_has_every_run_and_measure_as_written_with_intervals(drawn):
    out = json.loads(estimate_files(drawn, "--measures", "P@5", "--measures", "nDCG@10", "--json").stdout)
    assert {"runs", "differences", "tied", "calibration", "sample", "alpha"} <= set(out)
    assert sorted((r["run"], r["measure"]) for r in out["runs"]) == [
        ("bwd", "P@5"), ("bwd", "nDCG@10"), ("fwd", "P@5"), ("fwd", "nDCG@10")]
    for r in out["runs"]:
        assert set(r) == ROW_KEYS
        assert r["low"] <= r["estimate"] <= r["high"]
        assert set(r["people_only"]) == {"estimate", "low", "high"}
    assert sorted(d["measure"] for d in out["differences"]) == ["P@5", "nDCG@10"]
    assert {frozenset((d["a"], d["b"])) for d in out["differences"]} == {frozenset({"fwd", "bwd"})}
    assert set(out["tied"]) == {"P@5", "nDCG@10"}
    assert out["sample"]["labelled"] == 18


def test_ndcg_outside_the_measured_settings_warns_on_stderr_and_in_the_json(drawn):
    """18 people's labels over the topics is far below the labels per topic where nDCG's coverage was shown."""
    p = estimate_files(drawn, "--measures", "P@10,nDCG@10", "--json")
    out = json.loads(p.stdout)
    assert len(out["warnings"]) == 1
    assert out["warnings"][0].startswith("nDCG@10: interval coverage not shown")
    assert "warning: nDCG@10: interval coverage not shown" in " ".join(p.stderr.split())


def test_linear_measures_alone_carry_no_warning(drawn):
    p = estimate_files(drawn, "--measures", "P@10", "--json")
    assert json.loads(p.stdout)["warnings"] == []
    assert "warning" not in p.stderr


def test_labels_only_is_what_evaluate_scores_under_the_judges_labels(drawn):
    """The same run names and the same numbers as `qrelkit evaluate` / ``qrelkit.score`` on the judge's labels."""
    out = json.loads(estimate_files(drawn, "--measures", "P@10,nDCG@10", "--json").stdout)
    scores = qrelkit.score([str(drawn["fwd"]), str(drawn["bwd"])], str(drawn["judge"]), measures=["P@10", "nDCG@10"])
    assert sorted({r["run"] for r in out["runs"]}) == sorted(scores.index)
    for r in out["runs"]:
        assert r["labels_only"] == pytest.approx(scores.loc[r["run"], r["measure"]])


def test_people_labelling_every_pair_makes_the_estimate_exact(drawn, tmp_path):
    """A census of the whole universe: no sampling error left, the interval closes on the people's score."""
    sample = tmp_path / "all.tsv"
    qk("sample", "--runs", drawn["fwd"], drawn["bwd"], "--labels", drawn["judge"], "--size", "100%", "--out", sample)
    out = json.loads(qk("estimate", "--runs", drawn["fwd"], drawn["bwd"], "--labels", drawn["judge"], "--people",
                        drawn["people"], "--sample", sample, "--measures", "P@10", "--json").stdout)
    truth = qrelkit.score([str(drawn["fwd"]), str(drawn["bwd"])], str(drawn["people"]), measures=["P@10"])
    for r in out["runs"]:
        assert r["estimate"] == pytest.approx(truth.loc[r["run"], "P@10"])
        assert r["high"] - r["low"] == pytest.approx(0, abs=1e-9)


def test_on_a_terminal_the_table_goes_to_stderr_and_stdout_stays_empty(drawn):
    p = estimate_files(drawn, "--measures", "P@10")
    assert p.stdout == ""
    assert "P@10: estimate with its 95% interval" in p.stderr
    assert "fwd" in p.stderr
    assert "people's sample: 18 of 18 pairs labelled" in p.stderr


def test_sample_pairs_people_have_not_labelled_are_reported(drawn, tmp_path):
    drawn_pairs = [line.split("\t")[:2] for line in drawn["sample"].read_text().splitlines()[2:]]
    missing = drawn_pairs[0]
    people = tmp_path / "people.qrels"
    people.write_text("".join(line + "\n" for line in drawn["people"].read_text().splitlines()
                              if line.split()[0::2] != missing))
    drawn["people"] = people
    out = json.loads(estimate_files(drawn, "--json").stdout)
    assert out["sample"]["unlabelled"] == [missing]
    assert out["sample"]["labelled"] == 17
    assert "1 pair of the sample has no people's label yet" in estimate_files(drawn).stderr


@pytest.mark.parametrize("sample_text, message", [
    ("q1\td1\t0.5\n", ":1: expected the header line"),
    ("qid\tdocid\tprobability\nq1\td1\t2\n", ":2: probability 2 must be in (0, 1]"),
    ("qid\tdocid\tprobability\nq1\td1\n", ":2: expected 3 columns"),
    ("qid\tdocid\tprobability\nq1\tzz\t0.5\nq1\tzy\t0.5\n", "do not match the universe"),
])
def test_a_malformed_or_foreign_sample_exits_2_with_one_line(drawn, sample_text, message):
    drawn["sample"].write_text(sample_text)
    p = estimate_files(drawn, check=False)
    assert p.returncode == 2
    assert message in p.stderr
    assert "Traceback" not in p.stderr


def test_probabilities_that_do_not_describe_the_universe_are_refused(drawn, tmp_path):
    """A sample drawn at depth 10 applied to runs cut at 5: the strata cover pairs the universe lacks."""
    text = drawn["sample"].read_text()
    rows = text.splitlines()[2:]
    doubled = [f"{q}\t{d}\t{float(p) / 2!r}" for q, d, p in (r.split("\t") for r in rows)]
    drawn["sample"].write_text("\n".join(text.splitlines()[:2] + doubled) + "\n")
    p = estimate_files(drawn, check=False)
    assert p.returncode == 2
    assert "the sample's probabilities do not match the universe" in p.stderr


def test_too_few_peoples_labels_in_a_topic_are_refused(drawn, tmp_path):
    people = tmp_path / "people.qrels"
    people.write_text("".join(line + "\n" for line in drawn["people"].read_text().splitlines()
                              if not line.startswith("q2 ")))
    drawn["people"] = people
    p = estimate_files(drawn, check=False)
    assert p.returncode == 2
    assert "too few people's labels in topic q2" in p.stderr


def test_estimate_from_files_needs_all_four_inputs(drawn):
    p = qk("estimate", "--runs", drawn["fwd"], "--labels", drawn["judge"], check=False)
    assert p.returncode == 2
    assert "missing: --people QRELS, --sample TSV" in p.stderr


def test_qrelkit_estimate_returns_a_dataframe_with_the_json_in_attrs(drawn):
    df = qrelkit.estimate([str(drawn["fwd"]), str(drawn["bwd"])], str(drawn["judge"]), str(drawn["people"]),
                          str(drawn["sample"]), measures=["P@10"])
    assert list(df.columns) == ["run", "measure", "estimate", "low", "high", "labels_only", "people_only",
                                "people_low", "people_high"]
    assert sorted(df["run"]) == ["bwd", "fwd"]
    assert (df["low"] <= df["high"]).all()
    assert set(df.attrs["tied"]) == {"P@10"}
    assert callable(qrelkit.estimate) and qrelkit.estimate.draw_sample is not None  # a function and a package


# ---- in a workspace --------------------------------------------------------------------------------------------

JUDGE = "zero-shot"


def sampled_workspace(tmp_path: Path, label_all: bool = True) -> Path:
    """The demo with a 40% probability sample of its holes as the people's share, a judge's labels on every
    hole (the full qrels with every third grade raised, stored as the judge would store them) and people's
    labels (the full qrels) on the sample, stored as the annotation app decides them."""
    d = demo_paths()
    ws = tmp_path / "ws"
    qk("init", "-w", ws, "--topics", d.topics, "--docs", d.docs, "--qrels", d.qrels, "--runs", *d.runs)
    qk("pool", "-w", ws, "--people", "sample(size=40%, seed=1)")
    full = {(q, doc): int(g) for q, _, doc, g in (line.split() for line in Path(d.full_qrels).read_text().splitlines())}
    with Store.open(ws) as s:
        holes = [c for c in s.cases() if not c.judged]
        s.put_judgments([Judgment(c.qid, c.docid, JUDGE, "fake", None, min(3, full[c.qid, c.docid] + (i % 3 == 0)),
                                  "auto") for i, c in enumerate(holes)])
        waiting = s.sample_waiting()
        for q, doc in waiting if label_all else waiting[:1]:
            s.record_decision(q, doc, int(full[q, doc] >= 2), full[q, doc], "", "{}", 0.0)
    return ws


def test_estimate_in_a_workspace_reads_the_stored_labels_and_sample(tmp_path):
    ws = sampled_workspace(tmp_path)
    out = json.loads(qk("estimate", "-w", ws, "--json").stdout)
    assert {r["run"] for r in out["runs"]} == {"bm25", "bm25-noisy", "dense", "monot5", "rankllm", "splade"}
    assert (out["sample"]["size"], out["sample"]["labelled"], out["sample"]["census"]) == (18, 18, 143)
    old = [r for r in out["runs"] if r["run"] in ("bm25", "dense", "bm25-noisy") and r["measure"] == "P@10"]
    assert all(r["low"] == pytest.approx(r["high"]) for r in old)  # their top 10s are all in the census
    assert out == json.loads(qk("estimate", "-w", ws, "--labels", JUDGE, "--json").stdout)


def test_a_workspace_whose_pool_changed_since_the_draw_is_refused(tmp_path):
    ws = sampled_workspace(tmp_path)
    with Store.open(ws) as s:
        case = s.cases()[0]
        s.remove_cases_except({(c.qid, c.docid) for c in s.cases()} - {(case.qid, case.docid)})
    p = qk("estimate", "-w", ws, check=False)
    assert p.returncode == 2
    assert "its inclusion probabilities no longer match the pool" in p.stderr


@pytest.mark.parametrize("args, message", [
    (("--labels", "debate"), "no labels of judge debate to estimate from; judged methods: zero-shot"),
    (("--sample", "x.tsv"), "with -w the runs, people's labels and sample are the workspace's; drop --sample"),
])
def test_workspace_refusals_exit_2(tmp_path, args, message):
    ws = sampled_workspace(tmp_path)
    p = qk("estimate", "-w", ws, *args, check=False)
    assert p.returncode == 2
    assert message in p.stderr


def test_a_workspace_without_a_sample_says_how_to_draw_one(tmp_path):
    d = demo_paths()
    ws = tmp_path / "ws"
    qk("init", "-w", ws, "--topics", d.topics, "--docs", d.docs, "--qrels", d.qrels, "--runs", *d.runs)
    qk("pool", "-w", ws)
    p = qk("estimate", "-w", ws, check=False)
    assert p.returncode == 2
    assert f"qrelkit sample -w {ws} --size 10%" in p.stderr


def test_the_report_has_an_estimates_section_and_its_json_twin(tmp_path):
    ws = sampled_workspace(tmp_path)
    out = tmp_path / "r.html"
    qk("report", "-w", ws, "--out", out)
    section = json.loads((tmp_path / "report.json").read_text())["estimates"]
    assert section["available"] is True
    assert {r["run"] for r in section["runs"]} == {"bm25", "bm25-noisy", "dense", "monot5", "rankllm", "splade"}
    assert set(section["tied"]) == {"P@10", "nDCG@10"}
    html = out.read_text()
    assert 'id="estimates"' in html
    assert html.count('alt="forest plot of') == 2
    assert 'id="estimates-tied"' in html and 'id="estimates-calibration"' in html


def test_the_report_repeats_the_estimates_warnings(tmp_path):
    ws = sampled_workspace(tmp_path)
    qk("report", "-w", ws, "--out", tmp_path / "r.html")
    section = json.loads((tmp_path / "report.json").read_text())["estimates"]
    assert len(section["warnings"]) == 1
    assert (tmp_path / "r.html").read_text().count('class="warn estimates-warning"') == 1


def test_the_report_says_why_there_are_no_estimates_yet(tmp_path):
    ws = sampled_workspace(tmp_path, label_all=False)
    qk("report", "-w", ws, "--out", tmp_path / "r.html")
    section = json.loads((tmp_path / "report.json").read_text())["estimates"]
    assert section["available"] is False
    assert "too few people's labels" in section["reason"]
    assert len(section["unlabelled"]) == 17
    assert "No estimates yet" in (tmp_path / "r.html").read_text()


def test_a_report_without_a_sample_has_no_estimates_section(tmp_path):
    d = demo_paths()
    ws = tmp_path / "ws"
    qk("init", "-w", ws, "--topics", d.topics, "--docs", d.docs, "--qrels", d.qrels, "--runs", *d.runs)
    qk("pool", "-w", ws)
    qk("report", "-w", ws, "--out", tmp_path / "r.html")
    assert "estimates" not in json.loads((tmp_path / "report.json").read_text())


# ---- fill with a sample(...) people's share, on a scripted model over real HTTP --------------------------------

def test_fill_with_a_sample_waits_for_people_then_ends_with_estimates(tmp_path):
    """The judge labels every hole, the sample's too (the correction compares the two on them); the job waits
    while sampled pairs lack people's labels, and ends with estimates once people have labelled them."""
    d = tmp_path / "c"
    d.mkdir()
    keyword = {0: "agree0", 1: "agree2", 2: "agree3"}
    (d / "topics.jsonl").write_text("".join(json.dumps({"qid": q, "text": f"topic {q}"}) + "\n" for q in TOPICS))
    (d / "docs.jsonl").write_text("".join(json.dumps({"docid": f"d{i}", "text": f"passage {keyword[i % 3]} {i}"}) + "\n"
                                          for i in range(1, 13)))
    (d / "qrels.txt").write_text("".join(f"{q} 0 d1 2\n" for q in TOPICS))
    (d / "run.txt").write_text("".join(f"{q} Q0 d{i} {i} {20 - i} sys\n" for q in TOPICS for i in range(1, 13)))
    (d / "run2.txt").write_text("".join(f"{q} Q0 d{13 - i} {i} {20 - i} other\n" for q in TOPICS for i in range(1, 13)))
    ws = tmp_path / "ws"
    with serve("judges.fake_openai", tmp_path / "log") as url:
        first = json.loads(qk("fill", "-w", ws, "--topics", d / "topics.jsonl", "--docs", d / "docs.jsonl", "--qrels",
                              d / "qrels.txt", "--runs", d / "run.txt", d / "run2.txt", "--depth", "12", "--method",
                              "zero-shot", "--model", f"openai:fake@{url}", "--people",
                              "sample(size=50%, design=uniform, seed=2)", "--json").stdout)
        assert first["state"] == "waiting"
        status = json.loads(qk("status", "-w", ws, "--json").stdout)
        assert status["sample"]["waiting"] == 17  # half of the 33 holes
        with Store.open(ws) as s:
            judged = {(j.qid, j.docid) for j in s.judgments() if j.source != "human"}
            waiting = s.sample_waiting()
            assert set(waiting) <= judged
            for q, doc in waiting:
                grade = (int(doc[1:]) % 3) * (1 + (doc == "d5"))  # people disagree with the judge on d5
                s.record_decision(q, doc, int(grade >= 2), min(grade, 3), "", "{}", 0.0)
        done = json.loads(qk("fill", "-w", ws, "--json").stdout)
    assert done["state"] == "done"
    estimates = done["evaluation"]["estimates"]
    assert estimates["available"] is True
    assert {r["run"] for r in estimates["runs"]} == {"sys", "other"}
    assert "estimates with 95% intervals for 2 runs from 17 people's labels" in done["message"]
    assert json.loads((ws / "report.json").read_text())["estimates"]["runs"] == estimates["runs"]


def test_fill_takes_no_other_peoples_share_than_a_sample(tmp_path):
    d = demo_paths()
    p = qk("fill", "-w", tmp_path / "ws", "--topics", d.topics, "--docs", d.docs, "--qrels", d.qrels, "--runs",
           *d.runs, "--people", "depth(k_human=3)", check=False)
    assert p.returncode == 2
    assert "the one people's share it takes is a probability sample" in p.stderr


# ---- TREC DL 2019 -------------------------------------------------------------------------------------------

def test_dl2019_estimates_from_926_nist_labels_are_narrower_than_people_alone(shared_data, tmp_path):
    root = shared_data("trec-dl-2019")
    runs, llm = root / "runs" / "official", root / "llm-qrels" / "farzi_dl19_4prompts_llama3.3-70b.qrel"
    sample = tmp_path / "dl.tsv"
    qk("sample", "--runs", runs, "--labels", llm, "--size", "926", "--seed", "5", "--out", sample)
    out = json.loads(qk("estimate", "--runs", runs, "--labels", llm, "--people", root / "qrels.txt", "--sample", sample,
                        "--measures", "P@10,nDCG@10", "--json").stdout)
    assert len(out["runs"]) == 2 * 37
    assert len(out["differences"]) == 2 * 37 * 36 // 2
    assert out["sample"]["labelled"] == 926
    for measure in ("P@10", "nDCG@10"):
        rows = [r for r in out["runs"] if r["measure"] == measure]
        width = sum(r["high"] - r["low"] for r in rows) / len(rows)
        people = sum(r["people_only"]["high"] - r["people_only"]["low"] for r in rows) / len(rows)
        assert width < people  # the judge's labels pay for themselves
    scores = qrelkit.score(qrelkit.read_runs([str(runs)], max_depth=10), str(llm), measures=["P@10"])
    for r in out["runs"]:
        if r["measure"] == "P@10":
            assert r["labels_only"] == pytest.approx(scores.loc[r["run"], "P@10"])
