"""`qrelkit init` with repeated topic or document ids (issue 17, item 1)."""
from __future__ import annotations

import json

import pytest

from qrelkit.store import Store
from tests.integrity.cli import assert_user_error, demo_files, qk


def _init(ws, f, *extra):
    return qk("init", "-w", ws, "--topics", f["topics"], "--docs", f["docs"], "--qrels", f["qrels"],
              "--runs", f["run"], "--json", *extra)


@pytest.mark.parametrize("key,text,message", [
    ("topics", "q1\tfirst query\nq2\tsecond query\nq1\tanother query\n",
     "duplicate topic q1 with different content: lines 1 and 3"),
    ("docs", "d1\tone\nd2\ttwo\nd1\tuno\n", "duplicate document id d1 with different content: lines 1 and 3"),
])
def test_a_conflicting_repeat_is_an_error_naming_both_lines(tmp_path, key, text, message):
    f = demo_files(tmp_path)
    f[key].write_text(text)
    line = assert_user_error(_init(tmp_path / "ws", f), f"{f[key]}:3")
    assert line.endswith(message)


@pytest.fixture(scope="module")
def repeated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("repeats")
    f = demo_files(tmp)
    f["topics"].write_text("q1\tfirst query\nq2\tsecond query\nq1\tfirst query\n")
    f["docs"].write_text("d1\tone\nd2\ttwo\nd1\tone\nd3\tthree\nd1\tone\n")
    p = _init(tmp / "ws", f)
    assert p.returncode == 0, p.stderr
    with Store.open(tmp / "ws") as store:
        held = {"topics": len(store.topics()), "docs": store.doc_count()}
    return json.loads(p.stdout), held


@pytest.mark.parametrize("key,count", [("topics", 2), ("docs", 3)])
def test_identical_repeats_are_kept_once_and_counted_right(repeated, key, count):
    out, _ = repeated
    assert out[key] == count


@pytest.mark.parametrize("key,count", [("topics", 2), ("docs", 3)])
def test_printed_counts_match_the_database(repeated, key, count):
    _, held = repeated
    assert held[key] == count


@pytest.mark.parametrize("key,count", [("topics", 1), ("docs", 2), ("qrels", 0)])
def test_identical_repeats_are_reported(repeated, key, count):
    out, _ = repeated
    assert out["duplicates"][key] == count
