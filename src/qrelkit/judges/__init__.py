"""Judging methods, registered by name and configured by spec strings.

A spec names a method and its parameters: ``debate(rounds=2, adjudicator=llm)``.
:func:`parse_spec` fills in defaults, validates, and gives a canonical form
(parameters sorted, defaults written out, numbers normalised) so that equal
configurations get equal method ids — the id under which judgments are stored
and resumed. A prefilter is chained in front of a main judge with ``+``:
``prefilter(by=likelihood,keep=0.95)+debate``.

Methods: ``zero-shot``, ``debate``, ``likelihood``, ``prefilter`` (only as the
first part of a chain), and the judges that learn from people's labels:
``confidence`` (calibrated escalation within a human budget; decides over
batches, so it cannot follow a prefilter), ``icl`` (few-shot with people's
examples) and ``narrative`` (relevance narratives induced from people's
labels). ``auto`` is resolved by :func:`resolve_auto`.

A value containing commas (a model spec with several endpoint URLs) is
written in quotes: ``narrative(instructor="openai:m@http://a/v1,http://b/v1")``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

from qrelkit.errors import UsageError
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

ALIASES = {
    "zeroshot": "zero-shot",
    "zero_shot": "zero-shot",
    "ql": "likelihood",
    "query-likelihood": "likelihood",
}


@dataclass(frozen=True)
class Param:
    """One spec parameter: its default and how its text becomes a value.

    ``omit_default``: a parameter added to a method after judgments were stored
    under its id is left out of the canonical id while it has its default, so
    those ids (and the resumes and merges keyed on them) stay valid."""

    default: Any
    parse: Callable[[str], Any]
    help: str = ""
    omit_default: bool = False


def integer(lo: int = 0, hi: Optional[int] = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise ValueError(f"expected an integer, got {text!r}") from None
        if v < lo or (hi is not None and v > hi):
            raise ValueError(f"{v} is out of range [{lo}, {hi if hi is not None else '...'}]")
        return v

    return parse


def number(lo: float = float("-inf"), hi: float = float("inf"), auto: bool = False) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        if auto and text == "auto":
            return "auto"
        try:
            v = float(text)
        except ValueError:
            raise ValueError(f"expected a number{' or auto' if auto else ''}, got {text!r}") from None
        if not lo <= v <= hi:
            raise ValueError(f"{v:g} is out of range [{lo:g}, {hi:g}]")
        return v

    return parse


def choice(*options: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options:
            raise ValueError(f"{text!r} is not one of {', '.join(options)}")
        return text

    return parse


def boolean(text: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "yes", "1", "on"):
        return True
    if t in ("false", "no", "0", "off"):
        return False
    raise ValueError(f"expected true or false, got {text!r}")


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


@dataclass(frozen=True)
class JudgeSpec:
    """A parsed, defaulted, validated method spec; ``str()`` is the canonical id."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    then: Optional["JudgeSpec"] = None
    omitted: frozenset[str] = frozenset()  # parameters left out of the canonical id (see Param)

    def __getitem__(self, key: str) -> Any:
        return dict(self.params)[key]

    @property
    def canonical(self) -> str:
        shown = [(k, v) for k, v in self.params if k not in self.omitted]
        own = self.name + ("(" + ",".join(f"{k}={_fmt(v)}" for k, v in shown) + ")" if shown else "")
        return own + ("+" + self.then.canonical if self.then else "")

    def __str__(self) -> str:
        return self.canonical

    @property
    def main(self) -> "JudgeSpec":
        """The judge that decides kept cases (the last of a chain)."""
        return self.then.main if self.then else self


REGISTRY: dict[str, type] = {}


def register(cls: type) -> type:
    """Class decorator: makes a judge available under ``cls.NAME``."""
    REGISTRY[cls.NAME] = cls
    return cls


def _load() -> None:
    # importing the modules registers them (idempotent; cheap after the first time)
    from qrelkit.judges import confidence, debate, icl, learned, likelihood, narrative, prefilter, zeroshot  # noqa: F401


