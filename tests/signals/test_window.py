"""The window signal: the best window of sentences, so a long document's one answering sentence counts."""
from __future__ import annotations

import asyncio

import numpy as np
import pytest

from qrelkit import signals
from qrelkit.demo import demo_paths
from qrelkit.signals import minilm, window
from qrelkit.signals.lexical import tokens
from qrelkit.store import Store
from qrelkit.types import Doc, Topic

try:
    minilm.model_zip()
    HAVE_MODEL = True
except minilm.ModelMissing:
    HAVE_MODEL = False
pytestmark = pytest.mark.skipif(not HAVE_MODEL, reason=f"weights package missing: {minilm.INSTALL_HINT}")

FILLER = "The weather in the valley was mild this spring. Farmers planted corn and beans in long rows. "
ANSWER = "At night the red fox hunts mice and rabbits at the edge of the forest. "
DOCS = {
    "buried": FILLER * 6 + ANSWER + FILLER * 6,
    "short": "Foxes hunt rabbits and mice.",
    "off": FILLER * 3,
}
PAIRS = [("q1", d) for d in DOCS]
QUERY = "what does the red fox hunt"


@pytest.fixture
def store(tmp_path):
    s = Store.create(tmp_path / "ws")
    s.upsert_topics([Topic("q1", QUERY)])
    s.upsert_docs([Doc(d, t) for d, t in DOCS.items()])
    yield s
    s.close()


def values(store, name, pairs=PAIRS) -> np.ndarray:
    return asyncio.run(signals.values(signals.build(name), pairs, signals.context_from_store(store)))


def test_windows_are_two_sentences_moving_one_at_a_time():
    assert window.windows("One. Two! Three? Four.") == ["One. Two!", "Two! Three?", "Three? Four."]


def test_a_short_text_is_one_window():
    assert window.windows("Only one sentence here.") == ["Only one sentence here."]


def test_a_buried_answer_scores_its_window_not_the_diluted_whole(store):
    w = dict(zip(DOCS, values(store, "window")))
    d = dict(zip(DOCS, values(store, "dense")[:, 0]))
    assert w["buried"][0] > d["buried"] + 0.2
    assert w["buried"][0] > w["off"][0] + 0.3


def test_a_one_window_document_gets_the_dense_signals_cosine(store):
    w = dict(zip(DOCS, values(store, "window")))
    d = dict(zip(DOCS, values(store, "dense")[:, 0]))
    assert w["short"][0] == pytest.approx(d["short"], abs=1e-5)


def test_bm25_and_coverage_come_from_the_best_window(store):
    w = dict(zip(DOCS, values(store, "window")))
    assert w["buried"][1] > 0 and w["off"][1] == 0.0
    terms = set(tokens(QUERY))
    assert w["buried"][2] == pytest.approx(len(terms & set(tokens(ANSWER))) / len(terms))  # the answer's window
    assert w["buried"][2] > w["off"][2]


def test_values_are_cached_under_a_version_naming_the_windows(store):
    values(store, "window")
    version = signals.build("window").version(signals.context_from_store(store))
    assert "sentences=2" in version and store.signal_count("window", version) == len(PAIRS)


def test_on_the_demo_the_relevant_holes_have_the_better_windows(tmp_path):
    """Real bundled data: over the demo's judged pairs, window's dense_max ranks relevant above
    non-relevant more often than not (an AUC well above chance)."""
    from sklearn.metrics import roc_auc_score

    from qrelkit.data import load_qrels, read_docs, read_topics

    d = demo_paths()
    with Store.create(tmp_path / "demo") as s:
        s.upsert_topics(read_topics(d.topics))
        s.upsert_docs(read_docs(d.docs))
        full = load_qrels(str(d.full_qrels)).pairs
        pairs = sorted(full)
        x = asyncio.run(signals.values(signals.build("window"), pairs, signals.context_from_store(s)))
    y = [int(full[p] >= 2) for p in pairs]
    assert np.isfinite(x).all()
    assert roc_auc_score(y, x[:, 0]) > 0.7
