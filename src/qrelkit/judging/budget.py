"""How many escalations people get, and which ones.

``--budget N`` or ``--budget P%`` caps the escalations that go to people for
one run's case selection (P% of the selected cases, rounded down). When there
are more, the *strongest* disagreements stay with people and the *weakest*
overflow. Strength of a disagreement, compared in this order:

1. the grade gap between the two agents in the last round (graded task;
   always 1 for the answer task) — 0-vs-3 is a real dispute, 1-vs-2 a
   borderline case a model can settle;
2. the number of rounds the agents disagreed (all of them, for an escalation);
3. ties are broken by (qid, docid) so the choice is deterministic.

What happens to the overflow depends on the debate's ``adjudicator``:
``llm`` — the LLM adjudicator decides it (status ``adjudicated``);
``human`` — it stays undecided (status ``escalate``, label None) but is marked
``"for_people": false`` so it is not queued for people. Either way the choice
is recorded in provenance under ``"budget"``:
``{"budget": "10%", "cap": 12, "rank": 15, "strength": [1, 2], "for_people": false,
"action": "llm-adjudicator" | "undecided" | "people"}``.

Error escalations (failed calls) are not ranked: they are retried on the next
run and always count as escalations.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Optional

from qrelkit.errors import UsageError

_BUDGET = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$")


@dataclass(frozen=True)
class Budget:
    """A cap on escalations to people: an absolute count or a share of the cases."""

    value: float
    percent: bool

    def cap(self, cases: int) -> int:
        return int(math.floor(self.value * cases / 100.0)) if self.percent else int(self.value)

    def __str__(self) -> str:
        return f"{self.value:g}%" if self.percent else str(int(self.value))


def parse_budget(text: Optional[str]) -> Optional[Budget]:
    if text is None or str(text).strip() == "":
        return None
    m = _BUDGET.match(str(text))
    if not m:
        raise UsageError(f"--budget {text!r}: expected a count N or a percentage P% (e.g. 50 or 10%)")
    value, pct = float(m[1]), bool(m[2])
    if pct and value > 100:
        raise UsageError(f"--budget {text!r}: a percentage must be at most 100%")
    if not pct and not value.is_integer():
        raise UsageError(f"--budget {text!r}: a count must be a whole number")
    return Budget(value, pct)


def strength(provenance: dict) -> tuple[int, int]:
    """(grade gap in the last round, rounds of disagreement); larger is stronger."""
    d = provenance.get("disagreement") or {}
    return int(d.get("grade_gap", 1)), int(d.get("rounds", len(provenance.get("history") or [])))


def rank(items: list[tuple[str, str, dict]]) -> list[tuple[str, str, dict]]:
    """Escalations (qid, docid, provenance) from strongest to weakest disagreement."""
    return sorted(items, key=lambda x: (tuple(-s for s in strength(x[2])), x[0], x[1]))
