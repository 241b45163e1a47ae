"""Calibrated confidence with a human budget (LARA-style escalation).

People's time is the scarce resource, so it should go to the cases the judge
is least sure about — but a judge's raw confidence is not a probability. This
method therefore works over batches (see the runner's ``BatchJudge`` hook):

1. score: one call per case. ``score=yesno`` asks for a one-word Yes/No
   answer and reads P(yes) from the top log-probabilities of the answer token
   (yes and no normalised against each other; the raw score is the log-odds
   log P(yes) - log P(no)); it needs a backend with top log-probabilities.
   ``score=likelihood`` uses the query-likelihood gain of
   :mod:`qrelkit.judges.likelihood` instead — no text is generated, which is
   what works with the small embedded model.
2. decide, batch by batch: a logistic regression over the raw score (and,
   with ``features=score+length``, log document length; with
   ``features=score+pool``, the pair's place in the pool: log best rank and
   log(1 + runs that retrieved it) — people label the top of a hybrid pool,
   where most pairs are relevant, and without it that base rate is carried
   down to the deeper pairs the judge decides) is refitted on every
   human label available so far — the original qrels and people's labels of
   the selected topics, and the answers to earlier escalations (people's, or
   the oracle's in simulation; the labels outside the selection are a seeded
   random sample of at most ``calib`` pairs, so the fitted probabilities keep
   their base rate). Within the budget (``budget=12.5%`` of the
   selected cases, or a count ``budget=40``; spent evenly over the batches),
   the cases whose calibrated probability is closest to 0.5 are escalated
   (status ``escalate``, reason ``uncertain``); the rest are labelled by the
   calibrated probability (status ``auto``, relevant when P >= 0.5).

Grades: the graded task gets its binary decision written as a grade
(``task.threshold`` when relevant, else 0), as the likelihood judge does.
A score that cannot be computed (failed call; no yes/no among the top tokens)
is an ``error`` verdict, never a guess.

Provenance keys: ``templates``, ``truncation``, ``confidence`` =
``{"score": "yesno"|"likelihood", "raw", "p_yes" (yesno), "likelihood" (likelihood),
"features": {...}, "probability", "calibration": {"features", "coef", "intercept",
"n", "relevant", "fitted"}, "batch", "budget", "cap", "allowance"}``; the
runner adds ``oracle`` to an escalation answered in simulation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Sequence

from qrelkit import prompts
from qrelkit.errors import CapabilityError
from qrelkit.judges import Param, choice, integer, register
from qrelkit.judges.base import (
    AUTO,
    ERROR,
    ESCALATE,
    BatchJudge,
    BatchProgress,
    JudgeInput,
    Meter,
    Verdict,
    template_versions,
)
from qrelkit.judges.calibration import Calibrator, allowance, fit, identity, uncertain_first
from qrelkit.judging.budget import Budget, parse_budget
from qrelkit.llm.base import CHAT, SCORE, TOP_LOGPROBS, Usage
from qrelkit.signals.likelihood import Scorer

if TYPE_CHECKING:
    from qrelkit.llm.client import Client

TOP_K = 10  # alternatives asked for at each answer position (OpenAI allows up to 20)
MAX_TOKENS = 2
POSITIONS = 2  # answer positions searched for yes/no (a model may start with a space token)
YES, NO = "yes", "no"
# Pool position is the cheap feature that matters in a hybrid pool: people label
# the top of the pool, where most pairs are relevant, and a calibration fitted
# there alone carries that base rate down to the deeper pairs the judge decides.
FEATURE_SETS = {
    "score": ("score",),
    "score+length": ("score", "log_length"),
    "score+pool": ("score", "log_best_rank", "log_runs"),
    "score+length+pool": ("score", "log_length", "log_best_rank", "log_runs"),
}


def budget_param(text: str) -> Budget:
    from qrelkit.errors import UsageError

    try:
        b = parse_budget(text)
    except UsageError as e:
        raise ValueError(str(e).replace("--budget ", "")) from None
    if b is None:
        raise ValueError("expected a count N or a percentage P%")
    return b


def _word(token: str) -> str:
    return token.strip().lower().strip(".,!:;\"'")


def yes_no(logprobs: Sequence[Any]) -> tuple[Optional[float], dict]:
    """(log P(yes) - log P(no), details) from the answer's top log-probabilities.

    Spellings of a word ("Yes", " yes") are added up. When only one of the two
    words is among the top alternatives, the other is bounded by the least
    likely alternative shown (``bounded: true``); when neither is, there is no
    score."""
    shown: list = []
    for pos, tok in enumerate(logprobs[:POSITIONS]):
        cands = list(tok.top) or [(tok.token, tok.logprob)]
        shown.append([[t, round(lp, 4)] for t, lp in cands[:5]])
        py = sum(math.exp(lp) for t, lp in cands if _word(t) == YES)
        pn = sum(math.exp(lp) for t, lp in cands if _word(t) == NO)
        if py == 0.0 and pn == 0.0:
            continue
        floor = math.exp(min(lp for _, lp in cands))
        bounded = py == 0.0 or pn == 0.0
        py, pn = py or floor, pn or floor
        return math.log(py) - math.log(pn), {
            "position": pos,
            "p_yes": round(py / (py + pn), 6),
            "bounded": bounded,
            "top": shown[-1],
        }
    return None, {"top": shown}


@dataclass(frozen=True)
class ConfidenceScore:
    """One case's raw score and features, or why there is none, with its calls."""

    raw: Optional[float]
    features: tuple[float, ...]
    error: Optional[str] = None
    info: dict = field(default_factory=dict, hash=False)
    usage: Usage = Usage()


