"""The pipeline around the judges: the job value, the runner, selection, preparation, batching,
the escalation budget, people's labels and the summary.

``judges/`` holds what a judge *is* (the contract, the spec registry, one module per method);
this package holds what is done *once for all judges*. The judges read two of its values
(:mod:`.budget`, :mod:`.labels`), so this package's entry points are loaded on first use
rather than on import: importing ``qrelkit.judging.budget`` from a judge module must not
import the runner, which imports every judge.
"""
from __future__ import annotations

from typing import Any

_ENTRY_POINTS = {
    "Job": "qrelkit.judging.job",
    "JudgingJob": "qrelkit.judging.job",
    "arun_job": "qrelkit.judging.job",
    "run_job": "qrelkit.judging.job",
    "has_labels": "qrelkit.judging.job",
}

__all__ = sorted(_ENTRY_POINTS)


def __getattr__(name: str) -> Any:
    module = _ENTRY_POINTS.get(name)
    if module is None:
        raise AttributeError(f"module 'qrelkit.judging' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
