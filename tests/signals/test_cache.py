"""Signal values are cached in the workspace per (signal, version, qid, docid)."""
from __future__ import annotations

import asyncio

import numpy as np
import pytest

from qrelkit import signals
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Topic


class Counting(signals.Signal):
    """A test signal: the document's length, or NaN for docid 'bad'; counts what it computes."""

    NAME = "counting"
    FEATURES = ("length",)

    def __init__(self, version: str = "v1"):
        self.computed: list = []
        self._version = version

    def version(self, ctx):
        return self._version

    async def compute(self, pairs, ctx):
        self.computed += list(pairs)
        return np.array([[np.nan] if d == "bad" else [float(len(ctx.text(d)))] for _, d in pairs])


@pytest.fixture()
def ws(tmp_path):
    with Store.create(tmp_path / "ws") as s:
        s.upsert_topics([Topic("q1", "everest height")])
        s.upsert_docs([Doc("d1", "Everest is 8849 m."), Doc("d2", "Bread."), Doc("bad", "x")])
        yield s


def test_a_second_call_reads_the_cache(ws):
    ctx = signals.context_from_store(ws)
    sig = Counting()
    asyncio.run(signals.values(sig, [("q1", "d1"), ("q1", "d2")], ctx))
    again = Counting()
    x = asyncio.run(signals.values(again, [("q1", "d1"), ("q1", "d2")], ctx))
    assert again.computed == []
    assert x[:, 0].tolist() == [18.0, 6.0]


def test_a_new_version_is_computed_afresh(ws):
    ctx = signals.context_from_store(ws)
    asyncio.run(signals.values(Counting("v1"), [("q1", "d1")], ctx))
    newer = Counting("v2")
    asyncio.run(signals.values(newer, [("q1", "d1")], ctx))
    assert newer.computed == [("q1", "d1")]


def test_a_value_that_could_not_be_computed_is_not_cached(ws):
    ctx = signals.context_from_store(ws)
    asyncio.run(signals.values(Counting(), [("q1", "bad")], ctx))
    assert ws.signal_count("counting") == 0


def test_the_pool_signal_is_dropped_without_runs_and_says_why(ws):
    m = asyncio.run(signals.matrix(["pool"], [("q1", "d1")], signals.context_from_store(ws)))
    assert m.dropped[0].reason.startswith("no runs in the workspace")


def test_the_pool_signal_reads_runs_and_best_rank(ws):
    ws.upsert_run("bm25", "bm25.run")
    ws.upsert_cases([Case("q1", "d1", "llm", 4, ("bm25", "dense"), False)])
    m = asyncio.run(signals.matrix(["pool"], [("q1", "d1"), ("q1", "d2")], signals.context_from_store(ws)))
    assert m.x.tolist() == [[pytest.approx(np.log(3)), 0.25], [0.0, 0.0]]


@pytest.mark.parametrize("text,error", [
    ("pmi+nope", "unknown signal(s) nope"),
    ("", "unknown signal(s) (none given)"),
    ("ql+ql", "signal listed twice"),
])
def test_a_bad_signal_list_names_the_problem(text, error):
    with pytest.raises(ValueError, match=error.replace("(", r"\(").replace(")", r"\)")):
        signals.parse_signals(text)
