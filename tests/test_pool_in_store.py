"""`pool` pools in SQL for the depth strategy: the same cases as build_pool, stale ones removed."""

from __future__ import annotations

import pytest

from qrelkit.data import read_run
from qrelkit.demo import demo_paths
from qrelkit.pooling.allocation import resolve_people
from qrelkit.pooling.pool import build_pool
from qrelkit.store import Store
from qrelkit.types import Qrel
from qrelkit.workspace import load_collection, pool_workspace


@pytest.fixture
def store(tmp_path):
    d = demo_paths()
    s = Store.create(tmp_path / "ws")
    load_collection(s, str(d.topics), str(d.docs), str(d.qrels), [str(p) for p in d.runs])
    yield s
    s.close()


def in_memory(store, depth, k_human):
    runs = [read_run(p) for _, p, _ in store.runs()]
    runs = [r.__class__(n, r.path, r.by_topic, r.tags) for (n, _, _), r in zip(store.runs(), runs)]
    qrels = [Qrel(q, d, g) for (q, d), g in store.qrels().items()]
    return build_pool(runs, depth=depth, qrels=qrels, topics=list(store.topics()),
                      people=resolve_people(None, k_human)).cases


@pytest.mark.parametrize("depth,k_human", [(10, 3), (5, 0), (20, 20)])
def test_sql_pool_has_the_cases_of_build_pool(store, depth, k_human):
    counts = pool_workspace(store, depth=depth, human_depth=k_human)
    expected = in_memory(store, depth, k_human)
    assert store.cases() == list(expected)
    assert counts["pooled"] == len(expected)
    assert counts["people"] == sum(1 for c in expected if c.share == "people" and not c.judged)


def test_a_shallower_pool_removes_the_stale_cases_and_a_rerun_changes_nothing(store):
    pool_workspace(store, depth=10, human_depth=3)
    counts = pool_workspace(store, depth=5, human_depth=3)
    assert store.cases() == list(in_memory(store, 5, 3))
    assert counts["changed"] > 0
    again = pool_workspace(store, depth=5, human_depth=3)
    assert again["changed"] == 0
    assert again["unchanged"] == again["pooled"]
