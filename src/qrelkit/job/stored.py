"""The job of a workspace: what `fill`/`build` were asked to do, parsed once, stored, continued.

A user who ran ``fill -w WS --method 'debate(rounds=1)' --model openai:… --limit 16`` and
then, as the README says, ``fill -w WS`` to continue, used to get all holes judged again by
the default judge and those labels merged instead of the debate's: each call started from the
defaults and overwrote the recorded plan. Now the first `fill`/`build` of a workspace stores its
job in canonical form (the composed method id, the model, task, budget, threshold, depths,
people's share, ``--auto``, and the how-much/where options), and every later call continues
exactly that job:

- an option not given takes the stored value;
- an option given with the stored value is fine;
- an option that would change which labels are made (``JobOption.stored``) and differs is
  refused (exit 2) with one message naming both values and the two ways on: ``--rejudge`` (a
  new job in the same workspace; earlier judgments stay with their provenance, the merge and
  the report use the new job's labels) or another workspace;
- ``limit``, ``concurrency`` and the engine say how much to do now and where: a new value is
  taken and stored.

A workspace from before stored jobs continues with the plan it recorded (meta ``plan``) and
the method its last judging run used, so it resumes with no new call.

``--rejudge`` makes a new job from the stored one's options with the call's over them (a new
method alone keeps the model, the depth and the rest; :func:`job_changes` says what changes).
Where a job stands after a call — ``done``, ``partial`` (holes left, per reason: :func:`left_over`)
or ``waiting`` (people have work) — is kept too (:func:`record_state`), for the report.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from qrelkit import __version__
from qrelkit.errors import UsageError
from qrelkit.job import options as opts
from qrelkit.judges.spec import JudgeSpec, is_auto, parse_spec, resolve_method
from qrelkit.judging.budget import Budget, parse_budget
from qrelkit.relevance import parse_threshold

if TYPE_CHECKING:
    from qrelkit.engines import EngineSpec
    from qrelkit.job.plan import Plan
    from qrelkit.judging.job import JudgingJob
    from qrelkit.judging.summary import JudgeSummary
    from qrelkit.store import Store
    from qrelkit.store.waiting import PeopleWaiting

STORED_KEY = "job"  # the workspace meta key of the current job
STATE_KEY = "job_state"  # the workspace meta key of where the job stands (record_state)
DONE, PARTIAL, WAITING = "done", "partial", "waiting"  # the states of a job (DESIGN.md's vocabulary)
HISTORY_KEY = "jobs"  # earlier jobs, replaced by --rejudge
# the options compared with the stored job, in the order a message names them
COMPARED = ("method", "prefilter", "auto", "model", "task", "budget", "threshold", "depth", "pool", "human_depth",
            "people", "guard")
RUNTIME = ("limit", "concurrency", "engine")


@dataclass(frozen=True)
class Job:
    """A `fill`/`build` job, every spec parsed once into its value.

    ``spec`` is the composed method (prefilter, adjudicator and a learned judge's own budget
    folded in): its canonical form is the method id the job's judgments are stored under.
    ``budget`` is the runner's escalation budget (None when the method spends its own)."""

    kind: str
    spec: JudgeSpec
    model: str  # the model spec as given (URLs and options); its id is what labels are stored under
    task: str
    budget: Optional[Budget]
    threshold: int | str
    depth: int
    pool: Optional[str]  # a pooling strategy (qrelkit.pooling) instead of depth-k
    human_depth: Optional[int]
    people: Optional[str]
    auto: bool
    limit: Optional[int]
    concurrency: int
    engine: "EngineSpec"
    prices: tuple[tuple[str, float, float], ...] = ()
    given: dict = field(default_factory=dict, hash=False, compare=False)  # the values compared (canonical)
    guard: bool = True  # documents that address the judge go to people (qrelkit.judging.guarded)

    @property
    def method_id(self) -> str:
        return self.spec.canonical

    @property
    def model_id(self) -> str:
        from qrelkit.llm.spec import canonical_model_id

        return canonical_model_id(self.model)

    def judging(self, read_cache: bool = True, sampled: bool = False) -> "JudgingJob":
        """The judging half of this job, over the LLM's share; with a probability sample for people
        (``--people 'sample(...)'``, or ``sampled``: the workspace holds one) over every hole, the
        sample's too: an estimate corrects the judge by comparing its labels with people's on the
        very same pairs."""
        from qrelkit.judging.job import JudgingJob

        share = "all" if sampled or (self.people or "").strip().startswith("sample") else "llm"
        return JudgingJob(method=self.spec, model=self.model, command=self.kind, task=self.task, share=share,
                          limit=self.limit, concurrency=self.concurrency, budget=self.budget,
                          threshold=self.threshold, read_cache=read_cache, prices=self.prices,
                          engine=self.engine, guard=self.guard, resume=False)  # the id is settled

    def to_stored(self) -> dict:
        """The canonical form kept in the workspace (JSON)."""
        return {
            "kind": self.kind, "method": self.method_id, "model": self.model, "model_id": self.model_id,
            "given": self.given, "task": self.task, "budget": str(self.budget) if self.budget else None,
            "threshold": self.threshold, "depth": self.depth, "pool": self.pool, "human_depth": self.human_depth,
            "people": self.people, "auto": self.auto, "limit": self.limit, "concurrency": self.concurrency,
            "engine": self.engine.text, "prices": [list(p) for p in self.prices],
            "qrelkit_version": __version__, "created": time.time(),
        }

    def settings(self) -> dict:
        """The job's values under the plan file's keys: what the report's settings table shows
        (a bare continuation's own options are the defaults, not the job it continues)."""
        return {
            "method": self.method_id, "model": self.model, "task": self.task,
            "budget": str(self.budget) if self.budget else None, "prefilter": self.given.get("prefilter"),
            "threshold": self.threshold, "depth": self.depth, "pool": self.pool, "human_depth": self.human_depth,
            "people": self.people, "limit": self.limit, "concurrency": self.concurrency, "engine": self.engine.text,
        }

    def describe(self) -> str:
        """One line for status, the report and messages."""
        parts = [f"{self.kind}: {self.method_id} on {self.model_id}"]
        if self.budget:
            parts.append(f"budget {self.budget}")
        if self.limit is not None:
            parts.append(f"limit {self.limit}")
        if self.auto:
            parts.append("LLM adjudicator (--auto)")
        if not self.guard:
            parts.append("guard off")
        return ", ".join(parts)


