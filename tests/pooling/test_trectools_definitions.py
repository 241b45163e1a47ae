"""The fused pools against trectools 0.0.50's definitions, computed independently with pandas.

trectools' ``TrecPoolMaker.make_pool`` (strategies ``topX``, ``rrf``, ``rbp``) and
``fusion.combos(strategy="mnz")`` are re-stated here the way trectools computes them: one
value per (run, topic, document) from the file's rank column or raw score, a
``groupby(["query", "docid"])`` aggregate, a sort within each topic and its ``head(topX)``.
The runs are seeded random, written so that the file's rank is the trec_eval position (the
case where trectools and qrelkit agree by definition). Ties (``agg=max`` makes many: every
run's first document weighs the same) are sorted stably here, so by docid, as trectools'
fusion module breaks them; its pool maker leaves them to pandas' default sort.
"""
from __future__ import annotations

import random

import pandas as pd
import pytest

from qrelkit.data import read_runs
from qrelkit.pooling import choose, parse_pool

RUNS, TOPICS, DOCS, DEPTH = 6, 3, 80, 40


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = random.Random(29)
    folder = tmp_path_factory.mktemp("runs")
    paths = []
    for r in range(RUNS):
        lines = []
        for t in range(TOPICS):
            docs = rng.sample([f"d{i}" for i in range(DOCS)], DEPTH)
            scores = sorted((rng.uniform(-5, 20) for _ in docs), reverse=True)
            lines += [f"{100 + t} Q0 {d} {rank} {s:.6f} run{r}" for rank, (d, s) in enumerate(zip(docs, scores), 1)]
        path = folder / f"run{r}.txt"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def frame(paths) -> pd.DataFrame:
    """All runs as trectools reads them (``TrecRun.read_run``: whitespace-separated columns)."""
    cols = ["query", "q0", "docid", "rank", "score", "system"]
    return pd.concat([pd.read_csv(p, sep=r"\s+", names=cols, dtype={"query": str}) for p in paths])


def take(df: pd.DataFrame, value: pd.Series, top_x: int, agg: str = "sum") -> dict[str, tuple[str, ...]]:
    df = df.assign(value=value)
    grouped = df.groupby(["query", "docid"])["value"].agg(agg).reset_index()
    grouped = grouped.sort_values(["query", "value"], ascending=[True, False], kind="stable")
    return {q: tuple(g["docid"]) for q, g in grouped.groupby("query").head(top_x).groupby("query")}


def trectools_rrf(df, top_x, den=60):
    return take(df, 1.0 / (den + df["rank"]), top_x)


def trectools_rbp(df, top_x, p=0.8, agg="sum"):
    return take(df, (1.0 - p) * p ** (df["rank"] - 1), top_x, agg)


def trectools_mnz(df, top_x):
    mnz = lambda v: v.sum() * v.count()  # noqa: E731  (combos: np.nansum(values) * n_valid_entries)
    return take(df, df["score"], top_x, mnz)


def trectools_top_x(df, cutoff):
    ordered = df.sort_values(["query", "score", "docid"], ascending=[True, False, True])
    pools = ordered.groupby(["query", "system"]).head(cutoff).groupby("query")["docid"]
    return {q: set(d) for q, d in pools}


@pytest.mark.parametrize("n", [1, 5, 17, 60])
@pytest.mark.parametrize(("spec", "reference"), [
    ("rrf(n={n})", trectools_rrf),
    ("rrf(n={n},k=10)", lambda df, n: trectools_rrf(df, n, den=10)),
    ("rbp(n={n})", trectools_rbp),
    ("rbp(n={n},p=0.95)", lambda df, n: trectools_rbp(df, n, p=0.95)),
    ("rbp(n={n},p=0.5,agg=max)", lambda df, n: trectools_rbp(df, n, p=0.5, agg="max")),
    ("combmnz(n={n},norm=none)", trectools_mnz),
])
def test_take_n_of_a_fusion_is_trectools_pool(spec, reference, n, files):
    ours = choose(parse_pool(spec.format(n=n)), read_runs([str(p) for p in files]))
    theirs = reference(frame(files), n)
    assert {q: tuple(d) for q, d in ours.items()} == theirs


@pytest.mark.parametrize("k", [1, 10, 40])
def test_a_depth_pool_is_trectools_top_x_pool(k, files):
    ours = choose(parse_pool(f"depth(k={k})"), read_runs([str(p) for p in files]))
    assert {q: set(d) for q, d in ours.items()} == trectools_top_x(frame(files), k)
