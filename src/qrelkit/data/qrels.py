"""TREC qrels: ``qid iter docid grade``, one label per line, whitespace-separated.

The ``iter`` column is ignored, as trec_eval ignores it. Grades must be plain
ASCII integers within 32 bits (:mod:`qrelkit.data.numbers`); negative grades (some TREC tracks use -1 or -2 for spam or junk) are
kept as they are, so that a qrels file survives a read/write round trip
unchanged; they count as non-relevant wherever a threshold is applied.

An empty qrels file is an error unless the caller allows it
(``allow_empty=True``; on the command line ``--allow-empty``): scoring against
no labels prints a table of zeros, so an empty file is almost always the wrong
file. A collection built from scratch passes no qrels at all.

Duplicates: an identical repeated line is harmless (it often comes from
concatenating files) and is counted, not fatal. Two *different* grades for the
same pair mean the file mixes assessors or is corrupt; silently keeping one
would change scores, so that is an error naming both lines, unless the caller
reads a multi-assessor file on purpose (``allow_conflicts=True``).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from qrelkit.data import irds
from qrelkit.data._open import PathLike, iter_lines, open_write
from qrelkit.data.numbers import grade_problem
from qrelkit.errors import InputError
from qrelkit.types import Qrel

Pair = tuple[str, str]


def check_trec_id(path: PathLike, value: str, what: str) -> None:
    """TREC files split on whitespace, so an id containing any cannot be written."""
    if not value or any(ch.isspace() for ch in value):
        raise InputError(path, None, f"cannot write {what} {value!r} in TREC format: "
                                     "ids must be non-empty and contain no whitespace")


def _parse(path: PathLike, lineno: int, line: str) -> Qrel:
    cols = line.split()
    if len(cols) != 4:
        raise InputError(path, lineno, f"expected 4 columns (qid iter docid grade), got {len(cols)}")
    qid, _iter, docid, grade = cols
    if "\x00" in line:  # a NUL in an id is a corrupt file; stored, it would be an id no tool can write back
        raise InputError(path, lineno, "contains a NUL byte (\\x00): a corrupt or binary file, not TREC qrels")
    problem = grade_problem(grade)
    if problem is not None:
        raise InputError(path, lineno, problem)
    return Qrel(qid, docid, int(grade))


def iter_with_lines(path: PathLike, allow_empty: bool = False) -> Iterator[tuple[int, Qrel]]:
    """``(line, label)`` of every line, each checked alone (columns, grade), in file order; repeats
    are the caller's (:func:`load_qrels` keeps them in memory, `init` in a scratch table)."""
    n = 0
    if irds.is_irds(path):
        for n, (qid, docid, grade) in enumerate(irds.iter_qrel_fields(str(path)), start=1):
            yield n, Qrel(qid, docid, grade)
    else:
        for n, line in iter_lines(path):
            yield n, _parse(path, n, line)
    if n == 0 and not allow_empty:
        raise InputError(path, None, "no labels found (the qrels file is empty)")


def read_qrels(path: PathLike, allow_conflicts: bool = False, allow_empty: bool = False) -> Iterator[Qrel]:
    """Stream the labels of a qrels file (or an ``irds:`` dataset).

    By default each pair is yielded once: identical duplicate lines are
    skipped and conflicting grades raise :class:`InputError` naming both lines.
    With ``allow_conflicts=True`` every line is yielded as it is, in file order
    (a multi-assessor file has one line per assessor and pair); nothing is
    remembered then, so memory stays constant. An empty file is an
    :class:`InputError` unless ``allow_empty``.
    """
    if allow_conflicts:
        for _, qrel in iter_with_lines(path, allow_empty):
            yield qrel
        return
    seen: dict[Pair, tuple[int, int]] = {}
    for lineno, qrel in iter_with_lines(path, allow_empty):
        pair = (qrel.qid, qrel.docid)
        before = seen.get(pair)
        if before is None:
            seen[pair] = (qrel.grade, lineno)
            yield qrel
        elif before[0] != qrel.grade:
            raise InputError(
                path, lineno,
                f"conflicting labels for ({qrel.qid}, {qrel.docid}): "
                f"line {before[1]} says {before[0]}, line {lineno} says {qrel.grade}",
            )


@dataclass(frozen=True)
class QrelsFile:
    """A whole qrels file in memory: ``pairs`` maps ``(qid, docid)`` to grade.

    Behaves like a read-only mapping of pairs so that it can be passed wherever
    ``{(qid, docid): grade}`` is expected. ``duplicates`` counts identical
    repeated lines that were dropped, so that a report can mention them.
    """

    path: str
    pairs: Mapping[Pair, int]
    duplicates: int = 0
    qids: frozenset[str] = field(default=frozenset())

    def __len__(self) -> int:
        return len(self.pairs)

    def __contains__(self, pair: object) -> bool:
        return pair in self.pairs

    def __getitem__(self, pair: Pair) -> int:
        return self.pairs[pair]

    def __iter__(self) -> Iterator[Pair]:
        return iter(self.pairs)

    def get(self, pair: Pair, default: int | None = None) -> int | None:
        return self.pairs.get(pair, default)

    def items(self):
        return self.pairs.items()

    def qrels(self) -> Iterator[Qrel]:
        """The labels as :class:`Qrel` values, in file order."""
        for (qid, docid), grade in self.pairs.items():
            yield Qrel(qid, docid, grade)


