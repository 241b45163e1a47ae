"""Bad options and a corrupt qrels line, each run as the real command (issue 45, points 10 and 14):
one line, exit 2, and nothing made or read before the option is checked."""
from __future__ import annotations

import pytest

from tests.integrity.cli import assert_user_error, demo_files, qk


def _fill(f: dict, ws, *extra: object):
    return qk("fill", "-w", ws, "--topics", f["topics"], "--docs", f["docs"], "--qrels", f["qrels"],
              "--runs", f["run"], *extra)


@pytest.mark.parametrize("command", ["fill", "judge"])
def test_an_empty_method_is_refused_not_taken_as_auto(tmp_path, command):
    f = demo_files(tmp_path)
    p = _fill(f, tmp_path / "ws", "--method", "") if command == "fill" else \
        qk("judge", "-w", tmp_path, "--method", "")
    assert "the method is empty" in assert_user_error(p, "--method")


def test_a_method_typo_is_refused_before_the_collection_is_read(tmp_path):
    f = demo_files(tmp_path)
    p = _fill(f, tmp_path / "ws", "--method", "debat")
    assert "unknown method 'debat'" in assert_user_error(p, "--method")
    assert not (tmp_path / "ws").exists()  # no empty workspace left behind


def test_a_nul_byte_in_a_qrels_docid_is_refused_on_its_line(tmp_path):
    f = demo_files(tmp_path)
    f["qrels"].write_bytes(b"q1 0 d1 1\nq2 0 d\x002 0\n")
    p = qk("init", "-w", tmp_path / "ws", "--topics", f["topics"], "--docs", f["docs"], "--qrels", f["qrels"])
    assert "NUL byte" in assert_user_error(p, f"{f['qrels']}:2")


@pytest.mark.parametrize("args, named", [
    (("fill", "--depth", "abc"), "--depth"),
    (("fill", "--no-such-option"), "--no-such-option"),
    (("evaluate", "--bootstrap", "-1"), "--bootstrap"),
    (("fil",), "fil"),
])
def test_an_option_error_of_the_command_line_framework_is_one_line(args, named):
    assert_user_error(qk(*args), named)
