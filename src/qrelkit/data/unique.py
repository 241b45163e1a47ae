"""One record per id: identical repeats are counted and dropped, conflicting ones refused.

Concatenated or re-exported collections often repeat a topic or a document
verbatim; that is harmless, so the repeat is kept once and counted (a load
reports how many). Two *different* records under one id mean the file is
wrong, and keeping either would silently change what is judged, so that is an
:class:`InputError` naming both lines, as conflicting qrels already are.

Corpora can be far larger than memory, so the ids seen are kept on disk
(:class:`qrelkit.store.seen_ids.SeenIds`) with the line of their first
occurrence and a 64-bit fingerprint of the record, not in a dict.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

from qrelkit.data._open import PathLike
from qrelkit.errors import InputError
from qrelkit.store.seen_ids import SeenIds

T = TypeVar("T")
_BATCH = 1000


def digest(record: object) -> int:
    """A 64-bit fingerprint of a record (a frozen dataclass or NamedTuple hashes every
    field, so two records with one differing field differ). Python's own hash: fingerprints
    are compared within one load only, and it costs a twelfth of a blake2b of the record's
    ``repr`` (a tenth of loading a corpus, benchmarks/scale.py)."""
    return hash(record)


class UniqueById(Generic[T]):
    """Iterate ``records`` (``(line, record)`` pairs) keeping each id's first record.

    After iteration, :attr:`duplicates` is the number of identical repeats
    dropped. ``what`` names the id in messages (``"topic"``, ``"document id"``).
    """

    def __init__(self, path: PathLike, records: Iterable[tuple[int, T]], key: Callable[[T], str], what: str):
        self.path = path
        self.records = records
        self.key = key
        self.what = what
        self.duplicates = 0

    def __iter__(self) -> Iterator[T]:
        seen = SeenIds()
        try:
            batch: list[tuple[str, int, int, T]] = []
            for lineno, record in self.records:
                batch.append((self.key(record), lineno, digest(record), record))
                if len(batch) >= _BATCH:
                    yield from self._admit(seen, batch)
                    batch = []
            yield from self._admit(seen, batch)
        finally:
            seen.close()

    def _admit(self, seen: SeenIds, batch: list[tuple[str, int, int, T]]) -> Iterator[T]:
        if seen.add([row[:3] for row in batch]):
            for row in batch:
                yield row[3]
            return
        for rid, lineno, fingerprint, record in batch:
            first = seen.first(rid)
            if first.line == lineno:
                yield record
            elif first.digest == fingerprint:
                self.duplicates += 1
            else:
                raise InputError(
                    self.path, lineno, f"duplicate {self.what} {rid} with different content: lines {first.line} and {lineno}"
                )
