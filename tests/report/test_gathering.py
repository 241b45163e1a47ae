"""What the report reads lean from a workspace equals what it read whole before."""

from __future__ import annotations

from qrelkit.data import read_run
from qrelkit.demo import demo_paths
from qrelkit.merge import merge
from qrelkit.report.gathering import MergedTally, full_rankings, workspace_runs
from qrelkit.store import Store
from qrelkit.types import Judgment
from qrelkit.workspace import load_collection


def loaded(ws):
    d = demo_paths()
    store = Store.create(ws)
    load_collection(store, str(d.topics), str(d.docs), str(d.qrels), [str(p) for p in d.runs])
    return store


def judged(store):
    """Every other pooled-looking pair of the first topic gets an LLM label."""
    qid = sorted(store.topics())[0]
    runs = store.runs()
    top = read_run(runs[0].path).by_topic[qid][:6]
    store.put_judgments([
        Judgment(qid, e.docid, "zeroshot", "scripted", i % 2, 2 * (i % 2), "auto", "llm", 0, "why", (), "{}")
        for i, e in enumerate(top)
    ])


def test_runs_cut_at_depth_list_the_same_docids_as_the_careful_reader(tmp_path):
    with loaded(tmp_path / "ws") as store:
        rows = store.runs()
        lean = workspace_runs(rows, 5, [])
        for run, (name, path, _) in zip(lean, rows):
            full = read_run(path)
            assert run.name == name
            assert {q: [e.docid for e in es] for q, es in run.by_topic.items()} == {
                q: [e.docid for e in es[:5]] for q, es in full.by_topic.items()
            }


def test_full_rankings_keep_the_stored_names_and_every_entry(tmp_path):
    with loaded(tmp_path / "ws") as store:
        rows = store.runs()
        for ranking, (name, path, _) in zip(full_rankings(workspace_runs(rows, 1, [])), rows):
            assert ranking.name == name
            assert sum(len(d) for d in ranking.docids.values()) == sum(len(es) for es in read_run(path).by_topic.values())


def test_the_tally_counts_what_the_merge_counts(tmp_path):
    with loaded(tmp_path / "ws") as store:
        judged(store)
        result = merge(store)
        tally = MergedTally.from_store(store)
    assert tally.counts() == result.counts()
    assert tally.grades == {(m.qid, m.docid): m.grade for m in result.labels}
    assert tally == MergedTally.from_result(result)


def test_a_workspace_without_judgments_has_no_tally(tmp_path):
    with loaded(tmp_path / "ws") as store:
        assert MergedTally.from_store(store) is None


def test_lean_labels_keep_what_agreement_reads(tmp_path):
    with loaded(tmp_path / "ws") as store:
        judged(store)
        whole = store.judgments()
        lean = store.judgment_labels()
    fields = ("qid", "docid", "method", "model", "label", "grade", "status", "source", "round")
    assert [tuple(getattr(j, f) for f in fields) for j in lean] == [tuple(getattr(j, f) for f in fields) for j in whole]
