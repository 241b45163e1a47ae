"""The signal cache: one row per (signal, version, qid, docid), so a cheap signal is computed once.

A signal's version names everything its value depends on (the embedding model, the BM25
parameters and corpus size, the prompt template and LLM), so a changed input is a new key, never
a stale value. Values are a JSON list of floats (``null`` where the signal has no value).
"""
from __future__ import annotations

import json
from typing import Iterable, Optional, Sequence

from qrelkit.store.core import now, placeholders

Pair = tuple[str, str]
CHUNK = 500  # topics per lookup, under SQLite's parameter limit


class SignalStore:
    """Cached signal values (mixin of :class:`qrelkit.store.Store`)."""

    def signal_values(self, signal: str, version: str, pairs: Sequence[Pair]) -> dict[Pair, tuple]:
        """The cached values of ``pairs`` (missing pairs are absent)."""
        wanted = set(pairs)
        qids = sorted({q for q, _ in wanted})
        out: dict[Pair, tuple] = {}
        for i in range(0, len(qids), CHUNK):
            chunk = qids[i : i + CHUNK]
            rows = self.query(
                "SELECT qid, docid, value FROM signal_values WHERE signal=? AND version=? "
                f"AND qid IN ({placeholders(len(chunk))})",
                [signal, version, *chunk],
            )
            for q, d, v in rows:
                if (q, d) in wanted:
                    out[(q, d)] = tuple(json.loads(v))
        return out

    def put_signal_values(self, signal: str, version: str, values: Iterable[tuple[Pair, Sequence[Optional[float]]]]) -> int:
        rows = [(signal, version, q, d, json.dumps(list(v)), now()) for (q, d), v in values]
        with self.transaction() as conn:
            conn.executemany(
                "INSERT INTO signal_values(signal, version, qid, docid, value, created_at) VALUES(?,?,?,?,?,?) "
                "ON CONFLICT(signal, version, qid, docid) DO UPDATE SET value=excluded.value",
                rows,
            )
        return len(rows)

    def signal_count(self, signal: str, version: Optional[str] = None) -> int:
        if version is None:
            return int(self.scalar("SELECT COUNT(*) FROM signal_values WHERE signal=?", (signal,)))
        return int(self.scalar("SELECT COUNT(*) FROM signal_values WHERE signal=? AND version=?", (signal, version)))

    def doc_texts(self) -> dict[str, str]:
        """Every document's text (title and body), for corpus statistics such as BM25's."""
        return {
            d: (f"{title}\n\n{text}" if title else text)
            for d, text, title in self.query("SELECT docid, text, title FROM docs")
        }
