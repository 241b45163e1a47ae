"""Pool specs: parsing, canonical text, the refusals."""
from __future__ import annotations

import pytest

from qrelkit.errors import UsageError
from qrelkit.pooling import REGISTRY, parse_pool, resolve_pool


@pytest.mark.parametrize(("text", "canonical"), [
    ("depth", "depth(k=10)"),
    ("depth(k=5, n=3)", "depth(k=5,n=3)"),
    ("rrf(n=20)", "rrf(k=60,n=20)"),
    ("RBP(budget=100, p=0.5)", "rbp(agg=sum,budget=100,p=0.5)"),
    ("combmnz", "combmnz(norm=minmax)"),
    ("mtf(n=5)", "mtf(batch=1,n=5)"),
])
def test_a_spec_reads_to_its_canonical_text(text, canonical):
    assert str(parse_pool(text)) == canonical


@pytest.mark.parametrize(("text", "message"), [
    ("rrf(n=5, budget=10)", "not both"),
    ("bm25(n=5)", "unknown strategy 'bm25'; choose from combmnz, depth, mtf, rbp, rrf"),
    ("rrf(depth=5)", "has no parameter 'depth'"),
    ("rbp(p=1.5)", "out of range"),
    ("rrf(n=0)", "out of range"),
    ("combmnz(norm=zscore)", "not one of minmax, none"),
    ("rrf+depth", "expected one strategy"),
])
def test_a_bad_spec_is_one_clear_usage_error(text, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_pool(text)


def test_every_strategy_is_registered_once():
    assert sorted(REGISTRY) == ["combmnz", "depth", "mtf", "rbp", "rrf"]


@pytest.mark.parametrize(("pool", "depth", "canonical"), [
    (None, None, "depth(k=10)"),
    (None, 5, "depth(k=5)"),
    ("depth(k=5)", 5, "depth(k=5)"),
    ("rrf(n=3)", None, "rrf(k=60,n=3)"),
])
def test_depth_and_pool_options_resolve_to_one_spec(pool, depth, canonical):
    assert str(resolve_pool(pool, depth)) == canonical


def test_depth_and_a_different_pool_are_refused_together():
    with pytest.raises(UsageError, match="give --pool or --depth"):
        resolve_pool("rrf(n=3)", 10)
