"""A fake ``vllm`` package: the API surface qrelkit's vLLM backend uses, answering from a script.

Only the model's answers are a test double. ``LLM.chat`` / ``LLM.generate`` take batches as vLLM
does, validate what they are given (conversations, one SamplingParams per prompt, the context
length) and return ``RequestOutput``-shaped objects: ``.prompt_token_ids``, ``.prompt_logprobs``,
``.outputs[0].text`` / ``.token_ids`` / ``.logprobs`` (``{token_id: Logprob}`` per position).

A test sets ``SCRIPT(conversation, params) -> text`` (the default answers from the constraint:
"relevant" when the user's message holds the word ``beacon``) and reads ``CALLS`` (one entry per
engine call: its method and batch size), ``REQUESTS`` (each prompt's conversation and params) and
``ENGINES`` (the keyword arguments of each ``LLM`` made). Tokens are white-space words. In another
process (a CLI run, a Ray actor) the same events go, one JSON line each with the process id, to
the file named by ``FAKE_VLLM_LOG``."""

from __future__ import annotations

import json
import os
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from vllm.sampling_params import SamplingParams  # noqa: F401  (vllm.SamplingParams, as the real one)

__version__ = "0.0.fake"
CALLS: list[tuple[str, int]] = []
REQUESTS: list[tuple[list, Any]] = []
ENGINES: list[dict] = []
DELAY = 0.02  # seconds per engine call, so concurrent calls pile up behind it as behind a GPU
BOS = 1


def log(event: str, **data: Any) -> None:
    path = os.environ.get("FAKE_VLLM_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"event": event, "pid": os.getpid(), **data}) + "\n")


def reset() -> None:
    global SCRIPT
    CALLS.clear()
    REQUESTS.clear()
    ENGINES.clear()
    SCRIPT = default_script


def token_id(word: str) -> int:
    return 10 + zlib.crc32(word.encode()) % 50_000


class Tokenizer:
    def __init__(self):
        self.words: dict[int, str] = {}

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        ids = [token_id(w) for w in text.split()]
        self.words.update(zip(ids, text.split()))
        return ([BOS] if add_special_tokens and text else []) + ids


@dataclass
class Logprob:
    logprob: float
    rank: Optional[int] = None
    decoded_token: Optional[str] = None


@dataclass
class CompletionOutput:
    index: int
    text: str
    token_ids: list[int]
    logprobs: Optional[list[dict]] = None
    finish_reason: str = "stop"


@dataclass
class RequestOutput:
    request_id: str
    prompt_token_ids: list[int]
    outputs: list[CompletionOutput] = field(default_factory=list)
    prompt_logprobs: Optional[list] = None


def instance(schema: Any, relevant: bool) -> Any:
    """A value of ``schema`` (the subset judges use): an enum's last value when relevant, else its first."""
    if not isinstance(schema, dict):
        return None
    if "enum" in schema:
        return schema["enum"][-1 if relevant else 0]
    if "anyOf" in schema:
        return instance(schema["anyOf"][0], relevant)
    t = schema.get("type")
    t = t[0] if isinstance(t, list) else t
    if t == "object":
        return {k: instance(v, relevant) for k, v in (schema.get("properties") or {}).items()}
    if t == "array":
        return [instance(schema.get("items"), relevant) for _ in range(schema.get("minItems", 0))]
    if t in ("integer", "number"):
        return schema.get("maximum" if relevant else "minimum", 0)
    if t == "boolean":
        return relevant
    if t == "null":
        return None
    return "scripted"


def default_script(conversation: list[dict], params: SamplingParams) -> str:
    relevant = "beacon" in conversation[-1]["content"].split()
    c = params.constraint
    if c is not None and c.choice is not None:
        return c.choice[0 if relevant else -1]
    if c is not None and c.json is not None:
        return json.dumps(instance(c.json, relevant))
    return "a scripted reply"


SCRIPT: Callable[[list, SamplingParams], str] = default_script


class LLM:
    def __init__(self, model: str, **kwargs: Any):
        if model.startswith("missing/"):
            raise OSError(f"{model} is not a local folder and is not a valid model identifier")
        self.model = model
        self.max_model_len = kwargs.get("max_model_len")
        self.tokenizer = Tokenizer()
        ENGINES.append({"model": model, **kwargs})
        log("load", model=model, kwargs=kwargs)

    def get_tokenizer(self) -> Tokenizer:
        return self.tokenizer

    def _check(self, prompt_ids: list[int]) -> None:
        if self.max_model_len and len(prompt_ids) > self.max_model_len:
            raise ValueError(f"The decoder prompt (length {len(prompt_ids)}) is longer than the maximum "
                             f"model length of {self.max_model_len}")

    def _params(self, sampling_params: Any, n: int) -> list:
        params = sampling_params if isinstance(sampling_params, list) else [sampling_params] * n
        if len(params) != n:
            raise ValueError("The lengths of prompts and sampling_params must be the same.")
        return params

    def chat(self, messages: list, sampling_params: Any = None, use_tqdm: bool = True, **kw: Any) -> list:
        conversations = messages if messages and isinstance(messages[0], list) else [messages]
        params = self._params(sampling_params, len(conversations))
        prompts = [self.tokenizer.encode(" ".join(f"<|{m['role']}|> {m['content']}" for m in conv))
                   for conv in conversations]
        for p in prompts:
            self._check(p)
        CALLS.append(("chat", len(conversations)))
        log("chat", n=len(conversations))
        time.sleep(DELAY)
        outs = []
        for i, (conv, sp, p) in enumerate(zip(conversations, params, prompts)):
            REQUESTS.append((conv, sp))
            outs.append(self._answer(str(i), p, SCRIPT(conv, sp), sp))
        return outs

    def _answer(self, rid: str, prompt_ids: list[int], text: str, sp: Any) -> RequestOutput:
        words = text.split()[: sp.max_tokens]
        ids = [token_id(w) for w in words]
        lps = None
        if sp.logprobs:
            lps = [{t: Logprob(-0.1, 1, w), **{token_id(a): Logprob(-2.0 - j, j + 2, a)
                                                for j, a in enumerate(["maybe", "perhaps"][: sp.logprobs])}}
                   for t, w in zip(ids, words)]
        return RequestOutput(rid, prompt_ids, [CompletionOutput(0, " ".join(words), ids, lps)])

    def generate(self, prompts: list, sampling_params: Any = None, use_tqdm: bool = True, **kw: Any) -> list:
        params = self._params(sampling_params, len(prompts))
        CALLS.append(("generate", len(prompts)))
        log("generate", n=len(prompts))
        time.sleep(DELAY)
        outs = []
        for i, (prompt, sp) in enumerate(zip(prompts, params)):
            ids = prompt["prompt_token_ids"] if isinstance(prompt, dict) else self.tokenizer.encode(prompt)
            self._check(ids)
            REQUESTS.append((ids, sp))
            out = self._answer(str(i), ids, "x", sp)
            if sp.prompt_logprobs is not None:
                # position i's log-probability is -i/100: a test can tell which positions were summed
                out.prompt_logprobs = [None] + [{t: Logprob(-k / 100, 1, self.tokenizer.words.get(t)),
                                                 7: Logprob(-0.001, 0, "<top>")} for k, t in enumerate(ids) if k]
            outs.append(out)
        return outs
