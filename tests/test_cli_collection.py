"""The collection commands end to end on the bundled demo collection."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from qrelkit.cli import expand_variadic
from qrelkit.demo import demo_paths
from qrelkit.store import Store


def qk(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True, timeout=300)
    if check and p.returncode != 0:
        raise AssertionError(f"qrelkit {' '.join(map(str, args))} exited {p.returncode}:\n{p.stderr}")
    return p


@pytest.fixture(scope="module")
def demo_ws(tmp_path_factory):
    d = demo_paths()
    ws = tmp_path_factory.mktemp("ws")
    out = json.loads(qk("init", "-w", ws, "--topics", d.topics, "--docs", d.docs, "--qrels", d.qrels,
                        "--runs", *d.runs, "--json").stdout)
    assert out == {"workspace": str(ws), "topics": 6, "docs": 150, "qrels": 143, "runs": 6,
                   "duplicates": {"topics": 0, "docs": 0, "qrels": 0}}
    return ws


def test_expand_variadic():
    assert expand_variadic(["holes", "--runs", "a", "b", "--qrels", "q", "--depth", "5"]) == [
        "holes", "--runs", "a", "--runs", "b", "--qrels", "q", "--depth", "5"]
    assert expand_variadic(["x", "--depth", "5", "y"]) == ["x", "--depth", "5", "y"]


def test_pool_is_idempotent_and_splits(demo_ws):
    first = json.loads(qk("pool", "-w", demo_ws, "--depth", "10", "--human-depth", "3", "--json").stdout)
    # Independent count from the files: union of each run's top-10, minus labelled pairs.
    d = demo_paths()
    judged = {tuple(line.split()[0::2][:2]) for line in d.qrels.read_text().splitlines()}
    pooled, people = set(), set()
    for path in d.runs:
        by_topic: dict[str, list] = {}
        for line in path.read_text().split("\n"):
            if line.strip():
                q, _, doc, _, score, _ = line.split()
                by_topic.setdefault(q, []).append((-float(score), [-ord(c) for c in doc], doc))
        for q, items in by_topic.items():
            for rank, (_, _, doc) in enumerate(sorted(items), 1):
                if rank <= 10:
                    pooled.add((q, doc))
                if rank <= 3:
                    people.add((q, doc))
    holes = pooled - judged
    assert first["pooled"] == len(pooled) and first["holes"] == len(holes) > 0
    assert first["people"] == len(holes & people) and first["llm"] == len(holes - people)
    again = json.loads(qk("pool", "-w", demo_ws, "--depth", "10", "--human-depth", "3", "--json").stdout)
    assert again["changed"] == 0 and again["unchanged"] == first["pooled"]
    with Store.open(demo_ws) as s:
        assert {(c.qid, c.docid) for c in s.cases(judged=False)} == holes


def test_holes_on_files_and_workspace_agree(demo_ws):
    d = demo_paths()
    files = json.loads(qk("holes", "--runs", *d.runs, "--qrels", d.qrels, "--json").stdout)
    ws = json.loads(qk("holes", "-w", demo_ws, "--json").stdout)
    assert files == ws
    assert files["runs"]["bm25"]["Judged@10"] == 1.0
    assert files["runs"]["monot5"]["Unjudged@10"] > 0.2
    assert "Hole@10" not in files["runs"]["monot5"]  # no new labels yet: only Unjudged@10
    assert "--new-qrels" in files["note"]


def test_export_writes_qrels_and_provenance(demo_ws, tmp_path):
    out = tmp_path / "merged.qrels"
    res = json.loads(qk("export", "-w", demo_ws, "--out", out, "--json").stdout)
    assert res["original"] == 143 and res["llm"] == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 143
    prov = [json.loads(x) for x in (tmp_path / "merged.qrels.provenance.jsonl").read_text().splitlines()]
    assert {p["source"] for p in prov} == {"original"}
    assert [f"{p['qid']} 0 {p['docid']} {p['grade']}" for p in prov] == lines


def test_status_json(demo_ws):
    st = json.loads(qk("status", "-w", demo_ws, "--json").stdout)
    assert st["topics"] == 6 and st["runs"] == 6 and st["cases"]["holes"] > 0


@pytest.mark.parametrize("content, expect", [
    ("1 0 d1 2\n1 0 d2 x\n", "qrels.txt:2:"),
    ("1 0 d1\n", "qrels.txt:1:"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, content, expect):
    d = demo_paths()
    bad = tmp_path / "qrels.txt"
    bad.write_text(content)
    p = qk("init", "-w", tmp_path / "ws", "--topics", d.topics, "--docs", d.docs, "--qrels", bad, check=False)
    assert p.returncode == 2
    assert expect in p.stderr and "Traceback" not in p.stderr
    assert len([x for x in p.stderr.splitlines() if x.strip()]) <= 2


def test_missing_workspace_and_missing_option(tmp_path):
    p = qk("pool", "-w", tmp_path / "none", check=False)
    assert p.returncode == 2 and "not a qrelkit workspace" in p.stderr and "Traceback" not in p.stderr
    p = qk("holes", "--depth", "5", check=False)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    p = qk("init", "-w", tmp_path / "x", check=False)
    assert p.returncode == 2 and "--topics" in p.stderr


def test_holes_new_relevant_and_saturation():
    d = demo_paths()
    res = json.loads(qk("holes", "--runs", *d.runs, "--qrels", d.qrels, "--new-qrels", d.full_qrels,
                        "--saturation", "--orders", "3", "--json").stdout)
    partial = {tuple(x.split()[0::2][:2]) for x in d.qrels.read_text().splitlines()}
    full = {}
    for x in d.full_qrels.read_text().splitlines():
        q, _, doc, g = x.split()
        full[(q, doc)] = int(g)
    # independent Hole@10 (BRIDGE) for monot5: newly found relevant docs in its top-10, averaged over topics
    by_topic: dict[str, list] = {}
    for line in (d.runs[3]).read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        by_topic.setdefault(q, []).append((-float(score), doc))
    fracs = []
    for q, items in by_topic.items():
        top = [doc for _, doc in sorted(items, key=lambda t: (t[0], [-ord(c) for c in t[1]]))[:10]]
        fracs.append(sum(1 for doc in top if (q, doc) not in partial and full.get((q, doc), 0) >= 2) / 10)
    assert d.runs[3].stem == "monot5"
    assert res["runs"]["monot5"]["Hole@10"] == pytest.approx(sum(fracs) / len(fracs))
    assert res["runs"]["bm25"]["Hole@10"] == 0
    assert res["saturation"]["orders"] == 3 and len(res["saturation"]["growth"]) == 6


def test_pool_exports_the_case_list(demo_ws, tmp_path):
    from qrelkit.data.cases import read_cases

    out = tmp_path / "cases.jsonl"
    res = json.loads(qk("pool", "-w", demo_ws, "--human-depth", "3", "--out", out, "--json").stdout)
    cases = list(read_cases(out))
    assert res["cases_file"] == str(out) and len(cases) == res["pooled"]
    with Store.open(demo_ws) as s:
        assert cases == s.cases()
    tsv = tmp_path / "cases.tsv"
    qk("pool", "-w", demo_ws, "--human-depth", "3", "--out", tsv)
    assert list(read_cases(tsv)) == cases