def load_qrels(path: PathLike, allow_empty: bool = False) -> QrelsFile:
    """Read a qrels file into memory, rejecting conflicting labels and, unless
    ``allow_empty``, an empty file (see module doc)."""
    pairs: dict[Pair, int] = {}
    lines: dict[Pair, int] = {}
    duplicates = 0
    for lineno, qrel in iter_with_lines(path, allow_empty):
        pair = (qrel.qid, qrel.docid)
        if pair in pairs:
            if pairs[pair] != qrel.grade:
                raise InputError(
                    path, lineno,
                    f"conflicting labels for ({qrel.qid}, {qrel.docid}): "
                    f"line {lines[pair]} says {pairs[pair]}, line {lineno} says {qrel.grade}",
                )
            duplicates += 1
            continue
        pairs[pair] = qrel.grade
        lines[pair] = lineno
    return QrelsFile(
        path=str(path), pairs=pairs, duplicates=duplicates, qids=frozenset(q for q, _ in pairs)
    )


class PairGrades(Mapping):
    """``{(qid, docid): grade}`` held as ``{qid: {docid: grade}}``: a read-only mapping of pairs for
    the analyses, at a fraction of a pair dict's memory (no tuple and no qid string per label;
    the docid strings may be shared with the runs'). The report held 1.3 million pairs in tuple-keyed
    dicts at 10^6 pooled pairs, ~200 bytes each (benchmarks/scale.py). Iteration is by topic, in
    the order the labels were added. ``by_topic`` is the nested form pytrec_eval takes; nobody
    may change it."""

    __slots__ = ("by_topic", "_n")

    def __init__(self, rows: Iterable[tuple[str, str, int]] = (), intern: Mapping[str, str] | None = None):
        self.by_topic: dict[str, dict[str, int]] = {}
        n = 0
        one = intern if intern is not None else {}
        for qid, docid, grade in rows:
            topic = self.by_topic.get(qid)
            if topic is None:
                topic = self.by_topic[qid] = {}
            before = len(topic)
            topic[one.get(docid, docid)] = grade
            n += len(topic) - before
        self._n = n

    def __getitem__(self, pair: Pair) -> int:
        return self.by_topic[pair[0]][pair[1]]

    def __contains__(self, pair: object) -> bool:
        try:
            return pair[1] in self.by_topic.get(pair[0], ())  # type: ignore[index]
        except (TypeError, IndexError):
            return False

    def get(self, pair: Pair, default: int | None = None) -> int | None:
        topic = self.by_topic.get(pair[0])
        return default if topic is None else topic.get(pair[1], default)

    def __iter__(self) -> Iterator[Pair]:
        for qid, topic in self.by_topic.items():
            for docid in topic:
                yield qid, docid

    def items(self):
        return ((((q, d), g) for q, topic in self.by_topic.items() for d, g in topic.items()))

    def __len__(self) -> int:
        return self._n


def by_topic(qrels: Mapping[Pair, int]) -> dict[str, dict[str, int]]:
    """``{qid: {docid: grade}}`` of a pair mapping: a :class:`PairGrades`'s own (not a copy:
    do not change it), else built."""
    if isinstance(qrels, PairGrades):
        return qrels.by_topic
    out: dict[str, dict[str, int]] = {}
    for (qid, docid), grade in qrels.items():
        out.setdefault(qid, {})[docid] = grade
    return out


QrelsLike = QrelsFile | Mapping[Pair, int] | Iterable[Qrel]


def as_pairs(qrels: QrelsLike | None) -> Mapping[Pair, int]:
    """``{(qid, docid): grade}`` from a QrelsFile, such a mapping, or Qrel values.
    Lets pooling and reports accept whatever the caller already holds."""
    if qrels is None:
        return {}
    if isinstance(qrels, QrelsFile):
        return qrels.pairs
    if isinstance(qrels, Mapping):
        return qrels
    return {(q.qid, q.docid): q.grade for q in qrels}


def write_qrels(path: PathLike, qrels: QrelsLike) -> int:
    """Write TREC qrels (``qid 0 docid grade``), gzipped when the path ends in ``.gz``.

    Lines are sorted by ``(qid, docid)`` as plain strings, stably, so the same
    labels always give the same bytes (diffable exports) and repeated pairs of
    a multi-assessor list keep their order. Returns the number of lines written.
    """
    if isinstance(qrels, (QrelsFile, Mapping)):
        items = [Qrel(q, d, g) for (q, d), g in as_pairs(qrels).items()]
    else:
        items = list(qrels)
    items.sort(key=lambda r: (r.qid, r.docid))
    for r in items:
        check_trec_id(path, r.qid, "qid")
        check_trec_id(path, r.docid, "docid")
    with open_write(path) as fh:
        for r in items:
            fh.write(f"{r.qid} 0 {r.docid} {int(r.grade)}\n")
    return len(items)


# Suffixes a qrels file name carries that say nothing about the version it holds.
_VERSION_SUFFIXES = (".gz", ".txt", ".tsv", ".qrels", ".qrel", ".trec")


def version_name(path: PathLike) -> str:
    """A qrels version's label: the file name without .gz and qrels suffixes
    (``qrels.merged.txt.gz`` -> ``qrels.merged``)."""
    name = Path(path).name
    for suffix in _VERSION_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name


def unique_names(names: Iterable[str]) -> list[str]:
    """The names in order, a repeated one numbered (``a``, ``a-2``, ...), so versions can be told apart."""
    out: list[str] = []
    for n in names:
        final, i = n, 2
        while final in out:
            final = f"{n}-{i}"
            i += 1
        out.append(final)
    return out
