"""Runs read fast and lean, for scoring: per topic, the docids in trec_eval order.

Why this exists next to :func:`qrelkit.data.runs.read_run`: scoring 61 TREC DL
runs (2.6 million lines) through ``read_run`` built a frozen ``RunEntry`` per
line and kept every run in memory at once, which made ``qrelkit evaluate``
slower than reading the runs with ir_measures and scoring them directly, and
about ten times as large (benchmarks/scale.py). Scoring needs neither the scores nor the
file ranks once the order is known, and needs one run at a time.

So a file is split line by line into ``(score, docid)`` per topic, sorted as
trec_eval orders it (score descending, ties by docid descending) and kept as
tuples of docids. pandas' C reader was tried first: it was slower here (6.1 s
against 4.3 s for the 61 runs) and twice the memory (its import alone is
50 MB), because the sorting and grouping per topic cost more than the split.
The rules are those of ``read_run``; when anything is off (a wrong column
count, a bad score, a duplicate document, bad bytes, a corrupt gzip stream,
an empty file) the file is read again by ``read_run``, whose error names the
file and line. The fast path therefore never decides what is an error, it only
decides that a file is clean.
"""
from __future__ import annotations

import math
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from qrelkit.data._open import PathLike, bounded_lines, open_binary
from qrelkit.data.runs import DEFAULT_RUN_NAMES, Run, expand_paths, read_run, unique_names


@dataclass(frozen=True)
class Ranking:
    """One run as ``{qid: docids in trec_eval order}`` (top ``max_depth`` when cut)."""

    name: str
    path: str
    docids: Mapping[str, tuple[str, ...]]
    tags: tuple[str, ...] = ()


def _from_run(run: Run) -> Ranking:
    docids = {q: tuple(e.docid for e in entries) for q, entries in run.by_topic.items()}
    return Ranking(run.name, run.path, docids, run.tags)


class _Careful(Exception):
    """A line the fast readers do not decide on: the careful reader reads the file again."""


def _clean_rows(path: PathLike) -> Iterator[tuple[str, str, float, str]]:
    """``(qid, docid, score, tag)`` of each line of a clean file; raises :class:`_Careful` at the
    first line that is not (a wrong column count, a score Python's float reads but ``read_run``
    refuses, NaN, bad bytes, a corrupt stream), so the fast readers never decide what an error is."""
    try:
        with open_binary(path) as fh:
            for lineno, raw in enumerate(bounded_lines(path, fh), start=1):
                cols = raw.decode("utf-8").split()
                if len(cols) != 6:
                    if cols:
                        raise _Careful
                    continue  # blank lines are skipped, as read_run skips them
                qid, _q0, docid, _rank, score, tag = cols
                if lineno == 1 and qid.startswith("\ufeff"):
                    qid = qid[1:]
                if "_" in score or not score.isascii():
                    raise _Careful  # Python's float reads 1_0 and Unicode digits; read_run refuses them
                value = float(score)
                if math.isnan(value):
                    raise _Careful
                yield qid, docid, value, tag
    except (ValueError, OSError, EOFError, zlib.error):  # a bad score or bad bytes: read_run names the line
        raise _Careful from None


def _fast(path: PathLike, max_depth: int | None) -> Ranking | None:
    """The ranking of a clean file, or None when the file needs the careful reader."""
    by_topic: dict[str, list[tuple[float, str]]] = {}
    tags: list[str] = []
    try:
        for qid, docid, score, tag in _clean_rows(path):
            by_topic.setdefault(qid, []).append((score, docid))
            if tag not in tags:
                tags.append(tag)
    except _Careful:
        return None
    if not by_topic:
        return None  # empty: read_run decides (an error unless allowed)
    docids: dict[str, tuple[str, ...]] = {}
    for qid, items in by_topic.items():
        items.sort(reverse=True)  # trec_eval: score descending, ties by docid descending
        if len({d for _, d in items}) != len(items):
            return None
        docids[qid] = tuple(d for _, d in items[:max_depth])
    return Ranking(tags[0], str(path), docids, tuple(tags))


def _fast_check(path: PathLike) -> Ranking | None:
    """A clean file's name and tags without its entries (None: the careful reader decides).
    A pair is remembered as a 64-bit hash in an array, so that checking a run costs 8 bytes a
    line, where holding its entries cost ~100 MB for a run of 660,000 lines (`init` at 10^6
    pooled pairs, benchmarks/scale.py); a repeated hash, a true repeat or a collision, sends
    the file to :func:`read_run`, which names the line."""
    from array import array

    import numpy as np

    keys: array = array("q")
    tags: list[str] = []
    try:
        for qid, docid, _score, tag in _clean_rows(path):
            keys.append(hash((qid, docid)))
            if tag not in tags:
                tags.append(tag)
    except _Careful:
        return None
    if not keys:
        return None
    k = np.sort(np.frombuffer(keys, dtype=np.int64))
    if bool((k[1:] == k[:-1]).any()):
        return None
    return Ranking(tags[0], str(path), {}, tuple(tags))


def check_ranking(path: PathLike, allow_empty: bool = False) -> Ranking:
    """One run file checked by the rules of :func:`read_run` and returned without its entries
    (what `init` stores: a name, a path, tags), streamed; errors as :func:`read_run` reports them."""
    fast = _fast_check(path)
    if fast is not None:
        return fast
    r = read_run(path, max_depth=0, allow_empty=allow_empty)
    return Ranking(r.name, r.path, {}, r.tags)


def read_ranking(path: PathLike, max_depth: int | None = None, allow_empty: bool = False) -> Ranking:
    """One run file as a :class:`Ranking`; errors as :func:`read_run` reports them
    (an empty file is one unless ``allow_empty``)."""
    fast = _fast(path, max_depth)
    if fast is not None:
        return fast
    return _from_run(read_run(path, max_depth=max_depth, allow_empty=allow_empty))


def iter_rankings(
    paths: Sequence[PathLike], max_depth: int | None = None, allow_empty: bool = False
) -> Iterator[Ranking]:
    """Rankings of every file named by ``paths`` (files, folders, globs), one at
    a time, so that a caller holds one run in memory. Names are the files'
    tags; settle clashes at the end with :func:`final_names`."""
    for f in expand_paths(list(paths)):
        yield read_ranking(f, max_depth, allow_empty)


def stubs(rankings: Sequence[Ranking]) -> list[Run]:
    """The rankings as runs without entries: what naming needs (:func:`final_names`, ``name_warning``)."""
    return [Run(r.name, r.path, {}, r.tags) for r in rankings]


def final_names(rankings: Sequence[Ranking], by: str = DEFAULT_RUN_NAMES) -> list[str]:
    """The names :func:`unique_names` gives these rankings, in order (by tag or by file)."""
    return [r.name for r in unique_names(stubs(rankings), by)]
