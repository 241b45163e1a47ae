"""Stored comparison samples and the cost of each method's runs on them (``qrelkit compare``).

A comparison is only fair when every method judges the very same pairs, including a
method added a week later: so the sample is drawn once and kept here, with how it was
drawn, and a later call reads it back instead of drawing again. Each method's judging
runs on it leave a record of what they cost in time (wall seconds, the summed latency of
the calls they made), because a resumed run answered from the cache costs nothing and
would otherwise erase the figure of Table 11.

The tables are created on first use (``CREATE TABLE IF NOT EXISTS``) rather than by a
migration, so that a workspace that never compares carries none of them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

from qrelkit.store.core import now

_TABLES = (
    "CREATE TABLE IF NOT EXISTS compare_samples ("
    " name TEXT PRIMARY KEY, draw TEXT NOT NULL, created_at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS compare_pairs ("
    " name TEXT NOT NULL, position INTEGER NOT NULL, qid TEXT NOT NULL, docid TEXT NOT NULL,"
    " grade INTEGER NOT NULL, PRIMARY KEY (name, qid, docid))",
    "CREATE TABLE IF NOT EXISTS compare_runs ("
    " name TEXT NOT NULL, method TEXT NOT NULL, model TEXT NOT NULL, started_at REAL NOT NULL,"
    " seconds REAL NOT NULL, cases INTEGER NOT NULL, new_calls INTEGER NOT NULL,"
    " call_latency REAL NOT NULL, concurrency INTEGER NOT NULL)",
)


@dataclass(frozen=True)
class StoredSample:
    """A comparison's sample as stored: how it was drawn and its pairs with reference grades."""

    name: str
    draw: dict
    pairs: tuple[tuple[str, str, int], ...]  # (qid, docid, reference grade), in draw order


@dataclass(frozen=True)
class RunCost:
    """What one method's runs on a sample cost in time, summed over the runs that made calls."""

    seconds: float  # wall time of those runs
    cases: int  # cases they judged
    new_calls: int  # calls that reached the model (not the cache)
    call_latency: float  # summed latency of those calls
    concurrency: int  # the largest concurrency they ran with


class ComparisonStore:
    """Comparison samples and run costs (mixin of :class:`qrelkit.store.Store`)."""

    def _compare_tables(self) -> None:
        for sql in _TABLES:
            self.execute(sql)

    def _has_compare_tables(self) -> bool:
        return bool(self.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name='compare_samples'"))

    def put_comparison_sample(self, name: str, draw: dict, pairs: list[tuple[str, str, int]]) -> None:
        """Store a new sample (a sample of that name already stored is an error of the caller)."""
        self._compare_tables()
        with self.transaction() as conn:
            conn.execute("INSERT INTO compare_samples(name, draw, created_at) VALUES(?,?,?)",
                         (name, json.dumps(draw, sort_keys=True), now()))
            conn.executemany("INSERT INTO compare_pairs(name, position, qid, docid, grade) VALUES(?,?,?,?,?)",
                             [(name, i, q, d, int(g)) for i, (q, d, g) in enumerate(pairs)])

    def comparison_sample(self, name: str) -> Optional[StoredSample]:
        if not self._has_compare_tables():
            return None
        rows = self.query("SELECT draw FROM compare_samples WHERE name=?", (name,))
        if not rows:
            return None
        pairs = self.query("SELECT qid, docid, grade FROM compare_pairs WHERE name=? ORDER BY position", (name,))
        return StoredSample(name, json.loads(rows[0][0]), tuple((q, d, int(g)) for q, d, g in pairs))

    def comparison_names(self) -> list[str]:
        if not self._has_compare_tables():
            return []
        return [r[0] for r in self.query("SELECT name FROM compare_samples ORDER BY created_at, name")]

    def record_comparison_run(self, name: str, method: str, model: str, started_at: float, cost: RunCost) -> None:
        self._compare_tables()
        self.execute(
            "INSERT INTO compare_runs(name, method, model, started_at, seconds, cases, new_calls, call_latency, "
            "concurrency) VALUES(?,?,?,?,?,?,?,?,?)",
            (name, method, model, started_at, cost.seconds, cost.cases, cost.new_calls, cost.call_latency,
             cost.concurrency),
        )

    def comparison_cost(self, name: str, method: str, model: str) -> Optional[RunCost]:
        """The time cost of the runs of (method, model) on sample ``name`` that called the model."""
        if not self._has_compare_tables():
            return None
        row = self.query(
            "SELECT COALESCE(SUM(seconds), 0), COALESCE(SUM(cases), 0), COALESCE(SUM(new_calls), 0), "
            "COALESCE(SUM(call_latency), 0), COALESCE(MAX(concurrency), 0), COUNT(*) FROM compare_runs "
            "WHERE name=? AND method=? AND model=? AND new_calls > 0",
            (name, method, model),
        )[0]
        if not row[5]:
            return None
        return RunCost(float(row[0]), int(row[1]), int(row[2]), float(row[3]), int(row[4]))

    def new_call_latency(self, model: str, start: float) -> tuple[int, float]:
        """(calls first cached since ``start`` for ``model``, their summed latency): what a run
        that started then made the model do, call by call."""
        row = self.query(
            "SELECT COUNT(*), COALESCE(SUM(latency), 0) FROM llm_calls WHERE model=? AND created_at >= ?",
            (model, start),
        )[0]
        return int(row[0]), float(row[1])
