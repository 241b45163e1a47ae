"""The collection in the workspace: topics, docs, original qrels, runs and pooled cases.

These are the inputs every later stage reads; writes are idempotent upserts
keyed by natural keys, so re-running `init` or `pool` converges to the same state.
"""
from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple, Optional, Sequence

from qrelkit.store.core import placeholders
from qrelkit.types import Case, Doc, Qrel, Topic

Pair = tuple[str, str]
CASE_COLS = "qid, docid, share, best_rank, runs, judged"
STAGE_CACHE_KIB = 16384  # the scratch qrels table's page cache, as bulk loading's (SQLite's default: 2,000 KiB)


class RunRecord(NamedTuple):
    """A run registered in the workspace (a tuple, so ``name, path, meta = r`` keeps working)."""

    name: str
    path: str
    meta: dict


def stored_path(workspace: Path, path: str) -> str:
    """A file path the workspace recorded, usable from any folder. Paths are stored absolute
    (:mod:`qrelkit.workspace`); one stored relative by an earlier version is found where it was
    (from the current folder) or beside the workspace (the usual ``-w ws --runs runs/``), and is
    otherwise made absolute against the current folder, so a message names the full path."""
    if Path(path).is_absolute() or path.startswith("irds:"):
        return path
    if Path(path).exists():
        return os.path.abspath(path)
    beside = Path(workspace).absolute().parent / path
    return str(beside) if beside.exists() else os.path.abspath(path)


@dataclass(frozen=True)
class Counts:
    """How much of each thing the workspace holds (``status`` prints these)."""

    topics: int
    docs: int
    qrels: int
    runs: int
    pooled: int  # cases in the pool
    holes: int  # pooled cases without an original label
    people_share: int  # holes people judge by design
    llm_share: int  # holes left to the judge


