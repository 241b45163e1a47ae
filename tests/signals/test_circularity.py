"""The report warns when a judge that uses the dense signal labels runs of dense retrievers."""
from __future__ import annotations

import pytest

from qrelkit.evaluate.circularity import dense_signal_warnings, is_dense_run


@pytest.mark.parametrize("name,model,dense", [
    ("dense", "", True),
    ("tas-b-run", "", True),
    ("run7", "sentence-transformers/all-MiniLM-L6-v2", True),
    ("bm25", "", False),
    ("monot5", "castorini/monot5-base", False),
    ("splade", "naver/splade-v3", False),
    ("distance", "", False),
])
def test_dense_retrievers_are_recognised_by_name_or_model(name, model, dense):
    assert is_dense_run(name, model) is dense


def test_a_learned_judge_with_the_default_signals_warns_about_a_dense_run():
    ws = dense_signal_warnings({"dense": "", "bm25": ""}, ["learned"])
    assert [w.run for w in ws] == ["dense"]


def test_the_warning_says_how_to_leave_the_dense_signal_out():
    (w,) = dense_signal_warnings({"dense": ""}, ["learned(calib=100)"])
    assert "learned(signals=pmi_u+ql_u+lexical_u+pool+prior)" in w.message()


@pytest.mark.parametrize("method", ["learned(signals=pmi+ql+lexical)", "likelihood(threshold=auto)", "debate"])
def test_judges_without_the_dense_signal_raise_no_warning(method):
    assert dense_signal_warnings({"dense": ""}, [method]) == ()


@pytest.mark.parametrize("method", ["learned(signals=lexical+feedback)", "learned(signals=pmi+lexical+window)",
                                    "learned(signals=pmi_u+dense_u)"])
def test_signals_comparing_by_minilm_vectors_count_as_dense(method):
    assert [w.run for w in dense_signal_warnings({"dense": ""}, [method])] == ["dense"]


def test_the_prior_signal_alone_is_not_dense():
    assert dense_signal_warnings({"dense": ""}, ["learned(signals=pmi+lexical+prior)"]) == ()