def _canonical(name: str, value: Any) -> Any:
    """An option's value in the form two values are compared in."""
    if value is None:
        return None
    if name == "method":
        return "auto" if is_auto(value) else parse_spec(value, stored=False).canonical if isinstance(value, str) \
            else value.canonical
    if name == "prefilter":
        from qrelkit.judges import parse_prefilter

        return parse_prefilter(value).canonical if value else None
    if name == "model":
        from qrelkit.llm.spec import canonical_model_id

        return canonical_model_id(value)
    if name == "budget":
        b = parse_budget(value)
        return str(b) if b else None
    if name == "threshold":
        return parse_threshold(value)
    if name == "pool":
        from qrelkit.pooling import parse_pool

        return str(parse_pool(value))
    if name == "engine":
        from qrelkit.engines import parse_engine

        return parse_engine(value).text
    return value


def stored_job(store: "Store") -> Optional[dict]:
    """The workspace's stored job, or one made from the plan a workspace from before recorded."""
    job = store.get_meta(STORED_KEY)
    if job:
        return job
    recorded = store.get_meta("plan")
    if not recorded:
        return None
    plan = recorded.get("plan") or {}
    kind = recorded.get("job", "fill")
    given = {k: _canonical(k, plan.get(k)) for k in COMPARED if k in plan and k != "auto"}
    # the method its judging ran under: the last judge command of this model (none: not judged yet)
    model_id = _canonical("model", plan.get("model") or "local")
    runs = [r for r in store.command_runs() if "method" in r.args and r.args.get("model") == model_id]
    method = runs[-1].args.get("method") if runs else None
    return {"kind": kind, "method": method, "model": plan.get("model") or "local", "model_id": model_id,
            "given": given, "legacy": True, "limit": plan.get("limit"), "concurrency": plan.get("concurrency"),
            "engine": plan.get("engine")}


def _refusal(ws: Any, name: str, stored: Any, wanted: Any) -> UsageError:
    flag = opts.BY_NAME[name].cli_flag
    return UsageError(
        f"{ws}: this workspace's job was made with {flag} {_show(stored)}; this call asks for {flag} "
        f"{_show(wanted)}. Run without {flag} to continue the stored job, add --rejudge to start a new job "
        "in this workspace (earlier judgments are kept; the merge and the report use the new job's labels), "
        "or use another workspace (-w)")


def _show(value: Any) -> str:
    return "(none)" if value is None else repr(value) if isinstance(value, str) else str(value)


