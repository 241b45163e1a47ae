"""The people A/B setting: escalations shown with the debate history, or without it.

The DREAM paper (Table 3) compares annotators who saw the agents' debate with annotators who did
not, by Fleiss' kappa among the annotators and by agreement with the reference labels. The
project setting ``history_ab`` makes the same comparison inside one project:

- ``off`` (default): everybody sees the history unless ``hide_history`` is set (one arm);
- ``case``: half of the escalations (a seeded hash of the pair) are shown with their history,
  half without, to everybody;
- ``annotator``: half of the annotators (a seeded hash of their id) see histories, half never do.

Each vote records whether a history was shown (``history_shown``), so the arms are read back
from the votes themselves (:func:`ab_report`), not from the setting at analysis time.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from typing import Optional

from qrelkit.annotate.content import task_of
from qrelkit.annotate.settings import AnnotateSettings
from qrelkit.annotate.votes import excluded_users, qrels_threshold

ARMS = ("off", "case", "annotator")  # which arm a vote is in: AnnotateSettings.shows_history


@dataclass(frozen=True)
class ArmResult:
    """One arm of the comparison (history shown or not), over escalations' valid votes."""

    history_shown: bool
    cases: int  # escalations with at least two votes in this arm
    votes: int
    fleiss_kappa: Optional[float]  # binary labels, cases with the arm's most common number of votes
    vote_agreement: Optional[float]  # share of votes whose binary label matches the reference
    majority_agreement: Optional[float]  # share of cases whose majority label matches (ties left out)

    def to_dict(self) -> dict:
        return asdict(self)


def _kappa(per_case: list[list[int]]) -> Optional[float]:
    from statsmodels.stats.inter_rater import fleiss_kappa

    sizes = Counter(len(v) for v in per_case if len(v) >= 2)
    if not sizes:
        return None
    n = sizes.most_common(1)[0][0]
    table = [[v.count(0), v.count(1)] for v in per_case if len(v) == n]
    if len({lab for v in per_case if len(v) == n for lab in v}) < 2:
        return None  # every vote the same: chance agreement is 1 and kappa is undefined, not invented
    return round(float(fleiss_kappa(table)), 4)


def _arm(shown: bool, per_case: dict, ref: dict) -> ArmResult:
    cases = {p: v for p, v in per_case.items() if len(v) >= 2}
    judged = [(p, lab) for p, v in per_case.items() if p in ref for lab in v]
    majorities = [(p, Counter(v).most_common()) for p, v in per_case.items() if p in ref]
    decided = [(p, mc[0][0]) for p, mc in majorities if len(mc) == 1 or mc[0][1] > mc[1][1]]
    return ArmResult(
        history_shown=shown,
        cases=len(cases),
        votes=sum(len(v) for v in per_case.values()),
        fleiss_kappa=_kappa(list(cases.values())),
        vote_agreement=round(sum(lab == ref[p] for p, lab in judged) / len(judged), 4) if judged else None,
        majority_agreement=round(sum(lab == ref[p] for p, lab in decided) / len(decided), 4) if decided else None,
    )


def ab_report(store, settings: AnnotateSettings) -> list[ArmResult]:
    """Per arm: Fleiss' kappa and agreement with the original qrels, over escalations' valid votes."""
    excluded = excluded_users(store, settings)
    qthr = qrels_threshold(store, settings)
    ref = {p: int(g >= qthr) for p, g in store.qrels().items()}
    arms: dict[bool, dict] = {True: defaultdict(list), False: defaultdict(list)}
    for _name, uid, qid, docid, grade, _c, _s, shown, _t, kind, _e in store.vote_records():
        if kind != "escalation" or uid in excluded:
            continue
        task = task_of(store, settings, qid)
        label = int(grade >= (1 if task == "answer" else settings.threshold))
        arms[bool(shown)][(qid, docid)].append(label)
    return [_arm(shown, arms[shown], ref) for shown in (True, False)]
