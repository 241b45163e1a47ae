"""Copies of the embedded model side by side (qrelkit.llm.local_pool): the lending, the layout, and
that the layout does not change a value (the model tests load the embedded model for real)."""

from __future__ import annotations

import asyncio
import threading
import time

import numpy as np
import pytest

from qrelkit.errors import BackendError
from qrelkit.llm import local_pool
from qrelkit.llm.local_pool import Instances, Layout


class Made:
    def __init__(self, n: int):
        self.n = n


def counter(fail_first: bool = False):
    made: list[Made] = []

    def make() -> Made:
        if fail_first and not made:
            made.append(None)  # type: ignore[arg-type]
            raise RuntimeError("cannot load")
        m = Made(len(made))
        made.append(m)
        return m

    return make, made


def test_nothing_is_loaded_before_a_copy_is_asked_for():
    make, made = counter()
    Instances(make, 2)
    assert made == []


def test_one_caller_at_a_time_reuses_one_copy():
    make, made = counter()
    pool = Instances(make, 2)
    for _ in range(3):
        with pool.use():
            pass
    assert len(made) == 1


def test_a_second_copy_is_loaded_only_while_the_first_is_busy():
    make, made = counter()
    pool = Instances(make, 2)
    with pool.use() as a, pool.use() as b:
        assert a is not b
    assert len(made) == 2


def test_a_caller_waits_when_every_copy_is_lent():
    make, _ = counter()
    pool = Instances(make, 1)
    a = pool.acquire()
    got: list[Made] = []
    t = threading.Thread(target=lambda: got.append(pool.acquire()))
    t.start()
    time.sleep(0.2)
    assert got == []  # still waiting
    pool.release(a)
    t.join(5)
    assert got == [a]


def test_the_copy_used_last_is_lent_first():
    make, _ = counter()
    pool = Instances(make, 2)
    a, b = pool.acquire(), pool.acquire()
    pool.release(a)
    pool.release(b)
    assert pool.acquire() is b


def test_a_failed_load_frees_its_place():
    make, _ = counter(fail_first=True)
    pool = Instances(make, 1)
    with pytest.raises(RuntimeError):
        pool.acquire()
    assert pool.acquire().n == 1


def test_the_default_layout_is_one_copy_with_two_threads(monkeypatch):
    monkeypatch.delenv(local_pool.WORKERS_ENV, raising=False)
    monkeypatch.delenv(local_pool.THREADS_ENV, raising=False)
    assert local_pool.layout() == Layout(1, 2)


def test_the_environment_sets_the_layout(monkeypatch):
    monkeypatch.setenv(local_pool.WORKERS_ENV, "2")
    monkeypatch.setenv(local_pool.THREADS_ENV, "1")
    assert local_pool.layout() == Layout(2, 1)


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_a_bad_layout_is_refused_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv(local_pool.WORKERS_ENV, value)
    with pytest.raises(BackendError, match=local_pool.WORKERS_ENV):
        local_pool.layout()


def test_the_backend_runs_as_many_calls_as_it_has_copies():
    from qrelkit.llm.local import LocalBackend

    assert LocalBackend(layout=Layout(3, 1)).max_concurrency == 3
    assert LocalBackend(layout=Layout(1, 2)).max_concurrency == 1


# ---- the real model -----------------------------------------------------------------------


def demo_context(client):
    from qrelkit.data import read_docs, read_topics
    from qrelkit.demo import demo_paths
    from qrelkit.signals import SignalContext

    d = demo_paths()
    topics = {t.qid: t for t in read_topics(d.topics)}
    docs = {x.docid: x for x in read_docs(d.docs)}
    return SignalContext(topics=topics, docs=docs.get, corpus=lambda: {k: v.text for k, v in docs.items()},
                         client=client)


def demo_pairs(n: int) -> list[tuple[str, str]]:
    from qrelkit.data import load_qrels
    from qrelkit.demo import demo_paths

    return sorted(load_qrels(str(demo_paths().qrels)).pairs)[:: 9][:n]


def likelihoods(layout: Layout, pairs):
    """pmi and ql of ``pairs`` through a fresh client (no cache) on ``layout``'s copies."""
    from qrelkit import signals
    from qrelkit.llm import make_client
    from qrelkit.llm.local import LocalBackend

    backend = LocalBackend(layout=layout)
    client = make_client("local", backend=backend, concurrency=8)
    ctx = demo_context(client)

    async def both():
        return [await signals.values(signals.build(n), pairs, ctx) for n in ("pmi", "ql")]

    pmi, ql = asyncio.run(both())
    return pmi, ql, backend.pool()


@pytest.fixture(scope="module")
def side_by_side():
    pairs = demo_pairs(8)
    return pairs, likelihoods(Layout(1, 2), pairs), likelihoods(Layout(2, 1), pairs)


@pytest.mark.model
def test_two_copies_were_used_side_by_side(side_by_side):
    _, _, (_, _, pool) = side_by_side
    assert len(pool.loaded) == 2


@pytest.mark.model
def test_the_values_are_those_of_one_copy_with_two_threads(side_by_side):
    pairs, (pmi_old, ql_old, _), (pmi_new, ql_new, _) = side_by_side
    assert np.isfinite(pmi_old).all() and len(pmi_old) == len(pairs)
    assert np.array_equal(pmi_new, pmi_old)
    assert np.array_equal(ql_new, ql_old)


@pytest.mark.model
def test_the_values_differ_between_pairs(side_by_side):
    # a check that the comparison above compares something: the pairs' values are not all alike
    _, (pmi_old, _, _), _ = side_by_side
    assert len(set(pmi_old.ravel().tolist())) == len(pmi_old)


def test_the_layout_is_not_part_of_the_model_id():
    # the id is what cached answers, signal versions and stored judge ids are keyed by: a layout
    # gives the same numbers, so a workspace scored in one layout resumes in another
    from qrelkit.llm.local import DEFAULT_MODEL_ID, LocalBackend

    ids = {LocalBackend(layout=lay).model_id for lay in (Layout(1, 2), Layout(2, 1), Layout(3, 1))}
    assert ids == {DEFAULT_MODEL_ID}
