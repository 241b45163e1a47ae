"""The connection, its transactions and the workspace's key/value meta table.

One connection per Store, guarded by a re-entrant lock so that the LLM layer's
worker threads and the event loop can share it. Transactions nest: an inner
``with store.transaction()`` joins the outer one, so that a caller can make
several typed store calls atomic (a vote's check, insert and decision) without
ever touching SQL itself. WAL mode lets several processes read while one
writes; writers wait on each other through SQLite's busy timeout instead of
failing. A meta flag marks a collection load under way, so that a load killed
half-way is told from a complete one (:meth:`StoreCore.begin_load`).
"""
from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from qrelkit.errors import InputError, StorageError, UsageError
from qrelkit.store.faults import storage_error
from qrelkit.store.schema import DB_NAME, MIGRATIONS, SCHEMA_VERSION, split_sql

LOADING = "loading"  # the meta key that marks a load under way
INTERRUPTED_LOAD = "loading interrupted: run init again"
BULK_CACHE_KIB = 16384  # page cache while bulk loading (SQLite's default is 2,000 KiB)
WAL_AUTOCHECKPOINT = 1000  # pages (SQLite's default): restored after :meth:`StoreCore.checkpoints_aside`
CHECKPOINT_SECONDS = 0.5
RESTART_PAGES = 4096  # 16 MB of log at most (4 KB pages) before it is started again
log = logging.getLogger(__name__)


def _open_read_only(ws: Path, refused: sqlite3.Error) -> sqlite3.Connection:
    """A read-only connection for a workspace that cannot be written (read-only commands work).

    A WAL database needs its ``-shm`` file to be read; in a folder nobody may write, SQLite
    cannot make one, so the last resort is ``immutable=1`` (no locking, no log: right for a
    read-only mount, where no one can change the file while it is read). A connection that
    cannot even read leaves as the :class:`StorageError` of the first refusal."""
    uri = (ws / DB_NAME).resolve().as_uri()
    for mode in ("?mode=ro", "?mode=ro&immutable=1"):
        conn = None
        try:
            conn = sqlite3.connect(uri + mode, uri=True, timeout=60.0, isolation_level=None,
                                   check_same_thread=False)
            conn.execute("PRAGMA user_version").fetchone()
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.Error:
            if conn is not None:
                conn.close()
    raise storage_error(refused, ws) or refused


def now() -> float:
    return time.time()


def placeholders(n: int) -> str:
    """``?,?,?`` for an ``IN (...)`` list of ``n`` values."""
    return ",".join("?" * n)