class CollectionStore:
    """Topics, docs, qrels, runs and cases (mixin of :class:`qrelkit.store.Store`)."""

    # ---- topics ------------------------------------------------------------
    def upsert_topics(self, topics: Iterable[Topic]) -> int:
        rows = [
            (t.qid, t.text, json.dumps(list(t.answers)), t.narrative, t.description) for t in topics
        ]
        with self.transaction() as c:
            c.executemany(
                "INSERT INTO topics(qid, text, answers, narrative, description) VALUES(?,?,?,?,?) "
                "ON CONFLICT(qid) DO UPDATE SET text=excluded.text, answers=excluded.answers, "
                "narrative=excluded.narrative, description=excluded.description",
                rows,
            )
        return len(rows)

    def topics(self) -> dict[str, Topic]:
        return {
            r[0]: _topic_row(r)
            for r in self.query("SELECT qid, text, answers, narrative, description FROM topics ORDER BY qid")
        }

    def topic(self, qid: str) -> Optional[Topic]:
        """One topic; answers that are not a JSON list read as none (an old or hand-edited row)."""
        rows = self.query("SELECT qid, text, answers, narrative, description FROM topics WHERE qid=?", (qid,))
        return _topic_row(rows[0]) if rows else None

    def topic_ids(self) -> set[str]:
        return {q for (q,) in self.query("SELECT qid FROM topics")}

    # ---- docs --------------------------------------------------------------
    def upsert_docs(self, docs: Iterable[Doc], batch: int = 20000) -> int:
        """Stream docs into the database in batches (memory stays flat for
        collections far larger than memory), under :meth:`bulk_load`: batches of
        20,000 and the bulk settings load 1.5x as fast as batches of 5,000."""
        n = 0
        sql = (
            "INSERT INTO docs(docid, text, title) VALUES(?,?,?) "
            "ON CONFLICT(docid) DO UPDATE SET text=excluded.text, title=excluded.title"
        )
        rows = ((d.docid, d.text, d.title) for d in docs)
        with self.bulk_load():
            while buf := list(itertools.islice(rows, batch)):
                with self.transaction() as c:
                    c.executemany(sql, buf)
                n += len(buf)
        return n

    def insert_docs_once(
        self, rows: Iterable[tuple[int, Doc]], conflict: Callable[[int, Doc], None], batch: int = 20000
    ) -> tuple[int, int]:
        """Load ``(line, doc)`` rows into an empty docs table, each id once; returns (documents,
        identical repeats dropped). The table's own key finds repeats: a batch whose every row
        went in (the usual case) costs no check at all, where a scratch table of the ids seen
        took 60% of loading a corpus (benchmarks/scale.py). In a batch with a repeat, each row
        is compared with the stored one, and ``conflict(line, doc)`` is told of a different
        document under a known id (it raises; the batch is rolled back)."""
        sql = "INSERT INTO docs(docid, text, title) VALUES(?,?,?) ON CONFLICT(docid) DO NOTHING"
        inserted = repeats = 0
        with self.bulk_load():
            while buf := list(itertools.islice(rows, batch)):
                with self.transaction() as c:
                    before = c.total_changes
                    c.executemany(sql, [(d.docid, d.text, d.title) for _, d in buf])
                    new = c.total_changes - before
                    for lineno, d in buf if new < len(buf) else ():
                        if c.execute("SELECT text, title FROM docs WHERE docid=?", (d.docid,)).fetchone() != (
                            d.text, d.title,
                        ):
                            conflict(lineno, d)
                inserted, repeats = inserted + new, repeats + len(buf) - new
        return inserted, repeats

    def has_docs(self) -> bool:
        return bool(self.query("SELECT 1 FROM docs LIMIT 1"))

    def doc(self, docid: str) -> Optional[Doc]:
        rows = self.query("SELECT docid, text, title FROM docs WHERE docid=?", (docid,))
        return Doc(*rows[0]) if rows else None

    def docs_by_id(self, docids: Sequence[str]) -> dict[str, Doc]:
        """The documents of ``docids`` that are here, by one query per 500 ids: a judging run reads a
        page of cases' documents at once instead of one query each (a third of the per-case reads)."""
        out: dict[str, Doc] = {}
        ids = list(dict.fromkeys(docids))
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            for row in self.query(f"SELECT docid, text, title FROM docs WHERE docid IN ({placeholders(len(chunk))})",
                                  chunk):
                out[row[0]] = Doc(*row)
        return out

    def has_doc(self, docid: str) -> bool:
        return bool(self.query("SELECT 1 FROM docs WHERE docid=?", (docid,)))

    def docids(self) -> set[str]:
        return {d for (d,) in self.query("SELECT docid FROM docs")}

    def cases_without_text(self, share: Optional[str] = None, judged: Optional[bool] = None) -> int:
        """Pooled cases (of a share / judged state) whose document has no text here: counted in
        SQL, because reading every docid of a million-document corpus into a set cost ~100 MB and
        most of `pool`'s time (benchmarks/scale.py). They are never judged (no text to judge)."""
        where, params = case_filters(share, judged)
        where = (where + " AND " if where else " WHERE ") + "NOT " + HAS_TEXT
        return self.scalar("SELECT COUNT(*) FROM cases" + where, params)

    def pairs_without_text(self, share: Optional[str] = None, judged: Optional[bool] = None) -> list[tuple[str, str]]:
        """The pooled pairs :meth:`cases_without_text` counts, by qid and docid."""
        where, params = case_filters(share, judged)
        where = (where + " AND " if where else " WHERE ") + "NOT " + HAS_TEXT
        return [(q, d) for q, d in self.query("SELECT qid, docid FROM cases" + where + " ORDER BY qid, docid",
                                              params)]

    def doc_count(self) -> int:
        return self.scalar("SELECT COUNT(*) FROM docs")

    # ---- original qrels ----------------------------------------------------
    def upsert_qrels(self, qrels: Iterable[Qrel], source: str = "original") -> int:
        rows = [(q.qid, q.docid, q.grade, source) for q in qrels]
        with self.transaction() as c:
            c.executemany(
                "INSERT INTO qrels(qid, docid, grade, source) VALUES(?,?,?,?) "
                "ON CONFLICT(qid, docid) DO UPDATE SET grade=excluded.grade, source=excluded.source",
                rows,
            )
        return len(rows)

    def stage_qrels(
        self, rows: Iterable[tuple[int, Qrel]], conflict: Callable[[int, Qrel, int, int], None], batch: int = 20000
    ) -> tuple[int, int]:
        """Check ``(line, label)`` rows into a scratch table of this connection (TEMP: in a
        temporary file, not in the workspace) and return (pairs, identical repeats dropped);
        :meth:`commit_staged_qrels` then copies them in. Holding a qrels file in dicts to find
        repeats cost ~150 MB of `init`'s 253 MB at 10^6 pooled pairs (benchmarks/scale.py);
        the table's key finds them instead, as for documents. ``conflict(line, label,
        first_line, first_grade)`` is told of a second, different grade for a pair (it raises).
        A bad line in the file is raised after the lines before it were checked, so the first
        problem in file order is the one reported, as :func:`qrelkit.data.load_qrels` reports it."""
        with self._lock:
            c = self._conn
            c.execute(f"PRAGMA temp.cache_size={-STAGE_CACHE_KIB}")
            c.execute("DROP TABLE IF EXISTS temp.qrels_staged")
            c.execute("CREATE TEMP TABLE qrels_staged (qid TEXT NOT NULL, docid TEXT NOT NULL, "
                      "grade INTEGER NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (qid, docid)) WITHOUT ROWID")
        staged = repeats = 0
        it = iter(rows)
        while True:
            buf, failure = [], None
            try:
                for item in it:
                    buf.append(item)
                    if len(buf) >= batch:
                        break
            except Exception as e:  # a bad line: the lines before it are checked first
                failure = e
            if buf:
                new = self._stage_batch(buf, conflict)
                staged, repeats = staged + new, repeats + len(buf) - new
            if failure is not None:
                raise failure
            if len(buf) < batch:
                return staged, repeats

    def _stage_batch(self, buf: list[tuple[int, Qrel]], conflict: Callable[[int, Qrel, int, int], None]) -> int:
        with self._lock:
            c = self._conn
            before = c.total_changes
            c.executemany("INSERT INTO temp.qrels_staged(qid, docid, grade, line) VALUES(?,?,?,?) "
                          "ON CONFLICT(qid, docid) DO NOTHING", [(q.qid, q.docid, q.grade, n) for n, q in buf])
            new = c.total_changes - before
            for lineno, q in buf if new < len(buf) else ():
                grade, first = c.execute("SELECT grade, line FROM temp.qrels_staged WHERE qid=? AND docid=?",
                                         (q.qid, q.docid)).fetchone()
                if first != lineno and grade != q.grade:
                    conflict(lineno, q, first, grade)
        return new

    def commit_staged_qrels(self, source: str = "original") -> int:
        """The staged labels (:meth:`stage_qrels`) upserted into the qrels, in one statement; the
        scratch table goes. Returns how many."""
        with self.transaction() as c:
            n = c.execute(
                "INSERT INTO qrels(qid, docid, grade, source) SELECT qid, docid, grade, ? FROM temp.qrels_staged "
                "WHERE true ON CONFLICT(qid, docid) DO UPDATE SET grade=excluded.grade, source=excluded.source",
                (source,),
            ).rowcount
        self.drop_staged_qrels()
        return n

    def drop_staged_qrels(self) -> None:
        with self._lock:
            self._conn.execute("DROP TABLE IF EXISTS temp.qrels_staged")

    def qrels(self) -> dict[Pair, int]:
        return {(q, d): g for q, d, g in self.query("SELECT qid, docid, grade FROM qrels")}

    def iter_qrels(self) -> Iterator[tuple[str, str, int]]:
        """``(qid, docid, grade)`` in (qid, docid) order, streamed (see :meth:`iter_query`)."""
        return self.iter_query("SELECT qid, docid, grade FROM qrels ORDER BY qid, docid")

    def max_qrel_grade(self) -> Optional[int]:
        """The largest grade of the qrels (None when there are none): tells binary from graded."""
        return self.scalar("SELECT MAX(grade) FROM qrels")

    # ---- runs --------------------------------------------------------------
    def upsert_run(self, name: str, path: str, meta: Optional[dict] = None) -> None:
        self.execute(
            "INSERT INTO runs(name, path, meta) VALUES(?,?,?) "
            "ON CONFLICT(name) DO UPDATE SET path=excluded.path, meta=excluded.meta",
            (name, str(path), json.dumps(meta or {}, sort_keys=True)),
        )

    def runs(self) -> list[RunRecord]:
        """The registered runs, each path as :func:`stored_path` finds it from here."""
        return [
            RunRecord(n, stored_path(self.workspace, p), json.loads(m))
            for n, p, m in self.query("SELECT name, path, meta FROM runs ORDER BY name")
        ]

    # ---- cases -------------------------------------------------------------
    def upsert_cases(self, cases: Iterable[Case]) -> tuple[int, int]:
        """Insert or refresh cases; returns (changed, unchanged) so that a
        re-run of `pool` can show that it changed nothing."""
        changed = unchanged = 0
        with self.transaction() as c:
            for case in cases:
                row = (case.share, case.best_rank, json.dumps(list(case.runs)), int(case.judged))
                old = c.execute(
                    "SELECT share, best_rank, runs, judged FROM cases WHERE qid=? AND docid=?",
                    (case.qid, case.docid),
                ).fetchone()
                if old == row:
                    unchanged += 1
                    continue
                c.execute(
                    "INSERT INTO cases(qid, docid, share, best_rank, runs, judged) VALUES(?,?,?,?,?,?) "
                    "ON CONFLICT(qid, docid) DO UPDATE SET share=excluded.share, best_rank=excluded.best_rank, "
                    "runs=excluded.runs, judged=excluded.judged",
                    (case.qid, case.docid, *row),
                )
                changed += 1
        return changed, unchanged

    def cases(self, share: Optional[str] = None, judged: Optional[bool] = None) -> list[Case]:
        where, params = case_filters(share, judged)
        return [case_row(r) for r in self.query(f"SELECT {CASE_COLS} FROM cases{where} ORDER BY qid, best_rank, docid", params)]

    def remove_cases_except(self, keep: set[Pair]) -> int:
        """Drop the cases a new pool no longer holds; returns how many went."""
        stale = [(q, d) for q, d in self.query("SELECT qid, docid FROM cases") if (q, d) not in keep]
        with self.transaction() as c:
            c.executemany("DELETE FROM cases WHERE qid=? AND docid=?", stale)
        return len(stale)

    def counts(self) -> Counts:
        one = self.scalar
        return Counts(
            topics=one("SELECT COUNT(*) FROM topics"),
            docs=one("SELECT COUNT(*) FROM docs"),
            qrels=one("SELECT COUNT(*) FROM qrels"),
            runs=one("SELECT COUNT(*) FROM runs"),
            pooled=one("SELECT COUNT(*) FROM cases"),
            holes=one("SELECT COUNT(*) FROM cases WHERE judged=0"),
            people_share=one("SELECT COUNT(*) FROM cases WHERE judged=0 AND share='people'"),
            llm_share=one("SELECT COUNT(*) FROM cases WHERE judged=0 AND share='llm'"),
        )


HAS_TEXT = "EXISTS (SELECT 1 FROM docs d WHERE d.docid = cases.docid)"


def case_filters(share: Optional[str], judged: Optional[bool], with_text: bool = False) -> tuple[str, tuple]:
    """The WHERE clause (and its parameters) of the cases of one share and judged state;
    ``with_text``: only cases whose document has text in the workspace."""
    conds, params = ([HAS_TEXT] if with_text else []), []
    if share is not None:
        conds.append("share=?")
        params.append(share)
    if judged is not None:
        conds.append("judged=?")
        params.append(int(judged))
    return (" WHERE " + " AND ".join(conds) if conds else ""), tuple(params)


def case_row(r: tuple) -> Case:
    q, d, s, rank, runs, j = r
    return Case(q, d, s, rank, tuple(json.loads(runs)), bool(j))


def _topic_row(r: tuple) -> Topic:
    qid, text, answers, narrative, description = r
    try:
        ans = tuple(json.loads(answers) or ())
    except (ValueError, TypeError):
        ans = ()
    return Topic(qid, text, ans, narrative, description)
