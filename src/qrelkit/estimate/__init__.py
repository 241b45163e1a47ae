"""Estimates with confidence intervals: a judge's labels on every pair, corrected by people's labels on a
probability sample (prediction-powered inference). See docs/estimates.md.

Public API (stable): :class:`SampledPair`, :class:`Sample`, :func:`draw_sample`, :data:`DESIGNS`,
:func:`universe_of`, :func:`rankings` (design); :func:`write_sample`, :func:`read_sample` (the sample file);
:func:`estimate_runs`, :class:`Estimates` (estimators); :class:`EstimateError` (refusals). What the
product gives them (runs, labels and sample from files or a workspace): :mod:`qrelkit.estimate.workspace`.
"""
from qrelkit.estimate.design import DESIGNS, Sample, SampledPair, draw_sample, rankings, universe_of
from qrelkit.estimate.errors import EstimateError
from qrelkit.estimate.estimators import EstimateRow, Estimates, Interval, estimate_runs
from qrelkit.estimate.sample_file import read_sample, write_sample

__all__ = ["DESIGNS", "EstimateError", "EstimateRow", "Estimates", "Interval", "Sample", "SampledPair",
           "draw_sample", "estimate_runs", "rankings", "read_sample", "universe_of", "write_sample"]

# ``qrelkit.estimate(...)`` is also the notebook function (qrelkit.api.estimate): see qrelkit._callable
import sys as _sys  # noqa: E402

from qrelkit._callable import make_callable as _make_callable  # noqa: E402

_make_callable(_sys.modules[__name__], "qrelkit.api", "estimate")
