"""A judging run's selection as a temporary table: paged, counted and joined in SQL.

A run covers up to 10^6 cases. Holding them (and the set of pairs already
done, and the judgments to summarise) as Python objects made ``judge``'s memory
grow with the pair count (44 MB at 10^4 pairs, 180 MB at 10^5:
benchmarks/scale.py). Instead the selection is copied once into a temporary
table of this connection, in the selection's order (its rowid), and

- the pending cases are read a page at a time by keyset pagination on that
  rowid (``pending_pages``): a page is a fresh query, so no cursor stays open
  while verdicts are written, and a case judged (or failed) during the run is
  behind the cursor and never served twice;
- the summary's counts are one aggregate query over the selection joined with
  the judgments on their primary key (``counts``);
- the budget and the oracle read only the selection's escalations.

SQLite keeps temporary tables in its own temp file with a bounded page cache,
so memory stays flat. Each selection gets its own table name, so two runs on one
Store (a job's steps) never share one; :meth:`Selection.drop` removes it.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional

from qrelkit.relevance import ADJUDICATED, DROPPED, ERROR, ESCALATE
from qrelkit.store.collection import CASE_COLS as _CASE_COLS
from qrelkit.store.collection import case_filters as _filters
from qrelkit.store.collection import case_row as _case_row
from qrelkit.store.judgments import _JCOLS, _judgment_row
from qrelkit.types import Case, Judgment

if TYPE_CHECKING:
    from qrelkit.store import Store

_names = itertools.count(1)
# "Waits for people" (:func:`qrelkit.store.waiting.wants_people`) in SQL: errors always;
# escalations unless the budget marked them ``for_people: false``; unreadable provenance: yes.
_FOR_PEOPLE = (
    f"(j.status = '{ERROR}' OR (j.status = '{ESCALATE}' AND (NOT json_valid(j.provenance) OR "
    "COALESCE(json_extract(j.provenance, '$.budget.for_people'), 1) != 0)))"
)

# an escalation the guard made carries a ``guard`` object in its provenance (qrelkit.judging.guarded)
_GUARDED = (
    f"CASE WHEN j.status = '{ESCALATE}' AND json_valid(j.provenance) "
    "THEN json_type(j.provenance, '$.guard') = 'object' ELSE 0 END"
)


@dataclass(frozen=True)
class SelectionCounts:
    """The outcome over a selection for one (method, model): what the run summary reports."""

    judged: int = 0  # with a label
    relevant: int = 0
    escalations: int = 0  # waiting for people
    errors: int = 0
    dropped: int = 0
    undecided: int = 0  # escalations the budget kept from people
    adjudicated: int = 0
    guarded: int = 0  # escalations the guard made (part of ``escalations``; qrelkit.judging.guarded)


class Selection:
    """One run's cases in a temporary table (make it with :meth:`SelectionStore.selection`)."""

    def __init__(self, store: Store, table: str, size: int):
        self.store, self.table, self.size = store, table, size

    def __len__(self) -> int:
        return self.size

    def cases(self) -> list[Case]:
        """Every case of the selection, in order (for judges that need the whole selection)."""
        rows = self.store.query(f"SELECT {_CASE_COLS} FROM temp.{self.table} ORDER BY rowid")
        return [_case_row(r) for r in rows]

    def _pending_sql(self) -> str:
        return (
            f"FROM temp.{self.table} s WHERE NOT EXISTS (SELECT 1 FROM judgments j WHERE j.qid=s.qid "
            f"AND j.docid=s.docid AND j.method=? AND j.model=? AND j.status != '{ERROR}')"
        )

    def pending_count(self, method: str, model: str) -> int:
        """Cases this (method, model) has not finished (an error verdict is retried)."""
        return self.store.scalar("SELECT COUNT(*) " + self._pending_sql(), (method, model))

    def pending_pages(self, method: str, model: str, page: int = 512) -> Iterator[list[Case]]:
        """The unfinished cases in selection order, ``page`` at a time (keyset on the rowid)."""
        after = 0
        while True:
            rows = self.store.query(
                f"SELECT s.rowid, {', '.join('s.' + c for c in _CASE_COLS.split(', '))} "
                + self._pending_sql() + " AND s.rowid > ? ORDER BY s.rowid LIMIT ?",
                (method, model, after, page),
            )
            if not rows:
                return
            after = rows[-1][0]
            yield [_case_row(r[1:]) for r in rows]

    def pending(self, method: str, model: str) -> Iterator[Case]:
        """:meth:`pending_pages`, one case at a time."""
        for rows in self.pending_pages(method, model):
            yield from rows

    def counts(self, method: str, model: str) -> SelectionCounts:
        """How the selection's judgments of (method, model) stand, in one aggregate query."""
        row = self.store.query(
            f"SELECT COUNT(j.label), COALESCE(SUM(j.label = 1), 0), COALESCE(SUM({_FOR_PEOPLE}), 0), "
            f"COALESCE(SUM(j.status = '{ERROR}'), 0), COALESCE(SUM(j.status = '{DROPPED}'), 0), "
            f"COALESCE(SUM(j.status = '{ESCALATE}' AND NOT {_FOR_PEOPLE}), 0), "
            f"COALESCE(SUM(j.status = '{ADJUDICATED}'), 0), COALESCE(SUM({_GUARDED}), 0) "
            f"FROM temp.{self.table} s JOIN judgments j ON j.qid=s.qid AND j.docid=s.docid "
            "AND j.method=? AND j.model=?",
            (method, model),
        )[0]
        return SelectionCounts(*(int(v) for v in row))

    def judgments(self, method: str, model: str, status: Optional[str] = None) -> list[Judgment]:
        """The selection's judgments of (method, model) (of one status), by qid and docid."""
        sql = (
            f"SELECT {', '.join('j.' + c for c in _JCOLS.split(', '))} FROM temp.{self.table} s "
            "JOIN judgments j ON j.qid=s.qid AND j.docid=s.docid AND j.method=? AND j.model=?"
        )
        params: list[Any] = [method, model]
        if status is not None:
            sql += " WHERE j.status=?"
            params.append(status)
        return [_judgment_row(r) for r in self.store.query(sql + " ORDER BY j.qid, j.docid", params)]

    def drop(self) -> None:
        self.store.execute(f"DROP TABLE IF EXISTS temp.{self.table}")


