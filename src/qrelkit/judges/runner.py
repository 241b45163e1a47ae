"""The judging pipeline: pending cases -> judge -> judgments, resumably.

Everything done once for all judges lives here or in the Client: case
selection, concurrency (a pool of workers bounded by ``concurrency``),
writing each verdict as soon as it is done (a kill loses only the cases in
flight), resuming (a re-run skips pairs this (method, model) has finished;
error verdicts are retried), calibration data for judges that need labels,
the escalation budget, and the usage record of the command.

Provenance of every judgment = the judge's own keys (see each judge module)
plus ``method``, ``model``, ``task`` ({"name", "threshold"}), ``status`` and,
for undecided verdicts, ``reason``; ``budget`` when the budget touched it;
``oracle`` (the reference grade) on escalations answered in simulation.

Judges that learn from people get two more hooks, so that there stays one
runner for every method:

- *learning* (``learns`` true, ``learn(context, client)``): before the first
  case, the judge gets a :class:`LearningContext` — the human labels of the
  selected topics (original qrels and people's decided labels) and access to
  documents and the narratives table — and may spend calls on it (narratives
  are induced here); those calls are reported apart (``narrative_calls``,
  ``narrative_cost``).
- *batches* (``BATCH`` true, see :class:`BatchJudge`): the judge scores each
  case (concurrently, through the cached client), then decides a whole batch
  at once from the scores and every human label available so far — original
  qrels, people's labels and, in simulation (``oracle``), the reference
  answers to its own earlier escalations. Judgments are written per batch.

Labels of the selected pairs never teach a judge about those pairs: original
qrels of selected pairs (audit mode) are left out of the human labels, and so
is every label of a pair still to be judged.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping, Optional, Protocol, Sequence

from qrelkit.errors import UsageError
from qrelkit.judges import JudgeSpec, build, parse_spec
from qrelkit.judges.base import (
    ADJUDICATED,
    ANSWER,
    DROPPED,
    ERROR,
    ESCALATE,
    GRADED,
    JudgeInput,
    Task,
    Verdict,
)
from qrelkit.judges.budget import Budget, parse_budget, rank, strength
from qrelkit.store.waiting import wants_people
from qrelkit.types import Case, Doc, Judgment, Topic

SHARES = ("llm", "people", "all", "judged")
CALIBRATION_SEED = 0
MIN_CALIBRATION = 20
PEOPLE_METHOD = "people"  # the method under which the annotation app writes people's decided labels
Pair = tuple[str, str]


@dataclass(frozen=True)
class ProgressUpdate:
    """Sent to the ``progress`` callback after each finished case."""

    done: int
    total: int
    calls: int
    cache_hits: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    escalations: int
    errors: int


@dataclass(frozen=True)
class JudgeSummary:
    """The outcome over the selected cases (counts) and this run's usage (calls, tokens, cost)."""

    method: str
    model: str
    task: str
    share: str
    cases: int
    judged: int
    relevant: int
    escalations: int
    errors: int
    escalation_ratio: float
    calls: int
    cache_hits: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    new: int = 0
    dropped: int = 0
    undecided: int = 0
    adjudicated: int = 0
    seconds: float = 0.0
    calibration: dict = field(default_factory=dict, hash=False)
    narrative_calls: int = 0  # calls spent inducing narratives (part of ``calls`` unless a separate instructor)
    narrative_cost: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


# ---- judges that learn from people -------------------------------------------------------------
@dataclass(frozen=True)
class HumanLabel:
    """One label people gave: an original qrel, a people's decided label, or — in
    simulation only — the oracle's answer to an escalation."""

    qid: str
    docid: str
    grade: int
    label: int  # binary, by the task's threshold
    source: str  # original | people | oracle


@dataclass(frozen=True)
class LearningContext:
    """What a learning judge may read before judging (see the module docstring).

    ``store`` is there for documents and the narratives table; judges write
    nothing else to it."""

    store: Any
    task: Task
    topics: Mapping[str, Topic]  # topics of the selected cases
    pending_qids: tuple[str, ...]  # topics with cases still to judge, sorted
    labels: tuple[HumanLabel, ...]  # sorted by (qid, docid)

    def for_topic(self, qid: str) -> tuple[HumanLabel, ...]:
        return tuple(h for h in self.labels if h.qid == qid)

    def doc(self, docid: str) -> Optional[Doc]:
        return self.store.doc(docid)


