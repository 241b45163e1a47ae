"""The one error an estimate raises when it must refuse.

An estimate that cannot be trusted is refused, never printed: too few people's labels, a sample whose
probabilities do not describe a draw from the universe it is applied to, a measure the estimators do not
cover. It is a :class:`~qrelkit.errors.UsageError`, so the command line prints one line and exits 2, and
Python callers can catch it by type.
"""
from __future__ import annotations

from qrelkit.errors import UsageError


class EstimateError(UsageError):
    """An estimate refused, with what to do about it in the message."""