class SelectionStore:
    """Selections of cases for a judging run (mixin of :class:`qrelkit.store.Store`)."""

    def selection(
        self,
        share: Optional[str] = None,
        judged: Optional[bool] = None,
        limit: Optional[int] = None,
        cases: Optional[Iterable[Case]] = None,
        with_text: bool = False,
    ) -> Selection:
        """The pooled cases of ``share``/``judged`` in the order of :meth:`cases` (first ``limit``),
        or the given ``cases`` in their own order."""
        table = f"selection_{next(_names)}"
        with self.transaction() as c:
            c.execute(
                f"CREATE TEMP TABLE {table} (qid TEXT NOT NULL, docid TEXT NOT NULL, share TEXT NOT NULL, "
                "best_rank INTEGER NOT NULL, runs TEXT NOT NULL, judged INTEGER NOT NULL)"
            )
            if cases is not None:
                c.executemany(
                    f"INSERT INTO temp.{table}({_CASE_COLS}) VALUES(?,?,?,?,?,?)",
                    ((k.qid, k.docid, k.share, k.best_rank, json.dumps(list(k.runs)), int(k.judged)) for k in cases),
                )
            else:
                where, params = _filters(share, judged, with_text)
                c.execute(
                    f"INSERT INTO temp.{table}({_CASE_COLS}) SELECT {_CASE_COLS} FROM cases{where} "
                    "ORDER BY qid, best_rank, docid LIMIT ?",
                    (*params, -1 if limit is None else limit),
                )
            size = c.execute(f"SELECT COUNT(*) FROM temp.{table}").fetchone()[0]
        return Selection(self, table, size)

