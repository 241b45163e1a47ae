"""Judge specs as values: parsed once, composed as values, written back canonically.

A spec names a method and its parameters: ``debate(rounds=2, adjudicator=llm)``
(the syntax is :mod:`qrelkit.specs`'). :func:`parse_spec` fills in defaults,
validates, and gives a canonical form (parameters sorted, defaults written
out, numbers normalised) so that equal configurations get equal method ids —
the id under which judgments are stored and resumed. A prefilter is chained in
front of a main judge with ``+``: ``prefilter(by=likelihood,keep=0.95)+debate``.

What the jobs add to a user's spec (``--prefilter``, ``--auto``'s LLM
adjudicator) is added to the parsed value (:meth:`JudgeSpec.with_prefilter`,
:meth:`JudgeSpec.with_adjudicator`), never by editing the text, and the result
is checked by the same rules as a spec written out in full.

A value containing commas (a model spec with several endpoint URLs) is
written in quotes: ``narrative(instructor="openai:m@http://a/v1,http://b/v1")``.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from qrelkit.errors import UsageError
from qrelkit.specs import Call, bind, canonical_text, fmt, parse_chain

ALIASES = {
    "zeroshot": "zero-shot",
    "zero_shot": "zero-shot",
    "ql": "likelihood",
    "query-likelihood": "likelihood",
}

# ``--method auto``, one rule for every command: query likelihood for the embedded model (its
# yes/no and JSON answers are at chance), else a debate (fill, judge) or induced narratives (build,
# which has people's labels to induce them from). The jobs calibrate the likelihood threshold on
# the collection's labels; `judge` keeps threshold 0, which needs no labels (and is the id its
# existing workspaces were judged under).
AUTO_METHODS = {
    ("judge", True): "likelihood",
    ("judge", False): "debate",
    ("fill", True): "likelihood(threshold=auto)",
    ("fill", False): "debate",
    ("build", True): "likelihood(threshold=auto)",
    ("build", False): "narrative",
}


# How many earlier forms a spec's stored ids are looked for under (JudgeSpec.earlier), the most
# recent kept: learned, with four parameters whose defaults changed (one of them twice), has 23.
EARLIER_LIMIT = 64


def _judge(name: str) -> type:
    """The judge class of a known method name, its module imported on first use (qrelkit.judges.MODULES)."""
    from qrelkit.judges import judge_class

    return judge_class(name)


def _chains(name: str) -> bool:
    return _judge(name).CHAINS  # declared by the contract (judges.base), never probed


def _batch(name: str) -> bool:
    return _judge(name).BATCH


@dataclass(frozen=True)
class JudgeSpec:
    """A parsed, defaulted, validated method spec; ``str()`` is the canonical id."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    then: Optional["JudgeSpec"] = None
    omitted: frozenset[str] = frozenset()  # parameters left out of the canonical id (see Param)
    given: frozenset[str] = field(default=frozenset(), compare=False, repr=False)  # written by the user

    def __getitem__(self, key: str) -> Any:
        return dict(self.params)[key]

    @property
    def canonical(self) -> str:
        own = canonical_text(self.name, tuple((k, v) for k, v in self.params if k not in self.omitted))
        return own + ("+" + self.then.canonical if self.then else "")

    def __str__(self) -> str:
        return self.canonical

    @property
    def main(self) -> "JudgeSpec":
        """The judge that decides kept cases (the last of a chain)."""
        return self.then.main if self.then else self

    def with_params(self, **values: str) -> "JudgeSpec":
        """This judge (not its chain) with parameters set from their spec text, validated."""
        new = _part(Call(self.name, tuple((k, str(v)) for k, v in values.items())), f"{self.name} spec")
        params = tuple((k, new[k] if k in values else v) for k, v in self.params)
        omitted = _omitted(_judge(self.name).PARAMS, dict(params))
        return dataclasses.replace(self, params=params, omitted=omitted, given=self.given | frozenset(values))

    def with_main(self, main: "JudgeSpec") -> "JudgeSpec":
        """The same chain with another last judge."""
        if self.then is None:
            return main
        return _chain([*self.links()[:-1], main], str(self))

    def with_prefilter(self, prefilter: "JudgeSpec") -> "JudgeSpec":
        """``prefilter+self``, checked as if written that way."""
        return _chain([prefilter, *self.links()], f"{prefilter}+{self}")

    def with_adjudicator(self, who: str) -> "JudgeSpec":
        """Persistent disagreements of the main judge settled by ``who``, unless the
        spec already says who settles them (or its judge has no adjudicator)."""
        main = self.main
        if "adjudicator" not in dict(main.params) or "adjudicator" in main.given:
            return self
        return self.with_main(main.with_params(adjudicator=who))

    def as_before(self) -> "JudgeSpec":
        """The main judge as it was before its defaults changed: each parameter the user did not
        give and that declares ``legacy`` values set to the oldest of them (the last of
        :meth:`earlier`). A job whose workspace already holds judgments under this id resumes them
        (a new default prompt never re-judges old work)."""
        oldest = {k: v[-1] for k, v in self._previous().items()}
        if not oldest:
            return self
        return self._set_back(oldest)

    def earlier(self) -> list["JudgeSpec"]:
        """Every form the main judge had before its defaults changed, the most recent first: the
        spec with its ``legacy`` parameters (those the user did not give) each at today's default
        or one of its earlier ones, in every combination (one default changed after another —
        learned's ``signals``, ``per_topic``, ``feedback_z``, then ``signals`` and ``c`` again —
        leaves one stored id per stage, and a user who gave some parameters has stages of their
        own). Ordered by how many steps back they go in all (a default changed twice is two steps
        back at its oldest), ties in the parameters' order; at most :data:`EARLIER_LIMIT` forms,
        the most recent kept. :meth:`as_before` (all of them at their oldest) is the last."""
        from itertools import product

        previous = self._previous()
        keys = sorted(previous)
        steps = sorted((c for c in product(*(range(len(previous[k]) + 1) for k in keys)) if any(c)),
                       key=lambda c: (sum(c), c))[:EARLIER_LIMIT]
        out: list[JudgeSpec] = []
        for c in steps:
            before = self._set_back({k: previous[k][i - 1] for k, i in zip(keys, c) if i})
            if before != self and before not in out:
                out.append(before)
        return out

    def _previous(self) -> dict[str, tuple[str, ...]]:
        """The main judge's parameters the user did not give that had other defaults before, with
        those defaults as spec text, the most recent first (:attr:`qrelkit.specs.Param.previous`)."""
        main = self.main
        declared = _judge(main.name).PARAMS
        return {k: tuple(fmt(v) for v in p.previous) for k, p in declared.items()
                if p.previous and k not in main.given}

    def _set_back(self, old: dict[str, str]) -> "JudgeSpec":
        main = self.main
        return self.with_main(dataclasses.replace(main.with_params(**old), given=main.given))

    def links(self) -> list["JudgeSpec"]:
        """The chain's judges in order, each without its successor."""
        own = dataclasses.replace(self, then=None)
        return [own, *(self.then.links() if self.then else [])]


