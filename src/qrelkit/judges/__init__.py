"""Judging methods, registered by name and configured by spec strings.

A spec names a method and its parameters: ``debate(rounds=2, adjudicator=llm)``;
its canonical form is the method id judgments are stored and resumed under
(see :mod:`qrelkit.judges.spec`). A prefilter is chained in front of a main
judge with ``+``: ``prefilter(by=likelihood,keep=0.95)+debate``.

Methods: ``zero-shot``, ``debate``, ``likelihood``, ``prefilter`` (only as the
first part of a chain), ``learned`` (a logistic regression over cheap signals, fitted on the
workspace's labelled pairs), and the judges that learn from people's labels:
``confidence`` (calibrated escalation within a human budget; decides over
batches, so it cannot follow a prefilter), ``icl`` (few-shot with people's
examples) and ``narrative`` (relevance narratives induced from people's
labels). ``auto`` is resolved by :func:`auto_method`; specs are parsed and
composed in :mod:`qrelkit.judges.spec`.

Each method's module is imported when a spec first names it (:data:`MODULES`, a static
table): `qrelkit judge --method zero-shot` imports zero-shot's module, not the numpy behind
confidence's signals or the debate's turns. :func:`methods` and :func:`describe` import them all.

"""

from __future__ import annotations

from dataclasses import dataclass

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
    AdjudicatingJudge,
    BatchJudge,
    ChainJudge,
    Judge,
    JudgeInput,
    LearningJudge,
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
    resolve_method,
)
from qrelkit.specs import Param, boolean, choice, integer, number  # noqa: F401  (re-exported)
from qrelkit.specs import fmt as _fmt

REGISTRY: dict[str, type[Judge]] = {}

# Where each built-in method is registered, so that a spec imports only the modules it names;
# tests/judges/test_registry.py checks this table against what the modules register.
MODULES: dict[str, str] = {
    "confidence": "qrelkit.judges.confidence",
    "debate": "qrelkit.judges.debate",
    "icl": "qrelkit.judges.icl",
    "learned": "qrelkit.judges.learned",
    "likelihood": "qrelkit.judges.likelihood",
    "narrative": "qrelkit.judges.narrative",
    "oneshot": "qrelkit.judges.oneshot",
    "prefilter": "qrelkit.judges.prefilter",
    "vote": "qrelkit.judges.vote",
    "zero-shot": "qrelkit.judges.zeroshot",
}


def register(cls: type[Judge]) -> type[Judge]:
    """Class decorator: makes a judge available under ``cls.NAME`` (a subclass of the contract in
    :mod:`qrelkit.judges.base`); a name is registered once."""
    if not issubclass(cls, Judge):
        raise TypeError(f"{cls.__name__} does not implement the judge contract (qrelkit.judges.base.Judge)")
    old = REGISTRY.get(cls.NAME, cls)
    if (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
        raise ValueError(f"judge name {cls.NAME!r} is registered twice")
    REGISTRY[cls.NAME] = cls
    return cls


def known(name: str) -> bool:
    """Is ``name`` a method (built in or registered), without importing any judge module?"""
    return name in REGISTRY or name in MODULES


def names() -> list[str]:
    """Every method's name, sorted, without importing the judge modules (what an unknown name is told)."""
    return sorted(set(MODULES) | set(REGISTRY))


def judge_class(name: str) -> type[Judge]:
    """The class registered under ``name``, importing its module if it is not loaded yet
    (a :class:`KeyError` for an unknown name: :func:`known` first)."""
    if name not in REGISTRY and name in MODULES:
        import importlib

        importlib.import_module(MODULES[name])
    return REGISTRY[name]


def _load() -> None:
    # importing the modules registers them (idempotent; cheap after the first time)
    import importlib

    for module in MODULES.values():
        importlib.import_module(module)


def build(spec: JudgeSpec | str, defer_adjudication: bool = False) -> Judge:
    """A ready judge for a spec (string or parsed).

    ``defer_adjudication``: an adjudicating judge (a debate with ``adjudicator=llm``) escalates
    its disagreements instead of settling them at once, because a ``--budget`` will rank them
    first and have only the overflow settled (see :mod:`qrelkit.judging.escalation`)."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    cls = judge_class(spec.name)
    if issubclass(cls, ChainJudge):
        assert spec.then is not None  # parse_spec guarantees a judge after a chain's head
        return cls(spec, build(spec.then, defer_adjudication))
    if issubclass(cls, AdjudicatingJudge):
        return cls(spec, defer_adjudication=defer_adjudication)
    return cls(spec)


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
        out.append(
            MethodInfo(
                name=name,
                summary=doc.splitlines()[0] if doc else "",
                params=params,
                learns=issubclass(cls, (LearningJudge, BatchJudge)),
                batch=issubclass(cls, BatchJudge),
                prefilter=issubclass(cls, ChainJudge),
            )
        )
    return out

