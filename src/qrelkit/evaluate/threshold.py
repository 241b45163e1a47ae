"""The relevance threshold: which grade makes a label relevant for binary measures.

Why a resolver and not a default number: collections disagree. TREC DL grades
0-3 and counts grade >= 2 as relevant; most BEIR and MS MARCO-dev style qrels
are 0/1, where a fixed threshold of 2 silently turns every binary measure into
0. So the threshold is ``auto`` by default and is read off the reference qrels:

- ``auto-binary``: the largest grade is 1 (or lower) -> relevant = grade >= 1;
- ``auto-graded``: the largest grade is 2 or more -> relevant = grade >= 2
  (the TREC DL convention);
- ``given``: a number the user passed wins, but one above the largest grade
  present would make every label non-relevant, so it is an input error naming
  the file and its largest grade (exit 2), not a page of zeros.

Every table header and ``--json`` object states ``threshold`` and
``threshold_source`` (:meth:`Threshold.to_dict`, :meth:`Threshold.describe`).
An empty reference (a collection built from scratch) resolves ``auto`` to 2
with the source ``auto-graded``: nothing is relevant yet either way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

from qrelkit.data.qrels import as_pairs
from qrelkit.errors import InputError, UsageError

AUTO = "auto"
GRADED = 2  # TREC DL: grade >= 2 is relevant


@dataclass(frozen=True)
class Threshold:
    """A resolved threshold and where it came from."""

    value: int
    source: str  # auto-binary | auto-graded | given

    def to_dict(self) -> dict:
        return {"threshold": self.value, "threshold_source": self.source}

    def describe(self) -> str:
        """For table titles: ``relevant = grade >= 1 (auto-binary)``."""
        return f"relevant = grade >= {self.value} ({self.source})"


def parse_threshold(text: Union[str, int, None]) -> Union[str, int]:
    """``auto`` or a positive integer, from a command-line value."""
    if text is None or str(text).strip().lower() == AUTO:
        return AUTO
    try:
        value = int(str(text).strip())
    except ValueError:
        raise UsageError(f"--threshold must be 'auto' or an integer grade, not {text!r}") from None
    if value < 1:
        raise UsageError(f"--threshold must be at least 1 (got {value}): grade 0 is never relevant")
    return value


def resolve_threshold(spec: Union[str, int, None], qrels: Any, path: Optional[object] = None) -> Threshold:
    """Resolve ``spec`` (``auto`` or a number) against the reference ``qrels``.

    ``path`` names the reference in the error raised for a given threshold
    above the largest grade (the workspace's qrels when there is no file)."""
    wanted = parse_threshold(spec)
    grades = as_pairs(qrels).values()
    top = max(grades, default=None)
    if wanted == AUTO:
        if top is not None and top <= 1:
            return Threshold(1, "auto-binary")
        return Threshold(GRADED, "auto-graded")
    if top is not None and wanted > top:
        raise InputError(path if path is not None else "the reference qrels", None,
                         f"--threshold {wanted} is above the largest grade in this file ({top}); "
                         f"every label would be non-relevant. Use --threshold auto or a value <= {top}")
    return Threshold(int(wanted), "given")
