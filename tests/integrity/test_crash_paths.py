"""Each former traceback is one line naming the file and exit 2 (issue 17, item 3).

Every case runs the real command in a subprocess."""
from __future__ import annotations

import os

import pytest

from tests.integrity.cli import assert_user_error, demo_files, qk

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("crash")
    f = demo_files(tmp)
    p = qk("init", "-w", tmp / "ws", "--topics", f["topics"], "--docs", f["docs"], "--qrels", f["qrels"],
           "--runs", f["run"])
    assert p.returncode == 0, p.stderr
    return tmp / "ws"


@pytest.mark.parametrize("key,name,line", [
    ("topics", "topics.jsonl", '{"qid": "q9", "text": %s}\n' % DEEP),
    ("docs", "docs.jsonl", '{"docid": "d9", "text": "x", "title": %s}\n' % DEEP),
])
def test_deeply_nested_jsonl_line(tmp_path, key, name, line):
    f = demo_files(tmp_path)
    f[key] = tmp_path / name
    f[key].write_text(line)
    p = qk("init", "-w", tmp_path / "ws", "--topics", f["topics"], "--docs", f["docs"])
    assert_user_error(p, f"{f[key]}:1")


@pytest.mark.parametrize("kind", ["folder", "binary"])
def test_plan_that_is_not_a_toml_file(tmp_path, kind):
    plan = tmp_path / "plan.toml"
    if kind == "folder":
        plan.mkdir()
    else:
        plan.write_bytes(bytes(range(256)) * 4)
    assert_user_error(qk("fill", "-w", tmp_path / "ws", "--plan", plan), plan)


def test_export_to_a_folder(ws, tmp_path):
    assert_user_error(qk("export", "-w", ws, "--out", tmp_path), tmp_path)


def test_export_to_an_unwritable_path(ws, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out = blocker / "qrels.txt"  # a path below a file cannot be created, even by root
    assert_user_error(qk("export", "-w", ws, "--out", out), blocker)


def test_annotate_export_to_an_existing_file(ws, tmp_path):
    out = tmp_path / "votes.jsonl"
    out.write_text("")
    assert_user_error(qk("annotate", "export", "-w", ws, "--out", out), out)


def test_annotate_serve_on_an_impossible_port(ws):
    line = assert_user_error(qk("annotate", "serve", "-w", ws, "--port", "99999"), "99999")
    assert "--port" in line


@pytest.mark.parametrize("command", [("status",), ("pool",), ("escalations",), ("annotate", "users", "list"),
                                     ("export", "--out", "x.qrels")])
def test_workspace_database_that_is_not_a_database(tmp_path, command):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "qrelkit.sqlite").write_bytes(os.urandom(4096))
    assert_user_error(qk(*command, "-w", ws), ws / "qrelkit.sqlite")


def test_workspace_that_is_a_file(tmp_path):
    f = demo_files(tmp_path)
    ws = tmp_path / "ws"
    ws.write_text("")
    p = qk("init", "-w", ws, "--topics", f["topics"], "--docs", f["docs"])
    assert_user_error(p, ws)
