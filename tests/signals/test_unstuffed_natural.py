"""On natural text the ``_u`` signals are the plain ones: no pair of the demo collection has a
stuffed run, and 4 of the 9,260 labelled pairs of TREC DL 2019 do, each a passage whose heading
restates the query; so ``learned``'s default (the ``_u`` signals since 7 December 2026) computes
there what the plain signals did, but for those (docs/audit.md)."""
from __future__ import annotations

import pytest
from shared_data import shared_data_path

from qrelkit import prompts
from qrelkit.data.docs import read_docs
from qrelkit.data.qrels import read_qrels
from qrelkit.data.runs import read_runs
from qrelkit.data.topics import load_topics
from qrelkit.demo import demo_paths
from qrelkit.signals.unstuffed import stuffed_spans, unstuffed


def stuffed(pairs, topics, docs) -> list[tuple[str, str]]:
    """The pairs whose document, as a judge sees it, the ``_u`` signals would read without a run."""
    out = []
    for q, d in sorted(pairs):
        text = prompts.doc_text(docs[d].text, docs[d].title)
        if unstuffed(text, topics[q].text) != text:
            out.append((q, d))
    return out


def test_no_pair_of_the_demo_collection_has_a_stuffed_run():
    paths = demo_paths()
    topics, docs = load_topics(paths.topics), {d.docid: d for d in read_docs(paths.docs)}
    pairs = {(q.qid, q.docid) for q in read_qrels(paths.full_qrels)}
    pairs |= {(q, e.docid) for run in read_runs(list(paths.runs)) for q, entries in run.by_topic.items()
              for e in entries if e.docid in docs}
    assert (len(pairs) > 150, stuffed(pairs, topics, docs)) == (True, [])


@pytest.fixture(scope="module")
def dl19_stuffed() -> list[tuple[str, str, str]]:
    """Every labelled pair of TREC DL 2019 the ``_u`` signals read differently: (qid, docid, text)."""
    folder = shared_data_path("trec-dl-2019")
    topics = load_topics(folder / "topics.tsv")
    docs = {d.docid: d for d in read_docs(folder / "passages.jsonl")}
    pairs = {(q.qid, q.docid) for q in read_qrels(folder / "qrels.txt") if q.qid in topics and q.docid in docs}
    assert len(pairs) == 9260
    return [(q, d, prompts.doc_text(docs[d].text, docs[d].title)) for q, d in stuffed(pairs, topics, docs)]


@pytest.mark.realdata
def test_at_most_one_in_a_thousand_labelled_dl19_pairs_has_a_stuffed_run(dl19_stuffed):
    assert len(dl19_stuffed) <= 9


@pytest.mark.realdata
def test_each_stuffed_run_of_dl19_is_a_heading_restating_the_query(dl19_stuffed):
    folder = shared_data_path("trec-dl-2019")
    topics = load_topics(folder / "topics.tsv")
    assert all(stuffed_spans(text, topics[q].text)[0][0] == 0 for q, _, text in dl19_stuffed)
