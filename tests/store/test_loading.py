"""The mark of a collection load under way (issue 25): set before the first write,
cleared with the record of what was loaded, and read as loading or interrupted."""
from __future__ import annotations

import subprocess
import sys

import pytest

from qrelkit.errors import UsageError
from qrelkit.store import Store
from qrelkit.store.core import INTERRUPTED_LOAD, LOADING


def _dead_pid() -> int:
    return int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout)


@pytest.fixture
def store(tmp_path):
    with Store.create(tmp_path / "ws") as s:
        yield s


def test_a_new_workspace_is_complete(store):
    assert store.load_state() == "complete"


def test_a_load_under_way_in_a_live_process_is_loading(store):
    store.begin_load()
    assert store.load_state() == "loading"


def test_a_load_whose_process_is_gone_is_interrupted(store):
    store.begin_load()
    mark = store.get_meta(LOADING)
    store.set_meta(LOADING, {**mark, "process": {**mark["process"], "pid": _dead_pid()}})
    assert (store.load_state(), store.load_message()) == ("interrupted", INTERRUPTED_LOAD)


def test_finish_load_clears_the_mark_and_records_the_inputs(store):
    store.begin_load()
    store.finish_load({"counts": {}})
    assert (store.load_state(), store.get_meta("inputs")) == ("complete", {"counts": {}})


def test_open_refuses_a_workspace_whose_load_did_not_finish(store):
    store.begin_load()
    with pytest.raises(UsageError, match="loading in progress"):
        Store.open(store.workspace)


def test_open_for_status_accepts_it(store):
    store.begin_load()
    with Store.open(store.workspace, loading_ok=True) as s:
        assert s.load_state() == "loading"
