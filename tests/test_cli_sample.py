"""`qrelkit sample` through the real command: from files (TSV, header, probabilities, census) and from a
workspace (the people's share it becomes, the stored draw, `status`), with the refusals that exit 2."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from qrelkit.demo import demo_paths
from qrelkit.estimate import read_sample
from qrelkit.store import Store

TOPICS, DOCS = ("q1", "q2", "q3"), 12


def qk(*args, check: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True, timeout=300)
    if check and p.returncode != 0:
        raise AssertionError(f"qrelkit {' '.join(map(str, args))} exited {p.returncode}:\n{p.stderr[-3000:]}")
    return p


def write_files(d: Path) -> dict[str, Path]:
    """Two runs over three topics of twelve documents (a forward and a backward ranking, each ten deep,
    so d11 and d12 are in one run's top 10 only) and a judge's labels on the first eight of each topic."""
    d.mkdir(exist_ok=True)
    fwd = "".join(f"{q} Q0 d{i} {i} {20 - i} fwd\n" for q in TOPICS for i in range(1, 11))
    bwd = "".join(f"{q} Q0 d{13 - i} {i} {20 - i} bwd\n" for q in TOPICS for i in range(1, 11))
    judge = "".join(f"{q} 0 d{i} {(i + n) % 4}\n" for n, q in enumerate(TOPICS) for i in range(1, 9))
    people = "".join(f"{q} 0 d{i} {(i * (n + 2)) % 4}\n" for n, q in enumerate(TOPICS) for i in range(1, DOCS + 1))
    paths = {"fwd": d / "fwd.run", "bwd": d / "bwd.run", "judge": d / "judge.qrels", "people": d / "people.qrels"}
    for key, text in zip(paths, (fwd, bwd, judge, people)):
        paths[key].write_text(text)
    return paths


@pytest.fixture
def files(tmp_path):
    return write_files(tmp_path / "in")


def test_a_sample_from_files_is_a_tsv_with_its_header_and_each_pair_once(files, tmp_path):
    out = tmp_path / "s.tsv"
    summary = json.loads(qk("sample", "--runs", files["fwd"], files["bwd"], "--labels", files["judge"], "--depth", "10",
                            "--size", "50%", "--seed", "4", "--out", out, "--json").stdout)
    lines = out.read_text().splitlines()
    assert lines[0] == "# qrelkit sample: design=weighted seed=4 depth=10"
    assert lines[1] == "qid\tdocid\tprobability"
    rows = [line.split("\t") for line in lines[2:]]
    assert len(rows) == summary["sampled"] == 18  # half of the 36 pairs
    assert len({(q, d) for q, d, _ in rows}) == 18
    assert summary["universe"] == 36  # 3 topics x d1..d12: the labelled d1..d8 and both runs' top 10
    assert all(0 < float(p) <= 1 for _, _, p in rows)


def test_the_probabilities_add_up_to_each_topics_pairs(files, tmp_path):
    """Horvitz-Thompson: the sum of 1/probability over a topic's sampled pairs is the topic's pair count."""
    out = tmp_path / "s.tsv"
    qk("sample", "--runs", files["fwd"], files["bwd"], "--labels", files["judge"], "--size", "15", "--out", out)
    drawn = read_sample(out)
    for q in TOPICS:
        assert sum(1 / p.probability for p in drawn.pairs if p.qid == q) == pytest.approx(DOCS)


def test_the_same_seed_draws_the_same_sample_and_another_seed_another(files, tmp_path):
    args = ("sample", "--runs", files["fwd"], files["bwd"], "--labels", files["judge"], "--size", "9", "--design",
            "uniform")
    first, again, other = (qk(*args, "--seed", s).stdout for s in (1, 1, 2))
    assert first == again
    assert first != other


def test_without_out_the_tsv_goes_to_stdout_and_the_summary_to_stderr(files):
    p = qk("sample", "--runs", files["fwd"], "--labels", files["judge"], "--size", "6")
    assert p.stdout.splitlines()[1] == "qid\tdocid\tprobability"
    assert "sampled 6 of" in p.stderr


def test_the_census_is_a_stratum_of_probability_one_not_sample_members(files, tmp_path):
    out = tmp_path / "s.tsv"
    summary = json.loads(qk("sample", "--runs", files["fwd"], files["bwd"], "--labels", files["judge"], "--size", "6",
                            "--human-depth", "2", "--out", out, "--json").stdout)
    drawn = read_sample(out)
    top2 = {(q, d) for q in TOPICS for d in ("d1", "d2", "d12", "d11")}  # each run's top 2
    assert drawn.census == top2
    assert summary["census"] == 12
    assert not drawn.pair_set() & top2
    assert "# census" in out.read_text()


@pytest.mark.parametrize("args, message", [
    (("--size", "5x"), "--size: expected a count N or a percentage P%"),
    (("--size", "150%"), "at most 100%"),
    (("--size", "0"), "at least one pair"),
    (("--size", "5", "--design", "best"), "--design 'best': choose from uniform, weighted, defensive, active"),
    (("--size", "5", "--design", "active"), "--design active weights pairs by the judge's uncertainty"),
    (("--size", "1000"), "--size 1000 is more than the 36 pairs to draw from"),
    (("--size", "2"), "smaller than the 3 topics"),
])
def test_bad_requests_exit_2_with_one_line_saying_why(files, args, message):
    p = qk("sample", "--runs", files["fwd"], files["bwd"], "--labels", files["judge"], *args, check=False)
    assert p.returncode == 2
    assert message in p.stderr
    assert "Traceback" not in p.stderr


def test_a_sample_needs_the_judges_labels_or_a_workspace(files):
    p = qk("sample", "--runs", files["fwd"], "--size", "5", check=False)
    assert p.returncode == 2
    assert "pass --labels QRELS" in p.stderr


def test_a_malformed_labels_file_is_named_with_its_line(files, tmp_path):
    bad = tmp_path / "bad.qrels"
    bad.write_text("q1 0 d1 2\nq1 0 d2\n")
    p = qk("sample", "--runs", files["fwd"], "--labels", bad, "--size", "5", check=False)
    assert p.returncode == 2
    assert f"{bad}:2" in p.stderr


# ---- in a workspace --------------------------------------------------------------------------------------------

@pytest.fixture
def demo_ws(tmp_path):
    d = demo_paths()
    ws = tmp_path / "ws"
    qk("init", "-w", ws, "--topics", d.topics, "--docs", d.docs, "--qrels", d.qrels, "--runs", *d.runs)
    return ws


def test_a_people_share_by_sample_stores_the_draw_and_serves_it_to_people(demo_ws):
    pool = json.loads(qk("pool", "-w", demo_ws, "--people", "sample(size=40%, seed=1)", "--json").stdout)
    assert pool["allocation"] == "sample(census=0,design=weighted,seed=1,size=40%)"
    assert pool["people"] == 18  # 40% of the demo's 44 holes (the 143 labelled pairs are a census)
    with Store.open(demo_ws) as s:
        rows = s.people_sample()
        people = {(c.qid, c.docid) for c in s.cases(share="people", judged=False)}
        waiting = s.waiting_for_people().people_share
    sampled = {(r.qid, r.docid) for r in rows if not r.census}
    assert sampled == people == waiting
    assert sum(r.census for r in rows) == 143
    status = json.loads(qk("status", "-w", demo_ws, "--json").stdout)
    assert status["sample"] == {"spec": pool["allocation"], "design": "weighted", "pairs": 18, "census": 143,
                                "labelled": 0, "waiting": 18}


def test_status_counts_the_sampled_pairs_people_have_labelled(demo_ws):
    qk("pool", "-w", demo_ws, "--people", "sample(size=40%, seed=1)")
    with Store.open(demo_ws) as s:
        first, second = s.sample_waiting()[:2]
        for q, d in (first, second):
            s.record_decision(q, d, 1, 2, "", "{}", 0.0)
    status = json.loads(qk("status", "-w", demo_ws, "--json").stdout)
    assert (status["sample"]["labelled"], status["sample"]["waiting"]) == (2, 16)
    text = qk("status", "-w", demo_ws).stderr
    assert "sample.waiting" in text


def test_sample_in_a_workspace_draws_from_its_pool_and_makes_the_draw_the_peoples_share(demo_ws, tmp_path):
    qk("pool", "-w", demo_ws, "--human-depth", "3")
    out = tmp_path / "ws.tsv"
    summary = json.loads(qk("sample", "-w", demo_ws, "--size", "10", "--design", "uniform", "--seed", "2", "--out", out,
                            "--json").stdout)
    assert summary["people"] == "sample(census=3,design=uniform,seed=2,size=10)"  # the pool's top-3 census kept
    assert summary["universe"] == 187
    drawn = read_sample(out)
    with Store.open(demo_ws) as s:
        stored = {(r.qid, r.docid): r.probability for r in s.people_sample() if not r.census}
        shares = {(c.qid, c.docid): c.share for c in s.cases()}
        top3 = {(c.qid, c.docid) for c in s.cases() if c.best_rank <= 3}
    assert stored == {(p.qid, p.docid): p.probability for p in drawn.pairs}
    assert all(shares[p] == "people" for p in stored)
    assert top3 <= drawn.census
    assert sum(share == "people" for share in shares.values()) == len(stored) + len(drawn.census)


def test_repooling_the_same_pool_keeps_the_sample_and_serves_it_to_people(demo_ws):
    """A job that re-pools by its own people's share (`fill` after `qrelkit sample -w`) keeps the draw: the
    pool is the one it was drawn from, so its probabilities hold."""
    qk("pool", "-w", demo_ws, "--human-depth", "0")
    qk("sample", "-w", demo_ws, "--size", "40%")
    qk("pool", "-w", demo_ws, "--human-depth", "0")
    status = json.loads(qk("status", "-w", demo_ws, "--json").stdout)
    assert status["sample"]["pairs"] == 18
    assert status["cases"]["people_share"] == 18  # served to people again


def test_repooling_into_another_pool_drops_the_stored_sample(demo_ws):
    qk("pool", "-w", demo_ws, "--people", "sample(size=40%)")
    qk("pool", "-w", demo_ws, "--depth", "5", "--human-depth", "3")
    assert json.loads(qk("status", "-w", demo_ws, "--json").stdout)["sample"] is None


def test_a_sample_from_a_workspace_without_a_pool_is_refused(demo_ws):
    p = qk("sample", "-w", demo_ws, "--size", "10", check=False)
    assert p.returncode == 2
    assert "has no pool yet" in p.stderr


def test_the_active_design_cannot_be_a_pools_share_before_anything_is_judged(demo_ws):
    p = qk("pool", "-w", demo_ws, "--people", "sample(design=active)", check=False)
    assert p.returncode == 2
    assert "needs labels that carry a probability" in p.stderr


def test_a_dl2019_sample_of_926_pairs_from_the_official_runs(shared_data, tmp_path):
    root = shared_data("trec-dl-2019")
    out = tmp_path / "dl.tsv"
    summary = json.loads(qk("sample", "--runs", root / "runs" / "official", "--labels",
                            root / "llm-qrels" / "farzi_dl19_4prompts_llama3.3-70b.qrel", "--size", "926",
                            "--out", out, "--json").stdout)
    drawn = read_sample(out)
    assert summary["universe"] == 9261  # the 9,260 labelled pairs and one unlabelled in an official top 10
    assert len(drawn.pairs) == 926
    assert len({p.qid for p in drawn.pairs}) == 43  # every topic gets people's labels
    weights = sorted({p.probability for p in drawn.pairs})
    assert weights[-1] > 2 * weights[0]  # weighted: pairs many runs rank high are likelier


def test_the_active_design_reads_the_probabilities_the_judges_stored(demo_ws):
    """learned and confidence store P(relevant); likelihood a score against its threshold (read through a
    logistic); a judge without either gives the active design nothing, and the draw is refused."""
    import json as _json

    from qrelkit.pooling.people_sample import judge_probabilities
    from qrelkit.types import Judgment

    qk("pool", "-w", demo_ws, "--human-depth", "0")
    with Store.open(demo_ws) as s:
        holes = sorted((c.qid, c.docid) for c in s.cases() if not c.judged)
        provenance = [{"learned": {"probability": 0.25}}, {"confidence": {"probability": 0.75}},
                      {"likelihood": {"score": -1.0, "threshold": -1.0}}]
        s.put_judgments([Judgment(q, d, "learned", "local", 1, 2, "auto", provenance=_json.dumps(provenance[i % 3]))
                         for i, (q, d) in enumerate(holes)])
        s.put_judgments([Judgment(q, d, "zero-shot", "local", 1, 2, "auto") for q, d in holes])
        read = judge_probabilities(s, "learned")
        assert [read[p] for p in holes[:3]] == [0.25, 0.75, 0.5]
        assert judge_probabilities(s, "zero-shot") == {}
    refused = qk("sample", "-w", demo_ws, "--size", "12", "--design", "active", "--method", "zero-shot", check=False)
    assert refused.returncode == 2
    assert "needs labels that carry a probability" in refused.stderr
    summary = _json.loads(qk("sample", "-w", demo_ws, "--size", "12", "--design", "active", "--method", "learned",
                             "--json").stdout)
    assert summary["people"] == "sample(census=0,design=active,seed=0,size=12)"
    with Store.open(demo_ws) as s:
        assert s.people_sample_design()["design"] == "active"