_PART = re.compile(r"^\s*([A-Za-z][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)


def _split_chain(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise UsageError(f"method spec {text!r}: unbalanced ')'")
        if ch == "+" and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise UsageError(f"method spec {text!r}: unbalanced '('")
    parts.append("".join(cur))
    return parts


def _split_items(body: str, whole: str) -> list[str]:
    """Split ``key=value`` items on commas outside quotes."""
    items, cur, quote = [], [], ""
    for ch in body:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            cur.append(ch)
        elif ch == ",":
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if quote:
        raise UsageError(f"method spec {whole!r}: unbalanced quote")
    items.append("".join(cur))
    return [i.strip() for i in items if i.strip()]


def _parse_part(text: str, whole: str) -> JudgeSpec:
    m = _PART.match(text)
    if not m:
        raise UsageError(
            f"method spec {whole!r}: cannot read {text.strip()!r}; expected NAME or NAME(key=value, ...)"
        )
    name = ALIASES.get(m[1].lower(), m[1].lower())
    _load()
    if name not in REGISTRY:
        raise UsageError(
            f"method spec {whole!r}: unknown method {m[1]!r}; choose from {', '.join(sorted(REGISTRY))}"
        )
    declared: dict[str, Param] = REGISTRY[name].PARAMS
    given: dict[str, Any] = {}
    body = (m[2] or "").strip()
    for item in _split_items(body, whole) if body else ():
        key, eq, val = item.partition("=")
        key, val = key.strip().lower(), val.strip().strip("'\"")
        if not eq or not key:
            raise UsageError(f"method spec {whole!r}: {item!r} is not key=value")
        if key not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise UsageError(f"method spec {whole!r}: {name} has no parameter {key!r} (parameters: {known})")
        if key in given:
            raise UsageError(f"method spec {whole!r}: {key!r} given twice")
        try:
            given[key] = declared[key].parse(val)
        except ValueError as e:
            raise UsageError(f"method spec {whole!r}: {key}: {e}") from None
    params = tuple((k, given.get(k, p.default)) for k, p in sorted(declared.items()))
    omitted = frozenset(k for k, p in declared.items() if p.omit_default and dict(params)[k] == p.default)
    return JudgeSpec(name, params, omitted=omitted)


def parse_spec(text: str) -> JudgeSpec:
    """``"debate(rounds=2, adjudicator=llm)"`` -> JudgeSpec; raises UsageError on a bad spec."""
    if not text or not text.strip():
        raise UsageError("empty method spec")
    if text.strip().lower() == "auto":
        raise UsageError("method 'auto' must be resolved first (resolve_auto)")
    parts = [_parse_part(p, text) for p in _split_chain(text)]
    for p in parts[:-1]:
        if not getattr(REGISTRY[p.name], "CHAINS", False):
            raise UsageError(f"method spec {text!r}: only a prefilter can come before '+', not {p.name}")
    if getattr(REGISTRY[parts[-1].name], "CHAINS", False):
        raise UsageError(f"method spec {text!r}: a {parts[-1].name} needs a judge after it ('+debate', ...)")
    if len(parts) > 1 and getattr(REGISTRY[parts[-1].name], "BATCH", False):
        raise UsageError(
            f"method spec {text!r}: {parts[-1].name} decides over batches of cases and cannot follow "
            f"a {parts[0].name}"
        )
    spec = parts[-1]
    for p in reversed(parts[:-1]):
        spec = JudgeSpec(p.name, p.params, spec, p.omitted)
    return spec


def canonical(text: str) -> str:
    return parse_spec(text).canonical


def is_local_model(model_spec: str) -> bool:
    return model_spec.strip().lower().split(":", 1)[0] in ("local", "smollm2", "gguf", "llama-cpp")


def resolve_auto(method: str, model_spec: str, labelled: bool = False, budget: Optional[str] = None) -> str:
    """``--method auto``: for the embedded model, the learned combination of cheap signals when the
    workspace has labelled pairs to fit it on (balanced accuracy 0.67 against likelihood's 0.61 on
    LLMJudge dev, README), else query likelihood (its yes/no and JSON answers are at chance); a
    debate for a real model. A ``budget`` goes into the learned judge's spec (it spends its own)."""
    if method.strip().lower() != "auto":
        return method
    if not is_local_model(model_spec):
        return "debate"
    if labelled:
        return f"learned(budget={budget})" if budget else "learned"
    return "likelihood"


def has_labels(store: Any) -> bool:
    """Whether a workspace has labelled pairs a judge can learn from (original qrels or people's)."""
    return bool(store.qrels()) or bool(store.people_labels())


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
