from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from qrelkit.data import Run, load_qrels, read_runs
from qrelkit.data.cases import read_cases, write_cases
from qrelkit.errors import InputError, UsageError
from qrelkit.evaluate.holes import (
    RunHoleRate,
    RunHoleSummary,
    holes_report,
    run_hole_rates,
    summarize_hole_rates,
)
from qrelkit.pooling.pool import DEFAULT_DEPTH, DEFAULT_HUMAN_DEPTH, Pool, build_pool, holes
from qrelkit.types import Case, Qrel, RunEntry, Topic

SHARED_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def make_run(name: str, topics: dict[str, list[tuple[str, float]]]) -> Run:
    """A run from (docid, score) lists, put in trec_eval order like read_run does."""
    by_topic = {}
    for qid, docs in topics.items():
        ordered = sorted(docs, key=lambda d: (d[1], d[0]), reverse=True)
        by_topic[qid] = tuple(RunEntry(qid, d, i, s) for i, (d, s) in enumerate(ordered, start=1))
    return Run(name=name, path=f"{name}.run", by_topic=by_topic, tags=(name,))


A = make_run("A", {"q1": [("d1", 3.0), ("d2", 2.0), ("d3", 1.0), ("d4", 0.5)], "q2": [("x", 1.0)]})
B = make_run("B", {"q1": [("d3", 5.0), ("d5", 4.0), ("d1", 1.0)], "q2": [("y", 2.0), ("x", 1.0)]})
QRELS = {("q1", "d1"): 1, ("q2", "y"): 0, ("q3", "z"): 2}


def test_hybrid_pool_exact_cases():
    pool = build_pool([A, B], depth=2, human_depth=1, qrels=QRELS)
    assert pool == Pool(
        cases=(
            Case("q1", "d1", "people", 1, ("A",), True),
            Case("q1", "d3", "people", 1, ("B",), False),
            Case("q1", "d2", "llm", 2, ("A",), False),
            Case("q1", "d5", "llm", 2, ("B",), False),
            Case("q2", "x", "people", 1, ("A", "B"), False),
            Case("q2", "y", "people", 1, ("B",), True),
        ),
        depth=2, human_depth=1, runs=("A", "B"),
    )
    assert pool.qids == ("q1", "q2") and len(pool) == 6
    assert holes(pool) == (pool.cases[1], pool.cases[2], pool.cases[3], pool.cases[4])


def test_pool_depth_three_merges_best_rank_and_contributors():
    pool = build_pool([A, B], depth=3, human_depth=2)
    by_pair = {(c.qid, c.docid): c for c in pool.cases}
    # d3 is 3rd in A and 1st in B; d1 is 1st in A and 3rd in B
    assert by_pair["q1", "d3"] == Case("q1", "d3", "people", 1, ("A", "B"), False)
    assert by_pair["q1", "d1"] == Case("q1", "d1", "people", 1, ("A", "B"), False)
    assert by_pair["q1", "d5"].share == "people" and by_pair["q1", "d2"].share == "people"
    assert "d4" not in {c.docid for c in pool.cases}
    assert [c.docid for c in pool.cases if c.qid == "q1"] == ["d1", "d3", "d2", "d5"]


def test_without_human_depth_everything_goes_to_the_llm():
    pool = build_pool([A, B], depth=10)
    assert {c.share for c in pool.cases} == {"llm"}
    assert not any(c.judged for c in pool.cases)
    assert len(pool.cases) == 7
    assert build_pool([A, B], depth=2, human_depth=5).cases[3].share == "people"
    assert {c.share for c in build_pool([A], depth=3, human_depth=0).cases} == {"llm"}


def test_topics_restrict_the_pool():
    assert build_pool([A, B], topics=["q2"]).qids == ("q2",)
    assert build_pool([A, B], topics={"q1": Topic("q1", "t")}).qids == ("q1",)
    assert build_pool([A, B], topics=[Topic("q2", "t")]).qids == ("q2",)
    assert build_pool([A, B], topics=[]).cases == ()


