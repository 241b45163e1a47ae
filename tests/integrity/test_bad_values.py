"""The probe's bad inputs of issue 25, each run as the real command: one line naming the
file (and line), exit 2, no traceback, and nothing loaded."""
from __future__ import annotations

import os

import pytest

from tests.integrity.cli import assert_user_error, demo_files, qk

RANGE = "from -1000 to 1000"


def _init(f: dict, tmp_path) -> object:
    return qk("init", "-w", tmp_path / "ws", "--topics", f["topics"], "--docs", f["docs"], "--qrels", f["qrels"],
              "--runs", f["run"], timeout=60)


@pytest.mark.parametrize("key,name,line", [
    ("docs", "docs.jsonl", '{"docid": "d9", "text": "x\\ud800y"}'),
    ("docs", "docs.jsonl", '{"docid": "d9", "text": "x", "title": "\\udfff"}'),
    ("docs", "docs.jsonl", '{"docid": "d\\ud83d", "text": "x"}'),
    ("topics", "topics.jsonl", '{"qid": "q9", "text": "a \\ud800 query"}'),
    ("topics", "topics.jsonl", '{"qid": "q9", "text": "a", "narrative": "\\udbff"}'),
])
def test_a_lone_surrogate_is_invalid_unicode_on_its_line(tmp_path, key, name, line):
    f = demo_files(tmp_path)
    f[key] = tmp_path / name
    f[key].write_text('{"qid": "q1", "docid": "d1", "text": "fine"}\n' + line + "\n")
    msg = assert_user_error(_init(f, tmp_path), f"{f[key]}:2")
    assert "invalid Unicode (lone surrogate" in msg


def test_a_surrogate_pair_is_an_ordinary_character(tmp_path):
    f = demo_files(tmp_path)
    f["docs"] = tmp_path / "docs.jsonl"
    f["docs"].write_text('{"docid": "d1", "text": "smile \\ud83d\\ude00"}\n')
    p = _init(f, tmp_path)
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("grade,problem", [
    ("1" + "0" * 30, RANGE),
    ("1001", RANGE),
    ("-1001", RANGE),
    ("1000000", RANGE),  # pytrec_eval did not finish in a minute
    ("1_0", "plain integer"),
    ("\u0661", "plain integer"),  # ARABIC-INDIC DIGIT ONE: Python's int reads it as 1
    ("\uff15", "plain integer"),  # FULLWIDTH DIGIT FIVE
    ("1.0", "must be an integer"),
])
@pytest.mark.parametrize("command", ["init", "evaluate"])
def test_a_grade_that_is_not_a_plain_32_bit_integer_is_refused_on_its_line(tmp_path, grade, problem, command):
    f = demo_files(tmp_path)
    f["qrels"].write_text(f"q1 0 d1 1\nq2 0 d2 {grade}\n")
    p = _init(f, tmp_path) if command == "init" else qk("evaluate", "--runs", f["run"], "--qrels", f["qrels"])
    assert problem in assert_user_error(p, f"{f['qrels']}:2")


@pytest.mark.parametrize("grade", ["1000", "-1000", "+2", "-1", "-2"])
def test_a_grade_in_the_range_is_evaluated(tmp_path, grade):
    """-2 alone in a topic used to crash pytrec_eval with a segmentation fault."""
    f = demo_files(tmp_path)
    f["qrels"].write_text(f"q1 0 d1 1\nq2 0 d2 {grade}\n")
    p = qk("evaluate", "--runs", f["run"], "--qrels", f["qrels"], "--json")
    assert (p.returncode, "Traceback" in p.stderr) == (0, False), p.stderr


@pytest.mark.parametrize("score", ["1_0", "\u0661", "\uff15.0", "nan"])
def test_a_run_score_that_is_not_a_plain_number_is_refused_on_its_line(tmp_path, score):
    f = demo_files(tmp_path)
    f["run"].write_text(f"q1 Q0 d1 1 3.0 a\nq1 Q0 d3 2 {score} a\n")
    assert "score must be" in assert_user_error(qk("evaluate", "--runs", f["run"], "--qrels", f["qrels"]),
                                                f"{f['run']}:2")


@pytest.mark.parametrize("key", ["topics", "docs", "qrels", "run"])
def test_dev_zero_is_not_a_regular_file(tmp_path, key):
    f = demo_files(tmp_path)
    f[key] = "/dev/zero"
    assert "not a regular file" in assert_user_error(_init(f, tmp_path), "/dev/zero")


@pytest.mark.parametrize("key", ["topics", "docs", "qrels", "run"])
def test_a_fifo_without_a_writer_is_not_a_regular_file(tmp_path, key):
    f = demo_files(tmp_path)
    f[key] = tmp_path / "fifo"
    os.mkfifo(f[key])
    assert "not a regular file" in assert_user_error(_init(f, tmp_path), f[key])


@pytest.mark.parametrize("path", ["/dev/zero", "fifo"])
def test_a_plan_that_is_not_a_regular_file_is_refused(tmp_path, path):
    if path == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
    assert "not a regular file" in assert_user_error(qk("fill", "-w", tmp_path / "ws", "--plan", path, timeout=60),
                                                     path)


@pytest.mark.parametrize("command", ["evaluate", "holes"])
def test_a_fifo_run_for_evaluate_or_holes_is_refused(tmp_path, command):
    f = demo_files(tmp_path)
    fifo = tmp_path / "fifo.run"
    os.mkfifo(fifo)
    assert_user_error(qk(command, "--runs", fifo, "--qrels", f["qrels"], timeout=60), fifo)


def test_a_line_over_64_mb_is_refused_naming_it(tmp_path):
    f = demo_files(tmp_path)
    with open(f["docs"], "ab") as fh:
        fh.write(b"d4\t")
        for _ in range(65):
            fh.write(b"x" * (1 << 20))
    msg = assert_user_error(_init(f, tmp_path), f"{f['docs']}:4")
    assert "longer than 64 MB" in msg
