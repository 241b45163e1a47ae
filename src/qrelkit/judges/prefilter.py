"""A cheap first pass that drops clearly irrelevant cases before the main judge.

Written in front of a judge with ``+``: ``prefilter(by=likelihood,keep=0.95)+debate``
(the CLI's ``--prefilter SPEC`` is the same thing). It is tuned to keep
relevant cases, not to be accurate: a dropped relevant document is a hole
made permanent, a kept irrelevant one only costs the main judge's calls.

- ``by=likelihood``: the query-likelihood score of :mod:`.likelihood`. When the
  runner provides labelled pairs (original qrels, people's labels) the drop
  threshold is the highest one that keeps at least ``keep`` (default 0.95) of
  the labelled relevant pairs; the recall and drop share measured on those
  pairs are recorded (``calibration``). Without labelled pairs the threshold
  is 0 (drop only documents that make the query *less* likely than no
  document at all).
- ``by=learned``: the probability of the learned judge's combination of cheap
  signals (:mod:`.learned`; ``signals=`` as there), fitted on the labelled
  pairs; the drop threshold keeps ``keep`` of the labelled relevant pairs, as
  with ``by=likelihood``. Without labelled pairs of both classes nothing is
  dropped (the note says so): the filter never drops on a guess.
- ``by=llm``: one short call asking whether the document could be relevant
  at all (the prompt says "when in doubt, say possibly relevant"); ``keep``
  is not used. A failed call keeps the case — the filter never decides on a
  guess.

A dropped case gets status ``dropped``, label 0, grade 0, and provenance
``{"prefilter": {"by", "score"|"reply", "threshold", "keep", "calibration"}}``;
a kept case carries the same ``prefilter`` entry in the main judge's
provenance, and the prefilter's calls are added to the verdict's.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Sequence

from qrelkit import prompts
from qrelkit.judges import Param, choice, integer, number, register
from qrelkit.judges.base import DROPPED, ChainJudge, Judge, JudgeInput, Meter, Verdict
from qrelkit.judges.learned import STORED_SIGNALS, signals_param
from qrelkit.judges.likelihood import recall_threshold, score_labelled
from qrelkit.judges.signal_model import SignalModel
from qrelkit.llm.base import CHAT, JSON_SCHEMA, SCORE
from qrelkit.signals.likelihood import Scorer

if TYPE_CHECKING:
    from qrelkit.llm.client import Client

SCHEMA = {
    "type": "object",
    "properties": {"possibly_relevant": {"type": "boolean"}},
    "required": ["possibly_relevant"],
    "additionalProperties": False,
}


@register
class Prefilter(ChainJudge):
    NAME = "prefilter"
    PARAMS = {
        "by": Param("likelihood", choice("likelihood", "learned", "llm"), "how to score cases"),
        "keep": Param(0.95, number(0.0, 1.0), "recall of labelled relevant pairs to keep (by=likelihood)"),
        "doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "document token budget"),
        "calib": Param(200, integer(10), "at most this many labelled pairs for calibration"),
        # ids omit the default, so it stays what they were stored with (no feedback)
        "signals": Param(STORED_SIGNALS, signals_param, "cheap signals combined (by=learned)", omit_default=True),
    }

    def __init__(self, spec: Any, then: Judge):
        super().__init__(then)
        self.spec = str(spec)
        self.by: str = spec["by"]
        self.keep: float = spec["keep"]
        self.doc_tokens: int = spec["doc_tokens"]
        self.calib_n: int = spec["calib"]
        self.scorer = Scorer(self.doc_tokens) if self.by == "likelihood" else None
        self.learned = SignalModel(spec["signals"], self.doc_tokens) if self.by == "learned" else None
        self.threshold: float = 0.0
        self.calibration: dict = {}
        own = {"likelihood": frozenset({SCORE}), "learned": frozenset()}.get(self.by, frozenset({CHAT, JSON_SCHEMA}))
        self.requires = own | then.requires

    @property
    def needs_labels(self) -> bool:
        return self.by in ("likelihood", "learned") or self.then.needs_labels

    @property
    def learns(self) -> bool:
        return self.by == "learned" or self.then.learns

    async def learn(self, context: Any, client: Client) -> Any:
        """by=learned: resolve the signals against the workspace; then the main judge's own learning."""
        from qrelkit.judges.learning import Learned

        out = Learned()
        if self.learned is not None:
            out = Learned(info={"prefilter_signals": await self.learned.resolve(context.store, client, context.labels)})
        if self.then.learns:
            inner = await self.then.learn(context, client) or Learned()
            out = dataclasses.replace(inner, info={**out.info, **inner.info})
        return out

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        own = ("likelihood",) if self.by == "likelihood" else ("prefilter", f"task_{task_name}")
        return own + tuple(n for n in self.then.templates_for(task_name) if n not in own)

    async def prepare(self, labelled: Sequence[tuple[JudgeInput, int]], client: Client) -> dict:
        out: dict = {}
        if self.learned is not None:
            self.calibration = await self._fit_learned(labelled)
            out["prefilter"] = self.calibration
        if self.by == "likelihood":
            if labelled:
                scores, labels, meter = await score_labelled(self.scorer, labelled, client)
                if any(labels):
                    self.threshold = recall_threshold(scores, labels, self.keep)
                    kept = [s >= self.threshold for s in scores]
                    rel = sum(labels)
                    self.calibration = {
                        "n": len(labels),
                        "relevant": rel,
                        "keep": self.keep,
                        "threshold": self.threshold,
                        "recall": round(sum(k for k, y in zip(kept, labels) if y) / rel, 4),
                        "dropped_share": round(1 - sum(kept) / len(kept), 4),
                        "calls": meter.usage.calls,
                    }
            if not self.calibration:
                self.calibration = {
                    "n": 0,
                    "threshold": 0.0,
                    "note": "no labelled relevant pairs; threshold 0",
                }
            out["prefilter"] = self.calibration
        inner = await self.then.prepare(labelled, client)
        if inner:
            out["judge"] = inner
        return out

    async def _fit_learned(self, labelled: Sequence[tuple[JudgeInput, int]]) -> dict:
        pairs = [(inp.case.qid, inp.case.docid) for inp, _ in labelled]
        labels = [int(y) for _, y in labelled]
        probs = await self.learned.fit(pairs, labels)
        if probs is None:
            self.threshold = float("-inf")
            return {"n": len(labels), "threshold": None, "note": "no labelled pairs of both classes; nothing dropped",
                    **self.learned.summary()}
        ok = [(p, y) for p, y in zip(probs, labels) if p is not None]
        self.threshold = recall_threshold([p for p, _ in ok], [y for _, y in ok], self.keep)
        rel = sum(y for _, y in ok)
        kept = [p >= self.threshold for p, _ in ok]
        return {"n": len(ok), "relevant": rel, "keep": self.keep, "threshold": round(self.threshold, 6),
                "recall": round(sum(k for k, (_, y) in zip(kept, ok) if y) / rel, 4),
                "dropped_share": round(1 - sum(kept) / len(kept), 4), **self.learned.summary()}

    async def _check(self, inp: JudgeInput, client: Client, meter: Meter) -> tuple[bool, dict]:
        """(keep?, provenance entry)."""
        if self.learned is not None:
            p = await self.learned.probability((inp.case.qid, inp.case.docid), meter)
            info = {"by": "learned", "score": p, "threshold": self.threshold, "keep": self.keep,
                    "calibration": self.calibration}
            return p is None or p >= self.threshold, info
        if self.scorer is not None:
            s, tr = await self.scorer.score(inp, client, meter)
            info = {
                "by": "likelihood",
                "score": s.score,
                "threshold": self.threshold,
                "keep": self.keep,
                "calibration": self.calibration,
                "template": self.scorer.version,
                "truncation": tr.as_dict(),
            }
            if s.score is None:
                info["error"] = s.error
                return True, info
            return s.score >= self.threshold, info
        t = prompts.load("prefilter")
        task_t = inp.task.template()
        block, tr = prompts.document_block(inp.text, self.doc_tokens)
        messages = t.messages(
            query_block=inp.query_block(), document=block, format=task_t.render("prefilter_format")
        )
        c = meter.add(
            await client.complete(
                messages,
                schema=SCHEMA,
                max_tokens=24,
                version=f"{t.version}|{task_t.version}",
            )
        )
        info = {"by": "llm", "template": t.version, "truncation": tr.as_dict()}
        if not c.ok or not isinstance(c.parsed, dict):
            info["error"] = c.error or "unparseable reply"
            return True, info
        info["reply"] = c.parsed
        return bool(c.parsed.get("possibly_relevant", True)), info

    async def __call__(self, inp: JudgeInput, client: Client) -> Verdict:
        meter = Meter()
        keep, info = await self._check(inp, client, meter)
        if not keep:
            why = (
                f"prefilter: query likelihood gain {info['score']:+.3f} < {self.threshold:+.3f}"
                if self.scorer is not None
                else f"prefilter: P(relevant) {info['score']:.3f} < {self.threshold:.3f} from cheap signals"
                if self.learned is not None
                else "prefilter: the model says it cannot be relevant"
            )
            return Verdict(
                status=DROPPED,
                label=0,
                grade=0,
                rationale=why,
                provenance={"prefilter": info},
                usage=meter.usage,
            )
        v: Verdict = await self.then(inp, client)
        meter.add_usage(v.usage)
        prov = dict(v.provenance)
        prov["prefilter"] = info
        return dataclasses.replace(v, provenance=prov, usage=meter.usage)
