"""Circularity warnings: a run produced by the same model family as the judge.

Why: LLM judges favour systems built on the same model family (e.g. a
Llama-based re-ranker judged by a Llama judge), so a score gain of such a run
under LLM-filled qrels is suspect. This cannot be detected from the runs; it
needs metadata (run name -> model), and the comparison is by family, because
sizes and versions differ (``meta-llama/Llama-3.3-70B-Instruct`` and
``llama3-8b`` are both ``llama``).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from qrelkit.errors import InputError

# Checked in order, as substrings of the normalised name; the first hit wins.
FAMILIES = (
    ("smollm", "smollm"), ("llama", "llama"), ("qwen", "qwen"), ("mixtral", "mistral"), ("mistral", "mistral"),
    ("gpt", "gpt"), ("flan", "t5"), ("t5", "t5"), ("gemma", "gemma"), ("gemini", "gemini"), ("claude", "claude"),
    ("deepseek", "deepseek"), ("phi", "phi"), ("zephyr", "zephyr"), ("olmo", "olmo"), ("granite", "granite"),
)


PROVIDERS = frozenset({
    "openai", "ollama", "vllm", "sglang", "local", "llamacpp", "llama-cpp", "llama.cpp", "hf", "huggingface",
    "azure", "anthropic", "together", "groq", "openrouter", "scripted", "gguf",
})


def model_family(model: str) -> str:
    """Normalised family name: a known family contained in the model name, else
    the name's leading letters. A ``provider:`` prefix and an ``org/`` part are
    dropped first (``ollama:llama3.1:8b``, ``meta-llama/Llama-3.3-70B``)."""
    name = model.strip().lower()
    head, sep, rest = name.partition(":")
    if sep and head in PROVIDERS and rest:
        name = rest
    name = name.rsplit("/", 1)[-1]
    for needle, family in FAMILIES:
        if needle in name:
            return family
    m = re.match(r"[a-z]+", name)
    return m.group(0) if m else name


@dataclass(frozen=True)
class CircularityWarning:
    run: str
    run_model: str
    judge_model: str
    family: str

    def message(self) -> str:
        return (f"run {self.run} was produced with {self.run_model} ({self.family} family), the same family as "
                f"the judge {self.judge_model}: its gains under LLM labels may be circular")


def circularity_warnings(run_models: Mapping[str, str], judge_models: Iterable[str]) -> tuple[CircularityWarning, ...]:
    out = []
    judges = [(j, model_family(j)) for j in judge_models if j]
    for run, model in sorted(run_models.items()):
        if not model:
            continue
        fam = model_family(model)
        for judge, jfam in judges:
            if fam == jfam:
                out.append(CircularityWarning(run, model, judge, fam))
    return tuple(out)


def read_run_meta(path: str | Path) -> dict[str, str]:
    """``--run-meta FILE``: a JSON or TOML object mapping run name -> {"model": ...}
    (a plain string value is taken as the model). Returns run -> model."""
    from qrelkit.data._open import read_text

    p = Path(path)
    text = read_text(p)  # missing, a folder, binary: an InputError naming the file
    try:
        if p.suffix.lower() == ".toml":
            import tomllib

            obj = tomllib.loads(text)
        else:
            obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(p, e.lineno, f"not valid JSON: {e.msg}") from None
    except ValueError as e:  # tomllib.TOMLDecodeError
        raise InputError(p, None, f"not valid TOML: {e}") from None
    except RecursionError:
        raise InputError(p, None, "nested too deeply") from None
    if not isinstance(obj, dict):
        raise InputError(p, None, "expected an object mapping run names to {\"model\": ...}")
    out = {}
    for run, meta in obj.items():
        if isinstance(meta, str):
            out[str(run)] = meta
        elif isinstance(meta, dict):
            model = meta.get("model")
            if model is not None and not isinstance(model, str):
                raise InputError(p, None, f"run {run!r}: \"model\" must be a string")
            if model:
                out[str(run)] = model
        else:
            raise InputError(p, None, f"run {run!r}: expected an object like {{\"model\": \"...\"}}")
    return out


# ---- the learned judge's dense signal ------------------------------------------------------------
# A judge that leans on a dense encoder's similarity (learned(signals=...dense...)) favours runs that
# rank by a dense encoder's similarity: the same kind of evidence counts twice. Runs are recognised
# by a marker in their name or model (whole words, or substrings for the longer ones).
DENSE_WORDS = frozenset({"dense", "dpr", "ance", "tasb", "e5", "bge", "gte", "sbert", "star", "simlm", "ada"})
DENSE_SUBSTRINGS = ("minilm", "mpnet", "contriever", "colbert", "tas-b", "sentence-transformers",
                    "cocondenser", "retromae", "repllama", "embedding")


def is_dense_run(name: str, model: str = "") -> bool:
    text = f"{name} {model}".lower()
    words = set(re.findall(r"[a-z0-9]+", text))
    return bool(words & DENSE_WORDS) or any(s in text for s in DENSE_SUBSTRINGS)


@dataclass(frozen=True)
class DenseSignalWarning:
    run: str
    run_model: str
    judge_method: str

    def message(self) -> str:
        what = f"{self.run} ({self.run_model})" if self.run_model else self.run
        return (f"run {what} looks like a dense retriever, and the judge {self.judge_method} uses dense-embedding "
                "similarity as a signal: its gains under these labels may be circular (judge with "
                "learned(signals=pmi_u+ql_u+lexical_u+pool+prior) to leave the dense signal out)")


def dense_signal_warnings(runs: Mapping[str, str], judge_methods: Iterable[str]) -> tuple[DenseSignalWarning, ...]:
    """``runs``: run name -> model ('' when unknown); ``judge_methods``: canonical method specs."""
    dense_judges = sorted({m for m in judge_methods if m.startswith("learned") and _uses_dense(m)})
    if not dense_judges:
        return ()
    return tuple(DenseSignalWarning(r, m, dense_judges[0]) for r, m in sorted(runs.items()) if is_dense_run(r, m))


def _uses_dense(method: str) -> bool:
    m = re.search(r"signals=([\w+]+)", method)
    # learned's default signals include dense; feedback and window compare by the same MiniLM vectors
    return m is None or bool({"dense", "dense_u", "feedback", "window"} & set(m.group(1).split("+")))
