"""Runs read fast and lean, for scoring: per topic, the docids in trec_eval order.

Why this exists next to :func:`qrelkit.data.runs.read_run`: scoring 61 TREC DL
runs (2.6 million lines) through ``read_run`` built a frozen ``RunEntry`` per
line and kept every run in memory at once, which made ``qrelkit evaluate``
slower than reading the runs with ir_measures and scoring them directly, and
about ten times as large (issue 19). Scoring needs neither the scores nor the
file ranks once the order is known, and needs one run at a time.

So a file is parsed by pandas' C reader (whitespace-separated, every column as
text, no quoting, no NA guessing), checked column by column, ordered as
trec_eval orders it (score descending, ties by docid descending) and kept as
tuples of docids. The rules are those of ``read_run``; when anything is off
(a wrong column count, a bad score, a duplicate document, bad bytes, a corrupt
gzip stream) the file is read again by ``read_run``, whose error names the
file and line. The fast path therefore never decides what is an error, it only
decides that a file is clean.
"""
from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from qrelkit.data._open import PathLike, open_binary
from qrelkit.data.runs import Run, expand_paths, read_run, unique_names


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


def _fast(path: PathLike, max_depth: int | None) -> Ranking | None:
    """The ranking parsed by pandas, or None when the file needs the careful reader."""
    import pandas as pd

    try:
        with open_binary(path) as fh:
            df = pd.read_csv(
                fh, sep=r"\s+", header=None, dtype=str, quoting=csv.QUOTE_NONE,
                na_filter=False, skip_blank_lines=True, engine="c", encoding="utf-8",
            )
    except Exception:  # noqa: BLE001 - empty file, a line longer than the first, bad bytes, bad gzip
        return None
    # whitespace-separated fields are never empty, so "" marks a short line. (Reading
    # only the four columns used would save memory, but pandas then accepts long lines.)
    if df.shape[1] != 6 or (df[5] == "").any():
        return None
    try:
        scores = df[4].astype(float).to_numpy()  # Python's float(): exact, as read_run
    except ValueError:
        return None
    if np.isnan(scores).any() or df.duplicated([0, 2]).any():
        return None
    if df.iat[0, 0].startswith("\ufeff"):
        df.iat[0, 0] = df.iat[0, 0][1:]
    docids = _ordered_docids(df[0], scores, df[2].to_numpy(), max_depth)
    tags = tuple(pd.unique(df[5]))
    return Ranking(tags[0], str(path), docids, tags)


def _ordered_docids(
    qids: "pd.Series", scores: np.ndarray, docids: np.ndarray, max_depth: int | None
) -> dict[str, tuple[str, ...]]:
    """``{qid: docids}`` by score descending, ties by docid descending (trec_eval),
    topics in file order. Sorting numbers is cheap; docids are ranked (a string
    sort) only when some topic has tied scores."""
    import pandas as pd

    codes, uniques = pd.factorize(qids, sort=False)
    keys: tuple[np.ndarray, ...] = (-scores, codes)
    order = np.lexsort(keys)
    same_q = codes[order][1:] == codes[order][:-1]
    if (same_q & (scores[order][1:] == scores[order][:-1])).any():
        # a fixed-width unicode array sorts in C, in code-point order as str does
        doc_rank = np.unique(docids.astype(str), return_inverse=True)[1].reshape(-1)
        order = np.lexsort((-doc_rank, -scores, codes))
    c, d = codes[order], docids[order]
    starts = np.r_[0, np.flatnonzero(c[1:] != c[:-1]) + 1]
    ends = np.r_[starts[1:], len(c)]
    if max_depth is not None:
        ends = np.minimum(ends, starts + max_depth)
    return {uniques[c[a]]: tuple(d[a:b].tolist()) for a, b in zip(starts, ends)}


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


def final_names(rankings: Sequence[Ranking]) -> list[str]:
    """The names :func:`unique_names` gives these rankings, in order."""
    stubs = [Run(r.name, r.path, {}, r.tags) for r in rankings]
    return [r.name for r in unique_names(stubs)]
