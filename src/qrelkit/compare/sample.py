"""The sample a comparison judges: drawn once, stored, and read back by every later call.

Why stored: methods compared on different pairs are not compared at all, and a user
adds methods over days. The first call draws the sample (seeded) from the reference's
labelled pairs that have document text in the workspace and stores it with how it was
drawn; later calls read it back, and a call asking for a different draw under the same
name is refused rather than silently judged on other pairs.

``uniform``: a simple random sample (keeps the collection's base rate, which is what a
user's pool looks like). ``stratified``: equal shares of each reference grade where the
grades allow (the LLMJudge benchmark style, so that a rare class is measured at all).

The pairs left out of the sample are what learning methods learn from: the judging
runner never lets a judge read the labels of the pairs it is judging
(:mod:`qrelkit.judges.labels`), and :func:`check_learnable` refuses a comparison whose
learning methods would have nothing else to learn from.
"""
from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional

from qrelkit.errors import InputError, UsageError

if TYPE_CHECKING:
    from qrelkit.store import Store

DRAWS = ("uniform", "stratified")
Pair = tuple[str, str]


@dataclass(frozen=True)
class Draw:
    """How a sample is drawn: the comparison's identity, compared on every later call."""

    size: Optional[int]  # None: every pair of the sample file
    draw: str = "stratified"
    seed: int = 0
    source: str = "reference"  # reference | the sample file's path

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Sample:
    """The pairs a comparison judges, with their reference grades, in draw order."""

    name: str
    draw: Draw
    pairs: tuple[tuple[str, str, int], ...]

    @property
    def gold(self) -> dict[Pair, int]:
        return {(q, d): g for q, d, g in self.pairs}

    def __len__(self) -> int:
        return len(self.pairs)


def draw_pairs(reference: Mapping[Pair, int], n: int, draw: str, seed: int) -> list[tuple[str, str, int]]:
    """``n`` labelled pairs of ``reference``, seeded; the input's order does not matter."""
    if draw not in DRAWS:
        raise UsageError(f"--draw {draw!r}: choose from {', '.join(DRAWS)}")
    ordered = sorted(reference.items())
    rng = random.Random(seed)
    if draw == "uniform":
        chosen = ordered if n >= len(ordered) else rng.sample(ordered, n)
        return sorted((q, d, int(g)) for (q, d), g in chosen)
    by_grade: dict[int, list] = defaultdict(list)
    for k, g in ordered:
        by_grade[int(g)].append(k)
    for v in by_grade.values():
        rng.shuffle(v)
    grades, out, i = sorted(by_grade), [], 0
    while len(out) < n and any(by_grade.values()):
        g = grades[i % len(grades)]
        if by_grade[g]:
            out.append((*by_grade[g].pop(), g))
        i += 1
    return sorted(out)


def read_sample_file(path: Path, reference: Mapping[Pair, int]) -> list[tuple[str, str, int]]:
    """Pairs listed one a line (``qid docid`` or a qrels line ``qid 0 docid grade``); every
    pair must have a reference label, which is the grade used (the file's own is ignored)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise UsageError(f"{path}: cannot read the sample file: {e.strerror}") from None
    out, seen = [], set()
    for i, line in enumerate(lines, 1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) == 2:
            key = (parts[0], parts[1])
        elif len(parts) == 4:
            key = (parts[0], parts[2])
        else:
            raise InputError(path, i, f"expected 'qid docid' or 'qid 0 docid grade', got {len(parts)} fields")
        if key not in reference:
            raise InputError(path, i, f"pair {key[0]} {key[1]} has no reference label")
        if key not in seen:
            seen.add(key)
            out.append((*key, int(reference[key])))
    if not out:
        raise InputError(path, None, "no pairs in the sample file")
    return out


def ensure_sample(store: Store, name: str, reference: Mapping[Pair, int], draw: Draw,
                  sample_file: Optional[Path] = None, explicit: bool = True) -> Sample:
    """The stored sample ``name``, or a new one drawn as ``draw`` says and stored.

    ``explicit``: the user asked for this draw (a size, a file, a seed); a stored sample drawn
    otherwise is then refused. Without it the stored sample is used as it is."""
    stored = store.comparison_sample(name)
    if stored is not None:
        have = Draw(**stored.draw)
        if explicit and have != draw:
            raise UsageError(
                f"the workspace's comparison {name!r} was drawn as {have.to_dict()}; this call asks for "
                f"{draw.to_dict()}. Leave out --sample/--sample-file/--draw/--seed to judge the stored pairs, "
                "or pass --name for a new comparison"
            )
        return Sample(name, have, stored.pairs)
    usable = {k: g for k, g in reference.items() if store.has_doc(k[1]) and store.topic(k[0]) is not None}
    if sample_file is not None:
        pairs = read_sample_file(sample_file, reference)
        missing = [p for p in pairs if (p[0], p[1]) not in usable]
        if missing:
            q, d, _ = missing[0]
            raise UsageError(f"{sample_file}: {len(missing)} pairs have no topic or document text in the "
                             f"workspace (first: {q} {d})")
    else:
        if not usable:
            raise UsageError("no reference pair has its topic and document text in the workspace")
        if draw.size is None or draw.size < 1:
            raise UsageError("--sample must be a positive number of pairs")
        pairs = draw_pairs(usable, draw.size, draw.draw, draw.seed)
    store.put_comparison_sample(name, draw.to_dict(), pairs)
    return Sample(name, draw, tuple(pairs))


def check_learnable(store: Store, sample: Sample, learning: list[str], threshold: int = 2) -> None:
    """Learning methods learn from labelled pairs outside the sample: refuse when the sample's
    topics have none, or when there are too few outside it (fewer than
    :data:`qrelkit.judges.labels.MIN_CALIBRATION` of both classes) for a calibration to stay
    off the sample (the runner would otherwise calibrate on the pairs being judged)."""
    from qrelkit.judges.learning import MIN_CALIBRATION

    if not learning:
        return
    keys = set(sample.gold)
    qids = {q for q, _ in keys}
    outside = {k: g for k, g in store.qrels().items() if k not in keys}
    for j in store.people_labels():
        if (j.qid, j.docid) not in keys and j.effective_grade is not None:
            outside[(j.qid, j.docid)] = j.effective_grade
    classes = {int(g >= threshold) for g in outside.values()}
    if not any(q in qids for q, _ in outside):
        raise UsageError(
            f"{', '.join(learning)} learn from people's labels, and the workspace has none outside the sample "
            "for the sample's topics; load more qrels (the sample's pairs are never shown to a judge)"
        )
    if len(outside) < MIN_CALIBRATION or len(classes) < 2:
        raise UsageError(
            f"{', '.join(learning)} need at least {MIN_CALIBRATION} labelled pairs of both classes outside the "
            f"sample; the workspace has {len(outside)}. Load more qrels or draw a smaller --sample"
        )
