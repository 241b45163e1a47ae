"""The ``vllm:`` model kind: the real backend, Client and store over a fake ``vllm`` package whose
answers are scripted (tests/llm_layer/fake_vllm). What the engine is asked for (guided choice or
JSON schema, batches), what comes back (labels, errors, scores), caching and resume."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from qrelkit.errors import UsageError
from qrelkit.judging.runner import run_judging
from qrelkit.llm import canonical_model_id, make_client, parse_model_spec
from qrelkit.llm.base import Message
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Topic

FAKE = Path(__file__).parent / "fake_vllm"
MODEL = "vllm:fake/qwen-7b"
LABELS = ['"Relevant"', '"Not Relevant"']
N = 8


@pytest.fixture
def vllm(monkeypatch):
    """The fake vllm importable for this test only; no engine left loaded from another test."""
    from qrelkit.llm import vllm_backend

    monkeypatch.syspath_prepend(str(FAKE))
    for name in [m for m in sys.modules if m == "vllm" or m.startswith("vllm.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(vllm_backend, "_engines", {})
    import vllm as fake

    fake.reset()
    yield fake
    for name in [m for m in sys.modules if m == "vllm" or m.startswith("vllm.")]:
        del sys.modules[name]


def make_store(path: Path) -> Store:
    """N cases; the odd documents hold the word the fake answers "relevant" to."""
    store = Store.create(path)
    store.upsert_topics([Topic(f"q{i}", f"query {i}") for i in range(2)])
    store.upsert_docs([Doc(f"d{i}", f"passage {'beacon' if i % 2 else 'plain'} number {i}") for i in range(N)])
    store.upsert_cases([Case(f"q{i % 2}", f"d{i}", "llm", i + 1) for i in range(N)])
    return store


def judge(store: Store, spec: str = "zero-shot(output=label)", model: str = MODEL, **client_opts):
    client = make_client(model, store=store, backoff_base=0.0, **client_opts)
    return run_judging(store, spec, client, task="graded", concurrency=8), client


# ---- the spec ----------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [MODEL, MODEL + "?tensor_parallel_size=2&dtype=bfloat16", "vllm:fake/qwen-7b"])
def test_the_canonical_id_is_vllm_and_the_model_without_options(spec):
    assert canonical_model_id(spec) == MODEL


def test_engine_options_are_read_from_the_spec():
    assert parse_model_spec(MODEL + "?gpu_memory_utilization=0.8").options == (("gpu_memory_utilization", "0.8"),)


@pytest.mark.parametrize("spec, message", [
    ("vllm:", "missing model name after 'vllm:'"),
    (MODEL + "?tensor_parallel=2", "has no parameter 'tensor_parallel'"),
    (MODEL + "?tensor_parallel_size=0", "tensor_parallel_size: 0 is out of range"),
    (MODEL + "?dtype=int3", "dtype: 'int3' is not one of"),
])
def test_a_bad_vllm_spec_is_a_usage_error(spec, message):
    with pytest.raises(UsageError, match=message):
        parse_model_spec(spec)


def test_without_vllm_the_spec_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(UsageError, match=r"pip install vllm"):
        make_client(MODEL)


def test_the_engine_gets_only_the_options_given(vllm):
    asyncio.run(make_client(MODEL + "?tensor_parallel_size=2&max_model_len=4096&batch=3").complete(
        [Message("user", "hi")]))
    assert vllm.ENGINES == [{"model": "fake/qwen-7b", "tensor_parallel_size": 2, "max_model_len": 4096}]


# ---- what the engine is asked for ---------------------------------------------------------------
def test_output_label_asks_for_a_guided_choice_of_the_two_labels(vllm, tmp_path):
    judge(make_store(tmp_path / "ws"))
    assert {tuple(sp.structured_outputs.choice) for _, sp in vllm.REQUESTS} == {tuple(LABELS)}


def test_output_label_gives_the_scripted_labels(vllm, tmp_path):
    store = make_store(tmp_path / "ws")
    judge(store)
    assert {j.docid: j.label for j in store.judgments()} == {f"d{i}": i % 2 for i in range(N)}


def test_a_json_judge_asks_for_its_json_schema(vllm, tmp_path):
    judge(make_store(tmp_path / "ws"), "zero-shot")
    schemas = [sp.structured_outputs.json for _, sp in vllm.REQUESTS]
    assert all(s["type"] == "object" and "grade" in s["properties"] for s in schemas)


def test_a_vllm_before_0_10_2_gets_guided_decoding_params(vllm, tmp_path, monkeypatch):
    monkeypatch.delattr(vllm.sampling_params, "StructuredOutputsParams")
    store = make_store(tmp_path / "ws")
    judge(store)
    assert {tuple(sp.guided_decoding.choice) for _, sp in vllm.REQUESTS} == {tuple(LABELS)}


def test_the_judgments_carry_the_vllm_model_id(vllm, tmp_path):
    store = make_store(tmp_path / "ws")
    judge(store, model=MODEL + "?gpu_memory_utilization=0.5")
    assert {j.model for j in store.judgments()} == {MODEL}


# ---- batching ----------------------------------------------------------------------------------
async def _concurrent(client, n: int) -> list:
    return await asyncio.gather(*(client.complete([Message("user", f"case {i}")]) for i in range(n)))


def test_concurrent_calls_go_to_the_engine_together(vllm):
    asyncio.run(_concurrent(make_client(MODEL, concurrency=12), 12))
    assert len(vllm.CALLS) <= 2  # the first call alone at most, then everything that waited behind it


def test_every_concurrent_call_is_answered_once(vllm):
    asyncio.run(_concurrent(make_client(MODEL, concurrency=12), 12))
    assert sum(n for _, n in vllm.CALLS) == 12


def test_the_batch_option_caps_one_engine_call(vllm):
    asyncio.run(_concurrent(make_client(MODEL + "?batch=5", concurrency=12), 12))
    assert max(n for _, n in vllm.CALLS) == 5


def test_a_judging_run_batches_its_cases(vllm, tmp_path):
    _, client = judge(make_store(tmp_path / "ws"))
    assert max(client.backend.batches) > 1


# ---- cache and resume -----------------------------------------------------------------------------
def test_a_rerun_makes_no_engine_calls(vllm, tmp_path):
    store = make_store(tmp_path / "ws")
    judge(store)
    before = len(vllm.CALLS)
    summary, _ = judge(store)
    assert summary.calls == 0
    assert len(vllm.CALLS) == before


def _ask(store: Store, model: str) -> None:
    asyncio.run(make_client(model, store=store).complete([Message("user", "case 0")]))


def test_an_option_that_changes_answers_changes_the_cache_key(vllm, tmp_path):
    store = make_store(tmp_path / "ws")
    _ask(store, MODEL)
    _ask(store, MODEL + "?dtype=float16")
    assert len(vllm.CALLS) == 2


def test_an_option_that_does_not_change_answers_shares_the_cache(vllm, tmp_path):
    store = make_store(tmp_path / "ws")
    _ask(store, MODEL)
    _ask(store, MODEL + "?gpu_memory_utilization=0.5&tensor_parallel_size=2")
    assert len(vllm.CALLS) == 1


def test_vllm_and_openai_of_one_model_do_not_share_answers():
    assert canonical_model_id(MODEL) != canonical_model_id("openai:fake/qwen-7b@http://127.0.0.1:9/v1")


# ---- errors are error verdicts, never labels ----------------------------------------------------
def _raise(conversation, params):
    raise RuntimeError("CUDA error: an illegal memory access was encountered")


@pytest.mark.parametrize("script", [_raise, lambda c, p: "I think it is relevant"], ids=["engine-raises", "unparseable"])
def test_a_failed_or_unparseable_call_is_an_error_verdict(vllm, tmp_path, script):
    vllm.SCRIPT = script
    store = make_store(tmp_path / "ws")
    summary, _ = judge(store, max_attempts=2)
    assert summary.errors == N
    assert {j.label for j in store.judgments()} == {None}


def test_a_request_vllm_refuses_fails_alone_and_is_not_retried(vllm):
    client = make_client(MODEL + "?max_model_len=12", concurrency=4, backoff_base=0.0)
    messages = [Message("user", "short"), Message("user", " ".join(["word"] * 20)), Message("user", "brief")]

    async def together() -> list:
        return await asyncio.gather(*(client.complete([m]) for m in messages))

    results = asyncio.run(together())
    assert [(r.ok, r.attempts) for r in results] == [(True, 1), (False, 1), (True, 1)]


def test_a_refused_request_says_why(vllm):
    client = make_client(MODEL + "?max_model_len=12")
    r = asyncio.run(client.complete([Message("user", " ".join(["word"] * 20))]))
    assert "vLLM refused the request: The decoder prompt (length" in r.error


def test_a_model_that_cannot_load_fails_every_call_without_retrying(vllm):
    client = make_client("vllm:missing/model", concurrency=2)
    r = asyncio.run(client.complete([Message("user", "hi")]))
    assert r.attempts == 1
    assert "vLLM could not load missing/model" in r.error


# ---- scoring and log-probabilities ----------------------------------------------------------------
def test_score_sums_the_continuations_prompt_logprobs(vllm):
    s = asyncio.run(make_client(MODEL).score("a b c", "d e"))
    # [BOS a b c] then d e at positions 4 and 5; the fake's position k has log-probability -k/100
    assert s.logprob == pytest.approx(-0.09)
    assert s.prompt_tokens == 6


def test_score_asks_for_prompt_logprobs(vllm):
    asyncio.run(make_client(MODEL).score("a b c", "d e"))
    assert [(sp.prompt_logprobs, sp.max_tokens) for _, sp in vllm.REQUESTS] == [(1, 1)]


def test_top_logprobs_are_the_chosen_token_and_its_best_alternatives(vllm):
    r = asyncio.run(make_client(MODEL).complete([Message("user", "hi")], top_logprobs=2))
    assert r.logprobs[0].top == (("a", -0.1), ("maybe", -2.0))


def test_two_clients_of_one_model_share_one_engine(vllm):
    for _ in range(2):
        asyncio.run(make_client(MODEL).complete([Message("user", "hi")]))
    assert len(vllm.ENGINES) == 1


def test_the_likelihood_judge_scores_every_case_in_batched_generate_calls(vllm, tmp_path):
    summary, client = judge(make_store(tmp_path / "ws"), "likelihood")
    assert summary.errors == 0
    assert {m for m, _ in vllm.CALLS} == {"generate"}
    assert max(client.backend.batches) > 1