def test_pool_counts_depth_in_trec_eval_order():
    """Ties are broken by docid descending, whatever the file's rank column says."""
    run = make_run("T", {"q": [("a", 1.0), ("b", 1.0), ("c", 0.5)]})
    assert [c.docid for c in build_pool([run], depth=1).cases] == ["b"]


def test_pool_accepts_qrels_files_and_qrel_values(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("q1 0 d2 0\n")
    assert [c.docid for c in build_pool([A], 2, qrels=load_qrels(path)).cases if c.judged] == ["d2"]
    assert [c.docid for c in build_pool([A], 2, qrels=[Qrel("q1", "d1", 3)]).cases if c.judged] == ["d1"]


def test_bad_pool_parameters():
    with pytest.raises(UsageError, match="pool depth must be a positive integer, got 0"):
        build_pool([A], depth=0)
    with pytest.raises(UsageError, match="human depth must be a non-negative integer, got -1"):
        build_pool([A], human_depth=-1)
    with pytest.raises(UsageError, match="repeated: A"):
        build_pool([A, A])
    assert (DEFAULT_DEPTH, DEFAULT_HUMAN_DEPTH) == (10, 3)


def test_hole_rates_exact_values():
    rates = run_hole_rates([A, B], QRELS, depth=2)
    assert rates == [
        RunHoleRate("A", "q1", 0.5, 0.5, 2, 2),
        RunHoleRate("A", "q2", 0.0, 1.0, 2, 1),  # one retrieved doc: divided by 1, not by 2
        RunHoleRate("B", "q1", 0.0, 1.0, 2, 2),
        RunHoleRate("B", "q2", 0.5, 0.5, 2, 2),
    ]
    assert summarize_hole_rates(rates) == [
        RunHoleSummary("A", 0.25, 0.75, 2),
        RunHoleSummary("B", 0.25, 0.75, 2),
    ]
    # topics without labels are not evaluated; runs without any evaluable topic are listed as None
    only_q2 = run_hole_rates([A, B], {("q2", "x"): 1}, depth=2)
    assert [(r.run, r.qid) for r in only_q2] == [("A", "q2"), ("B", "q2")]
    lonely = make_run("C", {"q9": [("a", 1.0)]})
    assert summarize_hole_rates(run_hole_rates([lonely, A], QRELS, 2), [lonely, A])[0] == RunHoleSummary(
        "C", None, None, 0)


def test_judged_at_k_matches_ir_measures_without_ties():
    ir_measures = pytest.importorskip("ir_measures")
    run = make_run("R", {"q1": [(f"d{i}", 10.0 - i) for i in range(7)], "q2": [("a", 2.0), ("b", 1.0)],
                         "q3": [("z", 1.0)]})
    qrels = {("q1", "d0"): 1, ("q1", "d3"): 0, ("q1", "d6"): 2, ("q2", "b"): 1, ("q4", "n"): 1}
    ours = {r.qid: r.judged_at_k for r in run_hole_rates([run], qrels, depth=5)}
    theirs = ir_measures.iter_calc(
        [ir_measures.Judged @ 5],
        [ir_measures.Qrel(q, d, g) for (q, d), g in qrels.items()],
        [ir_measures.ScoredDoc(e.qid, e.docid, e.score) for es in run.by_topic.values() for e in es],
    )
    theirs = {m.query_id: m.value for m in theirs}
    assert ours == {"q1": 0.4, "q2": 0.5}
    # known, documented difference: ir_measures scores a labelled topic the run did not answer as 0
    assert theirs == {**ours, "q4": 0.0}


def test_holes_report_shape():
    report = holes_report([A, B], QRELS, depth=2)
    assert report == {
        "depth": 2,
        "pooled": 6,
        "holes": 4,
        "runs": {"A": {"Judged@2": 0.25, "Unjudged@2": 0.75}, "B": {"Judged@2": 0.25, "Unjudged@2": 0.75}},
        "topics": 2,
        "note": report["note"],
    }
    assert "Hole@2" in report["note"] and "--new-qrels" in report["note"]
    json.dumps(report)
    # a one-shot iterator of Qrel values gives the same report
    one_shot = (Qrel(q, d, g) for (q, d), g in QRELS.items())
    assert holes_report([A, B], one_shot, depth=2) == report
    assert run_hole_rates([A, B], iter([Qrel(q, d, g) for (q, d), g in QRELS.items()]), 2) == run_hole_rates(
        [A, B], QRELS, 2)


@pytest.mark.parametrize("name", ["cases.tsv", "cases.jsonl", "cases.tsv.gz", "cases.json"])
def test_case_lists_round_trip(tmp_path, name):
    cases = build_pool([A, B], depth=2, human_depth=1, qrels=QRELS).cases
    path = tmp_path / name
    assert write_cases(path, cases) == 6
    assert tuple(read_cases(path)) == cases


def test_case_tsv_layout_and_hand_made_lists(tmp_path):
    path = tmp_path / "c.tsv"
    write_cases(path, [Case("q1", "d1", "people", 1, ("A", "B"), True)])
    assert path.read_text() == "qid\tdocid\tshare\tbest_rank\truns\tjudged\nq1\td1\tpeople\t1\tA,B\t1\n"
    hand = tmp_path / "hand.txt"
    hand.write_text("docid\tqid\nd7\tq3\n")
    assert list(read_cases(hand)) == [Case("q3", "d7")]


@pytest.mark.parametrize("name,text,problem", [
    ("c.tsv", "qid\tdoc\nq\td\n", ("1: expected a header line naming the columns (qid, docid and "
                                   "optionally share, best_rank, runs, judged), got 'qid\\tdoc'")),
    ("c.tsv", "qid\tdocid\tshare\nq\td\tbots\n", "2: share must be 'people' or 'llm', got 'bots'"),
    ("c.tsv", "qid\tdocid\tbest_rank\nq\td\n", "2: expected 3 tab-separated columns, got 2"),
    ("c.tsv", "qid\tdocid\tbest_rank\nq\td\t-1\n", "2: best_rank must be a non-negative integer, got '-1'"),
    ("c.tsv", "qid\tdocid\tjudged\nq\td\tmaybe\n", "2: judged must be 1/0 or true/false, got 'maybe'"),
    ("c.jsonl", '{"qid": "q"}\n', "1: missing docid field"),
    ("c.jsonl", '{"qid": "q", "docid": "d", "runs": "A"}\n', '1: runs must be a list of strings, got "A"'),
    ("c.jsonl", '{"qid": "q", "docid": "d", "best_rank": 1.5}\n',
     "1: best_rank must be a non-negative integer, got 1.5"),
])
def test_bad_case_lists(tmp_path, name, text, problem):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as err:
        list(read_cases(path))
    assert str(err.value) == f"{path}:{problem}"


def test_case_list_write_errors(tmp_path):
    with pytest.raises(InputError, match="unknown case list format"):
        write_cases(tmp_path / "c.csv", [])
    with pytest.raises(InputError, match="use .jsonl"):
        write_cases(tmp_path / "c.tsv", [Case("q", "d", runs=("a,b",))])
    write_cases(tmp_path / "c.jsonl", [Case("q", "d", runs=("a,b",))])
    assert next(read_cases(tmp_path / "c.jsonl")).runs == ("a,b",)


# -- real data: TREC DL 2019 ------------------------------------------------------------------

@pytest.fixture(scope="module")
def dl19() -> Path:
    d = SHARED_DATA / "trec-dl-2019"
    if not d.is_dir():
        pytest.skip(f"real data not found at {d.resolve()} (expects ../shared/data next to the repository)")
    return d


def independent_top_k(path: Path, k: int, by_file_rank: bool = False) -> dict[str, list[str]]:
    """Top-k per topic straight from the gzip file, without qrelkit's reader."""
    rows: dict[str, list[tuple[float, str, int]]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            qid, _, docid, rank, score, _ = line.split()
            rows.setdefault(qid, []).append((float(score), docid, int(rank)))
    if by_file_rank:
        return {q: [d for _, d, _ in sorted(r, key=lambda x: x[2])[:k]] for q, r in rows.items()}
    return {q: [d for _, d, _ in sorted(r, key=lambda x: (-x[0], tuple(-ord(c) for c in x[1])))[:k]]
            for q, r in rows.items()}


def independent_qrels(path: Path) -> set[tuple[str, str]]:
    with open(path, encoding="utf-8") as fh:
        return {(c[0], c[2]) for c in (line.split() for line in fh if line.strip())}


def test_official_dl19_runs_leave_one_tie_hole(dl19):
    """The 37 official runs are fully judged to depth 10 by their rank column; in
    trec_eval order, one four-way score tie at rank 10 (UNH_exDL_bm25, topic 87181)
    brings in a passage the rank column put at 13, which NIST did not judge."""
    files = sorted((dl19 / "runs" / "official").glob("*.run.gz"))
    assert len(files) == 37
    judged = independent_qrels(dl19 / "qrels.txt")
    topics = {q for q, _ in judged}
    expected, by_rank = set(), set()
    for f in files:
        for qid, docs in independent_top_k(f, 10).items():
            expected |= {(qid, d) for d in docs if qid in topics and (qid, d) not in judged}
        for qid, docs in independent_top_k(f, 10, by_file_rank=True).items():
            by_rank |= {(qid, d) for d in docs if qid in topics and (qid, d) not in judged}
    assert by_rank == set()
    assert expected == {("87181", "8732212")}

    runs = read_runs([str(dl19 / "runs" / "official")], max_depth=10)
    qrels = load_qrels(dl19 / "qrels.txt")
    pool = build_pool(runs, depth=10, qrels=qrels, topics=qrels.qids)
    assert {(c.qid, c.docid) for c in holes(pool)} == expected
    assert holes(pool) == (Case("87181", "8732212", "llm", 10, ("UNH_exDL_bm25",), False),)


def test_post_hoc_dl19_runs_have_holes(dl19):
    """README: "their top-10 contain 530 unjudged passages" counts (run, topic,
    passage) occurrences; as distinct pooled pairs that is 234 holes."""
    files = sorted((dl19 / "runs" / "post-hoc").glob("*.run.gz"))
    assert len(files) == 24
    judged = independent_qrels(dl19 / "qrels.txt")
    topics = {q for q, _ in judged}
    distinct, occurrences, pooled = set(), 0, set()
    for f in files:
        for qid, docs in independent_top_k(f, 10).items():
            if qid not in topics:
                continue
            pooled |= {(qid, d) for d in docs}
            missing = [(qid, d) for d in docs if (qid, d) not in judged]
            occurrences += len(missing)
            distinct |= set(missing)
    assert occurrences == 530
    assert len(distinct) == 234

    runs = read_runs([str(dl19 / "runs" / "post-hoc" / "*.run.gz")], max_depth=10)
    assert len(runs) == 24 and len({r.name for r in runs}) == 24
    qrels = load_qrels(dl19 / "qrels.txt")
    report = holes_report(runs, qrels, depth=10)
    assert report["holes"] == len(distinct) == 234
    assert report["pooled"] == len(pooled)
    assert report["topics"] == 43
    rates = run_hole_rates(runs, qrels, 10)
    assert round(sum(r.unjudged_at_k * r.retrieved for r in rates)) == occurrences
    assert {(c.qid, c.docid) for c in holes(build_pool(runs, 10, qrels=qrels))} == distinct
