"""The embedded model, loaded for real (marked ``model``)."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from qrelkit.llm import Message, make_client
from qrelkit.llm.local import DEFAULT_MODEL_ID, default_model_path

pytestmark = pytest.mark.model

SCHEMA = {
    "type": "object",
    "properties": {"relevant": {"type": "boolean"}, "grade": {"type": "integer", "enum": [0, 1, 2, 3]}},
    "required": ["relevant", "grade"],
}
JUDGE = [
    Message("system", "You are a relevance assessor. Reply with JSON."),
    Message(
        "user",
        "Query: how do cats purr\nDocument: Cats purr by vibrating the muscles of the larynx.\n"
        "Is the document relevant to the query? Give a grade from 0 (not) to 3 (perfect).",
    ),
]


def run(coro):
    return asyncio.run(coro)


@pytest.fixture(scope="module")
def client():
    return make_client("local")


@pytest.fixture(scope="module")
def reference():
    """An independent evaluation with every position's logits kept (what the backend avoids)."""
    from llama_cpp import Llama

    return Llama(str(default_model_path()), n_ctx=512, n_threads=2, seed=1, logits_all=True, verbose=False)


def ref_log_softmax(x):
    x = np.asarray(x, dtype=np.float64)
    return x - x.max() - np.log(np.exp(x - x.max()).sum())


def test_schema_valid_json(client):
    assert client.model_id == DEFAULT_MODEL_ID
    res = run(client.complete(JUDGE, schema=SCHEMA, max_tokens=40))
    assert res.ok, res.error
    assert isinstance(res.parsed["relevant"], bool) and res.parsed["grade"] in (0, 1, 2, 3)
    assert res.prompt_tokens > 20 and 0 < res.completion_tokens <= 40 and res.cost_usd == 0.0


def test_top_logprobs(client):
    res = run(
        client.complete(
            [Message("user", "What is the capital of France? One word.")], max_tokens=6, top_logprobs=5
        )
    )
    assert res.ok and len(res.logprobs) == res.completion_tokens > 0
    for t in res.logprobs:
        assert len(t.top) == 5
        lps = [lp for _, lp in t.top]
        assert lps == sorted(lps, reverse=True)
        assert sum(math.exp(lp) for lp in lps) <= 1.0 + 1e-6
        # Greedy decoding picks the most likely token.
        assert t.logprob == pytest.approx(lps[0])
    assert "".join(t.token for t in res.logprobs).strip() == res.text.strip()


@pytest.mark.parametrize(
    "prefix,continuation",
    [
        ("The capital of France is", " Paris"),
        ("Question: is the sky blue?\nAnswer:", " Yes, it is blue on a clear day."),
    ],
)
def test_score_matches_independent_logsoftmax(client, reference, prefix, continuation):
    s = run(client.score(prefix, continuation))
    assert s.ok, s.error
    p = reference.tokenize(prefix.encode(), add_bos=True, special=True)
    c = reference.tokenize(continuation.encode(), add_bos=False, special=True)
    reference.reset()
    reference.eval(p + c)
    expected = [ref_log_softmax(reference.scores[len(p) - 1 + i])[tok] for i, tok in enumerate(c)]
    assert s.tokens == len(c)
    assert s.token_logprobs == pytest.approx(expected, abs=2e-3)
    assert s.logprob == pytest.approx(sum(expected), abs=5e-3)
    assert s.logprob < 0


def test_score_after_generation_reuses_state_correctly(client, reference):
    # The KV cache is shared between complete() and score(); interleaving must not change results.
    first = run(client.score("The capital of France is", " Paris", version="a"))
    run(client.complete([Message("user", "Say something else entirely.")], max_tokens=8))
    second = run(client.score("The capital of France is", " Paris", version="b"))  # new key: recomputed
    assert not second.cached and second.logprob == pytest.approx(first.logprob, abs=2e-3)
