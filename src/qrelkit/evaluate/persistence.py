"""Consensus persistence, round by round: the DREAM paper's appendix B.3 table.

A debate run with ``debate(rounds=R, stop=never)`` keeps debating after its agents agree and
stores every round's labels (provenance ``history``). For each round this module reports, over
the debates that reached it:

- ``consensus``: the share of debates whose agents all give the same label;
- ``persistence``: of the debates in consensus at round 1, the share still in consensus on the
  same label at this round (the paper: 96.5 / 96.2 / 96.2 / 96.0 % for rounds 2–5);
- ``spurious``: of the consensus labels with a reference label, the share that are wrong (the
  paper: 5.0 % at round 1, then 3.9 / 5.0 / 5.1 / 5.1 %);
- ``balanced_accuracy``, ``recall_relevant``, ``recall_nonrelevant`` of the consensus labels
  against the reference (binary: reference grade >= threshold).

A debate that stopped at its consensus (``stop=agree``, the default) has no later rounds; it
counts only in the rounds it reached, so the table is meaningful for ``stop=never`` runs and
says how many debates each round holds (``debates``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Optional


@dataclass(frozen=True)
class RoundRow:
    """One round of the B.3 table; rates are None when their denominator is empty."""

    round: int
    debates: int
    consensus: Optional[float]
    persistence: Optional[float]
    spurious: Optional[float]
    balanced_accuracy: Optional[float]
    recall_relevant: Optional[float]
    recall_nonrelevant: Optional[float]
    consensus_labels: int  # consensus labels with a reference label (the denominator of the last four)

    def to_dict(self) -> dict:
        return asdict(self)


def round_labels(provenance: str | Mapping | None) -> list[list[Optional[int]]]:
    """Each round's agent labels from a debate judgment's provenance ([] for other judgments)."""
    prov = json.loads(provenance) if isinstance(provenance, str) else (provenance or {})
    history = prov.get("history") if isinstance(prov, Mapping) else None
    if not isinstance(history, list):
        return []
    return [[a.get("label") for a in h.get("agents", [])] for h in history if isinstance(h, Mapping)]


def _agreed(labels: list[Optional[int]]) -> Optional[int]:
    """The label all agents gave, or None without consensus (or with a failed call)."""
    return labels[0] if labels and None not in labels and len(set(labels)) == 1 else None


def _rate(num: int, den: int) -> Optional[float]:
    return round(num / den, 4) if den else None


def by_round(debates: Mapping[Any, list[list[Optional[int]]]], reference: Mapping[Any, int],
             threshold: int) -> list[RoundRow]:
    """The B.3 table from ``{pair: round labels}`` and reference grades."""
    depth = max((len(r) for r in debates.values()), default=0)
    first = {p: _agreed(r[0]) for p, r in debates.items() if r}
    rows = []
    for i in range(depth):
        reached = {p: r[i] for p, r in debates.items() if len(r) > i}
        agreed = {p: _agreed(x) for p, x in reached.items()}
        consensus = {p: lab for p, lab in agreed.items() if lab is not None}
        r1 = [p for p in reached if first.get(p) is not None]
        kept = sum(1 for p in r1 if agreed[p] == first[p])
        judged = [(lab, int(reference[p] >= threshold)) for p, lab in consensus.items() if p in reference]
        tp = sum(1 for lab, ref in judged if lab == 1 and ref == 1)
        tn = sum(1 for lab, ref in judged if lab == 0 and ref == 0)
        pos = sum(1 for _, ref in judged if ref == 1)
        neg = len(judged) - pos
        rec_rel, rec_non = _rate(tp, pos), _rate(tn, neg)
        present = [x for x in (rec_rel, rec_non) if x is not None]
        rows.append(RoundRow(
            round=i + 1,
            debates=len(reached),
            consensus=_rate(len(consensus), len(reached)),
            persistence=_rate(kept, len(r1)),
            spurious=_rate(len(judged) - tp - tn, len(judged)),
            balanced_accuracy=round(sum(present) / len(present), 4) if present else None,
            recall_relevant=rec_rel,
            recall_nonrelevant=rec_non,
            consensus_labels=len(judged),
        ))
    return rows


def debates_by_method(judgments: Iterable[Any]) -> dict[str, dict[tuple[str, str], list]]:
    """``{method: {(qid, docid): round labels}}`` for every judgment that holds a debate history."""
    out: dict[str, dict[tuple[str, str], list]] = {}
    for j in judgments:
        rounds = round_labels(j.provenance)
        if rounds:
            out.setdefault(j.method, {})[(j.qid, j.docid)] = rounds
    return out
