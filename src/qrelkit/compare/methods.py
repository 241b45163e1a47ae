"""What kind of escalation a method does, which decides how a comparison reads it.

DREAM's comparison has three kinds of methods: a single judge that never escalates
(LLMJudge), a judge that escalates the cases it is least confident about, to a budget set
in advance (LARA: ``confidence``, and ``learned`` with a budget), and one that escalates
when its agents disagree (DREAM: ``debate``). A confidence method's escalation ratio is
whatever budget it is given, so it is read as a curve over budgets; an agreement method
has one point, set by the data.
"""
from __future__ import annotations

from typing import Optional

from qrelkit.judges import JudgeSpec, parse_spec

BUDGETS = ("3.5%", "12.5%", "25%", "50%")  # DREAM Table 1's LARA settings
SINGLE, CONFIDENCE, AGREEMENT = "single", "confidence", "agreement"


def role(spec: JudgeSpec) -> str:
    main = spec.main
    if main.name == "confidence":
        return CONFIDENCE
    if main.name == "learned" and _has_budget(main):
        return CONFIDENCE
    if main.name == "debate":
        return AGREEMENT
    return SINGLE


def _has_budget(main: JudgeSpec) -> bool:
    b = main["budget"]
    return bool(getattr(b, "value", 0))


def budget_of(spec: JudgeSpec) -> Optional[str]:
    """The budget a confidence method runs with, as spec text (``12.5%``), else None."""
    if role(spec) != CONFIDENCE:
        return None
    return str(spec.main["budget"])


def at_budget(spec: JudgeSpec, budget: str) -> JudgeSpec:
    """The same method with another escalation budget."""
    return spec.with_main(spec.main.with_params(budget=budget))


def learns(spec: JudgeSpec) -> bool:
    """Does the method read people's labels (to learn, calibrate or fit)?"""
    from qrelkit.judges import build

    judge = build(spec)
    return bool(judge.needs_labels or any(j.learns for j in judge.chain()) or role(spec) == CONFIDENCE)


def parse(text: str) -> JudgeSpec:
    return parse_spec(text)
