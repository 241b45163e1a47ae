"""The prior signal: the topic's share of relevant people's labels, shrunk, never the pair's own label."""
from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from qrelkit import signals
from qrelkit.signals import prior
from qrelkit.store import Store
from qrelkit.types import Doc, Topic

DOCS = {f"d{i}": f"document number {i}" for i in range(12)}
# q1: 4 of 6 relevant; q2: 1 of 5; q3: nobody judged
JUDGED = {"q1": {"d0": 1, "d1": 1, "d2": 1, "d3": 1, "d4": 0, "d5": 0},
          "q2": {"d6": 1, "d7": 0, "d8": 0, "d9": 0, "d10": 0}}
PAIRS = [("q1", "d0"), ("q1", "d4"), ("q1", "d11"), ("q2", "d6"), ("q2", "d7"), ("q2", "d11"), ("q3", "d11")]


@pytest.fixture
def store(tmp_path):
    s = Store.create(tmp_path / "ws")
    s.upsert_topics([Topic("q1", "one"), Topic("q2", "two"), Topic("q3", "three")])
    s.upsert_docs([Doc(d, t) for d, t in DOCS.items()])
    yield s
    s.close()


def values(store, judged, pairs=PAIRS) -> dict:
    ctx = signals.context_from_store(store, judged=judged)
    x = asyncio.run(signals.values(signals.build("prior"), pairs, ctx))
    return {p: float(v) for p, v in zip(pairs, x[:, 0])}


def expected(r: int, n: int, judged=JUDGED) -> float:
    m, k = prior.strength(judged)
    p = (r + k * m) / (n + k)
    return math.log(p / (1 - p))


def test_an_unlabelled_pair_gets_its_topics_shrunk_share_as_log_odds(store):
    v = values(store, JUDGED)
    assert v[("q1", "d11")] == pytest.approx(expected(4, 6))
    assert v[("q2", "d11")] == pytest.approx(expected(1, 5))


def test_a_topic_with_more_relevant_labels_gets_the_higher_value(store):
    v = values(store, JUDGED)
    assert v[("q1", "d11")] > v[("q3", "d11")] > v[("q2", "d11")]


def test_a_topic_nobody_judged_gets_the_share_over_all_topics(store):
    m, _ = prior.strength(JUDGED)
    assert values(store, JUDGED)[("q3", "d11")] == pytest.approx(math.log(m / (1 - m)))


@pytest.mark.parametrize("pair", [("q1", "d0"), ("q1", "d4"), ("q2", "d6"), ("q2", "d7")])
def test_a_labelled_pair_is_counted_without_its_own_label(store, pair):
    q, d = pair
    labels = JUDGED[q]
    r = sum(labels.values()) - labels[d]
    got = values(store, JUDGED)[pair]
    assert got == pytest.approx(expected(r, len(labels) - 1))


def test_the_strength_follows_how_much_the_topics_differ():
    alike = {f"q{i}": {f"d{j}": int(j < 3) for j in range(10)} for i in range(6)}
    apart = {f"q{i}": {f"d{j}": int(i % 2 == 0 and j < 8) for j in range(10)} for i in range(6)}
    assert prior.strength(alike)[1] == prior.MAX_K  # no spread beyond sampling: everything shrunk
    assert prior.strength(apart)[1] < 5  # topics at 0% and 80%: each speaks for itself


def test_a_changed_label_is_a_new_version(store):
    a = signals.build("prior").version(signals.context_from_store(store, judged=JUDGED))
    b = signals.build("prior").version(signals.context_from_store(store, judged={**JUDGED, "q2": {"d6": 0}}))
    assert a != b


def test_prior_is_dropped_when_no_document_was_judged(store):
    why = signals.build("prior").unavailable(signals.context_from_store(store))
    assert why and "judged" in why


def test_on_dl19_a_topics_share_of_relevant_labels_ranks_the_idst_holes(tmp_path):
    """Real data: the labels only the idst runs contributed are hidden; the prior, from the other
    NIST labels of each topic, ranks those hidden pairs well above chance."""
    from sklearn.metrics import roc_auc_score

    from qrelkit.data import load_qrels, read_runs
    from qrelkit.evaluate.leaveout import dropped_pairs
    from tests.shared_data import shared_data_path

    dl = shared_data_path("trec-dl-2019")
    nist = load_qrels(str(dl / "qrels.txt")).pairs
    (drop,) = [d for d in dropped_pairs(read_runs([str(dl / "runs" / "official")]), nist, 10) if d.group == "idst"]
    judged: dict = {}
    for (q, d), g in nist.items():
        if (q, d) not in drop.pairs:
            judged.setdefault(q, {})[d] = int(g >= 2)
    hidden = sorted(drop.pairs)
    with Store.create(tmp_path / "dl") as s:
        ctx = signals.context_from_store(s, judged=judged)
        x = asyncio.run(signals.values(signals.build("prior"), hidden, ctx))
    y = [int(nist[p] >= 2) for p in hidden]
    assert np.isfinite(x).all()
    assert roc_auc_score(y, x[:, 0]) > 0.75