def _omitted(declared: dict, values: dict) -> frozenset[str]:
    """Parameters the canonical id leaves out: new ones at their default, or at their ``absent`` value."""
    return frozenset(
        k for k, p in declared.items()
        if (p.omit_default and values[k] == p.default) or (p.absent is not None and values[k] == p.absent)
    )


def _as_stored(cls: type, given: set[str]) -> dict[str, Any]:
    """A method id stored before a default changed, read back as what it meant.

    A judge whose defaults changed declares ``STORED_FORM``: the parameters its canonical ids have
    always written out. A spec giving all of them, and beyond them only parameters of
    ``STORED_OPTIONAL`` or parameters with an ``absent`` value, *is* such an id: an id writes out
    every parameter but those at their ``absent`` value, so each such parameter it leaves out
    takes that value, whatever today's default (``debate(adjudicator=human,doc_tokens=400,
    first=relevant,rounds=2)`` is the v1 debate it was stored as; learned's ids of the
    ``feedback_z=40`` default, which leave out ``c``, keep C = 0.1 after the default became 0.03).
    So a stored id parses back to itself. A user's shorter spec gets the new defaults."""
    form = cls.STORED_FORM
    if not form or not form <= given:
        return {}
    declared = cls.PARAMS
    absent = {k for k, p in declared.items() if p.absent is not None}
    if given - form - cls.STORED_OPTIONAL - absent:
        return {}
    return {k: declared[k].absent for k in absent - given}


def _part(call: Call, whole: str, stored: bool = True) -> JudgeSpec:
    from qrelkit.judges import known, names

    name = ALIASES.get(call.name, call.name)
    if not known(name):
        raise UsageError(f"method spec {whole!r}: unknown method {call.name!r}; choose from {', '.join(names())}")
    cls = _judge(name)
    declared = cls.PARAMS
    values = bind(declared, call.args, f"method spec {whole!r}: {name}")
    if stored:
        values.update(_as_stored(cls, {k for k, _ in call.args}))
    params = tuple(values.items())
    omitted = _omitted(declared, values)
    return JudgeSpec(name, params, omitted=omitted, given=frozenset(k for k, _ in call.args))


