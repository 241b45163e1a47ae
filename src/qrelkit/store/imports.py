"""Other tools' judgments kept as labelled qrels versions (mixin of :class:`qrelkit.store.Store`).

An imported version is a set of judgments under the method ``imported:NAME`` with source
``imported`` (see :mod:`qrelkit.interchange.imports`); importing the same NAME again replaces
the version whole, so a re-import of a corrected file leaves no stale label behind.
"""
from __future__ import annotations

from typing import Iterable, Iterator

from qrelkit.types import Judgment

IMPORTED = "imported"


class ImportStore:
    """Replacing and listing imported versions; looking documents up by their text."""

    def replace_imported(self, method: str, judgments: Iterable[Judgment]) -> tuple[int, int]:
        """Drop the version ``method`` and store ``judgments`` in one transaction: (removed, added)."""
        rows = list(judgments)
        with self.transaction() as c:
            removed = c.execute("DELETE FROM judgments WHERE method=? AND source=?", (method, IMPORTED)).rowcount
            self.put_judgments(rows)  # joins this transaction
        return removed, len(rows)

    def iter_doc_texts(self) -> Iterator[tuple[str, str]]:
        """``(docid, text)`` of every document, streamed (to match a tool's passages to docids)."""
        yield from self.iter_query("SELECT docid, text FROM docs ORDER BY docid")
