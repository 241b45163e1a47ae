"""Stored audits (``qrelkit audit``) and the scratch workspace their probes are judged in.

An audit judges altered copies of labelled pairs. Those documents must never mix with the
collection's (they would enter the BM25 statistics, the pool, the exports), so they are judged in
a copy of the workspace, ``WS/audit/`` (:meth:`AuditStore.copy_into`: SQLite's backup, so the
copy has the collection, the labels, the pool, and the signal values and LLM answers cached so
far). The audit's result is kept here, in the workspace itself, for the report.

The table is created on first use (``CREATE TABLE IF NOT EXISTS``) rather than by a migration,
so that a workspace that never audits carries none of it.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from qrelkit.store.core import now
from qrelkit.store.schema import DB_NAME

_TABLE = ("CREATE TABLE IF NOT EXISTS audits (key TEXT PRIMARY KEY, method TEXT NOT NULL, model TEXT NOT NULL,"
          " result TEXT NOT NULL, created_at REAL NOT NULL)")


@dataclass(frozen=True)
class StoredAudit:
    """One audit as stored: its key (method, model, pairs, seed), and its result as ``--json`` prints it."""

    key: str
    method: str
    model: str
    result: dict


class AuditStore:
    """Audit results and the audit's scratch copy (mixin of :class:`qrelkit.store.Store`)."""

    def put_audit(self, key: str, method: str, model: str, result: dict) -> None:
        """Store (or replace) the audit ``key``."""
        self.execute(_TABLE)
        self.execute("INSERT INTO audits(key, method, model, result, created_at) VALUES(?,?,?,?,?) "
                     "ON CONFLICT(key) DO UPDATE SET result=excluded.result, created_at=excluded.created_at",
                     (key, method, model, json.dumps(result, sort_keys=True), now()))

    def audits(self) -> list[StoredAudit]:
        """Every stored audit, oldest first."""
        if not self.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name='audits'"):
            return []
        rows = self.query("SELECT key, method, model, result FROM audits ORDER BY created_at, key")
        return [StoredAudit(k, m, mo, json.loads(r)) for k, m, mo, r in rows]

    def copy_into(self, folder: Path) -> None:
        """This workspace's database copied whole into ``folder`` (created), as a consistent snapshot."""
        self.flush_calls()
        folder.mkdir(parents=True, exist_ok=True)
        target = sqlite3.connect(folder / DB_NAME)
        try:
            with self._lock:
                self._conn.backup(target)
        finally:
            target.close()
