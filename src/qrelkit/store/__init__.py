"""The workspace store: one SQLite database per workspace folder.

Every stage reads from and writes to this store, so any command can be stopped
and re-run: finished work is never redone and never paid for twice. Writes are
idempotent upserts keyed by natural keys ((qid, docid), (qid, docid, method,
model), the LLM cache key), so re-running a command converges to the same
state. WAL mode lets several processes read while one writes; writers wait on
each other through SQLite's busy timeout instead of failing.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from qrelkit.errors import UsageError
from qrelkit.store import rag as _rag
from qrelkit.store.rag import RagStore
from qrelkit.types import Case, Doc, Judgment, Qrel, Topic

DB_NAME = "qrelkit.sqlite"

# Each entry migrates the schema from version i to i+1. Never edit a released
# entry: append a new one, so that old workspaces upgrade in place.
MIGRATIONS: list[str] = [
    # 1: the core tables
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE topics (
        qid TEXT PRIMARY KEY, text TEXT NOT NULL, answers TEXT NOT NULL DEFAULT '[]',
        narrative TEXT, description TEXT);
    CREATE TABLE docs (docid TEXT PRIMARY KEY, text TEXT NOT NULL, title TEXT);
    CREATE TABLE qrels (
        qid TEXT NOT NULL, docid TEXT NOT NULL, grade INTEGER NOT NULL,
        source TEXT NOT NULL DEFAULT 'original', PRIMARY KEY (qid, docid));
    CREATE TABLE runs (name TEXT PRIMARY KEY, path TEXT NOT NULL, meta TEXT NOT NULL DEFAULT '{}');
    CREATE TABLE cases (
        qid TEXT NOT NULL, docid TEXT NOT NULL, share TEXT NOT NULL, best_rank INTEGER NOT NULL,
        runs TEXT NOT NULL, judged INTEGER NOT NULL, PRIMARY KEY (qid, docid));
    CREATE TABLE judgments (
        qid TEXT NOT NULL, docid TEXT NOT NULL, method TEXT NOT NULL, model TEXT NOT NULL,
        label INTEGER, grade INTEGER, status TEXT NOT NULL, source TEXT NOT NULL,
        round INTEGER NOT NULL DEFAULT 0, rationale TEXT NOT NULL DEFAULT '',
        evidence TEXT NOT NULL DEFAULT '[]', provenance TEXT NOT NULL DEFAULT '{}',
        calls INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0,
        created_at REAL NOT NULL, updated_at REAL NOT NULL,
        PRIMARY KEY (qid, docid, method, model));
    CREATE INDEX judgments_status ON judgments (status);
    CREATE TABLE llm_calls (
        key TEXT PRIMARY KEY, model TEXT NOT NULL, request TEXT NOT NULL, response TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,
        latency REAL NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0, created_at REAL NOT NULL);
    CREATE TABLE command_runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT, command TEXT NOT NULL, args TEXT NOT NULL DEFAULT '{}',
        started_at REAL NOT NULL, finished_at REAL, status TEXT NOT NULL DEFAULT 'running',
        totals TEXT NOT NULL DEFAULT '{}');
    CREATE TABLE narratives (
        qid TEXT PRIMARY KEY, narrative TEXT NOT NULL, instructions TEXT NOT NULL DEFAULT '',
        variant TEXT NOT NULL DEFAULT 'all', model TEXT NOT NULL DEFAULT '',
        edited INTEGER NOT NULL DEFAULT 0, provenance TEXT NOT NULL DEFAULT '{}',
        updated_at REAL NOT NULL);
    CREATE TABLE annot_users (
        id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE,
        is_admin INTEGER NOT NULL DEFAULT 0, token_hash TEXT, revoked INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL);
    CREATE TABLE annot_sessions (
        id_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES annot_users(id),
        csrf TEXT NOT NULL, created_at REAL NOT NULL, expires_at REAL NOT NULL);
    CREATE TABLE annot_tasks (
        qid TEXT NOT NULL, docid TEXT NOT NULL, kind TEXT NOT NULL, priority INTEGER NOT NULL,
        votes_needed INTEGER NOT NULL, expected_grade INTEGER, decided INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL, PRIMARY KEY (qid, docid));
    CREATE TABLE annot_votes (
        id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INTEGER NOT NULL REFERENCES annot_users(id),
        qid TEXT NOT NULL, docid TEXT NOT NULL, grade INTEGER NOT NULL, comment TEXT NOT NULL DEFAULT '',
        seconds REAL NOT NULL DEFAULT 0, history_shown INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL, UNIQUE (user_id, qid, docid));
    """,
    # 2 (annotate): short leases spread concurrent annotators over cases; skips
    # send a case to the back of one session's queue
    """
    CREATE TABLE annot_leases (
        user_id INTEGER NOT NULL, qid TEXT NOT NULL, docid TEXT NOT NULL,
        served_at REAL NOT NULL, expires_at REAL NOT NULL, PRIMARY KEY (user_id, qid, docid));
    CREATE INDEX annot_leases_case ON annot_leases (qid, docid);
    CREATE TABLE annot_skips (
        session_hash TEXT NOT NULL, qid TEXT NOT NULL, docid TEXT NOT NULL,
        skipped_at REAL NOT NULL, PRIMARY KEY (session_hash, qid, docid));
    CREATE INDEX annot_votes_case ON annot_votes (qid, docid);
    """,
    # 3 (rag): generated answers and their correctness grades
    _rag.MIGRATION,
]

