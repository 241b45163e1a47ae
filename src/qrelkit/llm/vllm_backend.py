"""``vllm:MODEL[?options]``: a vLLM engine in this process (or in each Ray actor), batching calls.

    vllm:Qwen/Qwen2.5-7B-Instruct
    vllm:/models/llama-3.1-8b-instruct?tensor_parallel_size=2&max_model_len=8192&dtype=bfloat16

Options are ``vllm.LLM``'s engine arguments (:data:`OPTIONS`; not given: vLLM's own defaults)
plus ``batch``, the most calls sent to the engine at once.

Why it is written this way:
- vLLM is fastest when it gets many prompts at once, while judges make one
  call at a time, concurrently. Calls arriving while the engine is busy wait
  in :class:`_Gather` and go to it together in one ``LLM.chat`` (or, for
  ``score``, one ``LLM.generate``): the batch is whatever the Client's
  concurrency (``--concurrency``) has in flight, with no timer and no added
  latency for a lone call. In a Ray actor, the engine's batch of calls
  (``ray(batch=N)``) arrives at once and becomes one engine call.
- Structured output is vLLM's own guided decoding, asked for per request:
  ``StructuredOutputsParams`` / ``SamplingParams(structured_outputs=...)``
  (vLLM >= 0.10.2, the only form from 0.12), else ``GuidedDecodingParams`` /
  ``SamplingParams(guided_decoding=...)`` (vLLM 0.8.5 - 0.11). A schema that is
  a string enum (``output=label``: "Relevant" / "Not Relevant") becomes a
  ``choice`` of the values' JSON spellings (``"Relevant"`` with its quotes):
  exactly those tokens can come out, and the reply is still the JSON string
  every other backend returns, so the Client validates it the one way it
  validates all replies. Any other schema is sent as ``json``.
- ``score`` reads the prompt log-probabilities of prefix + continuation
  (``prompt_logprobs``) from one token of generation; the continuation is
  tokenized on its own, after the prefix, as the embedded model does.
- The model id is ``vllm:MODEL``, not shared with ``openai:MODEL``: a served
  name is whatever the server was told (``--served-model-name``), a server
  applies the model's ``generation_config`` sampling defaults unless told not
  to, and ``output=label`` / ``score`` are asked for differently over HTTP; an
  answer is only reused for the same request to the same engine. Options that
  change the weights or their numerics (``dtype``, ``quantization``,
  ``revision``) join the cache key (``cache_extra``); the others (memory,
  parallelism, context length) do not change answers.
- vLLM needs a GPU and gigabytes; it is an optional extra never imported at
  module import. Without it the spec is a usage error saying how to install
  it. The engine loads on the first call (a fully cached re-run needs no GPU),
  or at once through :meth:`VLLMBackend.load`, which Ray actors call when they
  start so a model that cannot load is one clear error. One engine per model
  and options per process: a second client of the same spec (a debate agent,
  a narrative instructor) shares it instead of loading the weights twice.
- A request vLLM refuses (``ValueError``: a prompt longer than the context)
  fails only its own call, not retried; when a batch fails, its calls are
  re-run one by one so each failure lands on the call that caused it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import threading
from typing import Any, Callable, Optional, Sequence

from qrelkit.errors import UsageError
from qrelkit.llm.base import (
    CHAT,
    JSON_SCHEMA,
    SCORE,
    TOP_LOGPROBS,
    CallFailed,
    Completion,
    Message,
    ScoreResult,
    TokenLogprob,
)
from qrelkit.specs import Param, boolean, choice, integer, number

INSTALL_HINT = ("the vllm: model kind needs vLLM, on a machine with a GPU: pip install vllm "
                "(or pip install 'qrelkit[vllm]'); without a GPU serve the model elsewhere and use openai:MODEL@URL")
SEED = 1234
DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")
# vllm.LLM's engine arguments a spec may set; None: vLLM's default (not passed).
OPTIONS = {
    "tensor_parallel_size": Param(None, integer(1), "GPUs one engine is split over"),
    "gpu_memory_utilization": Param(None, number(0.01, 1.0), "share of GPU memory the engine takes"),
    "max_model_len": Param(None, integer(1), "context length (prompt + reply), in tokens"),
    "dtype": Param(None, choice(*DTYPES), "weights' data type"),
    "quantization": Param(None, str, "quantization method (awq, gptq, fp8, ...)"),
    "revision": Param(None, str, "model revision (branch, tag or commit)"),
    "seed": Param(None, integer(0), "the engine's seed"),
    "enforce_eager": Param(None, boolean, "no CUDA graphs (less memory, slower)"),
    "trust_remote_code": Param(None, boolean, "run the model repository's own code"),
    "batch": Param(256, integer(1), "most calls sent to the engine at once (qrelkit's, not vLLM's)"),
}
ANSWER_OPTIONS = ("dtype", "quantization", "revision")  # they change answers, so they join the cache key

_engines: dict[tuple, "_Engine"] = {}
_engines_lock = threading.Lock()


def require_vllm() -> None:
    """A usage error saying how to install vLLM when it is missing (found without importing it:
    importing vLLM loads torch, seconds of work a failing command should not do)."""
    try:
        found = importlib.util.find_spec("vllm") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise UsageError(INSTALL_HINT)


class _Engine:
    """One loaded ``vllm.LLM`` and the lock that lets one batch at a time into it."""

    def __init__(self, model: str, options: dict[str, Any]):
        import vllm

        self.vllm = vllm
        self.llm = vllm.LLM(model=model, **options)
        self.lock = threading.Lock()


def load_engine(model: str, options: dict[str, Any]) -> _Engine:
    key = (model, tuple(sorted(options.items())))
    with _engines_lock:
        engine = _engines.get(key)
        if engine is None:
            try:
                engine = _Engine(model, options)
            except Exception as e:  # noqa: BLE001 - vLLM reports a bad model, options or GPU in many ways
                raise CallFailed(f"vLLM could not load {model}: {type(e).__name__}: {e}", retryable=False) from None
            _engines[key] = engine
        return engine


def label_choices(schema: Optional[dict]) -> Optional[list[str]]:
    """The JSON spellings of a string enum's values (guided ``choice``), else None."""
    if not isinstance(schema, dict) or set(schema) != {"type", "enum"} or schema["type"] != "string":
        return None
    values = schema["enum"]
    if not values or not all(isinstance(v, str) for v in values):
        return None
    return [json.dumps(v) for v in values]


