"""Query likelihood: does the document make the query more probable?

score = log P(query | document, "write a question this passage answers")
      - log P(query | "write a question")
i.e. the pointwise mutual information between document and query under the
model. The second term (no document) depends only on the topic, so it is
computed once per topic (memoised here, and cached by the client across runs).
No text is generated and nothing is parsed, which is why this is the method
that works on a 135M-parameter model whose yes/no and JSON answers are at
chance; it needs a backend that can ``score`` (the embedded model, vLLM).

Decision: relevant when ``score >= threshold``. The threshold is 0 by default
("the document makes the query more likely than no document does").
``threshold=auto`` calibrates it on labelled pairs (original qrels or people's
labels, given by the runner): the threshold that maximises balanced accuracy
on them (midpoints between sorted scores; ties go to the threshold nearest 0).
The chosen value and the calibration data summary go into provenance.

Grades: the score is not a graded judgment, so the graded task gets a binary
decision written as a grade: ``task.threshold`` (default 2) when relevant,
else 0. The raw score is kept in provenance for anyone who wants finer bins.

The document is truncated by the same rule as in prompts (recorded) but not
delimited: nothing is generated, so there are no instructions to inject.

Provenance keys: ``templates``, ``truncation``, ``likelihood`` =
``{"logp_doc", "logp_prior", "score", "threshold", "threshold_source":
"fixed"|"calibrated", "calibration": {...}}``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Optional, Sequence

from qrelkit import prompts
from qrelkit.errors import UsageError
from qrelkit.judges import Param, integer, number, register
from qrelkit.judges.base import AUTO, Judge, JudgeInput, Meter, Verdict, error_verdict, template_versions
from qrelkit.llm.base import SCORE
from qrelkit.signals.likelihood import TEMPLATE, Scorer

if TYPE_CHECKING:
    from qrelkit.llm.client import Client


def balanced_accuracy_threshold(scores: Sequence[float], labels: Sequence[int]) -> tuple[float, float]:
    """(threshold, balanced accuracy) maximising BA of ``score >= threshold``."""
    pos = sum(1 for y in labels if y)
    neg = len(labels) - pos
    if not pos or not neg:
        raise ValueError("calibration needs labelled pairs of both classes")
    xs = sorted(set(scores))
    cands = [xs[0] - 1.0] + [(a + b) / 2 for a, b in zip(xs, xs[1:])] + [xs[-1] + 1.0]
    best: tuple[float, float, float] = (-1.0, 0.0, 0.0)
    for t in cands:
        tp = sum(1 for s, y in zip(scores, labels) if y and s >= t)
        tn = sum(1 for s, y in zip(scores, labels) if not y and s < t)
        ba = (tp / pos + tn / neg) / 2
        key = (ba, -abs(t))
        if key > (best[0], -abs(best[1])):
            best = (ba, t, ba)
    return best[1], best[2]


def recall_threshold(scores: Sequence[float], labels: Sequence[int], recall: float) -> float:
    """The highest threshold that keeps at least ``recall`` of the relevant pairs."""
    rel = sorted(s for s, y in zip(scores, labels) if y)
    if not rel:
        raise ValueError("calibration needs labelled relevant pairs")
    import math

    k = max(1, math.ceil(recall * len(rel)))  # keep the k highest-scoring relevant pairs
    return rel[len(rel) - k]


async def score_labelled(
    scorer: Scorer,
    labelled: Sequence[tuple[JudgeInput, int]],
    client: Client,
) -> tuple[list[float], list[int], Meter]:
    meter = Meter()
    results = await asyncio.gather(*(scorer.score(inp, client, meter) for inp, _ in labelled))
    scores, labels = [], []
    for (s, _), (_, y) in zip(results, labelled):
        if s.score is not None:
            scores.append(s.score)
            labels.append(int(y))
    return scores, labels, meter


@register
class Likelihood(Judge):
    NAME = "likelihood"
    PARAMS = {
        "threshold": Param(0.0, number(auto=True), "decision threshold on the score, or auto (calibrate)"),
        "doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "document token budget"),
        "calib": Param(200, integer(10), "at most this many labelled pairs for threshold=auto"),
    }
    requires = frozenset({SCORE})

    def __init__(self, spec: Any):
        self.spec = str(spec)
        self.scorer = Scorer(spec["doc_tokens"])
        self.calib_n: int = spec["calib"]
        self.auto = spec["threshold"] == "auto"
        self.threshold: Optional[float] = None if self.auto else float(spec["threshold"])
        self.calibration: dict = {}

    @property
    def needs_labels(self) -> bool:
        return self.auto

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        return (TEMPLATE,)

    async def prepare(self, labelled: Sequence[tuple[JudgeInput, int]], client: Client) -> dict:
        """Calibrate ``threshold=auto`` on labelled pairs; returns the calibration summary."""
        if not self.auto:
            return {}
        scores, labels, meter = await score_labelled(self.scorer, labelled, client)
        try:
            t, ba = balanced_accuracy_threshold(scores, labels)
        except ValueError as e:
            raise UsageError(
                f"likelihood(threshold=auto): {e}; the workspace has {len(labels)} usable labelled pairs "
                "(original qrels or people's labels). Give a number instead, e.g. likelihood(threshold=0)"
            ) from None
        self.threshold = t
        self.calibration = {
            "n": len(labels),
            "relevant": sum(labels),
            "balanced_accuracy": round(ba, 4),
            "threshold": t,
            "calls": meter.usage.calls,
        }
        return self.calibration

    async def __call__(self, inp: JudgeInput, client: Client) -> Verdict:
        if self.threshold is None:
            raise RuntimeError("likelihood(threshold=auto) used before prepare()")
        meter = Meter()
        s, tr = await self.scorer.score(inp, client, meter)
        info: dict = {
            "logp_doc": s.logp_doc,
            "logp_prior": s.logp_prior,
            "score": s.score,
            "threshold": self.threshold,
            "threshold_source": "calibrated" if self.auto else "fixed",
        }
        if self.auto:
            info["calibration"] = self.calibration
        prov = {"templates": template_versions(TEMPLATE), "truncation": tr.as_dict(), "likelihood": info}
        if s.score is None:
            return error_verdict(s.error or "no score", meter, prov)
        label = int(s.score >= self.threshold)
        grade = (inp.task.threshold if label else 0) if inp.task.graded else label
        return Verdict(
            status=AUTO,
            label=label,
            grade=grade,
            rationale=(
                f"query likelihood gain {s.score:+.3f} {'>=' if label else '<'} "
                f"threshold {self.threshold:+.3f}"
            ),
            provenance=prov,
            usage=meter.usage,
        )
