"""The readers' rules for the bad values of issue 25, one at a time (the commands
are run in tests/integrity/test_bad_values.py)."""
from __future__ import annotations

import pytest

from qrelkit.data import _open as opened
from qrelkit.data import load_qrels, load_topics, read_run, unique_docs
from qrelkit.data.cases import read_cases
from qrelkit.data.numbers import grade_problem, plain_float, plain_int
from qrelkit.data.rankings import read_ranking
from qrelkit.errors import InputError


@pytest.mark.parametrize("text,value", [
    ("3", 3), ("-2", -2), ("+1", 1), ("-0", 0), ("1_0", None), ("\u0661", None), ("\uff15", None), ("1.0", None),
    ("", None), ("0x10", None), ("\u00b2", None),
])
def test_plain_int_reads_ascii_integers_only(text, value):
    assert plain_int(text) == value


@pytest.mark.parametrize("text,value", [
    ("2.5", 2.5), ("-1e-3", -0.001), ("inf", float("inf")), ("1e400", float("inf")), ("1_0", None),
    ("\u0661.5", None), ("nan", None), ("NaN", None), ("x", None),
])
def test_plain_float_reads_ascii_numbers_only(text, value):
    assert plain_float(text) == value


@pytest.mark.parametrize("text", ["0", "4", "-2", "1000", "-1000"])
def test_a_grade_in_range_has_no_problem(text):
    assert grade_problem(text) is None


@pytest.mark.parametrize("text,words", [
    ("1001", "out of range"), ("-1001", "out of range"), ("1" + "0" * 30, "out of range"),
    ("9" * 5000, "out of range"), ("1_0", "plain integer"), ("\u0661", "plain integer"), ("x", "an integer"),
])
def test_a_grade_out_of_range_or_not_plain_says_why(text, words):
    assert words in grade_problem(text)


def test_a_long_grade_is_shortened_in_the_message():
    assert len(grade_problem("9" * 5000)) < 200


@pytest.mark.parametrize("grade", ["1_0", "\u0661", "1" + "0" * 30])
def test_load_qrels_refuses_the_grade_on_its_line(write, grade):
    path = write("q.txt", f"q1 0 d1 1\nq1 0 d2 {grade}\n")
    with pytest.raises(InputError) as err:
        load_qrels(path)
    assert err.value.line == 2


@pytest.mark.parametrize("score", ["1_0", "\u0661", "nan"])
@pytest.mark.parametrize("reader", [read_run, read_ranking])
def test_a_run_score_python_alone_reads_is_refused_on_its_line(write, reader, score):
    path = write("a.run", f"q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 {score} a\n")
    with pytest.raises(InputError) as err:
        reader(path)
    assert err.value.line == 2


def test_a_rank_python_alone_reads_is_ignored_as_trec_eval_ignores_ranks(write):
    path = write("a.run", "q1 Q0 d1 1_0 2.0 a\n")
    assert read_run(path).top("q1")[0].file_rank == 0


@pytest.mark.parametrize("rank,words", [("1_0", "non-negative integer"), ("99999999999", "at most")])
def test_a_case_rank_that_is_not_a_plain_int32_is_refused(write, rank, words):
    path = write("c.tsv", f"qid\tdocid\tbest_rank\nq1\td1\t{rank}\n")
    with pytest.raises(InputError, match=words):
        list(read_cases(path))


@pytest.mark.parametrize("line", [
    '{"qid": "q1", "text": "\\ud800"}', '{"qid": "q1", "text": "a", "answers": ["\\udc00"]}',
    '{"qid": "q1", "\\ud800": 1, "text": "a"}',
])
def test_a_lone_surrogate_in_a_topic_is_invalid_unicode(write, line):
    path = write("t.jsonl", line + "\n")
    with pytest.raises(InputError, match="lone surrogate"):
        load_topics(path)


def test_an_escaped_backslash_before_u_is_not_a_surrogate(write):
    path = write("t.jsonl", '{"qid": "q1", "text": "C:\\\\ud800"}\n')
    assert load_topics(path)["q1"].text == "C:\\ud800"


def test_a_lone_surrogate_in_a_document_names_its_line(write):
    path = write("d.jsonl", '{"docid": "d1", "text": "a"}\n{"docid": "d2", "text": "\\ud800"}\n')
    with pytest.raises(InputError) as err:
        list(unique_docs(path))
    assert err.value.line == 2


def test_a_line_over_the_bound_is_refused_naming_it(write, monkeypatch):
    monkeypatch.setattr(opened, "MAX_LINE", 10)
    path = write("t.tsv", "q1\tshort\nq2\tmuch longer than ten\n")
    with pytest.raises(InputError, match="longer than") as err:
        load_topics(path)
    assert err.value.line == 2


def test_a_line_of_exactly_the_bound_is_read(write, monkeypatch):
    monkeypatch.setattr(opened, "MAX_LINE", 10)
    path = write("t.tsv", "q1\t1234567\n")  # 10 bytes and a newline
    assert load_topics(path)["q1"].text == "1234567"


def test_a_gzip_line_over_the_bound_is_refused(write, monkeypatch):
    monkeypatch.setattr(opened, "MAX_LINE", 10)
    path = write("q.txt.gz", "q1 0 d1 1\n" + "x" * 100)
    with pytest.raises(InputError, match="longer than"):
        load_qrels(path)


def test_a_small_text_file_over_the_bound_is_refused(write, monkeypatch):
    monkeypatch.setattr(opened, "MAX_LINE", 10)
    path = write("plan.toml", "depth = 10\n" * 3)
    with pytest.raises(InputError, match="larger than"):
        opened.read_text(path)


def test_a_json_number_past_pythons_digit_limit_names_its_line(tmp_path):
    from qrelkit.data import read_cases
    from qrelkit.errors import InputError

    path = tmp_path / "c.jsonl"
    path.write_text('{"qid": "1", "docid": "d", "best_rank": ' + "9" * 5000 + "}\n")
    with pytest.raises(InputError) as e:
        list(read_cases(path))
    assert e.value.line == 1
    assert "invalid JSON" in str(e.value)
