"""Pooling inside the store: the runs' top lists in a temporary table, grouped by SQL.

Pooling in Python holds every pooled pair (its best rank and the runs that
retrieved it) and every run's top list at once: 1,013 MB at 10^6 pooled pairs
(benchmarks/scale.py). Here each run's top ``depth`` is appended to a temporary
table as it is read (one run in memory at a time), an index on (qid, docid)
orders it, and the pool is read back a page of pairs at a time, grouped in SQL
(best rank, the runs as indices, whether the original qrels label it), so memory
stays flat. Pairs outside the workspace's topics are left out, as
:func:`qrelkit.pooling.pool.build_pool` leaves them out.
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Iterable, Iterator

if TYPE_CHECKING:
    from qrelkit.store import Store

_names = itertools.count(1)


class PoolTable:
    """The runs' top lists of one `pool` command (make it with :meth:`PoolingStore.pool_table`)."""

    def __init__(self, store: Store, table: str):
        self.store, self.table = store, table

    def add_run(self, run: int, rows: Iterable[tuple[str, str, int]]) -> None:
        """Run number ``run``'s ``(qid, docid, rank)`` rows (its top ``depth`` per topic)."""
        with self.store.transaction() as c:
            c.executemany(f"INSERT INTO temp.{self.table}(run, qid, docid, rank) VALUES({int(run)},?,?,?)", rows)

    def index(self) -> None:
        """Order the rows by pair once, after the last run (one sort instead of a B-tree kept up)."""
        self.store.execute(f"CREATE INDEX temp.{self.table}_pair ON {self.table}(qid, docid, rank, run)")

    def pages(self, page: int = 20000) -> Iterator[list[tuple[str, str, int, str, int]]]:
        """``(qid, docid, best rank, runs as "i,j,...", labelled)`` of every pooled pair of the
        workspace's topics, in (qid, docid) order, ``page`` pairs at a time (keyset on the pair)."""
        after: tuple[str, str] = ("", "")
        while True:
            rows = self.store.query(
                f"SELECT t.qid, t.docid, MIN(t.rank), group_concat(DISTINCT t.run), EXISTS (SELECT 1 FROM qrels q "
                f"WHERE q.qid=t.qid AND q.docid=t.docid) FROM temp.{self.table} t "
                "WHERE (t.qid, t.docid) > (?, ?) AND t.qid IN (SELECT qid FROM topics) "
                "GROUP BY t.qid, t.docid ORDER BY t.qid, t.docid LIMIT ?",
                (*after, page),
            )
            if not rows:
                return
            after = (rows[-1][0], rows[-1][1])
            yield rows

    def remove_stale_cases(self) -> int:
        """Drop the workspace's cases this pool no longer holds; returns how many went."""
        return self.store.execute(
            f"DELETE FROM cases WHERE NOT EXISTS (SELECT 1 FROM temp.{self.table} t WHERE t.qid=cases.qid "
            "AND t.docid=cases.docid) OR qid NOT IN (SELECT qid FROM topics)"
        )

    def drop(self) -> None:
        self.store.execute(f"DROP TABLE IF EXISTS temp.{self.table}")


class PoolingStore:
    """Pooling in SQL (mixin of :class:`qrelkit.store.Store`)."""

    def pool_table(self) -> PoolTable:
        table = f"run_tops_{next(_names)}"
        self.execute(
            f"CREATE TEMP TABLE {table} (run INTEGER NOT NULL, qid TEXT NOT NULL, docid TEXT NOT NULL, "
            "rank INTEGER NOT NULL)"
        )
        return PoolTable(self, table)
