"""qrelkit: build, complete and audit relevance judgments with LLMs and people.

``import qrelkit`` is cheap: the functions below are loaded on first use, so
a script that only reads qrels does not pay for the model or web stacks.

Jobs: :func:`fill`, :func:`build`; measurement: :func:`score`, :func:`holes` (and
the :mod:`qrelkit.evaluate` package behind them), :func:`estimate` (scores with intervals from a
people's sample, :mod:`qrelkit.estimate`);
workspace views: :func:`judgments`, :func:`merged_qrels`; readers and writers:
:func:`read_qrels`, :func:`load_qrels`, :func:`write_qrels`, :func:`read_run`,
:func:`read_runs`, :func:`write_run`, :func:`read_topics`, :func:`load_topics`,
:func:`read_docs`, :class:`DocIndex`; plans: :func:`load_plan`; the demo data:
:func:`demo_paths`.
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

_LAZY = {
    "fill": "qrelkit.api",
    "build": "qrelkit.api",
    "score": "qrelkit.api",
    "holes": "qrelkit.api",
    "judgments": "qrelkit.api",
    "merged_qrels": "qrelkit.api",
    "read_qrels": "qrelkit.data",
    "load_qrels": "qrelkit.data",
    "write_qrels": "qrelkit.data",
    "read_run": "qrelkit.data",
    "read_runs": "qrelkit.data",
    "write_run": "qrelkit.data",
    "read_topics": "qrelkit.data",
    "load_topics": "qrelkit.data",
    "read_docs": "qrelkit.data",
    "DocIndex": "qrelkit.data",
    "load_plan": "qrelkit.job.plan",
    "Plan": "qrelkit.job.plan",
    "demo_paths": "qrelkit.demo",
    "Topic": "qrelkit.types",
    "Doc": "qrelkit.types",
    "Qrel": "qrelkit.types",
    "Case": "qrelkit.types",
    "Judgment": "qrelkit.types",
}

# ``qrelkit.evaluate.X`` works without importing it first; ``qrelkit.estimate`` is a package and a function
# (``qrelkit.estimate(...)``, qrelkit.api.estimate: see qrelkit._callable)
_SUBPACKAGES = ("evaluate", "estimate")

__all__ = sorted(_LAZY) + ["__version__", "estimate"]


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"qrelkit.{name}")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'qrelkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