def structured(sampling_module: Any, schema: dict) -> dict[str, Any]:
    """The ``SamplingParams`` keyword that constrains a reply to ``schema``, for this vLLM."""
    choices = label_choices(schema)
    constraint = {"choice": choices} if choices is not None else {"json": schema}
    if hasattr(sampling_module, "StructuredOutputsParams"):  # vLLM >= 0.10.2
        return {"structured_outputs": sampling_module.StructuredOutputsParams(**constraint)}
    return {"guided_decoding": sampling_module.GuidedDecodingParams(**constraint)}  # vLLM 0.8.5 - 0.11


def sampling_params(vllm: Any, request: tuple) -> Any:
    """``vllm.SamplingParams`` for one ``complete`` request (see :meth:`VLLMBackend.complete`)."""
    _, _, schema, max_tokens, temperature, top_logprobs, stop = request
    kwargs: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature}
    if temperature > 0:
        kwargs["seed"] = SEED  # determinism when sampling; greedy needs none
    if top_logprobs:
        kwargs["logprobs"] = top_logprobs
    if stop:
        kwargs["stop"] = list(stop)
    if schema is not None:
        kwargs.update(structured(vllm.sampling_params, schema))
    return vllm.SamplingParams(**kwargs)


def _token_logprob(token_id: int, alternatives: dict, k: int) -> TokenLogprob:
    """One generated token from vLLM's ``{token_id: Logprob}`` (the chosen token is always in it)."""
    chosen = alternatives[token_id]
    top = sorted(alternatives.values(), key=lambda lp: -lp.logprob)[:k]
    return TokenLogprob(chosen.decoded_token or "", float(chosen.logprob),
                        tuple((lp.decoded_token or "", float(lp.logprob)) for lp in top))


def to_completion(output: Any, top_logprobs: int) -> Completion:
    """A ``RequestOutput`` as the Completion every backend returns."""
    first = output.outputs[0]
    lps: tuple[TokenLogprob, ...] = ()
    if top_logprobs and first.logprobs:
        lps = tuple(_token_logprob(t, d, top_logprobs) for t, d in zip(first.token_ids, first.logprobs))
    return Completion(text=first.text, logprobs=lps, prompt_tokens=len(output.prompt_token_ids or ()),
                      completion_tokens=len(first.token_ids))


def to_score(output: Any, n_prefix: int, continuation: Sequence[int]) -> ScoreResult:
    """The continuation's summed log-probability from a ``RequestOutput``'s prompt log-probabilities."""
    rows = output.prompt_logprobs[n_prefix:n_prefix + len(continuation)]
    token_lps = tuple(float(row[t].logprob) for row, t in zip(rows, continuation))
    return ScoreResult(logprob=sum(token_lps), tokens=len(continuation), token_logprobs=token_lps,
                       prompt_tokens=n_prefix + len(continuation))


def _failure(e: Exception) -> CallFailed:
    if isinstance(e, CallFailed):
        return e
    if isinstance(e, ValueError):  # vLLM's own validation: the same request would fail again
        return CallFailed(f"vLLM refused the request: {e}", retryable=False)
    return CallFailed(f"vLLM engine failed: {type(e).__name__}: {e}")


def batch_or_each(fn: Callable[[list], list], items: list) -> list:
    """``fn`` over ``items`` as one batch; when the batch fails, one by one, so that each failure
    is the outcome of the item that caused it. Outcomes are results or CallFailed exceptions."""
    try:
        return list(fn(items))
    except Exception as e:  # noqa: BLE001 - an engine failure becomes the calls' failed attempt
        if len(items) == 1:
            return [_failure(e)]
    return [batch_or_each(fn, [item])[0] for item in items]


