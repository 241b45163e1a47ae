"""Judge-favoured runs: runs whose score under the judge's labels exceeds their people-corrected estimate
by more than other runs' does: the signature of a system that shares the judge's preferences.

A judge inflates everyone's scores (the Llama-3.3-70B labels add 0.29 to P@10 on DL 2019), and a weak
run, with more non-relevant pairs in its top k, gives the judge more room to inflate it: a raw excess
``labels-only - estimate`` flags weak runs and, measured on DL 2019, none of ten runs re-ranked by the
judge's own labels. What marks a system that shares the judge's preferences is that the judge calls
*relevant a larger share of the run's non-relevant pairs*: ``favour = (labels-only - estimate) / (1 -
estimate)`` (1 when every pair the people reject is one the judge accepts, as for a run re-ranked by the
judge). Its interval follows from the estimate's (favour decreases in the estimate). A run is flagged
when the lower end of its favour interval exceeds the upper quartile (``QUANTILE``) of the other runs'
favour: above their median, 10-11 of DL 2019's 37 official runs were flagged (strong runs leave little
non-relevant room, so their favour is noisy). No run metadata
is needed (the ``--judge-model`` circularity check stays separate).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qrelkit.estimate.estimators import Estimates

QUANTILE = 0.75


@dataclass(frozen=True)
class Favoured:
    """A run's favour on one measure, the share of other runs' favour its interval lies above, and
    whether that flags it."""

    run: str
    measure: str
    favour: float
    share_above: float
    flagged: bool

    def to_dict(self) -> dict:
        return {"run": self.run, "measure": self.measure, "favour": self.favour,
                "share_above": self.share_above, "flagged": self.flagged}


def judge_favoured(estimates: Estimates, measure: str) -> tuple[Favoured, ...]:
    rows = [r for r in estimates.rows if r.measure == measure]
    point = np.array([_favour(r.labels_only, r.estimate) for r in rows])
    lower = np.array([_favour(r.labels_only, r.high) for r in rows])
    out = []
    for i, r in enumerate(rows):
        others = np.delete(point, i)
        bar = float(np.quantile(others, QUANTILE)) if len(others) else float("nan")
        share = float(np.mean(lower[i] > others)) if len(others) else 0.0
        out.append(Favoured(r.run, measure, float(point[i]), share, bool(len(others)) and lower[i] > bar))
    return tuple(out)


def _favour(labels_only: float, estimate: float) -> float:
    """The share of the run's non-relevant mass that the judge's labels count (see above)."""
    room = 1.0 - min(estimate, 1.0)
    return (labels_only - estimate) / room if room > 1e-9 else 0.0