@dataclass(frozen=True)
class Learned:
    """What learning cost (calls the judge made before judging) and found."""

    info: dict = field(default_factory=dict, hash=False)
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    separate_client: bool = False  # the calls went to another client than the assessor's


@dataclass(frozen=True)
class BatchProgress:
    """Where a batch judge stands over the whole selection when it decides a batch."""

    total: int  # selected cases
    done: int  # decided before this batch (any status)
    escalated: int  # escalations so far (budget already spent)
    batch: int  # 0-based index of this batch in this run


class BatchJudge(Protocol):
    """A judge that decides over batches instead of case by case.

    ``score`` is per case (run concurrently; its calls go through the cached
    client); ``decide`` turns a batch of scores into verdicts using the human
    labels so far, given as ``(score, binary label)`` pairs."""

    spec: str
    requires: frozenset[str]
    batch_size: int
    calib_n: int
    seed: int

    async def score(self, inp: JudgeInput, client: Any) -> Any: ...

    def decide(
        self,
        batch: Sequence[tuple[JudgeInput, Any]],
        labelled: Sequence[tuple[Any, int]],
        progress: BatchProgress,
    ) -> list[Verdict]: ...


def human_labels(
    store: Any,
    task: Task,
    qids: Optional[set[str]] = None,
    exclude_original: frozenset[Pair] | set[Pair] = frozenset(),
    exclude: frozenset[Pair] | set[Pair] = frozenset(),
) -> dict[Pair, HumanLabel]:
    """Original qrels, then people's decided labels (which win), of some topics."""
    out: dict[Pair, HumanLabel] = {}
    for (q, d), g in store.qrels().items():
        if (qids is None or q in qids) and (q, d) not in exclude_original and (q, d) not in exclude:
            out[(q, d)] = HumanLabel(q, d, int(g), task.binary(int(g)), "original")
    for j in store.judgments(method=PEOPLE_METHOD, source="human"):
        if (qids is not None and j.qid not in qids) or (j.qid, j.docid) in exclude:
            continue
        if j.grade is None and j.label is None:
            continue
        grade = int(j.grade if j.grade is not None else j.label)
        label = task.binary(grade) if j.grade is not None else int(j.label)
        out[(j.qid, j.docid)] = HumanLabel(j.qid, j.docid, grade, label, "people")
    return out


def learning_context(
    store: Any, task: Task, selected: Sequence[Case], pending: Sequence[Case]
) -> LearningContext:
    keys = {(c.qid, c.docid) for c in selected}
    qids = {c.qid for c in selected}
    labels = human_labels(store, task, qids, exclude_original=keys, exclude={(c.qid, c.docid) for c in pending})
    topics = {q: t for q, t in store.topics().items() if q in qids}
    return LearningContext(
        store=store,
        task=task,
        topics=topics,
        pending_qids=tuple(sorted({c.qid for c in pending})),
        labels=tuple(labels[k] for k in sorted(labels)),
    )


def _find(judge: Any, attr: str) -> Any:
    """The judge in a chain (prefilter + judge) that has ``attr`` set."""
    while judge is not None and not getattr(judge, attr, False):
        judge = getattr(judge, "then", None)
    return judge


def sample_labels(items: Sequence[HumanLabel], n: int, seed: int) -> list[HumanLabel]:
    """Up to ``n`` labels, a seeded simple random sample, sorted by pair.

    Not stratified: a calibrated probability takes its base rate from the
    labels it is fitted on, and equal shares of each class would push it
    towards 0.5 — towards "relevant" on pools where most pairs are not."""
    ordered = sorted(items, key=lambda h: (h.qid, h.docid))
    if len(ordered) <= n:
        return ordered
    return sorted(random.Random(seed).sample(ordered, n), key=lambda h: (h.qid, h.docid))


def resolve_task(store: Any, task: str = "auto", threshold: int = 2) -> Task:
    """``auto``, the one rule of every command: new labels must be on the collection's
    own scale, so a graded collection (some grade > 1) gets the graded task even
    when its topics carry answers; otherwise the answer task when every topic has
    answers, else graded (whose binary label is what merge writes)."""
    if task == "auto":
        grades = set(store.qrels().values())
        topics = store.topics()
        answered = bool(topics) and all(t.answers for t in topics.values())
        task = ANSWER if answered and not (grades and max(grades) > 1) else GRADED
    if task not in (ANSWER, GRADED):
        raise UsageError(f"--task {task!r}: choose auto, answer or graded")
    if task == ANSWER and not all(t.answers for t in store.topics().values()):
        raise UsageError(
            "--task answer needs answers for every topic; the workspace has topics without answers"
        )
    return Task(task, threshold)


