"""The bundled demo collection is consistent and has the holes it promises."""
from __future__ import annotations

from collections import Counter

from qrelkit.data import load_qrels, load_topics, read_docs, read_runs
from qrelkit.demo import NEW_RUNS, OLD_RUNS, demo_paths
from qrelkit.evaluate.holes import holes_report
from qrelkit.pooling.pool import build_pool, holes


def test_demo_files_load_and_agree():
    p = demo_paths()
    topics = load_topics(p.topics)
    assert list(topics) == ["q1", "q2", "q3", "q4", "q5", "q6"]
    assert all(t.answers and t.narrative for t in topics.values())
    docs = {d.docid: d for d in read_docs(p.docs)}
    assert len(docs) == 150
    assert all(d.title and 0 < len(d.text) < 400 for d in docs.values())
    hostile = [d for d in docs.values() if "<script>alert(1)</script>" in d.text]
    assert len(hostile) == 1
    runs = read_runs([str(x) for x in p.runs])
    assert [r.name for r in runs] == list(OLD_RUNS + NEW_RUNS)
    # files sort as "bm25-noisy.run" < "bm25.run"
    assert [r.name for r in read_runs(p.runs_glob)] == ["bm25-noisy", "bm25", "dense", "monot5", "rankllm",
                                                        "splade"]
    for run in runs:
        assert set(run.by_topic) == set(topics)
        assert all(len(entries) == 25 for entries in run.by_topic.values())
        assert all(e.docid in docs for entries in run.by_topic.values() for e in entries)


def test_demo_qrels_are_the_pools_and_leave_relevant_holes():
    p = demo_paths()
    partial, full = load_qrels(p.qrels), load_qrels(p.full_qrels)
    assert partial.duplicates == 0 and full.duplicates == 0
    # partial labels are a subset of the full ones, with the same grades
    assert all(full.get(pair) == grade for pair, grade in partial.items())
    runs = read_runs([str(x) for x in p.runs])
    old = [r for r in runs if r.name in OLD_RUNS]
    assert {(c.qid, c.docid) for c in build_pool(old, 10).cases} == set(partial.pairs)
    pool = build_pool(runs, depth=10, human_depth=3, qrels=partial)
    assert {(c.qid, c.docid) for c in pool.cases} == set(full.pairs)
    assert len(pool.cases) == 187 and len(partial) == 143
    gaps = holes(pool)
    assert len(gaps) == 44
    assert all(set(c.runs) <= set(NEW_RUNS) for c in gaps)
    grades = Counter(full[c.qid, c.docid] for c in gaps)
    assert grades == Counter({0: 18, 1: 11, 2: 9, 3: 6})
    assert Counter(c.share for c in gaps) == Counter({"llm": 30, "people": 14})
    assert {c.qid for c in gaps if full[c.qid, c.docid] >= 2} == {"q1", "q2", "q3", "q4", "q5", "q6"}
    docs = {d.docid: d for d in read_docs(p.docs)}
    hostile = next(d.docid for d in docs.values() if "<script>" in d.text)
    assert ("q6", hostile) in {(c.qid, c.docid) for c in gaps} and full["q6", hostile] == 0
    report = holes_report(runs, partial, 10)
    assert report["pooled"] == 187 and report["holes"] == 44 and report["topics"] == 6
    assert all(report["runs"][name]["Judged@10"] == 1.0 for name in OLD_RUNS)
    assert all(report["runs"][name]["Judged@10"] < 0.7 for name in NEW_RUNS)
