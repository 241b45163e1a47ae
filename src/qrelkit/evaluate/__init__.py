"""Measuring what changed: agreement, system scores, rankings, holes, pool
saturation, pool bias, stability across assessors and RAG alignment.

One concept per module; every function takes plain in-memory data (runs from
:mod:`qrelkit.data`, qrels as ``{(qid, docid): grade}`` or a ``QrelsFile``)
and returns small frozen dataclasses with a ``to_dict()`` for JSON output.

``qrelkit.evaluate`` is this package, and only this package: the notebook
function that scores runs into a DataFrame is :func:`qrelkit.score` (one name
per thing, so that importing a submodule never rebinds a function's name).
"""
from __future__ import annotations

from qrelkit.evaluate.agreement import Agreement, MultiAgreement, compare_labels, multi_assessor
from qrelkit.evaluate.compare import VersionComparison, compare_versions
from qrelkit.evaluate.correlation import (
    RankingCorrelation,
    correlate,
    kendall_tau,
    rbo,
    spearman_rho,
    tau_ap,
)
from qrelkit.evaluate.holes import SystemHoles, hole_at_k, hole_rates
from qrelkit.evaluate.judge_agreement import JudgeAgreement, judgments_agreement
from qrelkit.evaluate.leaveout import GroupDrop, LeaveOut, dropped_pairs, group_of, leave_out
from qrelkit.evaluate.ragalign import GenerationLabel, rag_align, read_generation
from qrelkit.evaluate.saturation import PoolGrowth, pool_growth
from qrelkit.evaluate.significance import decision_agreement, pairwise_significance
from qrelkit.evaluate.stability import Stability, assessors_as_rankers, stability
from qrelkit.evaluate.systems import (
    DEFAULT_MEASURES,
    TopicScores,
    evaluate_runs,
    evaluate_versions,
    resolve_measures,
    score_shifts,
)
from qrelkit.relevance import Threshold, resolve_threshold

__all__ = [
    "Agreement", "JudgeAgreement", "MultiAgreement", "compare_labels", "judgments_agreement", "multi_assessor",
    "VersionComparison", "compare_versions",
    "RankingCorrelation", "correlate", "kendall_tau", "rbo", "spearman_rho", "tau_ap",
    "GroupDrop", "LeaveOut", "dropped_pairs", "group_of", "leave_out",
    "GenerationLabel", "rag_align", "read_generation",
    "PoolGrowth", "SystemHoles", "hole_at_k", "hole_rates", "pool_growth",
    "decision_agreement", "pairwise_significance",
    "Stability", "assessors_as_rankers", "stability",
    "Threshold", "resolve_threshold",
    "DEFAULT_MEASURES", "TopicScores", "evaluate_runs", "evaluate_versions", "resolve_measures", "score_shifts",
]

