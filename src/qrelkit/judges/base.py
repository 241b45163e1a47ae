"""What a judge is: a function of (judge input, client) that returns a verdict.

The relevance tasks and the status words of a verdict are on the ground floor
(:mod:`qrelkit.relevance`), shared with the store, merge and the measures.

A judge never retries, caches or counts by itself (the Client does); it only
turns completions into a :class:`Verdict`, and a call that failed after the
client's retries into ``status="error"`` with ``label=None`` — never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Optional, Sequence

from qrelkit import prompts
from qrelkit.llm.base import Usage
from qrelkit.relevance import (  # noqa: F401  (the contract's words, defined on the ground floor)
    ADJUDICATED,
    ANSWER,
    AUTO,
    CONSENSUS,
    DROPPED,
    ERROR,
    ESCALATE,
    GRADED,
    STATUSES,
    TASKS,
    UNDECIDED,
    Task,
)
from qrelkit.types import Case, Doc, Judgment, Provenance, Topic

if TYPE_CHECKING:
    from qrelkit.judges.learning import Learned, LearningContext
    from qrelkit.llm.client import Client

@dataclass(frozen=True)
class JudgeInput:
    """Everything one judgment needs: the case, its topic and document, the task."""

    case: Case
    topic: Topic
    doc: Optional[Doc]
    task: Task

    @property
    def text(self) -> str:
        return prompts.doc_text(self.doc.text, self.doc.title) if self.doc else ""

    def query_block(self, narrative: bool = True) -> str:
        """The topic as the prompt shows it; with ``narrative`` also the topic's narrative, if any."""
        t = self.task.template()
        if self.task.graded:
            out = t.render("query", query=self.topic.text)
        else:
            answers = "\n".join(t.render("answer_item", answer=a) for a in self.topic.answers) or "(none)"
            out = t.render("query", query=self.topic.text, answers=answers)
        if narrative and self.topic.narrative:
            out += "\n" + t.render("narrative", narrative=self.topic.narrative)
        return out


@dataclass(frozen=True)
class Verdict:
    """A judge's decision about one case, with what it cost.

    ``label`` is None exactly when ``status`` is ``escalate`` or ``error``;
    ``reason`` says why a case was escalated. ``provenance`` holds the judge's
    own keys (see the judge modules); the runner adds the common ones when it
    stores the verdict (:class:`qrelkit.types.Provenance`)."""

    status: str
    label: Optional[int]
    grade: Optional[int]
    rationale: str = ""
    evidence: tuple[str, ...] = ()
    round: int = 0
    reason: str = ""
    usage: Usage = Usage()
    provenance: dict = field(default_factory=dict, hash=False)

    @property
    def escalated(self) -> bool:
        return self.status in UNDECIDED

    def to_judgment(self, case: Case, method: str, model: str, task: Task) -> Judgment:
        """The stored record: the common provenance keys, then the judge's own."""
        common: dict[str, Any] = {
            "method": method,
            "model": model,
            "task": {"name": task.name, "threshold": task.threshold},
            "status": self.status,
        }
        if self.reason:
            common["reason"] = self.reason
        return Judgment(
            qid=case.qid,
            docid=case.docid,
            method=method,
            model=model,
            label=self.label,
            grade=self.grade,
            status=self.status,
            source="adjudicator" if self.status == ADJUDICATED else "llm",
            round=self.round,
            rationale=self.rationale,
            evidence=self.evidence,
            provenance=Provenance({**common, **self.provenance}).to_json(),
            calls=self.usage.calls,
            prompt_tokens=self.usage.prompt_tokens,
            completion_tokens=self.usage.completion_tokens,
            cost_usd=self.usage.cost_usd,
        )


class Meter:
    """Adds up the calls one judge makes for one case (local to a judge call)."""

    def __init__(self) -> None:
        self.usage = Usage()

    def add(self, result: Any) -> Any:
        """Count one answered call (a Completion or ScoreResult) and hand it back."""
        self.usage += Usage.of(result)
        return result

    def add_usage(self, usage: Usage) -> None:
        self.usage += usage


