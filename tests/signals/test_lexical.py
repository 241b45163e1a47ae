"""BM25, coverage and length over a literal corpus, checked by hand."""
from __future__ import annotations

import math

import pytest

from qrelkit.signals.lexical import K1, B, BM25Index, tokens

CORPUS = {
    "a": "Mount Everest is the highest mountain",
    "b": "bread baking takes forty minutes",
    "c": "the everest base camp",
}


@pytest.fixture(scope="module")
def index():
    return BM25Index.build(CORPUS)


def test_tokens_are_lowercased_words_without_stop_words():
    assert tokens("The Highest, MOUNTAIN!") == ["highest", "mountain"]


def test_bm25_of_one_term_matches_the_formula(index):
    # "bread": df=1 of N=3; doc b has 4 tokens ("forty" is a stop word), the average is 11/3
    idf = math.log1p((3 - 1 + 0.5) / (1 + 0.5))
    expected = idf * 1 * (K1 + 1) / (1 + K1 * (1 - B + B * 4 / (11 / 3)))
    assert index.features("bread", "b")[0] == pytest.approx(expected)


def test_a_document_without_the_query_terms_scores_zero(index):
    assert index.features("bread", "a")[0] == 0.0


def test_the_rarer_match_scores_higher(index):
    assert index.features("everest mountain", "a")[0] > index.features("everest mountain", "c")[0]


@pytest.mark.parametrize("query,docid,coverage", [
    ("everest mountain", "a", 1.0),
    ("everest mountain", "c", 0.5),
    ("everest mountain", "b", 0.0),
    ("unknownword everest", "c", 0.5),
])
def test_coverage_is_the_share_of_distinct_query_terms_in_the_document(index, query, docid, coverage):
    assert index.features(query, docid)[1] == pytest.approx(coverage)


def test_log_length_counts_the_documents_tokens(index):
    assert index.features("x", "b")[2] == pytest.approx(math.log1p(4))


def test_an_unknown_document_has_no_lexical_evidence(index):
    assert index.features("everest", "zzz") == (0.0, 0.0, 0.0)
