"""Judging methods, registered by name and configured by spec strings.

A spec names a method and its parameters: ``debate(rounds=2, adjudicator=llm)``;
its canonical form is the method id judgments are stored and resumed under
(see :mod:`qrelkit.judges.spec`). A prefilter is chained in front of a main
judge with ``+``: ``prefilter(by=likelihood,keep=0.95)+debate``.

Methods: ``zero-shot``, ``debate``, ``likelihood``, ``prefilter`` (only as the
first part of a chain), and the judges that learn from people's labels:
``confidence`` (calibrated escalation within a human budget; decides over
batches, so it cannot follow a prefilter), ``icl`` (few-shot with people's
examples) and ``narrative`` (relevance narratives induced from people's
labels). ``auto`` is resolved by :func:`auto_method`; specs are parsed and
composed in :mod:`qrelkit.judges.spec`.

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qrelkit.judges.base import (  # noqa: F401  (re-exported)
    ADJUDICATED,
    ANSWER,
    AUTO,
    CONSENSUS,
    DROPPED,
    ERROR,
    ESCALATE,
    GRADED,
    STATUSES,
    Judge,
    JudgeInput,
    Task,
    Verdict,
)
from qrelkit.judges.spec import (  # noqa: F401  (re-exported: the parsing lives there)
    ALIASES,
    AUTO_METHODS,
    JudgeSpec,
    auto_method,
    canonical,
    is_local_model,
    parse_prefilter,
    parse_spec,
    resolve_auto,
    resolve_method,
)
from qrelkit.specs import Param, boolean, choice, integer, number  # noqa: F401  (re-exported)
from qrelkit.specs import fmt as _fmt

REGISTRY: dict[str, type] = {}


def register(cls: type) -> type:
    """Class decorator: makes a judge available under ``cls.NAME``."""
    REGISTRY[cls.NAME] = cls
    return cls


def _load() -> None:
    # importing the modules registers them (idempotent; cheap after the first time)
    from qrelkit.judges import confidence, debate, icl, learned, likelihood, narrative, prefilter, zeroshot  # noqa: F401


def build(spec: JudgeSpec | str) -> Judge:
    """A ready judge for a spec (string or parsed)."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    _load()
    cls = REGISTRY[spec.name]
    then = build(spec.then) if spec.then else None
    return cls(spec, then) if getattr(cls, "CHAINS", False) else cls(spec)


def methods() -> list[str]:
    _load()
    return sorted(REGISTRY)


@dataclass(frozen=True)
class ParamInfo:
    """One parameter as a user sees it: the default in spec syntax."""

    name: str
    default: str
    help: str


@dataclass(frozen=True)
class MethodInfo:
    """What ``qrelkit methods`` lists, so nobody has to read source to write a spec."""

    name: str
    summary: str
    params: tuple[ParamInfo, ...]
    learns: bool  # reads people's labels (examples, narratives, calibration)
    batch: bool  # decides over batches (a human budget of its own)
    prefilter: bool  # only in front of another judge: ``NAME+METHOD``


def describe() -> list[MethodInfo]:
    """Every registered method with its parameters, from the registry itself
    (the same declarations :func:`parse_spec` validates against)."""
    import sys

    _load()
    out = []
    for name in sorted(REGISTRY):
        cls = REGISTRY[name]
        doc = (sys.modules[cls.__module__].__doc__ or cls.__doc__ or "").strip()
        params = tuple(ParamInfo(k, _fmt(p.default), p.help) for k, p in sorted(cls.PARAMS.items()))
        # class-level only: debate learns per instance (narrative=true), its parameter says so
        learns = getattr(cls, "learns", False) is True or bool(getattr(cls, "BATCH", False))
        out.append(
            MethodInfo(
                name=name,
                summary=doc.splitlines()[0] if doc else "",
                params=params,
                learns=learns,
                batch=bool(getattr(cls, "BATCH", False)),
                prefilter=bool(getattr(cls, "CHAINS", False)),
            )
        )
    return out


def __getattr__(name: str) -> Any:
    # the pipeline, importable from here without an import cycle at load time
    if name in ("run_judging", "arun_judging", "JudgeSummary", "ProgressUpdate", "list_escalations"):
        from qrelkit.judges import runner

        return getattr(runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
