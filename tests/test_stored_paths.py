"""Input paths are stored absolute (issue 45, point 3): the runs a workspace records are found from
any folder, and the same files named from another folder are the same inputs (no reload)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from qrelkit.store import Store
from qrelkit.store.collection import stored_path
from qrelkit.workspace import load_collection


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    (d / "runs").mkdir(parents=True)
    (d / "topics.tsv").write_text("q1\tfirst\n")
    (d / "docs.tsv").write_text("d1\tone\nd2\ttwo\n")
    (d / "runs" / "a.run").write_text("q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\n")
    return d


def _load(ws: Path, cwd: Path, prefix: str) -> dict:
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with Store.create(ws) as s:
            return load_collection(s, f"{prefix}topics.tsv", f"{prefix}docs.tsv", None, [f"{prefix}runs/a.run"])
    finally:
        os.chdir(here)


def test_the_runs_are_stored_absolute(collection, tmp_path):
    _load(tmp_path / "ws", collection, "")
    with Store.open(tmp_path / "ws") as s:
        assert [r.path for r in s.runs()] == [str(collection / "runs" / "a.run")]


def test_the_same_files_named_from_another_folder_are_not_read_again(collection, tmp_path):
    _load(tmp_path / "ws", collection, "")
    assert _load(tmp_path / "ws", tmp_path, "data/")["reloaded"] is False


def test_a_relative_run_path_an_earlier_version_stored_is_found_from_its_folder(collection, tmp_path, monkeypatch):
    monkeypatch.chdir(collection)
    assert stored_path(tmp_path / "ws", "runs/a.run") == str(collection / "runs" / "a.run")


def test_a_relative_run_path_an_earlier_version_stored_is_found_beside_the_workspace(collection, tmp_path,
                                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)  # another folder: `-w data/ws` made when the runs were given as runs/a.run
    assert stored_path(collection / "ws", "runs/a.run") == str(collection / "runs" / "a.run")
