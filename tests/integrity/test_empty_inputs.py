"""Empty qrels or run files are an error unless --allow-empty says they may be
empty (issue 17, item 4). Every case runs the real command."""
from __future__ import annotations

import json

import pytest

from tests.integrity.cli import assert_user_error, demo_files, qk


def _args(command, f):
    if command == "init":
        return ["init", "-w", f["run"].parent / "ws", "--topics", f["topics"], "--docs", f["docs"],
                "--qrels", f["qrels"], "--runs", f["run"], "--json"]
    return [command, "--runs", f["run"], "--qrels", f["qrels"], "--json"]


@pytest.mark.parametrize("command", ["holes", "evaluate", "init"])
@pytest.mark.parametrize("key", ["qrels", "run"])
def test_an_empty_file_is_an_error(tmp_path, command, key):
    f = demo_files(tmp_path)
    f[key].write_text("\n")
    line = assert_user_error(qk(*_args(command, f)), f[key])
    assert "empty" in line


@pytest.mark.parametrize("command", ["holes", "evaluate", "init"])
def test_allow_empty_accepts_an_empty_qrels_file(tmp_path, command):
    f = demo_files(tmp_path)
    f["qrels"].write_text("")
    p = qk(*_args(command, f), "--allow-empty")
    assert p.returncode == 0, p.stderr


def test_allow_empty_accepts_an_empty_run_that_then_pools_nothing(tmp_path):
    f = demo_files(tmp_path)
    f["run"].write_text("")
    p = qk("holes", "--runs", f["run"], "--qrels", f["qrels"], "--allow-empty", "--json")
    assert json.loads(p.stdout)["pooled"] == 0
