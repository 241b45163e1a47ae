"""The sample file: a written sample reads back to the same value; a bad file names its line."""
from __future__ import annotations

import pytest

from qrelkit.errors import InputError
from qrelkit.estimate import Sample, SampledPair, draw_sample, read_sample, write_sample

PAIRS = [(f"q{t}", f"d{i}") for t in range(3) for i in range(20)]


def test_a_drawn_sample_reads_back_identical(tmp_path):
    sample = draw_sample(PAIRS, size=13, design="uniform", seed=4, census=[("q0", "d0"), ("q2", "d5")])
    write_sample(tmp_path / "s.tsv", sample)
    assert read_sample(tmp_path / "s.tsv") == sample


def test_probabilities_survive_the_round_trip_to_the_last_bit(tmp_path):
    sample = Sample((SampledPair("q", "d", 1 / 3), SampledPair("q", "e", 2 / 7)), "weighted", 9, depth=10)
    write_sample(tmp_path / "s.tsv", sample)
    assert [p.probability for p in read_sample(tmp_path / "s.tsv").pairs] == [1 / 3, 2 / 7]


def test_the_file_starts_with_a_comment_then_the_header(tmp_path):
    write_sample(tmp_path / "s.tsv", Sample((SampledPair("q", "d", 0.5),), "uniform", 0))
    lines = (tmp_path / "s.tsv").read_text().splitlines()
    assert lines[1] == "qid\tdocid\tprobability"


@pytest.mark.parametrize("body, line, problem", [
    ("qid\tdocid\tprobability\nq\td\n", 2, "expected 3 columns"),
    ("qid\tdocid\tprobability\nq\td\tx\n", 2, "is not a number"),
    ("qid\tdocid\tprobability\nq\td\t0\n", 2, "must be in (0, 1]"),
    ("qid\tdocid\tprobability\nq\td\t1.5\n", 2, "must be in (0, 1]"),
    ("qid\tdocid\tprobability\nq\td\tnan\n", 2, "must be in (0, 1]"),
    ("qid\tdocid\tprobability\nq\td\t0.5\nq\td\t0.5\n", 3, "listed twice (first on line 2)"),
    ("qid docid\nq\td\t0.5\n", 1, "expected the header line"),
    ("# qrelkit sample: design=x colour=red\nqid\tdocid\tprobability\n", 1, "unknown sample header item"),
    ("qid\tdocid\tprobability\nq\td\t0.5\n# census\nq\te\t0.5\n", 4, "a census pair has probability 1"),
])
def test_a_malformed_line_is_an_input_error_naming_it(tmp_path, body, line, problem):
    path = tmp_path / "s.tsv"
    path.write_text(body)
    with pytest.raises(InputError) as err:
        read_sample(path)
    assert err.value.line == line
    assert problem in err.value.problem


def test_a_file_without_pairs_is_refused(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("qid\tdocid\tprobability\n")
    with pytest.raises(InputError, match="lists no pairs"):
        read_sample(path)


def test_a_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        read_sample(tmp_path / "absent.tsv")