def resolve_job(store: "Store", kind: str, plan: "Plan", given: dict[str, Any], rejudge: bool = False) -> Job:
    """The job this call runs: the stored one continued (given options checked against it), or a
    new one from ``plan`` and ``given`` (options the user gave, None = not given) when the workspace
    has none yet or with ``rejudge``. Raises UsageError for a differing option."""
    stored = stored_job(store)
    given = {k: v for k, v in given.items() if v is not None and v != ()}
    if stored is None or stored.get("method") is None:
        return _new_job(store, kind, _values(plan, given), resume=not rejudge)
    if rejudge or not _started(store, stored):
        # a new job (--rejudge), or nothing judged under the stored one yet (a build waiting for its
        # people's share): the call's options over the stored job's, never over the defaults
        return _new_job(store, kind, _values(plan, {**_stored_values(stored), **given}), resume=not rejudge)
    before = stored.get("given") or {}
    for name in COMPARED:
        if name not in given:
            continue
        wanted = _canonical(name, given[name])
        if name == "model":
            had = stored.get("model_id")
        elif name == "auto":
            had = bool(stored.get("auto")) if not stored.get("legacy") else bool(given[name])
        else:
            had = before.get(name, _canonical(name, opts.BY_NAME[name].default))
        if wanted != had:
            raise _refusal(store.workspace, name, had, wanted)
    return _continued(store, kind, stored, given)


def _stored_values(stored: dict) -> dict[str, Any]:
    """The options the stored job was made with, as a call would give them."""
    earlier = {k: v for k, v in (stored.get("given") or {}).items() if v is not None}
    earlier["model"] = stored.get("model")
    for name in RUNTIME:
        if stored.get(name) is not None:
            earlier[name] = stored[name]
    return earlier


# what `--rejudge` says it changes: (the stored job's key, what the message calls it)
_SHOWN = (("method", "method"), ("model_id", "model"), ("task", "task"), ("budget", "budget"),
          ("threshold", "threshold"), ("depth", "depth"), ("pool", "pool"), ("human_depth", "human depth"),
          ("people", "people"), ("auto", "auto"), ("limit", "limit"), ("concurrency", "concurrency"),
          ("engine", "engine"))


def job_changes(before: Optional[dict], job: Job) -> list[str]:
    """``name: old -> new`` for each setting ``job`` changes against the stored job ``before``
    (what ``--rejudge`` prints; everything not given again is kept)."""
    if not before:
        return []
    after = job.to_stored()
    return [f"{label}: {_show(before.get(key))} → {_show(after.get(key))}" for key, label in _SHOWN
            if before.get(key) != after.get(key) and key in before]


def _started(store: "Store", stored: dict) -> bool:
    """Has the stored job judged anything (so that changing it would change its labels)?"""
    return bool(stored.get("legacy")) or store.has_judgments(stored["method"], stored.get("model_id") or "")


def _values(plan: "Plan", given: dict[str, Any]) -> dict[str, Any]:
    values = {k: getattr(plan, k) for k in opts.BY_NAME if hasattr(plan, k)}
    values.update(given)
    values["prices"] = plan.prices
    return values


def _new_job(store: "Store", kind: str, values: dict[str, Any], resume: bool) -> Job:
    """A job from ``values``. Its method id is settled here: with ``resume``, the earlier form of the
    method this workspace was judged under when its defaults changed since (a bare ``learned`` after
    a new default: :func:`qrelkit.judging.runner.resumed_spec`), so that the job's judgments, merge
    and report are under one id; with ``--rejudge`` today's form, judged anew."""
    from qrelkit.engines import parse_engine
    from qrelkit.judging.job import has_labels

    model = values.get("model") or "local"
    method = values.get("method")
    spec = resolve_method(method, model, kind, labelled=has_labels(store))
    budget = parse_budget(values.get("budget"))
    if budget is not None and is_auto(method) and spec.main.name == "learned":
        spec = spec.with_params(budget=str(budget))  # an auto-chosen learned judge spends it itself
        budget = None
    if values.get("prefilter"):
        from qrelkit.judges import parse_prefilter

        spec = spec.with_prefilter(parse_prefilter(values["prefilter"]))
    if values.get("auto"):
        spec = spec.with_adjudicator("llm")
    from qrelkit.judging.escalation import check_budget

    check_budget(spec, budget)
    if resume:
        from qrelkit.judging.runner import resumed_spec
        from qrelkit.llm.spec import canonical_model_id

        spec = resumed_spec(store, spec, canonical_model_id(model))
    given = {k: _canonical(k, values.get(k)) for k in COMPARED if k not in ("model",)}
    given["auto"] = bool(values.get("auto"))
    depth = values.get("depth") or 10
    human_depth = values.get("human_depth")
    if kind == "fill" and values.get("people") and not str(values["people"]).strip().startswith("sample"):
        raise UsageError(f"fill --people {values['people']!r}: fill sends every hole to the judge; the one "
                         "people's share it takes is a probability sample for `qrelkit estimate`, "
                         "e.g. --people 'sample(size=10%)' (other shares: `qrelkit build`)")
    if kind == "fill" and not values.get("people"):  # fill: no people's share but a probability sample
        human_depth, given["human_depth"] = 0, 0
    return Job(kind=kind, spec=spec, model=model, task=values.get("task") or "auto", budget=budget,
               threshold=parse_threshold(values.get("threshold")), depth=depth, pool=values.get("pool"),
               human_depth=human_depth,
               people=values.get("people"), auto=bool(values.get("auto")), limit=values.get("limit"),
               concurrency=values.get("concurrency") or 8, engine=parse_engine(values.get("engine")),
               prices=tuple(values.get("prices") or ()), given=given,
               guard=(values.get("guard") or "on") == "on")


