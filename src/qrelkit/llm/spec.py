"""Model spec strings: how a user names a model on the command line.

    local                                   the embedded default (SmolLM2-135M-Instruct Q4_1)
    local:/path/model.gguf                  another GGUF file, in-process
    openai:MODEL                            OPENAI_BASE_URL or https://api.openai.com/v1
    openai:MODEL@http://host:port/v1        one OpenAI-compatible server
    openai:MODEL@URL1,URL2                  several servers of one model, load-balanced
    ...?json=schema|object|prompt&score=echo&logprobs=0&body.FIELD=VALUE
    vllm:MODEL[?tensor_parallel_size=2&...] a vLLM engine in this process (GPU; qrelkit.llm.vllm_backend)

``json`` picks how structured output is asked for (``object`` for llama.cpp
servers), ``score=echo`` enables ``score`` via echoed prompt log-probabilities
(vLLM), ``logprobs=0`` declares a server without top log-probabilities, and
``body.FIELD=VALUE`` adds a server-specific request field (VALUE parsed as
JSON when it parses, e.g. ``body.repeat_penalty=1.0`` for llama.cpp).

The canonical model id (``local:<file stem>``, ``openai:MODEL`` or ``vllm:MODEL``) goes into
cache keys and provenance; endpoint URLs do not, so several endpoints of one
model share answers. The API key comes from ``QRELKIT_API_KEY``, else
``OPENAI_API_KEY``, else ``EMPTY`` (what local servers expect).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional
from urllib.parse import parse_qsl, urlsplit

from qrelkit.errors import UsageError
from qrelkit.specs import Param, bind, choice

if TYPE_CHECKING:
    from qrelkit.store import Store

JSON_MODES = ("schema", "object", "prompt")
LOCAL_TIMEOUT = 600.0
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
# The ``?key=value`` options, declared as the judges' parameters are (and checked by the same binder);
# ``body.FIELD`` options are free.
OPTIONS = {
    "json": Param("schema", choice(*JSON_MODES), "how structured output is asked for"),
    "score": Param("none", choice("echo", "none"), "echo: score by echoed prompt log-probabilities (vLLM)"),
    "logprobs": Param("1", choice("0", "1"), "0: the server gives no top log-probabilities"),
}
_EXAMPLES = ("expected 'local', 'local:/path/model.gguf', "
             "'openai:MODEL@http://host:port/v1[,URL2...][?json=schema|object|prompt&score=echo]' "
             "or 'vllm:MODEL[?tensor_parallel_size=N&...]'")


@dataclass(frozen=True)
class ModelSpec:
    kind: str  # local | openai | vllm
    model: str  # model name (openai, vllm: a hub id or a directory) or GGUF path ('' = packaged default)
    urls: tuple[str, ...] = ()
    options: tuple[tuple[str, str], ...] = field(default=())

    def option(self, name: str, default: Optional[str] = None) -> Optional[str]:
        return dict(self.options).get(name, default)


_URL_SPLIT = re.compile(r"@(?=https?://)")


def _parts(s: str) -> tuple[str, str, Optional[str], str]:
    """A spec's pieces by syntax alone, the one reading both :func:`parse_model_spec` and
    :func:`canonical_model_id` use: kind, model (name or path), endpoint list text, options text."""
    kind, _, rest = s.partition(":")
    if kind not in ("openai", "vllm"):
        return kind, rest, None, ""
    rest, _, query = rest.partition("?")
    if kind == "vllm":
        return kind, rest, None, query
    model, *urls = _URL_SPLIT.split(rest, maxsplit=1)
    return kind, model, (urls[0] if urls else None), query


def parse_model_spec(spec: str) -> ModelSpec:
    if not isinstance(spec, str) or not spec.strip():
        raise UsageError(f"empty model spec; {_EXAMPLES}")
    s = spec.strip()
    # the default's id is read from qrelkit.llm.local (numpy) only for a spec that could be it
    if s == "local" or (s.startswith("local:") and s == _default_local_id()):
        return ModelSpec("local", "")  # the canonical id of the default reads back as the default
    kind, model, urls, query = _parts(s)
    if kind == "local" and ":" in s:
        return _local(spec, model)
    if kind == "openai":
        return _openai(spec, model, urls, query)
    if kind == "vllm":
        return _vllm(spec, model, query)
    raise UsageError(f"unknown model spec {spec!r} (kind {kind!r}); {_EXAMPLES}")


def _local(spec: str, path: str) -> ModelSpec:
    if not path:
        raise UsageError(f"model spec {spec!r}: missing GGUF path after 'local:'")
    if not path.lower().endswith(".gguf"):
        raise UsageError(f"model spec {spec!r}: a local model is a .gguf file")
    if not os.path.isfile(path):
        raise UsageError(f"model spec {spec!r}: no such file {path}")
    return ModelSpec("local", path)


def _options(spec: str, query: str) -> list[tuple[str, str]]:
    try:
        return parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise UsageError(f"model spec {spec!r}: bad options {query!r}") from None


def _vllm(spec: str, model: str, query: str) -> ModelSpec:
    from qrelkit.llm.vllm_backend import OPTIONS as VLLM_OPTIONS

    if not model:
        raise UsageError(f"model spec {spec!r}: missing model name after 'vllm:'")
    opts = _options(spec, query)
    bind(VLLM_OPTIONS, tuple(opts), f"model spec {spec!r}")
    return ModelSpec("vllm", model, (), tuple(opts))


def _openai(spec: str, model: str, urls_text: Optional[str], query: str) -> ModelSpec:
    if "@" in model and urls_text is None:
        raise UsageError(f"model spec {spec!r}: endpoint URLs must start with http:// or https://")
    if not model:
        raise UsageError(f"model spec {spec!r}: missing model name after 'openai:'")
    if urls_text is None:
        urls: tuple[str, ...] = (os.environ.get("OPENAI_BASE_URL", DEFAULT_OPENAI_URL).rstrip("/"),)
    else:
        raw = [u.strip() for u in urls_text.split(",")]
        if any(not u for u in raw):
            raise UsageError(f"model spec {spec!r}: empty endpoint URL in the list")
        for u in raw:
            sp = urlsplit(u)
            if sp.scheme not in ("http", "https") or not sp.netloc:
                raise UsageError(f"model spec {spec!r}: {u!r} is not an http(s) URL")
        urls = tuple(u.rstrip("/") for u in raw)
    opts = _options(spec, query)
    bind(OPTIONS, tuple((k, v) for k, v in opts if not k.startswith("body.") or len(k) == 5), f"model spec {spec!r}")
    return ModelSpec("openai", model, urls, tuple(opts))


def _default_local_id() -> str:
    from qrelkit.llm.local import DEFAULT_MODEL_ID

    return DEFAULT_MODEL_ID


def canonical_model_id(spec: str) -> str:
    """The model id a spec's labels are stored under, without loading or contacting anything.

    Accepts a spec (``openai:m@http://...``, ``local``, ``local:/x/m.gguf``, ``vllm:m?dtype=half``)
    or an id that is already canonical (``openai:m``, ``local:smollm2-135m-instruct-q4_1``,
    ``vllm:m``), so ``--model`` filters work with either.
    """
    s = (spec or "").strip()
    if s == "local":
        return _default_local_id()
    kind, model, _, _ = _parts(s)
    if kind == "local" and model.lower().endswith(".gguf"):
        return "local:" + Path(model).stem.lower()
    if kind == "openai":
        if not model:
            raise UsageError(f"model spec {spec!r}: missing model name after 'openai:'")
        return "openai:" + model
    if kind == "vllm" and model:
        return "vllm:" + model
    return s


def api_key() -> str:
    return os.environ.get("QRELKIT_API_KEY") or os.environ.get("OPENAI_API_KEY") or "EMPTY"


def make_backend(spec: str, concurrency: int = 8) -> Any:
    ms = parse_model_spec(spec)
    if ms.kind == "local":
        from qrelkit.llm.local import LocalBackend

        return LocalBackend(ms.model or None)
    if ms.kind == "vllm":
        return _vllm_backend(ms)
    from qrelkit.llm.openai_backend import OpenAIBackend

    body: dict[str, Any] = {}
    for k, v in ms.options:
        if k.startswith("body."):
            try:
                body[k[5:]] = json.loads(v)
            except ValueError:
                body[k[5:]] = v
    return OpenAIBackend(
        ms.model,
        list(ms.urls),
        api_key=api_key(),
        json_mode=ms.option("json", "schema") or "schema",
        score=ms.option("score") == "echo",
        top_logprobs=ms.option("logprobs", "1") == "1",
        concurrency=concurrency,
        body=body,
    )


def _vllm_backend(ms: ModelSpec) -> Any:
    from qrelkit.llm.vllm_backend import OPTIONS as VLLM_OPTIONS
    from qrelkit.llm.vllm_backend import VLLMBackend

    values = bind(VLLM_OPTIONS, ms.options, f"model spec 'vllm:{ms.model}'")
    given = {k: values[k] for k, _ in ms.options if k != "batch"}  # the rest stay vLLM's defaults
    return VLLMBackend(ms.model, given, batch=values["batch"])


def make_client(spec: str, store: Optional[Store] = None, backend: Any = None, **client_opts: Any) -> Any:
    """Build a Client for a model spec string (the CLI's ``--model``); ``backend``: the spec's
    backend already made elsewhere (by an engine, :mod:`qrelkit.engines`)."""
    from qrelkit.llm.client import Client

    if backend is None:
        backend = make_backend(spec, concurrency=int(client_opts.get("concurrency", 8)))
    if parse_model_spec(spec).kind in ("local", "vllm"):
        # An in-process call cannot be cancelled (its thread runs on), so a
        # timeout only turns slow work into errors; on a loaded 2-core machine
        # one call can take tens of seconds, and a vLLM engine's first call
        # loads the weights (minutes) and then answers a whole batch. Wait long by default.
        client_opts.setdefault("timeout", LOCAL_TIMEOUT)
    return Client(backend, store=store, **client_opts)
