"""Sampling one judge's call several times and voting on the answers (UMBRELA's ``num_sample``).

A single-call judge (zero-shot, icl, narrative) takes ``samples=K`` (K calls at ``temperature=T``,
which must then be above 0: at temperature 0 every sample is the same answer) and ``agree=``
(``majority`` or ``all`` of the samples), counted as a ``vote`` counts its members
(:mod:`qrelkit.judges.tally`). Each sample has its own cache key (``|sample=i``), or a re-run
would replay the first sample's answer K times. All three parameters are left out of a method's
canonical id at their defaults, so ids stored before they existed keep their meaning.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Awaitable, Callable, Sequence

from qrelkit.errors import UsageError
from qrelkit.judges.base import AUTO, Task, Verdict
from qrelkit.judges.tally import MAJORITY, RULES, count, total_usage
from qrelkit.specs import Param, choice, integer, number

PARAMS = {
    "samples": Param(1, integer(1, 16), "calls per case at temperature > 0, decided by a vote (UMBRELA)",
                     omit_default=True),
    "temperature": Param(0.0, number(0.0, 2.0), "sampling temperature (samples > 1 needs > 0)", omit_default=True),
    "agree": Param(MAJORITY, choice(*RULES), "samples that must agree: majority or all", omit_default=True),
}

Call = Callable[[float, int], Awaitable[Verdict]]  # (temperature, sample number; 0 = unsampled)


@dataclass(frozen=True)
class Sampling:
    samples: int = 1
    temperature: float = 0.0
    rule: str = MAJORITY

    @classmethod
    def of(cls, spec) -> "Sampling":
        s = cls(spec["samples"], spec["temperature"], spec["agree"])
        if s.samples > 1 and s.temperature <= 0:
            raise UsageError(f"method spec {spec}: samples={s.samples} needs temperature > 0 "
                             "(at temperature 0 every sample is the same answer), e.g. temperature=0.7")
        return s

    async def run(self, call: Call, task: Task) -> Verdict:
        """One call as before (``samples=1``), or K numbered calls and their vote."""
        if self.samples == 1:
            return await call(self.temperature, 0)
        verdicts = await asyncio.gather(*(call(self.temperature, i) for i in range(1, self.samples + 1)))
        return sampled(verdicts, task, self.rule, self.temperature)


def sampled(verdicts: Sequence[Verdict], task: Task, rule: str, temperature: float) -> Verdict:
    """K samples of one judge's call as one verdict (status ``auto`` when the rule is met).

    Provenance: the first sample's own keys (``templates``, ``truncation``, ...) without its
    ``reply``, then ``samples`` (each sample's status, label, grade, reply) and ``vote``
    (``rule``, ``needed``, ``counts``, ``samples``, ``temperature``)."""
    names = [f"sample {i}" for i in range(1, len(verdicts) + 1)]
    t = count(verdicts, names, task, rule, AUTO)
    prov = {k: v for k, v in verdicts[0].provenance.items() if k != "reply"}
    prov["samples"] = [{"sample": i, "status": v.status, "label": v.label, "grade": v.grade,
                        "reply": v.provenance.get("reply")} for i, v in enumerate(verdicts, 1)]
    prov["vote"] = {"rule": rule, "needed": t.needed, "counts": t.counts, "samples": len(verdicts),
                    "temperature": temperature}
    if t.label is None:
        prov["disagreement"] = {"grade_gap": t.grade_gap, "rounds": 1}
    rationale = next((v.rationale for v in verdicts if v.label == t.label and v.rationale), "")
    return Verdict(status=t.status, label=t.label, grade=t.grade, rationale=rationale, round=1, reason=t.reason,
                   usage=total_usage(verdicts), provenance=prov)