@register
class Confidence(BatchJudge):
    NAME = "confidence"
    PARAMS = {
        "budget": Param(Budget(12.5, True), budget_param, "cases people may get: P% of the selection or N"),
        "score": Param(
            "yesno", choice("yesno", "likelihood"), "raw score: yes/no log-odds or query likelihood"
        ),
        "features": Param(
            "score",
            choice(*FEATURE_SETS),
            "calibration features: the score, + log document length, + pool position (best rank, runs)",
        ),
        "batch": Param(50, integer(1), "cases decided together"),
        "calib": Param(200, integer(0), "at most this many labelled pairs outside the selection to score"),
        "seed": Param(0, integer(0), "order of the cases and sampling of labelled pairs"),
        "doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "document token budget"),
    }

    def __init__(self, spec: Any):
        self.spec = str(spec)
        self.budget: Budget = spec["budget"]
        self.score_by: str = spec["score"]
        self.feature_names: tuple[str, ...] = FEATURE_SETS[spec["features"]]
        self.batch_size: int = spec["batch"]
        self.calib_n: int = spec["calib"]
        self.seed: int = spec["seed"]
        self.doc_tokens: int = spec["doc_tokens"]
        self.scorer = Scorer(self.doc_tokens) if self.score_by == "likelihood" else None
        self.requires = frozenset({SCORE}) if self.scorer else frozenset({CHAT, TOP_LOGPROBS})
        self.calibrator: Calibrator = identity(self.feature_names)
        self._cap: Optional[int] = None
        self._batches = 0

    def check_client(self, client: Client) -> None:
        if self.score_by == "yesno" and TOP_LOGPROBS not in client.capabilities:
            raise CapabilityError(
                f"confidence reads P(yes) from top log-probabilities, and model {client.model_id} cannot "
                "give them; use a backend that returns them (vLLM, llama.cpp server, OpenAI), or "
                "confidence(score=likelihood) with one that can score"
            )

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        return ("likelihood",) if self.scorer else ("confidence", f"task_{task_name}")

    # ---- per case ----------------------------------------------------------------------------
    def _features(self, raw: float, inp: JudgeInput) -> Optional[tuple[float, ...]]:
        """None when a pool feature is asked for and the pair was never pooled."""
        out = []
        for name in self.feature_names:
            if name == "score":
                out.append(raw)
            elif name == "log_length":
                out.append(math.log1p(len(inp.text)))
            elif inp.case.best_rank <= 0 or not inp.case.runs:
                return None
            elif name == "log_best_rank":
                out.append(math.log(inp.case.best_rank))
            else:  # log_runs
                out.append(math.log1p(len(inp.case.runs)))
        return tuple(out)

    def _scored(self, raw: float, inp: JudgeInput, info: dict, meter: Meter) -> "ConfidenceScore":
        feats = self._features(raw, inp)
        if feats is None:
            why = "no pool position for this pair (pool the runs first, or use features=score)"
            return ConfidenceScore(None, (), why, {**info, "raw": raw}, usage=meter.usage)
        return ConfidenceScore(raw, feats, None, info, usage=meter.usage)

    async def score(self, inp: JudgeInput, client: Client) -> ConfidenceScore:
        meter = Meter()
        versions = template_versions(*self.templates_for(inp.task.name))
        if self.scorer is not None:
            s, tr = await self.scorer.score(inp, client, meter)
            info = {
                "templates": versions,
                "truncation": tr.as_dict(),
                "likelihood": {"logp_doc": s.logp_doc, "logp_prior": s.logp_prior, "score": s.score},
            }
            if s.score is None:
                return ConfidenceScore(None, (), s.error or "no score", info, usage=meter.usage)
            return self._scored(s.score, inp, info, meter)
        block, tr = prompts.document_block(inp.text, self.doc_tokens)
        t, task_t = prompts.load("confidence"), inp.task.template()
        question = (
            t.render("question_graded", threshold=inp.task.threshold)
            if inp.task.graded
            else t.render("question_answer")
        )
        messages = t.messages(
            criteria=task_t.render("criteria"),
            query_block=inp.query_block(),
            document=block,
            question=question,
        )
        c = meter.add(
            await client.complete(
                messages, max_tokens=MAX_TOKENS, top_logprobs=TOP_K, version="|".join(versions.values())
            )
        )
        info: dict = {"templates": versions, "truncation": tr.as_dict()}
        if not c.ok:
            return ConfidenceScore(None, (), f"call failed: {c.error}", info, usage=meter.usage)
        raw, details = yes_no(c.logprobs)
        info["answer"] = {"text": (c.text or "")[:20], **details}
        if raw is None:
            why = "neither yes nor no is among the answer's top log-probabilities"
            return ConfidenceScore(None, (), why, info, usage=meter.usage)
        return self._scored(raw, inp, info, meter)

    # ---- per batch ---------------------------------------------------------------------------
    def decide(
        self,
        batch: Sequence[tuple[JudgeInput, ConfidenceScore]],
        labelled: Sequence[tuple[ConfidenceScore, int]],
        progress: BatchProgress,
    ) -> list[Verdict]:
        usable = [(s.features, y) for s, y in labelled if s.raw is not None]
        self.calibrator = fit([x for x, _ in usable], [y for _, y in usable], self.feature_names)
        self._cap = self.budget.cap(progress.total)
        self._batches += 1
        k = allowance(self._cap, progress.total, progress.done + len(batch), progress.escalated)
        probs = [self.calibrator.probability(s.features) if s.raw is not None else None for _, s in batch]
        chosen = set(uncertain_first(probs, k))
        out = []
        for i, ((inp, s), p) in enumerate(zip(batch, probs)):
            info = {
                "score": self.score_by,
                "raw": s.raw,
                "features": dict(zip(self.feature_names, s.features)),
                "probability": None if p is None else round(p, 6),
                "calibration": self.calibrator.as_dict(),
                "batch": progress.batch,
                "budget": str(self.budget),
                "cap": self._cap,
                "allowance": k,
            }
            if "answer" in s.info:
                info["p_yes"] = s.info["answer"].get("p_yes")
            if "likelihood" in s.info:
                info["likelihood"] = s.info["likelihood"]
            prov = {"templates": s.info.get("templates", {}), "truncation": s.info.get("truncation", {})}
            if "answer" in s.info:
                prov["answer"] = s.info["answer"]
            prov["confidence"] = info
            if p is None:
                out.append(
                    Verdict(
                        status=ERROR,
                        label=None,
                        grade=None,
                        reason=s.error or "no score",
                        provenance=prov,
                        usage=s.usage,
                    )
                )
            elif i in chosen:
                out.append(
                    Verdict(
                        status=ESCALATE,
                        label=None,
                        grade=None,
                        reason="uncertain",
                        rationale=f"calibrated P(relevant) = {p:.3f}, among the closest to 0.5 in its batch",
                        provenance=prov,
                        usage=s.usage,
                    )
                )
            else:
                label = int(p >= 0.5)
                grade = (inp.task.threshold if label else 0) if inp.task.graded else label
                out.append(
                    Verdict(
                        status=AUTO,
                        label=label,
                        grade=grade,
                        rationale=f"calibrated P(relevant) = {p:.3f} (raw score {s.raw:+.3f})",
                        provenance=prov,
                        usage=s.usage,
                    )
                )
        return out

    def report(self) -> dict:
        """What the summary shows: the last calibration and the budget."""
        return {
            "score": self.score_by,
            "budget": str(self.budget),
            "cap": self._cap,
            "batches": self._batches,
            "calibration": self.calibrator.as_dict(),
        }
