"""The fast run reader for scoring agrees with read_run: same order, same errors."""
from __future__ import annotations

import pytest
from shared_data import shared_data_path

from qrelkit.data.rankings import final_names, iter_rankings, read_ranking
from qrelkit.data.runs import read_run
from qrelkit.errors import InputError

GOOD = {
    "ties": "q1 Q0 a 1 1.0 sys\nq1 Q0 c 2 2.0 sys\nq1 Q0 b 3 1.0 sys\nq2 0 10 1 5 sys\nq2 0 9 2 5 sys\n",
    "blank lines and CRLF": "q1 Q0 a 1 1 s\r\n\n   \nq1 Q0 b 2 2 s\r\n",
    "bom": "\ufeffq1 Q0 a 1 1 s\n",
    "quote in a docid": 'q1 Q0 "a 1 1 s\nq1 Q0 b 2 0.5 s\n',
    "two tags": "q1 Q0 a 1 1 s\nq1 Q0 b 2 0.5 t\n",
    "leading zeros kept": "007 Q0 0012 1 1 s\n",
}
BAD = {
    "short line": "q1 Q0 a 1 1 s\nq1 Q0 b 2\n",
    "long line": "q1 Q0 a 1 1 s\nq1 Q0 b 2 1 s x\n",
    "bad score": "q1 Q0 a 1 one s\n",
    "nan score": "q1 Q0 a 1 nan s\n",
    "duplicate document": "q1 Q0 a 1 1 s\nq1 Q0 a 2 0.5 s\n",
    "empty file": "",
    "bad bytes": b"q1 Q0 a 1 1 s\nq1 Q0 \xff 2 1 s\n",
}


def docids_of_read_run(path, depth=None):
    return {q: tuple(e.docid for e in es) for q, es in read_run(path, depth).by_topic.items()}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_order_is_read_runs_order(write, name):
    path = write("r.run", GOOD[name])
    assert read_ranking(path).docids == docids_of_read_run(path)


@pytest.mark.parametrize("name", sorted(GOOD))
def test_tags_are_read_runs_tags(write, name):
    path = write("r.run", GOOD[name])
    assert read_ranking(path).tags == read_run(path).tags


def test_depth_keeps_the_top_of_each_topic(write):
    path = write("r.run.gz", GOOD["ties"])
    assert read_ranking(path, max_depth=1).docids == {"q1": ("c",), "q2": ("9",)}


@pytest.mark.parametrize("name", sorted(BAD))
def test_errors_are_read_runs_errors(write, name):
    path = write("r.run", BAD[name])
    with pytest.raises(InputError) as expected:
        read_run(path)
    with pytest.raises(InputError) as got:
        read_ranking(path)
    assert str(got.value) == str(expected.value)


def test_names_are_made_unique_as_read_runs_does(write):
    a = write("a.run", "q1 Q0 a 1 1 same\n")
    b = write("b.run", "q1 Q0 a 1 1 same\n")
    assert final_names(list(iter_rankings([a, b]))) == ["a", "b"]


def test_real_runs_agree_with_read_run():
    runs = sorted(shared_data_path("trec-dl-2019", "runs").glob("*/*.run.gz"))
    for path in runs[:8]:
        assert read_ranking(path, 100).docids == docids_of_read_run(path, 100), path


def test_an_allowed_empty_file_is_a_run_without_topics(write):
    path = write("empty.run", "")
    assert read_ranking(path, allow_empty=True).docids == {}
