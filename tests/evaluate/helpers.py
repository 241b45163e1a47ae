"""Small hand-made collections for the evaluate tests, and the real-data path."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import pytest

from qrelkit.data.runs import Run, trec_eval_order
from qrelkit.types import RunEntry

SHARED_DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def dl19() -> Path:
    """../shared/data/trec-dl-2019, or a skip with the reason."""
    d = SHARED_DATA / "trec-dl-2019"
    if not d.is_dir():
        pytest.skip(f"real data not found at {d.resolve()} (expects ../shared/data next to the repository)")
    return d


def make_run(name: str, rankings: Mapping[str, Sequence[tuple[str, float]]]) -> Run:
    """A Run from ``{qid: [(docid, score), ...]}``, ordered as trec_eval orders."""
    by_topic = {
        q: tuple(trec_eval_order(RunEntry(q, d, 0, float(s)) for d, s in items)) for q, items in rankings.items()
    }
    return Run(name=name, path=f"<{name}>", by_topic=by_topic, tags=(name,))


def random_collection(seed: int = 0, n_topics: int = 6, n_docs: int = 40, n_runs: int = 7, depth: int = 25,
                      judged_share: float = 0.7, grades: Iterable[int] = (0, 0, 0, 1, 1, 2, 3)):
    """Random runs and graded qrels with holes, ties in scores and a missing topic."""
    rng = random.Random(seed)
    grades = list(grades)
    topics = [f"q{i}" for i in range(n_topics)]
    qrels = {}
    for q in topics:
        for d in range(n_docs):
            if rng.random() < judged_share:
                qrels[(q, f"d{d}")] = rng.choice(grades)
    runs = []
    for r in range(n_runs):
        rankings = {}
        for q in topics:
            if r == 0 and q == topics[-1]:
                continue  # run 0 does not answer the last topic
            docs = rng.sample(range(n_docs), depth)
            # coarse scores produce ties, broken by docid as trec_eval does
            rankings[q] = [(f"d{d}", round(rng.random() * 5) / 5) for d in docs]
        runs.append(make_run(f"sys{r}", rankings))
    return runs, qrels


def trec_dict(run: Run) -> dict:
    return {q: {e.docid: e.score for e in entries} for q, entries in run.by_topic.items()}


def qrels_dict(pairs: Mapping) -> dict:
    out: dict = {}
    for (q, d), g in pairs.items():
        out.setdefault(q, {})[d] = g
    return out