def _continued(store: "Store", kind: str, stored: dict, given: dict[str, Any]) -> Job:
    """The stored job, with the how-much/where options this call gives."""
    from qrelkit.engines import parse_engine

    before = stored.get("given") or {}
    kind = stored.get("kind", kind)
    model = given.get("model") or stored.get("model") or "local"  # same id; the URL may have moved
    budget = stored.get("budget")
    # fill: no people's share, but a probability sample (--people 'sample(...)')
    human_depth = 0 if kind == "fill" and not before.get("people") else before.get("human_depth")
    return Job(kind=kind, spec=parse_spec(stored["method"]), model=model,
               task=before.get("task") or "auto", budget=parse_budget(budget),
               threshold=parse_threshold(before.get("threshold")), depth=before.get("depth") or 10,
               pool=before.get("pool"), human_depth=human_depth, people=before.get("people"),
               auto=bool(given.get("auto", stored.get("auto"))),
               limit=given.get("limit", stored.get("limit")),
               concurrency=given.get("concurrency") or stored.get("concurrency") or 8,
               engine=parse_engine(given.get("engine", stored.get("engine"))),
               prices=tuple(tuple(p) for p in stored.get("prices") or ()), given=before,
               guard=(before.get("guard") or "on") == "on")


def record_job(store: "Store", job: Job, rejudge: bool = False) -> None:
    """Store ``job`` as the workspace's job; with ``rejudge`` the one it replaces joins the history."""
    old = store.get_meta(STORED_KEY)
    if rejudge and old and old.get("method") != job.method_id:
        store.set_meta(HISTORY_KEY, [*store.get_meta(HISTORY_KEY, []), old])
    record = job.to_stored()
    if old and not rejudge:
        record["created"] = old.get("created", record["created"])
    store.set_meta(STORED_KEY, record)


# ---------------------------------------------------------------- where a job stands
def left_over(store: "Store", job: Job, summary: "JudgeSummary") -> dict[str, int]:
    """The holes of the LLM's share the job has not labelled, per reason: ``limit`` (not judged
    yet: a --limit, or an interruption), ``budget`` (escalations the --budget left undecided),
    ``no_text`` (no document text to judge), ``errors`` (failed calls, retried by the next run),
    ``unanswered`` (the server gave no answer: not recorded at all, judged by the next run)."""
    left = {
        "limit": store.not_judged_by(job.method_id, summary.model) - summary.unanswered,
        "unanswered": summary.unanswered,
        "budget": summary.undecided,
        "no_text": summary.no_text,
        "errors": summary.errors,
    }
    return {k: v for k, v in left.items() if v}


def next_steps(ws: Any, job: Job, left: dict[str, int]) -> str:
    """What the closing line says to run next, for what is left."""
    steps = []
    if left.get("limit"):
        steps.append(f"{left['limit']} holes not judged yet" + (f" (--limit {job.limit})" if job.limit is not None
                     else "") + f": run `qrelkit {job.kind} -w {ws}" + (" --limit N` with a larger N"
                                                                       if job.limit is not None else "`"))
    if left.get("unanswered"):
        steps.append(f"{left['unanswered']} cases got no answer from the server: run `qrelkit {job.kind} -w {ws}` "
                     "again to judge them")
    if left.get("errors"):
        steps.append(f"{left['errors']} calls failed: run `qrelkit {job.kind} -w {ws}` again to retry them")
    if left.get("budget"):
        steps.append(f"{left['budget']} escalations over the --budget stay undecided")
    if left.get("unsettled"):
        steps.append(f"{left['unsettled']} pairs of the {job.pool} pool have no label yet, so MTF has not read "
                     f"on past them: run `qrelkit {job.kind} -w {ws}` once they are labelled")
    if left.get("no_text"):
        steps.append(f"{left['no_text']} pooled pairs have no document text and are not judged (list them with "
                     f"`qrelkit status -w {ws} --missing-text`)")
    return "; ".join(steps)


def record_state(store: "Store", job: Job, state: str, left: dict[str, int], waiting: Optional["PeopleWaiting"],
                 todo: str) -> None:
    """Where the job stands after this call (meta :data:`STATE_KEY`): the report says it, so that a
    ``partial`` job is not read as a finished one and a ``waiting`` one says what people have to do."""
    store.set_meta(STATE_KEY, {"kind": job.kind, "method": job.method_id, "model_id": job.model_id, "state": state,
                               "left": left, "people": waiting.to_json() if waiting is not None else {},
                               "todo": todo, "at": time.time()})
