"""A judging run checkpoints the WAL on a thread of its own (StoreCore.checkpoints_aside):
its per-call commits never sync the disk, yet each is readable at once by another process,
the log stays small, and SQLite's own checkpointing is back when the run ends."""
from __future__ import annotations

import sqlite3
import time

import pytest

from qrelkit.store import Store

ROW = "x" * 3000  # a cached call: the request (prompt) dominates


def _put(store: Store, i: int) -> None:
    store.cache_put(f"key-{i:06d}", "m", {"prompt": ROW}, {"text": "ok"}, 1, 1, 0.1, 0.0)


def _autocheckpoint(store: Store) -> int:
    return store.scalar("PRAGMA wal_autocheckpoint")


def test_a_commit_inside_is_read_by_another_connection_before_any_checkpoint(tmp_path):
    with Store.create(tmp_path) as s, s.checkpoints_aside(every=60):
        _put(s, 1)
        with sqlite3.connect(tmp_path / "qrelkit.sqlite") as other:  # what a re-run after a kill sees
            assert other.execute("SELECT COUNT(*) FROM llm_calls").fetchone()[0] == 1


def test_the_log_starts_again_while_the_run_writes(tmp_path):
    wal = tmp_path / "qrelkit.sqlite-wal"
    largest = 0
    with Store.create(tmp_path) as s, s.checkpoints_aside(every=0.02, restart_pages=500):
        for i in range(3000):
            _put(s, i)
            if i % 50 == 0:
                time.sleep(0.005)
                largest = max(largest, wal.stat().st_size)
    # Without the restart the log only grows: 36-50 MB for these 3,000 rows. With it, it stays near
    # 5 MB, and up to 13 MB when the checkpointer thread gets few turns (another process on the
    # core, seen 2 runs in 10 at an 8 MB bound over 1,500 rows); the bound tells the two apart.
    assert largest < 20_000_000


def test_no_checkpoint_runs_inside_the_commits_meanwhile(tmp_path):
    with Store.create(tmp_path) as s, s.checkpoints_aside(every=60):
        assert _autocheckpoint(s) == 0


@pytest.mark.parametrize("fails", [False, True])
def test_sqlites_own_checkpoints_are_back_after_the_run(tmp_path, fails):
    with Store.create(tmp_path) as s:
        with pytest.raises(RuntimeError) if fails else _nothing():
            with s.checkpoints_aside(every=0.01):
                _put(s, 1)
                if fails:
                    raise RuntimeError("the run failed")
        assert _autocheckpoint(s) == 1000


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
