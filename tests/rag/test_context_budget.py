"""rag generate's context budget follows the model: the embedded model's 2,048-token window
gets a shared 1,200-token budget, a served model the top-k chunks whole (BRIDGE's generation)."""
from __future__ import annotations

import pytest

from qrelkit.errors import UsageError
from qrelkit.rag.generate import context_block, resolve_context_tokens
from qrelkit.types import Doc


@pytest.mark.parametrize(("given", "model", "expected"), [
    ("auto", "local", 1200),
    ("auto", "local:SmolLM2-135M", 1200),
    ("auto", "openai:llama@http://127.0.0.1:8000/v1", None),
    ("800", "openai:llama@http://127.0.0.1:8000/v1", 800),
    (2000, "local", 2000),
])
def test_the_shared_budget_follows_the_model_unless_a_number_is_given(given, model, expected):
    assert resolve_context_tokens(given, model) == expected


@pytest.mark.parametrize("bad", ["lots", "10"])
def test_a_budget_that_is_neither_auto_nor_a_usable_number_is_refused(bad):
    with pytest.raises(UsageError, match="--context-tokens"):
        resolve_context_tokens(bad, "local")


def test_a_served_models_context_holds_the_whole_chunk():
    words = " ".join(f"w{i}" for i in range(3000))
    block, _ = context_block(["d1"], {"d1": Doc("d1", words)}.get, None)
    assert "w2999" in block


def test_a_budgeted_context_cuts_the_chunk():
    words = " ".join(f"w{i}" for i in range(3000))
    block, _ = context_block(["d1"], {"d1": Doc("d1", words)}.get, 120)
    assert "w2999" not in block