class StoreCore:
    """Opening, migrating, transactions and meta; every other concern is a mixin on top."""

    def __init__(self, workspace: Path, conn: sqlite3.Connection):
        self.workspace = Path(workspace)
        self.path = self.workspace / DB_NAME
        self._conn = conn
        self._lock = threading.RLock()
        self._depth = 0  # open transactions on this connection (only the lock holder changes it)
        self._pending_calls: dict[str, tuple] = {}  # LLM answers not yet written (store.llm_calls)
        self.write_failed: Optional[StorageError] = None  # the first write the disk refused (store.faults)
        self.read_only = False  # opened read-only: the folder may not be written (see _open_read_only)

    # ---- opening -----------------------------------------------------------
    @classmethod
    def create(cls, workspace: Path | str):
        """Open a workspace, creating the folder and database when needed."""
        ws = Path(workspace)
        try:
            ws.mkdir(parents=True, exist_ok=True)
        except OSError as e:  # a file in the way, no permission
            raise InputError(ws, None, f"cannot create the workspace folder: {e.strerror or e}") from None
        return cls._connect(ws)

    @classmethod
    def open(cls, workspace: Path | str, loading_ok: bool = False):
        """Open an existing workspace; a missing one is a user error, and so is one whose
        collection is not completely loaded (see :meth:`load_state`) unless ``loading_ok``
        (`status`, which says so)."""
        ws = Path(workspace)
        if not (ws / DB_NAME).exists():
            raise UsageError(f"{ws}: not a qrelkit workspace (no {DB_NAME}); run `qrelkit init -w {ws} ...` first")
        store = cls._connect(ws)
        if not loading_ok:
            try:
                store.require_loaded()
            except BaseException:
                store.close()
                raise
        return store

    @classmethod
    def _connect(cls, ws: Path):
        read_only, conn = False, None
        try:
            conn = sqlite3.connect(ws / DB_NAME, timeout=60.0, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
        except sqlite3.DatabaseError as e:  # not a database, a folder, unreadable: the user's file, not a bug
            if conn is not None:
                conn.close()
            if storage_error(e, ws) is None:
                raise InputError(ws / DB_NAME, None, f"cannot open the workspace database: {e}") from None
            conn, read_only = _open_read_only(ws, e), True  # a read-only mount, a folder this user may not write
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=60000")
        conn.execute("PRAGMA foreign_keys=ON")
        store = cls(ws, conn)
        store.read_only = read_only
        store._migrate()
        return store

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _migrate(self) -> None:
        if self.query("PRAGMA user_version")[0][0] == SCHEMA_VERSION:
            return  # nothing to write (a read-only workspace opens too)
        with self.transaction() as c:
            version = c.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise UsageError(
                    f"{self.path}: workspace schema v{version} is newer than this qrelkit (v{SCHEMA_VERSION}); upgrade qrelkit"
                )
            for i in range(version, SCHEMA_VERSION):
                for stmt in split_sql(MIGRATIONS[i]):
                    c.execute(stmt)
                c.execute(f"PRAGMA user_version={i + 1}")

    @property
    def schema_version(self) -> int:
        return self.query("PRAGMA user_version")[0][0]

    # ---- transactions and raw access (for the mixins and for tests) -------
    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT: the write lock is taken up front so that
        concurrent writers queue instead of deadlocking on lock upgrades. A
        nested call joins the open transaction (its caller commits or rolls back)."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            with self._faults():
                self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self._conn
            except BaseException as e:
                self._depth = 0
                if self._conn.in_transaction:  # SQLite ends it itself after some failures (a full disk)
                    self._conn.execute("ROLLBACK")
                err = self._fault(e)
                if err is None:
                    raise
                raise err from None
            else:
                self._depth = 0
                with self._faults():
                    try:
                        self._conn.execute("COMMIT")
                    except BaseException:
                        if self._conn.in_transaction:
                            self._conn.execute("ROLLBACK")
                        raise

    def _fault(self, e: BaseException):
        """``e`` as a :class:`qrelkit.errors.StorageError` when the disk or folder caused it (the
        first one is kept in ``write_failed``: a judging client makes no call after it), else None."""
        err = storage_error(e, self.workspace)
        if err is not None and self.write_failed is None:
            self.write_failed = err
        return err

    @contextmanager
    def _faults(self) -> Iterator[None]:
        try:
            yield
        except (OSError, sqlite3.Error) as e:
            err = self._fault(e)
            if err is None:
                raise
            raise err from None

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """A larger page cache and no syncing while a large table loads (a corpus of 10^6
        documents): inserts in random key order touch B-tree pages all over the table, and
        each commit of a batch would otherwise wait for the disk. An application crash cannot
        corrupt a WAL database with ``synchronous=OFF``; the settings are restored after."""
        with self._lock:
            self._conn.execute(f"PRAGMA cache_size={-BULK_CACHE_KIB}")
            self._conn.execute("PRAGMA synchronous=OFF")
            try:
                yield
            finally:
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._conn.execute("PRAGMA cache_size=-2000")  # SQLite's default

    @contextmanager
    def checkpoints_aside(self, every: float = CHECKPOINT_SECONDS, restart_pages: int = RESTART_PAGES) -> Iterator[None]:
        """While a judging run writes a call or a verdict group every few milliseconds: WAL
        checkpoints on a thread of their own instead of inside those commits.

        Why: a commit in WAL mode (``synchronous=NORMAL``) only appends to the log, but every
        1,000 pages SQLite checkpoints inside the committing call, copying the log into the
        database and syncing it to disk — 20 to 50 ms on this machine's disk, every quarter of a
        second at 300 calls/s, with the event loop (and every call in flight) stopped. Here a
        second connection copies the log every ``every`` seconds while the run goes on (PASSIVE:
        it never blocks a writer, and it syncs as SQLite's own would). The log only starts again
        from its beginning when a commit finds all of it copied, which a run writing all the time
        never gives; so once it holds ``restart_pages`` pages, the few pages written during the
        copy are copied once more under the store's lock (a brief pause, every few seconds).
        Commits are exactly as durable as before: every one is in the log, in the operating
        system's hands, when it returns."""
        with self._lock:
            self._conn.execute("PRAGMA wal_autocheckpoint=0")
        stop = threading.Event()

        def run() -> None:
            conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=False)
            try:
                while not stop.wait(every):
                    _, pages, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    if pages >= restart_pages:
                        with self._lock:
                            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as e:  # nothing is lost: the log grows until the run ends, then checkpoints
                if self._fault(e) is None:  # a full disk is kept in write_failed: the run stops with one line
                    log.warning("background checkpoints stopped (%s); the log is checkpointed when the run ends", e)
            finally:
                conn.close()

        thread = threading.Thread(target=run, daemon=True, name="qrelkit-checkpoint")
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
            with self._lock:
                self._conn.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT}")

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, tuple(params)).fetchall()

    def iter_query(self, sql: str, params: Iterable[Any] = (), chunk: int = 5000) -> Iterator[tuple]:
        """Rows streamed from one cursor, ``chunk`` at a time: for reads too
        large to hold at once (exporting 10^6 labels). Do not write to the
        store while iterating."""
        with self._lock:
            cur = self._conn.execute(sql, tuple(params))
        while True:
            with self._lock:
                rows = cur.fetchmany(chunk)
            if not rows:
                return
            yield from rows

    def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """One write statement in its own (or the open) transaction; returns rows changed."""
        with self.transaction() as c:
            return c.execute(sql, tuple(params)).rowcount

    def scalar(self, sql: str, params: Iterable[Any] = ()) -> Any:
        """The first column of the first row (a COUNT, a MAX), None when there is no row."""
        rows = self.query(sql, params)
        return rows[0][0] if rows else None

    # ---- meta --------------------------------------------------------------
    def get_meta(self, key: str, default: Any = None) -> Any:
        rows = self.query("SELECT value FROM meta WHERE key=?", (key,))
        return json.loads(rows[0][0]) if rows else default

    def set_meta(self, key: str, value: Any) -> None:
        self.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, json.dumps(value, sort_keys=True)),
        )

    # ---- the collection's load ---------------------------------------------
    def begin_load(self) -> None:
        """Mark the collection as being loaded, before the load's first write. Documents
        commit in batches, so a load killed half-way (SIGKILL, a lost machine) used to leave a
        partial corpus that every later command took for the whole one; the mark
        stays until :meth:`finish_load` and makes them refuse."""
        from qrelkit.store.commands import this_process

        self.set_meta(LOADING, {"process": this_process(), "started_at": now()})

    def finish_load(self, inputs: Any) -> None:
        """Record what was loaded (``inputs`` meta) and clear the mark, in one transaction."""
        with self.transaction():
            self.set_meta("inputs", inputs)
            self.execute("DELETE FROM meta WHERE key=?", (LOADING,))

    def load_state(self) -> str:
        """``complete``, ``loading`` (a live process is loading) or ``interrupted``."""
        from qrelkit.store.commands import process_alive

        mark = self.get_meta(LOADING)
        if mark is None:
            return "complete"
        alive = process_alive(mark.get("process"), mark.get("started_at", 0.0))
        return "loading" if alive else "interrupted"

    def load_message(self) -> Optional[str]:
        """What `status` and a refused command say about an unfinished load (None when complete)."""
        state = self.load_state()
        if state == "complete":
            return None
        if state == "loading":
            process = self.get_meta(LOADING).get("process") or {}
            return (f"loading in progress (process {process.get('pid')} on {process.get('host')}): "
                    "wait for `qrelkit init` to finish")
        return INTERRUPTED_LOAD

    def require_loaded(self) -> None:
        """A :class:`UsageError` unless the collection is completely loaded."""
        message = self.load_message()
        if message is not None:
            raise UsageError(f"{self.workspace}: {message}")
