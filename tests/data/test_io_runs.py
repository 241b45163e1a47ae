from __future__ import annotations

import pytest

from qrelkit.data import Run, expand_paths, read_run, read_runs, trec_eval_order, write_run
from qrelkit.errors import InputError
from qrelkit.types import RunEntry

TIES = (
    "q1 Q0 a 1 1.0 sys\n"
    "q1 Q0 c 2 2.0 sys\n"
    "q1 Q0 b 3 1.0 sys\n"
    "q1 Q0 d 4 1.0 sys\n"
    "q2 0 10 1 5 sys\n"
    "q2 0 9 2 5 sys\n"
    "q2 0 x 3 -1e3 sys\n"
)


def order(run: Run, qid: str) -> list[str]:
    return [e.docid for e in run.by_topic[qid]]


def test_trec_eval_order_score_desc_then_docid_desc(write):
    run = read_run(write("ties.run", TIES))
    assert order(run, "q1") == ["c", "d", "b", "a"]
    assert [e.rank for e in run.by_topic["q1"]] == [1, 2, 3, 4]
    assert [e.file_rank for e in run.by_topic["q1"]] == [2, 4, 3, 1]
    # plain string comparison: "9" > "10"
    assert order(run, "q2") == ["9", "10", "x"]
    assert run.by_topic["q2"][2] == RunEntry("q2", "x", 3, -1000.0, 3)