def _chain(parts: list[JudgeSpec], whole: str) -> JudgeSpec:
    """Link parts into one spec, refusing chains that cannot run."""
    for p in parts[:-1]:
        if not _chains(p.name):
            raise UsageError(f"method spec {whole!r}: only a prefilter can come before '+', not {p.name}")
    if _chains(parts[-1].name):
        raise UsageError(f"method spec {whole!r}: a {parts[-1].name} needs a judge after it ('+debate', ...)")
    if len(parts) > 1 and _batch(parts[-1].name):
        raise UsageError(
            f"method spec {whole!r}: {parts[-1].name} decides over batches of cases and cannot follow "
            f"a {parts[0].name}"
        )
    spec = parts[-1]
    for p in reversed(parts[:-1]):
        spec = dataclasses.replace(p, then=spec)
    return spec


def parse_spec(text: str, stored: bool = True) -> JudgeSpec:
    """``"debate(rounds=2, adjudicator=llm)"`` -> JudgeSpec; raises UsageError on a bad spec.

    ``stored``: ``text`` may be a method id stored before a default changed, and reads back as
    what it meant (``zero-shot(doc_tokens=400)``: the TREC-narrative baseline, :func:`_as_stored`).
    A spec a user writes for new judgments is read with ``stored=False`` (:func:`resolve_method`):
    what the user left out takes today's defaults, so the id of a new judgment says which prompt
    ran (``zero-shot(doc_tokens=300)`` is stored as ``zero-shot(doc_tokens=300,narrative=none)``).
    A workspace judged under the old id still resumes it, by :meth:`JudgeSpec.as_before`."""
    if isinstance(text, str) and text.strip().lower() == "auto":
        raise UsageError("method 'auto' must be resolved first (auto_method)")
    return _chain([_part(c, text, stored) for c in parse_chain(text, "method spec")], text)


def parse_prefilter(text: str) -> JudgeSpec:
    """A prefilter on its own (``--prefilter``), to put in front of a judge."""
    calls = parse_chain(text, "prefilter spec")
    if len(calls) != 1 or not _chains(ALIASES.get(calls[0].name, calls[0].name)):
        raise UsageError(f"prefilter spec {text!r}: expected one prefilter, e.g. 'prefilter(by=likelihood,keep=0.95)'")
    return _part(calls[0], text)


def canonical(text: str) -> str:
    return parse_spec(text).canonical


def method_filter(text: str, known: Callable[[str], bool]) -> str:
    """The stored id a ``--method`` filter (export, escalations) means: the id a new judgment of
    ``text`` gets or, when ``known`` (is anything stored under an id?) says nothing is stored under
    that one, the first id something is stored under among ``text`` read as an id stored before a
    default changed (:func:`parse_spec`) and the forms it had before its defaults changed
    (:meth:`JudgeSpec.earlier`, the most recent first): ``--method learned`` finds the judgments of
    a workspace judged under an earlier default, as judging it again would resume them."""
    new = parse_spec(text, stored=False)
    for spec in (new, parse_spec(text), *new.earlier()):
        if known(spec.canonical):
            return spec.canonical
    return new.canonical


def is_local_model(model_spec: str) -> bool:
    return model_spec.strip().lower().split(":", 1)[0] in ("local", "smollm2", "gguf", "llama-cpp")


# With labelled pairs in the workspace (original qrels, people's labels), the embedded model's
# default is the learned combination of cheap signals instead: balanced accuracy 0.71 against
# likelihood's 0.61 on LLMJudge dev, and 12 of 15 hidden relevant documents recovered in the demo,
# with no false positive, against 5 (docs/embedded-judge.md).
LEARNED_AUTO = "learned"


def auto_method(model_spec: str, command: str = "judge", labelled: bool = False) -> JudgeSpec:
    """What ``--method auto`` (or no method) means for ``command`` with this model (:data:`AUTO_METHODS`),
    or :data:`LEARNED_AUTO` for the embedded model when there are ``labelled`` pairs to learn from."""
    if labelled and is_local_model(model_spec):
        return parse_spec(LEARNED_AUTO)
    return parse_spec(AUTO_METHODS[(command, is_local_model(model_spec))])


def resolve_method(method: Optional[str | JudgeSpec], model_spec: str, command: str = "judge",
                   labelled: bool = False) -> JudgeSpec:
    """A user's ``--method`` (a spec, ``auto`` or nothing) as a spec, with today's defaults for
    what it leaves out (``stored=False``, :func:`parse_spec`)."""
    if isinstance(method, JudgeSpec):
        return method
    if is_auto(method):
        return auto_method(model_spec, command, labelled)
    return parse_spec(method, stored=False)


def is_auto(method: Optional[str | JudgeSpec]) -> bool:
    return method is None or (isinstance(method, str) and method.strip().lower() in ("", "auto"))