SCHEMA_VERSION = len(MIGRATIONS)


def _now() -> float:
    return time.time()


class Store(RagStore):
    """A handle on one workspace's database.

    One connection per Store, guarded by a lock so that the LLM layer's worker
    threads and the event loop can share it. Open one Store per process.
    """

    def __init__(self, workspace: Path, conn: sqlite3.Connection):
        self.workspace = Path(workspace)
        self.path = self.workspace / DB_NAME
        self._conn = conn
        self._lock = threading.RLock()

    # ---- opening -----------------------------------------------------------
    @classmethod
    def create(cls, workspace: Path | str) -> "Store":
        """Open a workspace, creating the folder and database when needed."""
        ws = Path(workspace)
        ws.mkdir(parents=True, exist_ok=True)
        return cls._connect(ws)

    @classmethod
    def open(cls, workspace: Path | str) -> "Store":
        """Open an existing workspace; a missing one is a user error."""
        ws = Path(workspace)
        if not (ws / DB_NAME).exists():
            raise UsageError(f"{ws}: not a qrelkit workspace (no {DB_NAME}); run `qrelkit init -w {ws} ...` first")
        return cls._connect(ws)

    @classmethod
    def _connect(cls, ws: Path) -> "Store":
        conn = sqlite3.connect(ws / DB_NAME, timeout=60.0, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=60000")
        conn.execute("PRAGMA foreign_keys=ON")
        store = cls(ws, conn)
        store._migrate()
        return store

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _migrate(self) -> None:
        with self.transaction() as c:
            version = c.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise UsageError(
                    f"{self.path}: workspace schema v{version} is newer than this qrelkit (v{SCHEMA_VERSION}); upgrade qrelkit"
                )
            for i in range(version, SCHEMA_VERSION):
                for stmt in _split_sql(MIGRATIONS[i]):
                    c.execute(stmt)
                c.execute(f"PRAGMA user_version={i + 1}")

    @property
    def schema_version(self) -> int:
        return self.query("PRAGMA user_version")[0][0]

    # ---- transactions and raw access --------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT: the write lock is taken up front so that
        concurrent writers queue instead of deadlocking on lock upgrades."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, tuple(params)).fetchall()

    def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """One write statement in its own transaction; returns rows changed."""
        with self.transaction() as c:
            return c.execute(sql, tuple(params)).rowcount

    # ---- meta --------------------------------------------------------------
    def get_meta(self, key: str, default: Any = None) -> Any:
        rows = self.query("SELECT value FROM meta WHERE key=?", (key,))
        return json.loads(rows[0][0]) if rows else default

    def set_meta(self, key: str, value: Any) -> None:
        self.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, json.dumps(value, sort_keys=True)),
        )

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
            r[0]: Topic(r[0], r[1], tuple(json.loads(r[2])), r[3], r[4])
            for r in self.query("SELECT qid, text, answers, narrative, description FROM topics ORDER BY qid")
        }

    # ---- docs --------------------------------------------------------------
    def upsert_docs(self, docs: Iterable[Doc], batch: int = 5000) -> int:
        """Stream docs into the database in batches (memory stays flat for
        collections far larger than memory)."""
        n = 0
        buf: list[tuple] = []
        sql = (
            "INSERT INTO docs(docid, text, title) VALUES(?,?,?) "
            "ON CONFLICT(docid) DO UPDATE SET text=excluded.text, title=excluded.title"
        )
        for d in docs:
            buf.append((d.docid, d.text, d.title))
            if len(buf) >= batch:
                with self.transaction() as c:
                    c.executemany(sql, buf)
                n += len(buf)
                buf.clear()
        if buf:
            with self.transaction() as c:
                c.executemany(sql, buf)
            n += len(buf)
        return n

    def doc(self, docid: str) -> Optional[Doc]:
        rows = self.query("SELECT docid, text, title FROM docs WHERE docid=?", (docid,))
        return Doc(*rows[0]) if rows else None

    def doc_count(self) -> int:
        return self.query("SELECT COUNT(*) FROM docs")[0][0]

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

    def qrels(self) -> dict[tuple[str, str], int]:
        return {(q, d): g for q, d, g in self.query("SELECT qid, docid, grade FROM qrels")}

    # ---- runs --------------------------------------------------------------
    def upsert_run(self, name: str, path: str, meta: Optional[dict] = None) -> None:
        self.execute(
            "INSERT INTO runs(name, path, meta) VALUES(?,?,?) "
            "ON CONFLICT(name) DO UPDATE SET path=excluded.path, meta=excluded.meta",
            (name, str(path), json.dumps(meta or {}, sort_keys=True)),
        )

    def runs(self) -> list[tuple[str, str, dict]]:
        return [(n, p, json.loads(m)) for n, p, m in self.query("SELECT name, path, meta FROM runs ORDER BY name")]

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
        sql = "SELECT qid, docid, share, best_rank, runs, judged FROM cases WHERE 1=1"
        params: list[Any] = []
        if share is not None:
            sql += " AND share=?"
            params.append(share)
        if judged is not None:
            sql += " AND judged=?"
            params.append(int(judged))
        sql += " ORDER BY qid, best_rank, docid"
        return [Case(q, d, s, r, tuple(json.loads(runs)), bool(j)) for q, d, s, r, runs, j in self.query(sql, params)]

    # ---- judgments ---------------------------------------------------------
    _JCOLS = (
        "qid, docid, method, model, label, grade, status, source, round, rationale, evidence, "
        "provenance, calls, prompt_tokens, completion_tokens, cost_usd"
    )

    def put_judgments(self, judgments: Iterable[Judgment]) -> int:
        """Upsert by (qid, docid, method, model): re-judging replaces, never duplicates."""
        now = _now()
        rows = [
            (
                j.qid, j.docid, j.method, j.model, j.label, j.grade, j.status, j.source, j.round,
                j.rationale, json.dumps(list(j.evidence)), j.provenance, j.calls, j.prompt_tokens,
                j.completion_tokens, j.cost_usd, now, now,
            )
            for j in judgments
        ]
        with self.transaction() as c:
            c.executemany(
                f"INSERT INTO judgments({self._JCOLS}, created_at, updated_at) "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT(qid, docid, method, model) DO UPDATE SET label=excluded.label, "
                "grade=excluded.grade, status=excluded.status, source=excluded.source, round=excluded.round, "
                "rationale=excluded.rationale, evidence=excluded.evidence, provenance=excluded.provenance, "
                "calls=excluded.calls, prompt_tokens=excluded.prompt_tokens, "
                "completion_tokens=excluded.completion_tokens, cost_usd=excluded.cost_usd, "
                "updated_at=excluded.updated_at",
                rows,
            )
        return len(rows)

    def judgments(
        self,
        method: Optional[str] = None,
        model: Optional[str] = None,
        status: Optional[str] = None,
        source: Optional[str] = None,
    ) -> list[Judgment]:
        sql = f"SELECT {self._JCOLS} FROM judgments WHERE 1=1"
        params: list[Any] = []
        for col, val in (("method", method), ("model", model), ("status", status), ("source", source)):
            if val is not None:
                sql += f" AND {col}=?"
                params.append(val)
        sql += " ORDER BY qid, docid, method, model"
        return [_judgment_row(r) for r in self.query(sql, params)]

    def judged_pairs(self, method: str, model: str) -> set[tuple[str, str]]:
        """Pairs this (method, model) has finished (anything but an error, which is retried)."""
        return {
            (q, d)
            for q, d in self.query(
                "SELECT qid, docid FROM judgments WHERE method=? AND model=? AND status != 'error'",
                (method, model),
            )
        }

    # ---- LLM call cache ----------------------------------------------------
    def cache_get(self, key: str) -> Optional[dict]:
        rows = self.query("SELECT response FROM llm_calls WHERE key=?", (key,))
        return json.loads(rows[0][0]) if rows else None

    def cache_put(
        self,
        key: str,
        model: str,
        request: dict,
        response: dict,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        latency: float = 0.0,
        cost_usd: float = 0.0,
    ) -> None:
        self.execute(
            "INSERT INTO llm_calls(key, model, request, response, prompt_tokens, completion_tokens, latency, "
            "cost_usd, created_at) VALUES(?,?,?,?,?,?,?,?,?) ON CONFLICT(key) DO UPDATE SET "
            "response=excluded.response, prompt_tokens=excluded.prompt_tokens, "
            "completion_tokens=excluded.completion_tokens, latency=excluded.latency, cost_usd=excluded.cost_usd",
            (
                key, model, json.dumps(request, sort_keys=True), json.dumps(response, sort_keys=True),
                prompt_tokens, completion_tokens, latency, cost_usd, _now(),
            ),
        )

    # ---- command run records ----------------------------------------------
    def start_command(self, command: str, args: dict) -> int:
        with self.transaction() as c:
            cur = c.execute(
                "INSERT INTO command_runs(command, args, started_at) VALUES(?,?,?)",
                (command, json.dumps(args, sort_keys=True, default=str), _now()),
            )
            return int(cur.lastrowid)

    def finish_command(self, run_id: int, totals: dict, status: str = "done") -> None:
        self.execute(
            "UPDATE command_runs SET finished_at=?, status=?, totals=? WHERE id=?",
            (_now(), status, json.dumps(totals, sort_keys=True, default=str), run_id),
        )

    def command_runs(self, command: Optional[str] = None) -> list[dict]:
        sql = "SELECT id, command, args, started_at, finished_at, status, totals FROM command_runs"
        params: tuple = ()
        if command:
            sql += " WHERE command=?"
            params = (command,)
        sql += " ORDER BY id"
        return [
            {
                "id": i, "command": c, "args": json.loads(a), "started_at": s, "finished_at": f,
                "status": st, "totals": json.loads(t),
            }
            for i, c, a, s, f, st, t in self.query(sql, params)
        ]

    # ---- narratives ----------------------------------------------------------
    def put_narrative(
        self, qid: str, narrative: str, instructions: str = "", variant: str = "all", model: str = "",
        edited: bool = False, provenance: Optional[dict] = None,
    ) -> None:
        self.execute(
            "INSERT INTO narratives(qid, narrative, instructions, variant, model, edited, provenance, updated_at) "
            "VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(qid) DO UPDATE SET narrative=excluded.narrative, "
            "instructions=excluded.instructions, variant=excluded.variant, model=excluded.model, "
            "edited=excluded.edited, provenance=excluded.provenance, updated_at=excluded.updated_at",
            (qid, narrative, instructions, variant, model, int(edited), json.dumps(provenance or {}), _now()),
        )

    def narratives(self) -> dict[str, dict]:
        return {
            q: {"narrative": n, "instructions": i, "variant": v, "model": m, "edited": bool(e),
                "provenance": json.loads(p)}
            for q, n, i, v, m, e, p in self.query(
                "SELECT qid, narrative, instructions, variant, model, edited, provenance FROM narratives ORDER BY qid"
            )
        }


def _judgment_row(r: tuple) -> Judgment:
    (qid, docid, method, model, label, grade, status, source, rnd, rationale, evidence, prov, calls, pt, ct,
     cost) = r
    return Judgment(
        qid, docid, method, model, label, grade, status, source, rnd, rationale,
        tuple(json.loads(evidence)), prov, calls, pt, ct, cost,
    )


def _split_sql(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