def test_order_agrees_with_trec_eval_itself():
    """pytrec_eval embeds trec_eval; P@1 reveals which tied document it puts first."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    for docs in (("a", "b"), ("10", "9"), ("b", "c"), ("D20", "D3")):
        entries = [RunEntry("q", d, 0, 1.0) for d in docs]
        first = trec_eval_order(entries)[0].docid
        ev = pytrec_eval.RelevanceEvaluator({"q": {first: 1}}, {"P_1"})
        assert ev.evaluate({"q": {d: 1.0 for d in docs}})["q"]["P_1"] == 1.0


def test_topics_keep_file_order_and_gzip(write):
    run = read_run(write("r.run.gz", "q9 Q0 a 1 1 t\nq1 Q0 a 1 1 t\n"))
    assert run.qids == ("q9", "q1")
    assert run.name == "t" and run.path.endswith("r.run.gz")
    assert len(run) == 2
    assert run.top("q9", 5)[0].docid == "a" and run.top("zz") == ()


def test_multiple_tags_first_names_the_run(write):
    run = read_run(write("r.run", "q1 Q0 a 1 2 first\nq1 Q0 b 2 1 second\nq2 Q0 a 1 1 first\n"))
    assert run.name == "first"
    assert run.tags == ("first", "second")


def test_non_integer_rank_is_tolerated_like_trec_eval(write):
    run = read_run(write("r.run", "q1 Q0 a x 2 t\nq1 Q0 b 1.0 3 t\n"))
    assert [(e.docid, e.file_rank) for e in run.by_topic["q1"]] == [("b", 0), ("a", 0)]


@pytest.mark.parametrize(
    "text,problem",
    [
        ("q1 Q0 a 1 2 t\n\nq1 Q0 b 2 t\n", "3: expected 6 columns (qid Q0 docid rank score tag), got 5"),
        ("q1 Q0 a 1 2 t extra\n", "1: expected 6 columns (qid Q0 docid rank score tag), got 7"),
        ("q1 Q0 a 1 high t\n", "1: score must be a number, got 'high'"),
        ("q1 Q0 a 1 nan t\n", "1: score must be a number, got 'nan'"),
        ("q1 Q0 a 1 2 t\nq2 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq1 Q0 a 3 0 t\n",
         "4: document a appears twice for topic q1: lines 1 and 4"),
    ],
)
def test_malformed_run_lines(write, text, problem):
    path = write("runs/a.run", text)
    with pytest.raises(InputError) as err:
        read_run(path)
    assert str(err.value) == f"{path}:{problem}"


def test_empty_run_is_an_error_by_default(write):
    path = write("nothing.run", "")
    with pytest.raises(InputError) as err:
        read_run(path)
    assert str(err.value) == f"{path}: no ranked documents found (the run file is empty)"


def test_empty_run_is_valid_when_allowed_and_named_after_file(write):
    run = read_run(write("nothing.run.gz", ""), allow_empty=True)
    assert run.name == "nothing" and run.by_topic == {} and run.tags == ()


def test_max_depth_keeps_top_entries(write):
    run = read_run(write("r.run", TIES), max_depth=2)
    assert order(run, "q1") == ["c", "d"]
    assert order(run, "q2") == ["9", "10"]


def test_read_runs_directory_glob_and_file(tmp_path, write):
    write("runs/b.run", "q1 Q0 a 1 1 beta\n")
    write("runs/a.txt.gz", "q1 Q0 a 1 1 alpha\n")
    write("runs/.hidden", "garbage\n")
    write("other/c.run", "q1 Q0 a 1 1 gamma\n")
    runs = read_runs([str(tmp_path / "runs")])
    assert [r.name for r in runs] == ["alpha", "beta"]
    runs = read_runs([str(tmp_path / "other" / "c.run"), str(tmp_path / "runs" / "*.run")])
    assert [r.name for r in runs] == ["gamma", "beta"]
    # overlapping specs do not read a file twice
    assert len(read_runs([str(tmp_path / "runs"), str(tmp_path / "runs" / "b.run")])) == 2
    # a single path is accepted too
    assert [r.name for r in read_runs(tmp_path / "other")] == ["gamma"]


def test_colliding_tags_fall_back_to_file_names(tmp_path, write):
    write("x/bm25.run.gz", "q1 Q0 a 1 1 Anserini\n")
    write("x/bm25-rm3.txt", "q1 Q0 a 1 1 Anserini\n")
    write("x/dense.run", "q1 Q0 a 1 1 dense\n")
    write("y/bm25.run", "q1 Q0 a 1 1 Anserini\n")
    runs = read_runs([str(tmp_path / "x"), str(tmp_path / "y")])
    assert [r.name for r in runs] == ["bm25-rm3", "bm25", "dense", "bm25-2"]
    assert [r.tags for r in runs] == [("Anserini",)] * 2 + [("dense",), ("Anserini",)]
    assert len({r.name for r in runs}) == len(runs)


def test_missing_paths_are_errors(tmp_path):
    with pytest.raises(InputError) as err:
        read_runs([str(tmp_path / "nope.run")])
    assert str(err.value) == f"{tmp_path / 'nope.run'}: no such file or directory"
    pattern = str(tmp_path / "*.run")
    with pytest.raises(InputError) as err:
        read_runs([pattern])
    assert str(err.value) == f"{pattern}: no files match this pattern"
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError) as err:
        expand_paths([tmp_path / "empty"])
    assert str(err.value) == f"{tmp_path / 'empty'}: directory contains no run files"
    with pytest.raises(InputError) as err:
        read_runs(["irds:msmarco-passage/dev"])
    assert "not runs" in str(err.value)


def test_write_run_round_trip_keeps_order_and_precision(tmp_path, write):
    # "a" would sort before "b" if the scores were shortened to 6 digits and tied
    run = read_run(write("r.run", TIES + "q3 Q0 a 1 0.12345671 sys\nq3 Q0 b 2 0.12345672 sys\n"))
    assert order(run, "q3") == ["b", "a"]

    def flat(r):
        return [(e.qid, e.docid, e.rank, e.score) for es in r.by_topic.values() for e in es]

    for name in ("out.run", "out.run.gz"):
        out = tmp_path / name
        assert write_run(out, run) == 9
        again = read_run(out)
        assert flat(again) == flat(run)
        assert all(e.file_rank == e.rank for es in again.by_topic.values() for e in es)
    first = (tmp_path / "out.run").read_text().splitlines()[0]
    assert first == "q1 Q0 c 1 2.0 sys"
