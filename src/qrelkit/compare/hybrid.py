"""A method's labels in a hybrid pool: does putting them in place of people's change the verdicts?

A hybrid pool gives people one share of a pool and a method the rest (the RCL paper's setting,
and ``benchmarks/judges.py --experiment hybrid``). Two figures read a method's labels on its share
(the comparison's sample) there:

- per-topic F1 of the hybrid labels (the method's where it decided, people's — the reference's —
  where it escalated) against the reference, averaged over topics
  (:func:`qrelkit.evaluate.agreement.compare_labels`); :func:`per_query_f1` is the RCL paper's
  variant, on the decided labels alone, per query;
- the Matthews correlation between the significance decisions (every run pair, paired two-sided
  Wilcoxon + Benjamini–Hochberg, :mod:`qrelkit.compare.rcl`) under the hybrid qrels — the
  reference's labels on the pool, the method's on its share — and under the full qrels.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping, Optional, Sequence

Pair = tuple[str, str]


@dataclass(frozen=True)
class HybridFigures:
    balanced_accuracy: Optional[float]  # of the hybrid labels
    per_topic_f1: Optional[float]
    mcc: Optional[float]
    significant_pairs: int  # under the hybrid qrels

    def to_dict(self) -> dict:
        return asdict(self)


def decided_labels(store: Any, method: str, model: str, gold: Mapping[Pair, int]) -> dict[Pair, tuple[int, int]]:
    """The sample pairs a method decided: ``{pair: (binary label, grade)}``."""
    out = {}
    for j in store.judgments(method=method, model=model):
        k = (j.qid, j.docid)
        if k in gold and j.label is not None:
            out[k] = (int(j.label), int(j.grade) if j.grade is not None else 2 * int(j.label))
    return out


def full_decisions(prepared: Any, full: Mapping[Pair, int], topics: Sequence[str], measure: str) -> Any:
    from qrelkit.compare.rcl import _decisions

    return _decisions(prepared, full, topics, measure)


def hybrid_figures(prepared: Any, reference_decisions: Any, pool_labels: Mapping[Pair, int],
                   gold: Mapping[Pair, int], decided: Mapping[Pair, tuple[int, int]], topics: Sequence[str],
                   measure: str, threshold: int = 2) -> HybridFigures:
    """``pool_labels``: the reference's labels on the pool; ``gold``: the reference on the method's
    share; ``decided``: :func:`decided_labels`; ``reference_decisions``: :func:`full_decisions`."""
    from qrelkit.compare.rcl import _decisions
    from qrelkit.evaluate.agreement import compare_labels
    from qrelkit.evaluate.significance import decision_agreement

    hybrid = {k: decided[k][1] if k in decided else g for k, g in gold.items()}
    ag = compare_labels(gold, hybrid, threshold, binary_labels={k: v[0] for k, v in decided.items()})
    sig = _decisions(prepared, {**pool_labels, **hybrid}, topics, measure)
    mcc = decision_agreement(reference_decisions, sig).to_dict()["matthews_corrcoef"]
    return HybridFigures(ag.balanced_accuracy, ag.per_topic_f1, mcc, int((sig.decisions != 0).sum()))


def pool_mcc(prepared: Any, reference_decisions: Any, pool_labels: Mapping[Pair, int], topics: Sequence[str],
             measure: str) -> float:
    """The ceiling: the reference's own labels on the whole pool."""
    from qrelkit.compare.rcl import _decisions
    from qrelkit.evaluate.significance import decision_agreement

    sig = _decisions(prepared, pool_labels, topics, measure)
    return decision_agreement(reference_decisions, sig).to_dict()["matthews_corrcoef"]


def per_query_f1(gold: Mapping[Pair, int], labels: Mapping[Pair, int], threshold: int = 2) -> dict[str, float]:
    """F1 of the decided binary ``labels`` against ``gold`` per query (the RCL paper's figure)."""
    from collections import defaultdict

    from sklearn.metrics import f1_score

    by_q: dict[str, tuple[list, list]] = defaultdict(lambda: ([], []))
    for k, lab in labels.items():
        by_q[k[0]][0].append(int(gold[k] >= threshold))
        by_q[k[0]][1].append(int(lab))
    return {q: float(f1_score(t, p, zero_division=0.0)) for q, (t, p) in sorted(by_q.items())}


def decided_accuracy(gold: Mapping[Pair, int], decided: Mapping[Pair, tuple[int, int]],
                     threshold: int = 2) -> Optional[float]:
    """Plain accuracy of the decided labels (beside balanced accuracy it shows a method that
    labels every pair one way: accuracy at the base rate, balanced accuracy 0.5)."""
    if not decided:
        return None
    return sum(int(gold[k] >= threshold) == v[0] for k, v in decided.items()) / len(decided)