# ---- the judge contract ------------------------------------------------------------------------
class Judge:
    """A configured judging method that decides one case at a time.

    Every capability the runner needs is a declared attribute or method with a
    default here, so the runner reads them directly instead of probing:

    - ``requires``: the client capabilities its calls need (checked before any call);
    - ``learns``: it reads people's labels before the first case (:meth:`learn`);
    - ``needs_labels`` / ``calib_n``: it calibrates on up to ``calib_n`` labelled
      pairs before the first case (:meth:`prepare`);
    - :meth:`check_client`: a check with a more helpful message than ``requires``'s;
    - :meth:`open_clients`: make the clients of its own (another model per debate agent);
    - :meth:`aclose`: release what it made for itself, after the last case.

    Kinds with more to say are subclasses: :class:`ChainJudge` (``prefilter+X``),
    :class:`BatchJudge` (decides batches), :class:`LearningJudge` (learns always) and
    :class:`AdjudicatingJudge` (its escalations can be settled later by an LLM).
    ``NAME`` and ``PARAMS`` are the registry's (see :func:`qrelkit.judges.register`);
    ``spec`` is the canonical spec string, the stored method id."""

    NAME: ClassVar[str] = ""
    PARAMS: ClassVar[dict] = {}
    CHAINS: ClassVar[bool] = False  # only in front of another judge
    BATCH: ClassVar[bool] = False  # decides over batches of cases
    # a judge whose defaults changed: the parameters its old canonical ids always wrote out, and
    # those they may also carry (qrelkit.judges.spec reads a stored id back as what it meant)
    STORED_FORM: ClassVar[frozenset[str]] = frozenset()
    STORED_OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    spec: str = ""
    requires: frozenset[str] = frozenset()
    learns: bool = False
    needs_labels: bool = False
    calib_n: int = 0

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        """The prompt templates the judge uses for a task (their versions go into provenance)."""
        raise NotImplementedError

    def chain(self) -> tuple["Judge", ...]:
        """This judge and, for a chain, the judges after it, first to last."""
        return (self,)

    def check_client(self, client: Client) -> None:
        """Raise a CapabilityError when the client cannot serve this judge (default: ``requires`` says it)."""

    def open_clients(self, client: Client) -> None:
        """Make the clients of the judge's own (other models than the job's), before any call;
        they cache in ``client``'s store. Default: none."""

    def extra_usage(self) -> Any:
        """What clients of the judge's own (not the job's) spent this run; the runner adds it to the
        totals (``debate(models=[...])``: each agent's model has a client of its own)."""
        from qrelkit.types import Usage

        return Usage()

    async def aclose(self) -> None:
        """Release what the judge made for itself (``debate(models=[...])``: its agents' clients);
        the runner calls it once after the last case, however the run ended (default: nothing)."""

    async def learn(self, ctx: "LearningContext", client: Client) -> "Learned":
        """Read people's labels before the first case; called exactly when ``learns`` is true."""
        raise NotImplementedError(f"{self.NAME} says it learns but has no learn()")

    async def prepare(self, labelled: Sequence[tuple[JudgeInput, int]], client: Client) -> dict:
        """Calibrate on labelled pairs before the first case; only called when ``needs_labels``.
        Returns what the summary reports under ``calibration``."""
        return {}

    async def __call__(self, inp: JudgeInput, client: Client) -> Verdict:
        raise NotImplementedError


class LearningJudge(Judge):
    """A judge that always learns from people's labels before judging (examples, narratives)."""

    learns = True


class ChainJudge(Judge):
    """A judge written in front of another with ``+`` (``prefilter+debate``): it sees each case
    first and hands the cases it keeps to ``then``."""

    CHAINS = True

    def __init__(self, then: Judge):
        self.then = then

    def chain(self) -> tuple[Judge, ...]:
        return (self,) + self.then.chain()


class AdjudicatingJudge(Judge):
    """A judge whose disagreements an LLM adjudicator may settle (a debate).

    ``defer_adjudication`` is given when the judge is built: with a ``--budget``
    the runner ranks all escalations first and has only the overflow settled,
    through :meth:`settle`, from the escalation's stored provenance."""

    adjudicator: str = "human"  # human | llm

    def __init__(self, defer_adjudication: bool = False):
        self.defer_adjudication = defer_adjudication

    async def settle(self, inp: JudgeInput, prov: dict, client: Client) -> Verdict:
        raise NotImplementedError


@dataclass(frozen=True)
class BatchProgress:
    """Where a batch judge stands over the whole selection when it decides a batch."""

    total: int  # selected cases
    done: int  # decided before this batch (any status)
    escalated: int  # escalations so far (budget already spent)
    batch: int  # 0-based index of this batch in this run


class BatchJudge(Judge):
    """A judge that decides over batches instead of case by case.

    :meth:`score` is per case (run concurrently; its calls go through the cached
    client); :meth:`decide` turns a batch of scores into verdicts using the human
    labels so far, given as ``(score, binary label)`` pairs. Its human budget is a
    parameter of its own, so ``--budget`` does not apply and it cannot follow a
    prefilter. ``calib_n`` labelled pairs outside the selection (sampled with
    ``seed``) are scored to teach the first batch."""

    BATCH = True
    batch_size: int = 50
    seed: int = 0

    async def score(self, inp: JudgeInput, client: Client) -> Any:
        raise NotImplementedError

    def decide(
        self,
        batch: Sequence[tuple[JudgeInput, Any]],
        labelled: Sequence[tuple[Any, int]],
        progress: BatchProgress,
    ) -> list[Verdict]:
        raise NotImplementedError

    def report(self) -> dict:
        """What the summary shows under ``calibration`` after the run."""
        return {}

    async def __call__(self, inp: JudgeInput, client: Client) -> Verdict:
        raise TypeError(f"{self.NAME} decides over batches of cases; run it through the judging runner")


def error_verdict(reason: str, meter: Meter, provenance: Optional[dict] = None, round: int = 0) -> Verdict:
    """A call failed for good: undecided, escalated, counted — never a guessed label."""
    return Verdict(
        status=ERROR,
        label=None,
        grade=None,
        reason=reason,
        round=round,
        provenance=dict(provenance or {}),
        usage=meter.usage,
    )


def parsed_decision(completion: Any, task: Task) -> tuple[Optional[int], Optional[str]]:
    """The decision value of a schema reply, or (None, why not)."""
    if not completion.ok:
        return None, f"call failed: {completion.error}"
    obj = completion.parsed
    if not isinstance(obj, dict):
        return None, "reply is not a JSON object"
    value = obj.get(task.field)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= task.max_grade:
        return None, f"reply has no valid {task.field!r}: {value!r}"
    return value, None


def template_versions(*names: str) -> dict[str, str]:
    """Versions by template name; ``"debate_agent.v1"`` pins a version and is keyed ``debate_agent``."""
    return {n.partition(".v")[0]: prompts.load(n).version for n in names}
