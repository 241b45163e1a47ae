"""The sample file: what people are asked to label, with each pair's inclusion probability.

Format (tab-separated, UTF-8)::

    # qrelkit sample: design=weighted seed=0 depth=10
    qid	docid	probability
    1037798	7186540	0.0625
    ...
    # census
    1037798	1011234	1

Comment lines start with ``#``. The first comment carries the design, the seed and the runs' cut-off
(``depth=none`` when the universe is the labelled pairs only); the header line names the three columns.
Rows after the ``# census`` line are pairs people judge by another design (probability 1). The
probability is written with Python's ``repr`` so that it reads back to the same float: the strata are
the groups of equal ``(qid, probability)`` (:mod:`qrelkit.estimate.strata`), so no digit may be lost.
The file is written whole (temporary file, then rename).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

from qrelkit.data.atomic import atomic_write
from qrelkit.errors import InputError
from qrelkit.estimate.design import Sample, SampledPair

HEADER = ("qid", "docid", "probability")
CENSUS_MARK = "# census"


def write_sample(path: str | Path, sample: Sample) -> None:
    depth = "none" if sample.depth is None else str(sample.depth)
    lines = [f"# qrelkit sample: design={sample.design} seed={sample.seed} depth={depth}", "\t".join(HEADER)]
    lines += [f"{p.qid}\t{p.docid}\t{p.probability!r}" for p in sample.pairs]
    if sample.census:
        lines.append(CENSUS_MARK)
        lines += [f"{q}\t{d}\t1" for q, d in sorted(sample.census)]
    with atomic_write(path) as f:
        f.write("\n".join(lines) + "\n")


def read_sample(path: str | Path) -> Sample:
    """Read a sample file; any problem is an :class:`InputError` naming the file and line."""
    meta = {"design": "unknown", "seed": "0", "depth": "none"}
    pairs: list[SampledPair] = []
    census: set[tuple[str, str]] = set()
    seen: dict[tuple[str, str], int] = {}
    header_seen = in_census = False
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(path, None, f"cannot read the sample file: {e}") from None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line == CENSUS_MARK:
                in_census = True
            elif line.startswith("# qrelkit sample:"):
                meta.update(_meta(path, lineno, line))
            continue
        cols = line.split("\t") if "\t" in line else line.split()
        if not header_seen:
            if tuple(c.strip().lower() for c in cols) != HEADER:
                raise InputError(path, lineno, f"expected the header line 'qid<TAB>docid<TAB>probability', got {line!r}")
            header_seen = True
            continue
        qid, docid, p = _row(path, lineno, cols)
        if (qid, docid) in seen:
            raise InputError(path, lineno, f"pair {qid} {docid} listed twice (first on line {seen[(qid, docid)]})")
        seen[(qid, docid)] = lineno
        if in_census:
            if p != 1.0:
                raise InputError(path, lineno, f"a census pair has probability 1, not {p!r}")
            census.add((qid, docid))
        else:
            pairs.append(SampledPair(qid, docid, p))
    if not header_seen:
        raise InputError(path, None, "no header line 'qid<TAB>docid<TAB>probability': not a sample file")
    if not pairs:
        raise InputError(path, None, "the sample lists no pairs")
    return Sample(tuple(pairs), meta["design"], _int(path, meta["seed"], "seed"), frozenset(census),
                  None if meta["depth"] == "none" else _int(path, meta["depth"], "depth"))


def _row(path: str | Path, lineno: int, cols: list[str]) -> tuple[str, str, float]:
    if len(cols) != 3:
        raise InputError(path, lineno, f"expected 3 columns (qid docid probability), got {len(cols)}")
    qid, docid, text = (c.strip() for c in cols)
    if not qid or not docid:
        raise InputError(path, lineno, "empty qid or docid")
    try:
        p = float(text)
    except ValueError:
        raise InputError(path, lineno, f"probability {text!r} is not a number") from None
    if not (math.isfinite(p) and 0.0 < p <= 1.0):
        raise InputError(path, lineno, f"probability {text} must be in (0, 1]")
    return qid, docid, p


def _meta(path: str | Path, lineno: int, line: str) -> dict[str, str]:
    out = {}
    for item in line.split(":", 1)[1].split():
        key, sep, value = item.partition("=")
        if not sep or key not in ("design", "seed", "depth"):
            raise InputError(path, lineno, f"unknown sample header item {item!r} (have design=, seed=, depth=)")
        out[key] = value
    return out


def _int(path: str | Path, text: str, what: str) -> Optional[int]:
    try:
        return int(text)
    except ValueError:
        raise InputError(path, 1, f"{what} {text!r} in the header is not an integer") from None