class _Gather:
    """Calls made while the engine is busy wait here and go to it together (see the module docstring)."""

    def __init__(self, run: Callable[[list], list], limit: int):
        self.run, self.limit = run, limit
        self.batches: list[int] = []  # the size of each engine call, for tests and benchmarks
        self._loop: Any = None
        self._waiting: list[tuple[Any, asyncio.Future]] = []
        self._task: Optional[asyncio.Task] = None

    async def submit(self, item: Any) -> Any:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # asyncio objects belong to one loop; a command may run several
            self._loop, self._waiting, self._task = loop, [], None
        fut = loop.create_future()
        self._waiting.append((item, fut))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._drain())
        return await fut

    async def _drain(self) -> None:
        await asyncio.sleep(0)  # calls made in this same turn of the loop join the first batch
        while self._waiting:
            batch = [w for w in self._waiting[: self.limit] if not w[1].done()]  # a timed-out caller is skipped
            del self._waiting[: self.limit]
            if not batch:
                continue
            self.batches.append(len(batch))
            try:
                outcomes = await asyncio.to_thread(self.run, [item for item, _ in batch])
            except Exception as e:  # noqa: BLE001 - e.g. the engine cannot load: every call in it fails
                outcomes = [_failure(e)] * len(batch)
            for (_, fut), out in zip(batch, outcomes):
                if fut.done():
                    continue
                if isinstance(out, BaseException):
                    fut.set_exception(out)
                else:
                    fut.set_result(out)


class VLLMBackend:
    """The Backend protocol over an in-process vLLM engine (see the module docstring)."""

    def __init__(self, model: str, options: Optional[dict[str, Any]] = None, batch: int = 256):
        require_vllm()
        self.model = model
        self.options = dict(options or {})
        self.model_id = "vllm:" + model
        self.capabilities = frozenset({CHAT, JSON_SCHEMA, TOP_LOGPROBS, SCORE})
        extra = {k: self.options[k] for k in ANSWER_OPTIONS if k in self.options}
        self.cache_extra: Optional[dict] = extra or None
        self._gather = _Gather(self._run, batch)
        self._engine: Optional[_Engine] = None
        self._load_error: Optional[CallFailed] = None

    @property
    def batches(self) -> list[int]:
        return self._gather.batches

    def load(self) -> _Engine:
        """The engine, loaded now if it is not yet (seconds to minutes: weights onto the GPU)."""
        if self._load_error is not None:
            raise self._load_error  # a model that could not load is not tried again for every batch
        if self._engine is None:
            try:
                self._engine = load_engine(self.model, self.options)
            except CallFailed as e:
                self._load_error = e
                raise
        return self._engine

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Optional[dict] = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        top_logprobs: int = 0,
        stop: Optional[Sequence[str]] = None,
    ) -> Completion:
        conversation = tuple((m.role, m.content) for m in messages)
        return await self._gather.submit(
            ("chat", conversation, schema, max_tokens, temperature, top_logprobs, tuple(stop or ())))

    async def score(self, prefix: str, continuation: str) -> ScoreResult:
        return await self._gather.submit(("score", prefix, continuation))

    async def aclose(self) -> None:
        return None  # the engine stays loaded for the rest of the process (shared, see load_engine)

    # ---- in the worker thread: one engine call per kind of request ----------
    def _run(self, items: list[tuple]) -> list:
        engine = self.load()
        out: list = [None] * len(items)
        for kind, fn in (("chat", self._chat), ("score", self._score)):
            idx = [i for i, item in enumerate(items) if item[0] == kind]
            if idx:
                with engine.lock:
                    for i, res in zip(idx, batch_or_each(fn, [items[i] for i in idx])):
                        out[i] = res
        return out

    def _chat(self, requests: list[tuple]) -> list[Completion]:
        engine = self.load()
        conversations = [[{"role": r, "content": c} for r, c in req[1]] for req in requests]
        params = [sampling_params(engine.vllm, req) for req in requests]
        outputs = engine.llm.chat(conversations, sampling_params=params, use_tqdm=False)
        return [to_completion(o, req[5]) for o, req in zip(outputs, requests)]

    def _score(self, requests: list[tuple]) -> list[ScoreResult]:
        engine = self.load()
        tokenizer = engine.llm.get_tokenizer()
        results: list = [None] * len(requests)
        prompts, pending = [], []
        for i, (_, prefix, continuation) in enumerate(requests):
            p = tokenizer.encode(prefix)
            c = tokenizer.encode(continuation, add_special_tokens=False)
            if not p:
                raise CallFailed("score needs a non-empty prefix", retryable=False)
            if not c:
                results[i] = ScoreResult(logprob=0.0, tokens=0, prompt_tokens=len(p))
                continue
            prompts.append({"prompt_token_ids": p + c})
            pending.append((i, len(p), c))
        if prompts:
            params = engine.vllm.SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=1)
            outputs = engine.llm.generate(prompts, sampling_params=params, use_tqdm=False)
            for (i, n, c), o in zip(pending, outputs):
                results[i] = to_score(o, n, c)
        return results
