"""benchmarks/embedded_tokens.py counts the tokens the embedded model must evaluate as the shipped
scoring path does: what a KV cache can keep, what the client's cache answers, and how many tokens
a pair's likelihood prompt has (docs/embedded-judge.md's round-2 speed table rests on these)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "embedded_tokens.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("embedded_tokens", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_first_prompt_is_evaluated_whole(bench):
    assert bench.evaluated([[1, 2, 3, 4]]) == 4


def test_a_shared_prefix_is_kept_from_the_previous_prompt(bench):
    assert bench.evaluated([[1, 2, 3, 4], [1, 2, 5, 6]]) == 4 + 2


def test_a_repeated_prompt_is_answered_by_the_client_cache(bench):
    assert bench.evaluated([[1, 2, 3], [4, 5], [1, 2, 3]]) == 3 + 2


def test_a_prompt_inside_the_previous_one_still_evaluates_its_last_token(bench):
    # the scorer needs the logits at its last prefix position, so at least one token is decoded
    assert bench.evaluated([[1, 2, 3, 4], [1, 2, 3]]) == 4 + 1


def test_only_the_previous_prompt_is_kept(bench):
    assert bench.evaluated([[1, 2, 3], [7, 8], [1, 2, 9]]) == 3 + 2 + 3


def test_the_lexicographic_order_evaluates_no_more(bench):
    seqs = [[1, 2, 3], [7, 8], [1, 2, 9], [7, 8, 1], [1, 5]]
    assert bench.evaluated(sorted(seqs)) == 3 + 1 + 1 + 2 + 1
    assert bench.evaluated(sorted(seqs)) < bench.evaluated(seqs)


@pytest.mark.model
def test_the_counted_tokens_are_those_the_shipped_path_scores(bench):
    from qrelkit.llm.local import load

    model = load()
    prefix = ("Passage:\nCats purr by vibrating the muscles of the larynx.\n\n"
              "Write a question that this passage answers.\nQuestion:")
    p, c = bench.token_ids(model, prefix, " how do cats purr")
    res = model.score(prefix, " how do cats purr")
    assert len(p) + len(c) == res.prompt_tokens
    assert len(c) == res.tokens
