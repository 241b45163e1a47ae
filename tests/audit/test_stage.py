"""What the audit adds to its scratch copy: the probes' documents, and pooled probes pooled as their pairs."""
from __future__ import annotations

import pytest

from qrelkit.audit import probes as P
from qrelkit.audit.run import stage
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Topic

TOPICS = [Topic("q1", "solar panel efficiency")]
DOCS = [Doc("d1", "Bread rises because yeast ferments sugar."), Doc("d2", "Panels convert sunlight well.")]
LABELS = {("q1", "d1"): 0, ("q1", "d2"): 3}


@pytest.fixture()
def staged(tmp_path):
    with Store.create(tmp_path / "ws") as s:
        s.upsert_topics(TOPICS)
        s.upsert_docs(DOCS)
        s.upsert_cases([Case("q1", "d1", "llm", 4, ("bm25", "dense"), True)])  # d2 is not pooled
        drawn = P.draw(LABELS, 2, 5, 0)
        built = P.build(drawn, {t.qid: t for t in TOPICS}, {d.docid: d for d in DOCS}, 0)
        cases, keys = stage(s, built, drawn)
        yield s, built, cases, keys


def test_every_probe_document_is_in_the_scratch_store(staged):
    s, built, _, _ = staged
    assert all(s.doc(p.doc.docid).text == p.doc.text for p in built)


def test_a_probe_of_a_pooled_pair_is_pooled_with_its_runs_and_rank(staged):
    s, built, _, _ = staged
    pooled = {c.docid: c for c in s.cases()}
    probe = next(p for p in built if p.name == "stuffing-start")
    assert (pooled[probe.doc.docid].runs, pooled[probe.doc.docid].best_rank) == (("bm25", "dense"), 4)


def test_a_probe_of_an_unpooled_pair_is_not_pooled(staged):
    s, built, _, _ = staged
    probe = next(p for p in built if p.name == "dilution")
    assert probe.doc.docid not in {c.docid for c in s.cases()}


def test_the_untouched_pairs_come_first_among_the_cases(staged):
    _, built, cases, _ = staged
    assert [(c.qid, c.docid) for c in cases[:2]] == [("q1", "d1"), ("q1", "d2")]


def test_the_cases_are_the_untouched_pairs_and_every_probe(staged):
    _, built, cases, _ = staged
    assert len(cases) == 2 + len(built)


def test_each_probe_is_keyed_to_its_untouched_pair(staged):
    _, _, _, keys = staged
    assert all(a == (b[0], b[1].split("~")[0]) for pairs in keys.values() for a, b in pairs)
