"""A judge that learns from people's labels over several cheap relevance signals.

Why: out of the box (no server, no GPU) the embedded model's likelihood alone reaches a balanced
accuracy of about 0.60 on LLMJudge-style data; no single cheap signal does much better, but a
logistic regression over several, fitted on a couple of hundred people's labels, does
(``benchmarks/embedded.py`` has the figures). ``learned(signals=pmi_u+ql_u+dense_u+lexical_u+pool+feedback+prior,
c=0.03, calib=200)`` (the ``_u`` signals read the passage without query words stuffed into it,
:mod:`qrelkit.signals.unstuffed`; ``prior`` is the topic's share of relevant labels):

1. learn: before the first case, the signals are resolved against the workspace; any that
   cannot be computed (no runs -> no ``pool``; a model that cannot score -> no ``pmi``/``ql``;
   no weights package -> no ``dense``) is dropped, and the summary and every provenance say so.
   With ``per_topic`` the signals of every case of the selected topics are computed up front and
   features become z-scores within their topic (:mod:`qrelkit.signals.combine`): with ``true``
   every feature, over the topic's cases; with ``query`` (the default) only those of the signals
   that compare the document with the query (``pmi``, ``ql``, ``dense``, ``lexical``: a predictable
   query scores all its documents high), over the topic's cases and the labelled pairs fitted on,
   while ``feedback`` (already relative to the topic's judged documents) and ``pool`` stay raw.
2. score: one signal vector per case (cached in the workspace per signal and pair).
3. decide, batch by batch, exactly as ``confidence`` does (the runner's ``BatchJudge`` hook): a
   class-balanced logistic regression over standardised features is refitted on every human
   label available so far — the original qrels (``fill``), the people's share (``build``),
   people's verdicts as they arrive, and, in simulation, the answers to earlier escalations;
   labels outside the selection are a seeded sample of at most ``calib`` pairs. Within the
   budget (``budget=0`` by default: decide everything; ``budget=12.5%`` or a count), the cases
   whose probability is closest to 0.5 are escalated (reason ``uncertain``); the rest are
   labelled (relevant when P >= 0.5).

Accounting: each verdict carries the LLM calls (and tokens) its own pair's signals cost — the
``pmi``/``ql`` scoring calls, cache hits included, as the client counts them — and nothing when
the values came from the workspace's signal cache; the labelled pairs' calls are the summary's
``labelled_calls``, and the verdicts' calls plus those equal the client's totals for the run.
With ``per_topic=true`` the topics' whole pools are scored up front; each pair's share is charged
to its verdict (or to ``labelled_calls``) when it is judged in this run, and the total, pairs
outside the selection included, is the summary's ``topic_stats``.

Calibration for the few labels a user has (``c=cv``; the default is a fixed C = 0.03, 0.1 before
``prior``, both measured better on LLMJudge dev, TREC DL 2019 and the demo, see
docs/embedded-judge.md): C is chosen
by stratified cross-validation on the labelled pairs among
:data:`qrelkit.signals.combine.C_GRID` (log-loss; the fold seed is ``seed``), and the choice and
its scores are in the provenance's ``combination.fit``. The labelled pairs are not drawn like
the cases (the people's share is top-heavy, original qrels pooled deeper): the class-balanced
fit's decision (P >= 0.5) does not depend on their share of relevant pairs, and the cases' own
share is estimated by EM from each batch's probabilities (Saerens et al. 2002) and recorded as
``prior`` = ``{"labelled", "cases_estimate", "cases"}`` (with ``c=cv`` or ``feedback``). Stored
ids that leave out ``c`` mean C = 0.1 and compute what they did.

``feedback`` compares each pair with the people's labels of its topic that the judge learns
from (the learning context's), leaving the pair's own label out
(:mod:`qrelkit.signals.feedback`). With ``feedback_z=K`` (the default, K = 40; ``off``: raw) its
similarities become z-scores within the topic, against the topic's labelled pairs' own values
with the moments shrunk toward the collection's by K pseudo-pairs
(:func:`qrelkit.signals.combine.shrunk_moments`): how much documents resemble a topic's judged
ones differs between topics, and a topic has too few labels for moments of its own. Ids stored
before ``feedback_z`` (which wrote out ``batch``, ``budget``, ``calib``, ``doc_tokens``,
``per_topic``, ``seed`` and ``signals``) mean ``off`` and compute what they did.

With fewer than two labels of either class nothing can be fitted, and every case is an
``error`` verdict that says so (it waits for people): a label is never guessed.

Grades: the graded task gets its binary decision written as a grade (``task.threshold`` when
relevant, else 0), as the likelihood and confidence judges do.

Provenance key ``learned`` = ``{"signals": {column: value}, "probability", "combination":
{"columns", "coef", "intercept", "mean", "scale", "per_topic", "n", "relevant"}, "dropped":
[{"name", "reason"}], "versions": {signal: version}, "batch", "budget", "cap", "allowance", "prior",
"feedback_z": {"k0", "columns", "labelled", "topics"}}`` (``combination.fit`` with ``c=cv`` only;
``prior`` with ``c=cv`` or ``feedback``; ``feedback_z`` when feedback's similarities were z-scored).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from qrelkit import prompts, signals
from qrelkit.judges import Param, boolean, integer, number, register
from qrelkit.judges.base import AUTO, ERROR, ESCALATE, BatchJudge, JudgeInput, Verdict
from qrelkit.judges.calibration import allowance, uncertain_first
from qrelkit.judges.confidence import budget_param
from qrelkit.judges.signal_model import SignalModel
from qrelkit.judging.budget import Budget
from qrelkit.llm.base import Usage
from qrelkit.signals import combine

if TYPE_CHECKING:
    from qrelkit.llm.client import Client

# The signals' defaults, oldest first (stored ids keep theirs): the five of the first learned judge;
# with feedback (1 December 2026); the query signals read without stuffed runs and the topic's
# prior (7 December 2026: the same values on natural text but for 0.04% of passages, headings that
# restate the query; stuffing flip rates 40-58% -> 12-20%;
# with C = 0.03 LLMJudge dev 0.702 -> 0.709, DL 2019 0.865 -> 0.888 with 4.2 -> 2.2 false
# positives, the demo 11 -> 12 of 15 with none: docs/embedded-judge.md, docs/audit.md)
STORED_SIGNALS = "pmi+ql+dense+lexical+pool"
FEEDBACK_SIGNALS = STORED_SIGNALS + "+feedback"
DEFAULT_SIGNALS = "pmi_u+ql_u+dense_u+lexical_u+pool+feedback+prior"
DEFAULT_C = 0.03  # with `prior`; combine.C (0.1) before, which ids leave out


def signals_param(text: str) -> str:
    return "+".join(signals.parse_signals(text))


QUERY = "query"  # per_topic=query: z-score within the topic only the signals that compare with the query


def per_topic_param(text: str) -> Any:
    """``true`` (every signal z-scored within its topic), ``false``, or ``query`` (only those that
    compare the document with the query: :attr:`qrelkit.signals.Signal.QUERY`)."""
    if text.strip().lower() == QUERY:
        return QUERY
    try:
        return boolean(text)
    except ValueError:
        raise ValueError(f"expected true, false or {QUERY}, got {text!r}") from None


OFF = "off"


def feedback_z_param(text: str) -> Any:
    """``off`` (feedback's values raw) or the pseudo-pairs a topic's moments are shrunk with."""
    if text.strip().lower() == OFF:
        return OFF
    try:
        return integer(0)(text)
    except ValueError:
        raise ValueError(f"expected {OFF} or a number of pseudo-pairs (0 or more), got {text!r}") from None


def c_param(text: str) -> Any:
    """``cv`` (C chosen by cross-validation on the labelled pairs) or a positive number."""
    return combine.CV if text == combine.CV else number(1e-6)(text)


@dataclass(frozen=True)
class LearnedScore:
    """One pair's signal vector (NaN where a value could not be computed)."""

    qid: str
    x: tuple[float, ...]
    error: Optional[str] = None
    info: dict = field(default_factory=dict, hash=False)
    usage: Usage = Usage()  # the signals' LLM calls for this pair (none when their values were cached)

    @property
    def usable(self) -> bool:
        return self.error is None and any(np.isfinite(self.x))


@register
class LearnedJudge(BatchJudge):
    NAME = "learned"
    PARAMS = {
        "signals": Param(DEFAULT_SIGNALS, signals_param, "cheap signals combined, joined by + (see qrelkit.signals)",
                         legacy=(STORED_SIGNALS, FEEDBACK_SIGNALS)),
        "calib": Param(200, integer(0), "at most this many labelled pairs outside the selection to fit on"),
        "budget": Param(Budget(0, False), budget_param, "cases people may get: P% of the selection or N"),
        # per_topic=query became the default after false (LLMJudge dev BA 0.693 -> 0.702, DL19 0.851 -> 0.870;
        # the demo 1 -> 2 false positives: docs/embedded-judge.md);
        # stored ids write per_topic out, and a bare learned resumes a workspace judged at false
        "per_topic": Param(QUERY, per_topic_param, "z-score signals within their topic before fitting: true (all), "
                           "query (those that compare with the query; feedback and pool stay raw) or false",
                           legacy=False),
        "batch": Param(50, integer(1), "cases decided together"),
        "seed": Param(0, integer(0), "order of the cases and sampling of labelled pairs"),
        "doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "document token budget (pmi, ql)"),
        # added with the feedback signal at 0.1; c=cv lost to it on LLMJudge dev (BA 0.684 vs 0.693), DL 2019
        # and the demo. 0.03 became the default with `prior` (above); ids at 0.1 omit c (the ids written
        # before c existed, and those of the defaults until then, keep their form and mean 0.1)
        "c": Param(DEFAULT_C, c_param, "regularisation C of the regression, or cv: chosen by cross-validation",
                   legacy=combine.C, absent=combine.C),
        # feedback_z=40 became the default after off (the demo 2 -> 0 false positives, LLMJudge dev 0.702 ->
        # 0.702, DL19 0.870 -> 0.865 with 3.0 -> 4.2: docs/embedded-judge.md); ids at off omit it, so the ids
        # stored before it (STORED_FORM) mean off
        "feedback_z": Param(combine.FEEDBACK_K0, feedback_z_param,
                            "z-score feedback's similarities within the topic against its labelled pairs, the "
                            "topic's moments shrunk toward the collection's with this many pseudo-pairs; off: raw",
                            legacy=OFF, absent=OFF),
    }
    # what every learned id writes out; one that leaves out feedback_z or c means off or 0.1 (their absent values)
    STORED_FORM = frozenset({"batch", "budget", "calib", "doc_tokens", "per_topic", "seed", "signals"})
    STORED_OPTIONAL = frozenset({"c"})
    requires: frozenset[str] = frozenset()  # a signal the client cannot serve is dropped, not required
    learns = True

    def __init__(self, spec: Any):
        self.spec = str(spec)
        self.names: tuple[str, ...] = tuple(spec["signals"].split("+"))
        self.calib_n: int = spec["calib"]
        self.budget: Budget = spec["budget"]
        self.per_topic: Any = spec["per_topic"]  # False, True or QUERY
        self.batch_size: int = spec["batch"]
        self.seed: int = spec["seed"]
        self.doc_tokens: int = spec["doc_tokens"]
        self.c: Any = spec["c"]
        self.feedback_z: Any = spec["feedback_z"]  # OFF or pseudo-pairs
        self.feedback_moments: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.feedback_fallback: Optional[tuple[np.ndarray, np.ndarray]] = None
        self._feedback_info: Optional[dict] = None
        # ids stored before the feedback signal (no feedback, fixed C) keep their provenance as it was
        self._records_prior = self.c != combine.C or "feedback" in self.names
        self.sm = SignalModel(spec["signals"], self.doc_tokens)
        self.topic_stats: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.model: Optional[combine.Combination] = None
        self._cap: Optional[int] = None
        self._batches = 0
        self._prior: Optional[dict] = None
        self._prepaid: dict[tuple[str, str], Usage] = {}  # per_topic: calls made up front, per pair
        self._topic_calls = Usage()

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        return ("likelihood",) if {"pmi", "ql"} & set(self.names) else ()

    # ---- learn: resolve the signals against the workspace ----------------------------------
    async def learn(self, context: Any, client: Client) -> Any:
        from qrelkit.judges.learning import Learned

        info = await self.sm.resolve(context.store, client, context.labels)
        if self.per_topic and self.sm.active:
            await self._topic_stats(context)
        if self.feedback_z != OFF:
            await self._feedback_stats(context)
        return Learned(info=info)

    async def _feedback_stats(self, context: Any) -> None:
        """``feedback_z``: each topic's moments of ``feedback``'s similarities over the labelled pairs
        it compares with (their own values leave their own label out), shrunk toward the collection's
        (:func:`qrelkit.signals.combine.shrunk_moments`). Cases and labelled pairs of a topic are
        standardised alike; a topic with no labelled pair takes the collection's moments."""
        from qrelkit.signals.feedback import Feedback

        sig = next((s for s in self.sm.active if s.NAME == Feedback.NAME), None)
        if sig is None or self.sm.ctx is None:
            return
        pairs = sorted({(h.qid, h.docid) for h in context.labels})
        only = [s.NAME == sig.NAME and f in Feedback.SIMILARITIES for s in self.sm.active for f in s.FEATURES]
        wide = np.zeros((len(pairs), len(self.columns)))
        at = [i for i, flag in enumerate(only) if flag]
        first = next(i for i, c in enumerate(self.columns) if c.startswith(f"{sig.NAME}."))
        fx = await signals.values(sig, pairs, self.sm.ctx)
        wide[:, first:first + len(sig.FEATURES)] = fx
        self.feedback_moments, self.feedback_fallback = combine.shrunk_moments(
            wide, [p[0] for p in pairs], self.feedback_z, only)
        self._feedback_info = {"k0": self.feedback_z, "columns": [self.columns[i] for i in at],
                               "labelled": len(pairs), "topics": len(self.feedback_moments)}

    async def _topic_stats(self, context: Any) -> None:
        """Each pending topic's cases, scored up front: per-topic z-scores are taken over the topic's
        whole pool (:func:`qrelkit.signals.combine.per_topic_z`, the one definition), also over cases
        outside the selection (``--limit``). What that costs is charged to each pair's verdict when
        it is judged (the values are cached, so it is not paid twice), and the total is in the
        summary as ``topic_stats``.

        ``per_topic=query`` takes the moments over the labelled pairs too (a topic of a ``fill``
        may have one or two holes but dozens of judged documents; labelled pairs of other topics get
        their own topic's moments, so no pair is fitted raw next to z-scores): the pool plus the
        sample the fit draws (:func:`qrelkit.judges.learning.sample_labels`, same size and seed),
        and only the query signals' columns move."""
        qids = set(context.pending_qids)
        pairs = [(c.qid, c.docid) for c in context.store.cases() if c.qid in qids]
        only = None
        if self.per_topic == QUERY:
            pairs += self._fit_sample(context, set(pairs))
            only = [sig.QUERY for sig in self.sm.active for _ in sig.FEATURES]
        x, usage = await self.sm.metered(pairs)
        self._prepaid = {p: u for p, u in zip(pairs, usage) if u.calls}
        self._topic_calls = sum(usage, Usage())
        self.topic_stats = combine.topic_moments(x, [p[0] for p in pairs], only)

    def _fit_sample(self, context: Any, cases: set[tuple[str, str]]) -> list[tuple[str, str]]:
        """The labelled pairs the fit will draw: every label on a case, a seeded sample of the rest."""
        from qrelkit.judges.learning import sample_labels

        own = [h for h in context.labels if (h.qid, h.docid) in cases]
        rest = sample_labels([h for h in context.labels if (h.qid, h.docid) not in cases], self.calib_n, self.seed)
        return sorted({(h.qid, h.docid) for h in own + rest} - cases)

    @property
    def columns(self) -> tuple[str, ...]:
        return self.sm.columns

    def _dropped_list(self) -> list[dict]:
        return self.sm.dropped_list()

    # ---- per case ------------------------------------------------------------------------------
    async def score(self, inp: JudgeInput, client: Client) -> LearnedScore:
        if self.sm.ctx is not None and not self.sm.active:
            why = "no signal could be computed: " + "; ".join(f"{d.name}: {d.reason}" for d in self.sm.dropped)
            return LearnedScore(inp.case.qid, (), why)
        pair = (inp.case.qid, inp.case.docid)
        xs, usage = await self.sm.metered([pair])
        x, spent = xs[0], usage[0] + self._prepaid.pop(pair, Usage())
        raw = dict(zip(self.columns, (None if not np.isfinite(v) else round(float(v), 6) for v in x)))
        if self.per_topic:
            x = combine.per_topic_z(x[None, :], [inp.case.qid], self.topic_stats)[0]
        if self.feedback_fallback is not None:
            x = combine.per_topic_z(x[None, :], [inp.case.qid], self.feedback_moments,
                                    fallback=self.feedback_fallback)[0]
        if not np.isfinite(x).any():
            return LearnedScore(inp.case.qid, tuple(x), "no signal value for this pair (calls failed)", raw, spent)
        return LearnedScore(inp.case.qid, tuple(float(v) for v in x), None, raw, spent)

    # ---- per batch -----------------------------------------------------------------------------
    def decide(self, batch: Sequence[tuple[JudgeInput, LearnedScore]], labelled: Sequence[tuple[LearnedScore, int]],
               progress: Any) -> list[Verdict]:
        usable = [(s.x, y) for s, y in labelled if s.usable]
        x = np.array([v for v, _ in usable], dtype=float).reshape(len(usable), len(self.columns))
        self.model = combine.fit(x, [y for _, y in usable], self.columns, per_topic=self.per_topic, c=self.c,
                                 seed=self.seed)
        self._cap = self.budget.cap(progress.total)
        self._batches += 1
        k = allowance(self._cap, progress.total, progress.done + len(batch), progress.escalated)
        probs: list[Optional[float]] = [None] * len(batch)
        if self.model is not None:
            for i, (_, s) in enumerate(batch):
                if s.usable:
                    p = float(self.model.probabilities(np.array([s.x]))[0])
                    probs[i] = None if np.isnan(p) else p
        chosen = set(uncertain_first(probs, k))
        self._prior = self._priors(usable, probs)
        unfit = self._unfit_reason(usable)
        return [self._verdict(inp, s, p, i in chosen, progress, k, unfit) for i, ((inp, s), p) in
                enumerate(zip(batch, probs))]

    def _priors(self, usable: Sequence, probs: Sequence[Optional[float]]) -> Optional[dict]:
        """The share of relevant pairs among the labelled ones and, estimated by EM from this
        batch's probabilities (:func:`qrelkit.signals.combine.case_prior`), among the cases: the
        two differ when labels were not drawn like the cases. The balanced fit's decision does not
        depend on either; the estimate says how many of the cases are likely relevant."""
        p = np.array([v for v in probs if v is not None], dtype=float)
        if self.model is None or not len(p):
            return None
        return {"labelled": round(self.model.relevant / self.model.n, 4),
                "cases_estimate": round(combine.case_prior(p), 4), "cases": len(p)}

    def _unfit_reason(self, usable: Sequence) -> str:
        pos = sum(y for _, y in usable)
        return (f"not enough labelled pairs to fit on ({pos} relevant, {len(usable) - pos} not; "
                f"at least {combine.MIN_PER_CLASS} of each needed)")

    def _verdict(self, inp: JudgeInput, s: LearnedScore, p: Optional[float], escalate: bool, progress: Any,
                 k: int, unfit: str) -> Verdict:
        info = {
            "signals": s.info,
            "probability": None if p is None else round(p, 6),
            "combination": self.model.as_dict() if self.model else None,
            "dropped": self._dropped_list(),
            "versions": self.sm.versions,
            "batch": progress.batch,
            "budget": str(self.budget),
            "cap": self._cap,
            "allowance": k,
            **({"prior": self._prior} if self._records_prior and self._prior else {}),
            **({"feedback_z": self._feedback_info} if self._feedback_info else {}),
        }
        prov = {"learned": info}
        if p is None:
            reason = s.error or (unfit if self.model is None else "no probability")
            return Verdict(status=ERROR, label=None, grade=None, reason=reason, provenance=prov, usage=s.usage)
        if escalate:
            return Verdict(status=ESCALATE, label=None, grade=None, reason="uncertain", provenance=prov, usage=s.usage,
                           rationale=f"P(relevant) = {p:.3f} from {len(self.columns)} signals, among the closest to 0.5")
        label = int(p >= 0.5)
        grade = (inp.task.threshold if label else 0) if inp.task.graded else label
        top = self._top_signal()
        return Verdict(status=AUTO, label=label, grade=grade, provenance=prov, usage=s.usage,
                       rationale=f"P(relevant) = {p:.3f} from {', '.join(self.columns)}{top}")

    def _top_signal(self) -> str:
        if self.model is None or not self.model.coef:
            return ""
        i = int(np.argmax(np.abs(self.model.coef)))
        return f" (strongest: {self.model.columns[i]}, coefficient {self.model.coef[i]:+.2f})"

    def report(self) -> dict:
        """What the summary shows: the signals, the ones dropped, the last fit and the budget."""
        return {
            "signals": list(self.columns),
            "dropped": self._dropped_list(),
            "combination": self.model.as_dict() if self.model else None,
            "budget": str(self.budget),
            "cap": self._cap,
            "batches": self._batches,
            **({"prior": self._prior} if self._prior else {}),
            **({"feedback_z": self._feedback_info} if self._feedback_info else {}),
            "topic_stats": {"calls": self._topic_calls.calls, "cache_hits": self._topic_calls.cache_hits,
                            "prompt_tokens": self._topic_calls.prompt_tokens} if self.per_topic else None,
        }