def select_cases(store: Any, share: str = "llm", limit: Optional[int] = None) -> list[Case]:
    """The cases a run covers, in stable order (``limit`` applies before resuming,
    so a re-run with the same limit completes the same set)."""
    if share not in SHARES:
        raise UsageError(f"--share {share!r}: choose from {', '.join(SHARES)}")
    if share == "llm":
        cases = store.cases(share="llm", judged=False)
    elif share == "people":
        cases = store.cases(share="people", judged=False)
    elif share == "all":
        cases = store.cases(judged=False)
    else:
        cases = store.cases(judged=True)
        if not cases and not store.cases():
            # a workspace made from qrels without runs: the labelled pairs are the cases
            cases = [Case(q, d, "llm", 0, (), True) for q, d in sorted(store.qrels())]
    if limit is not None:
        if limit < 0:
            raise UsageError("--limit must be >= 0")
        cases = cases[:limit]
    return cases


def labelled_pairs(
    store: Any,
    task: Task,
    exclude: set[tuple[str, str]],
    n: int,
    seed: int = CALIBRATION_SEED,
) -> list[tuple[JudgeInput, int]]:
    """A stratified, seeded sample of labelled pairs (original qrels, then people's
    labels, which win) for calibration; pairs being judged are left out when
    enough others remain."""
    labels = {k: h.label for k, h in human_labels(store, task).items()}
    others = {k: v for k, v in labels.items() if k not in exclude}
    if len(others) >= MIN_CALIBRATION and len(set(others.values())) == 2:
        labels = others
    rng = random.Random(seed)
    pos = sorted(k for k, v in labels.items() if v)
    neg = sorted(k for k, v in labels.items() if not v)
    rng.shuffle(pos)
    rng.shuffle(neg)
    k_pos = min(len(pos), max(n // 2, n - len(neg)))
    k_neg = min(len(neg), n - k_pos)
    topics = store.topics()
    out = []
    for key in sorted(pos[:k_pos] + neg[:k_neg]):
        doc, topic = store.doc(key[1]), topics.get(key[0])
        if doc is not None and topic is not None:
            out.append((JudgeInput(Case(key[0], key[1], judged=True), topic, doc, task), labels[key]))
    return out


def to_judgment(case: Case, v: Verdict, method: str, model: str, task: Task) -> Judgment:
    prov = {
        "method": method,
        "model": model,
        "task": {"name": task.name, "threshold": task.threshold},
        "status": v.status,
    }
    if v.reason:
        prov["reason"] = v.reason
    prov.update(v.provenance)
    return Judgment(
        qid=case.qid,
        docid=case.docid,
        method=method,
        model=model,
        label=v.label,
        grade=v.grade,
        status=v.status,
        source="adjudicator" if v.status == ADJUDICATED else "llm",
        round=v.round,
        rationale=v.rationale,
        evidence=v.evidence,
        provenance=json.dumps(prov, sort_keys=True, default=str),
        calls=v.calls,
        prompt_tokens=v.prompt_tokens,
        completion_tokens=v.completion_tokens,
        cost_usd=v.cost_usd,
    )


def for_people(j: Judgment) -> bool:
    """Does this judgment wait for people? (errors always; escalations unless the budget said no)."""
    return wants_people(j.status, j.provenance)


def _find_debate(judge: Any) -> Any:
    while judge is not None and not hasattr(judge, "settle"):
        judge = getattr(judge, "then", None)
    return judge


def _missing(case: Case, what: str) -> Verdict:
    return Verdict(
        status=ERROR,
        label=None,
        grade=None,
        reason=f"{what} missing from the workspace",
        provenance={"missing": what},
    )


async def arun_judging(
    store: Any,
    method_spec: str | JudgeSpec,
    client: Any,
    task: str = "auto",
    share: str = "llm",
    limit: Optional[int] = None,
    concurrency: int = 8,
    budget: Optional[str | Budget] = None,
    progress: Optional[Callable[[ProgressUpdate], None]] = None,
    threshold: int = 2,
    cases: Optional[Sequence[Case]] = None,
    oracle: Optional[Mapping[Pair, int]] = None,
) -> JudgeSummary:
    """Judge the selected cases; see :func:`run_judging`."""
    t0 = time.perf_counter()
    spec = parse_spec(method_spec) if isinstance(method_spec, str) else method_spec
    method, model = spec.canonical, client.model_id
    tsk = resolve_task(store, task, threshold)
    bud = parse_budget(budget) if not isinstance(budget, Budget) else budget
    if concurrency < 1:
        raise UsageError("--concurrency must be >= 1")
    judge = build(spec)
    check = getattr(judge, "check_client", None)
    if check is not None:
        check(client)  # a judge's own, more helpful, message first
    client.require(*sorted(judge.requires))
    batch_judge = judge if getattr(judge, "BATCH", False) else None
    check_budget(spec, bud)
    debate = _find_debate(judge)
    if bud is not None and debate is not None:
        debate.defer_adjudication = True
    selected = list(cases) if cases is not None else select_cases(store, share, limit)
    done_pairs = store.judged_pairs(method, model)
    pending = [c for c in selected if (c.qid, c.docid) not in done_pairs]
    usage0 = client.usage_dict()
    run_id = store.start_command(
        "judge",
        {
            "method": method,
            "model": model,
            "task": tsk.name,
            "threshold": threshold,
            "share": share,
            "limit": limit,
            "concurrency": concurrency,
            "budget": str(bud) if bud else None,
            "oracle": len(oracle) if oracle is not None else None,
        },
    )
    status = "failed"
    calibration: dict = {}
    learned = Learned()
    counts = {"done": 0, "escalations": 0, "errors": 0}
    try:
        learner = _find(judge, "learns")
        if pending and learner is not None:
            learned = await learner.learn(learning_context(store, tsk, selected, pending), client) or Learned()
            calibration.update(learned.info)
        if pending and getattr(judge, "needs_labels", False):
            n = max(getattr(judge, "calib_n", 200), getattr(getattr(judge, "then", None), "calib_n", 0) or 0)
            labelled = labelled_pairs(store, tsk, {(c.qid, c.docid) for c in selected}, n)
            calibration.update(await judge.prepare(labelled, client) or {})
        topics = store.topics()

        def emit() -> None:
            if progress is not None:
                u = client.usage_dict()
                progress(
                    ProgressUpdate(
                        counts["done"],
                        len(pending),
                        u["calls"] - usage0["calls"],
                        u["cache_hits"] - usage0["cache_hits"],
                        u["prompt_tokens"] - usage0["prompt_tokens"],
                        u["completion_tokens"] - usage0["completion_tokens"],
                        u["cost_usd"] - usage0["cost_usd"],
                        counts["escalations"],
                        counts["errors"],
                    )
                )

        def record(case: Case, v: Verdict) -> None:
            store.put_judgments([to_judgment(case, v, method, model, tsk)])
            counts["done"] += 1
            counts["escalations"] += int(v.escalated)
            counts["errors"] += int(v.status == ERROR)
            emit()

        def make_input(case: Case) -> JudgeInput | Verdict:
            topic = topics.get(case.qid)
            if topic is None:
                return _missing(case, "topic")
            doc = store.doc(case.docid)
            if doc is None:
                return _missing(case, "document text")
            return JudgeInput(case, topic, doc, tsk)

        emit()
        if batch_judge is not None:
            if pending:
                calibration.update(
                    await _judge_in_batches(
                        batch_judge, store, selected, pending, tsk, client, method, model,
                        concurrency, oracle, make_input, record,
                    )
                )
        else:
            queue: asyncio.Queue = asyncio.Queue()
            for c in pending:
                queue.put_nowait(c)

            async def worker() -> None:
                while True:
                    try:
                        case = queue.get_nowait()
                    except asyncio.QueueEmpty:
                        return
                    inp = make_input(case)
                    v = inp if isinstance(inp, Verdict) else await judge(inp, client)
                    record(case, v)

            workers = [asyncio.ensure_future(worker()) for _ in range(min(concurrency, max(1, len(pending))))]
            try:
                await asyncio.gather(*workers)
            except BaseException:
                for w in workers:
                    w.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
                raise
            if bud is not None:
                await _apply_budget(store, selected, bud, debate, client, method, model, tsk, topics)
            if oracle is not None:
                _answer_from_oracle(store, selected, method, model, oracle)
        status = "done"
    finally:
        summary = _summarise(
            store,
            selected,
            method,
            model,
            tsk,
            share,
            client.usage_dict(),
            usage0,
            counts["done"],
            time.perf_counter() - t0,
            calibration,
        )
        summary = _with_learning(summary, learned)
        totals = dict(client.usage_dict())
        totals.update({k: v for k, v in summary.as_dict().items() if k not in ("calibration",)})
        totals["usage_this_run"] = {
            k: summary.as_dict()[k]
            for k in ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "cost_usd")
        }
        store.finish_command(run_id, totals, status=status)
    return summary


def check_budget(spec: JudgeSpec, budget: Optional[str | Budget]) -> None:
    """A batch judge spends its own human budget (a spec parameter); ``--budget`` would be a second one."""
    from qrelkit.judges import REGISTRY

    if budget is not None and str(budget).strip() and getattr(REGISTRY.get(spec.name), "BATCH", False):
        raise UsageError(
            f"--budget does not apply to {spec.name}: its human budget is part of the method spec, "
            f"e.g. {spec.name}(budget=12.5%)"
        )


def _with_learning(summary: JudgeSummary, learned: Learned) -> JudgeSummary:
    """Report learning calls apart; add them to the totals when another client made them."""
    out = dataclasses.replace(
        summary, narrative_calls=learned.calls, narrative_cost=round(learned.cost_usd, 8)
    )
    if learned.separate_client:
        out = dataclasses.replace(
            out,
            calls=out.calls + learned.calls,
            cache_hits=out.cache_hits + learned.cache_hits,
            prompt_tokens=out.prompt_tokens + learned.prompt_tokens,
            completion_tokens=out.completion_tokens + learned.completion_tokens,
            cost_usd=round(out.cost_usd + learned.cost_usd, 8),
        )
    return out


async def _bounded(factories: Sequence[Callable[[], Any]], concurrency: int) -> list[Any]:
    """Await coroutine factories with at most ``concurrency`` in flight; results in order."""
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(f: Callable[[], Any]) -> Any:
        async with sem:
            return await f()

    return list(await asyncio.gather(*(one(f) for f in factories)))


async def _judge_in_batches(
    judge: Any,
    store: Any,
    selected: Sequence[Case],
    pending: Sequence[Case],
    task: Task,
    client: Any,
    method: str,
    model: str,
    concurrency: int,
    oracle: Optional[Mapping[Pair, int]],
    make_input: Callable[[Case], JudgeInput | Verdict],
    record: Callable[[Case, Verdict], None],
) -> dict:
    """Score and decide ``pending`` batch by batch (see :class:`BatchJudge`).

    The order is a seeded shuffle of the selection, so that every batch mixes
    topics and the budget is spent evenly over them; a resumed run keeps it."""
    keys = {(c.qid, c.docid) for c in selected}
    pending_keys = {(c.qid, c.docid) for c in pending}
    labels = human_labels(store, task, {c.qid for c in selected}, exclude_original=keys, exclude=pending_keys)
    earlier = [
        j for j in store.judgments(method=method, model=model) if (j.qid, j.docid) in keys and j.status != ERROR
    ]
    answered: dict[Pair, HumanLabel] = {}
    for j in earlier:
        g = json.loads(j.provenance or "{}").get("oracle") if j.status == ESCALATE else None
        if g is not None and (j.qid, j.docid) not in labels:
            answered[(j.qid, j.docid)] = HumanLabel(j.qid, j.docid, int(g), task.binary(int(g)), "oracle")
    # every label won on the selection (people's or the oracle's answers) plus a sample of the rest
    own = [h for k, h in labels.items() if k in keys] + list(answered.values())
    rest = sample_labels([h for k, h in labels.items() if k not in keys], judge.calib_n, judge.seed)
    teach = sorted(own + rest, key=lambda h: (h.qid, h.docid))
    # a labelled pair keeps its place in the pool (features such as its best rank use it)
    pooled = {(c.qid, c.docid): c for c in store.cases()}
    inputs = [(h, make_input(pooled.get((h.qid, h.docid)) or Case(h.qid, h.docid, judged=True))) for h in teach]
    usable = [(h, inp) for h, inp in inputs if isinstance(inp, JudgeInput)]
    scored = await _bounded([lambda inp=inp: judge.score(inp, client) for _, inp in usable], concurrency)
    labelled: list[tuple[Any, int]] = [(s, h.label) for (h, _), s in zip(usable, scored)]
    calib_calls = sum(getattr(s, "calls", 0) for s in scored)

    order = sorted(selected, key=lambda c: (c.qid, c.docid))
    random.Random(judge.seed).shuffle(order)
    todo = [c for c in order if (c.qid, c.docid) in pending_keys]
    done = len(earlier)
    escalated = sum(1 for j in earlier if j.status == ESCALATE)
    answers = 0
    for b, start in enumerate(range(0, len(todo), judge.batch_size)):
        cases = todo[start : start + judge.batch_size]
        made = [(c, make_input(c)) for c in cases]
        ready = [(c, inp) for c, inp in made if isinstance(inp, JudgeInput)]
        scores = await _bounded([lambda inp=inp: judge.score(inp, client) for _, inp in ready], concurrency)
        verdicts = judge.decide(
            [(inp, s) for (_, inp), s in zip(ready, scores)],
            list(labelled),
            BatchProgress(total=len(selected), done=done, escalated=escalated, batch=b),
        )
        learned_now: list[tuple[Any, int]] = []
        for (c, _), s, v in zip(ready, scores, verdicts):
            if v.status == ESCALATE:
                escalated += 1
                g = oracle.get((c.qid, c.docid)) if oracle is not None else None
                if g is not None:
                    v = dataclasses.replace(v, provenance={**v.provenance, "oracle": int(g)})
                    learned_now.append((s, task.binary(int(g))))
                    answers += 1
            record(c, v)
        for c, inp in made:
            if isinstance(inp, Verdict):
                record(c, inp)
        done += len(cases)
        labelled.extend(learned_now)  # an answered escalation teaches the later batches
    out = dict(getattr(judge, "report", lambda: {})())
    out.update({"labelled": len(labelled), "labelled_calls": calib_calls, "oracle_answers": answers})
    return out


def _answer_from_oracle(
    store: Any, selected: Sequence[Case], method: str, model: str, oracle: Mapping[Pair, int]
) -> None:
    """Simulation: note the reference grade on each escalation; the label stays undecided."""
    keys = {(c.qid, c.docid) for c in selected}
    for j in store.judgments(method=method, model=model, status=ESCALATE):
        g = oracle.get((j.qid, j.docid))
        if (j.qid, j.docid) not in keys or g is None:
            continue
        prov = json.loads(j.provenance or "{}")
        if prov.get("oracle") != int(g):
            prov["oracle"] = int(g)
            store.put_judgments([_replace_prov(j, prov)])


async def _apply_budget(
    store: Any,
    selected: Sequence[Case],
    bud: Budget,
    debate: Any,
    client: Any,
    method: str,
    model: str,
    task: Task,
    topics: dict,
) -> None:
    keys = {(c.qid, c.docid) for c in selected}
    esc = [
        j for j in store.judgments(method=method, model=model, status=ESCALATE) if (j.qid, j.docid) in keys
    ]
    cap = bud.cap(len(selected))
    ranked = rank([(j.qid, j.docid, json.loads(j.provenance)) for j in esc])
    by_key = {(j.qid, j.docid): j for j in esc}
    llm = debate is not None and getattr(debate, "adjudicator", "human") == "llm"
    for i, (qid, docid, prov) in enumerate(ranked):
        keep = i < cap
        action = "people" if keep else ("llm-adjudicator" if llm else "undecided")
        mark = {
            "budget": str(bud),
            "cap": cap,
            "rank": i + 1,
            "strength": list(strength(prov)),
            "for_people": keep,
            "action": action,
        }
        old = by_key[(qid, docid)]
        if prov.get("budget") == mark:
            continue
        prov = dict(prov)
        prov["budget"] = mark
        if keep or not llm:
            store.put_judgments([_replace_prov(old, prov)])
            continue
        case = Case(qid, docid)
        doc = store.doc(docid)
        v = await debate.settle(JudgeInput(case, topics[qid], doc, task), prov, client)
        v_prov = dict(v.provenance)
        for k in ("method", "model", "task", "status", "reason"):
            v_prov.pop(k, None)
        v = dataclasses.replace(
            v,
            provenance=v_prov,
            calls=v.calls + old.calls,
            prompt_tokens=v.prompt_tokens + old.prompt_tokens,
            completion_tokens=v.completion_tokens + old.completion_tokens,
            cost_usd=v.cost_usd + old.cost_usd,
            evidence=old.evidence,
        )
        store.put_judgments([to_judgment(case, v, method, model, task)])


def _replace_prov(j: Judgment, prov: dict) -> Judgment:
    return dataclasses.replace(j, provenance=json.dumps(prov, sort_keys=True, default=str))


def _summarise(
    store: Any,
    selected: Sequence[Case],
    method: str,
    model: str,
    task: Task,
    share: str,
    usage: dict,
    usage0: dict,
    new: int,
    seconds: float,
    calibration: dict,
) -> JudgeSummary:
    keys = {(c.qid, c.docid) for c in selected}
    js = [j for j in store.judgments(method=method, model=model) if (j.qid, j.docid) in keys]
    judged = sum(1 for j in js if j.label is not None)
    errors = sum(1 for j in js if j.status == ERROR)
    escalations = sum(1 for j in js if for_people(j))
    d = {
        k: usage[k] - usage0.get(k, 0) for k in ("calls", "cache_hits", "prompt_tokens", "completion_tokens")
    }
    return JudgeSummary(
        method=method,
        model=model,
        task=task.name,
        share=share,
        cases=len(selected),
        judged=judged,
        relevant=sum(1 for j in js if j.label == 1),
        escalations=escalations,
        errors=errors,
        escalation_ratio=round(escalations / len(selected), 4) if selected else 0.0,
        cost_usd=round(usage["cost_usd"] - usage0.get("cost_usd", 0.0), 8),
        new=new,
        dropped=sum(1 for j in js if j.status == DROPPED),
        undecided=sum(1 for j in js if j.status == ESCALATE and not for_people(j)),
        adjudicated=sum(1 for j in js if j.status == ADJUDICATED),
        seconds=round(seconds, 3),
        calibration=calibration,
        **d,
    )


def run_judging(
    store: Any,
    method_spec: str | JudgeSpec,
    client: Any,
    task: str = "auto",
    share: str = "llm",
    limit: Optional[int] = None,
    concurrency: int = 8,
    budget: Optional[str | Budget] = None,
    progress: Optional[Callable[[ProgressUpdate], None]] = None,
    threshold: int = 2,
    cases: Optional[Sequence[Case]] = None,
    oracle: Optional[Mapping[Pair, int]] = None,
) -> JudgeSummary:
    """Judge a workspace's pending cases with one method and one model.

    ``share``: ``llm`` (holes left to the LLM, the default), ``people``, ``all``
    (every unjudged case) or ``judged`` (audit mode: re-judge labelled pairs).
    Resumable: pairs this (method, model) already finished are skipped; error
    verdicts are retried. ``budget`` ("N" or "P%") caps escalations to people
    (see :mod:`qrelkit.judges.budget`). ``oracle`` (``{(qid, docid): grade}``,
    simulation) answers escalations from reference labels: the answer is noted
    in the escalation's provenance as ``oracle`` and, for batch judges, teaches
    the later batches; no label is written. ``cases`` replaces the selection.
    Runs its own event loop; inside a running loop use :func:`arun_judging`.
    """
    return asyncio.run(
        arun_judging(
            store,
            method_spec,
            client,
            task=task,
            share=share,
            limit=limit,
            concurrency=concurrency,
            budget=budget,
            progress=progress,
            threshold=threshold,
            cases=cases,
            oracle=oracle,
        )
    )


def list_escalations(
    store: Any, method: Optional[str] = None, include_over_budget: bool = False
) -> list[dict]:
    """What waits for people (status escalate/error), oldest method first, with the debate history."""
    topics = store.topics()
    out = []
    for status in (ESCALATE, ERROR):
        for j in store.judgments(method=method, status=status):
            if not include_over_budget and not for_people(j):
                continue
            prov = json.loads(j.provenance or "{}")
            topic = topics.get(j.qid)
            out.append(
                {
                    "qid": j.qid,
                    "docid": j.docid,
                    "query": topic.text if topic else "",
                    "method": j.method,
                    "model": j.model,
                    "status": j.status,
                    "reason": prov.get("reason", ""),
                    "history": prov.get("history"),
                    "for_people": for_people(j),
                }
            )
    out.sort(key=lambda e: (e["qid"], e["docid"], e["method"], e["model"]))
    return out
