"""DREAM's persistence study (its Table 12) on a comparison's sample: rounds after consensus.

The debate is run with ``stop=never`` like any other method of the comparison (same sample,
same cache); this reads its stored round-by-round labels back and tabulates them with
:func:`qrelkit.evaluate.persistence.by_round`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qrelkit.store import Store


def persistence_rows(store: Store, comparison: dict, method: str) -> list[dict]:
    """The by-round rows of ``method`` (as asked in the comparison) over the sample."""
    from qrelkit.evaluate.persistence import by_round, debates_by_method

    result = next((m for m in comparison["methods"] if m["method"] == method), None)
    if result is None:
        return []
    sample = store.comparison_sample(comparison["comparison"])
    gold = {(q, d): g for q, d, g in sample.pairs}
    js = [j for j in store.judgments(method=result["canonical"], model=result["model"]) if (j.qid, j.docid) in gold]
    debates = debates_by_method(js).get(result["canonical"], {})
    return [r.to_dict() for r in by_round(debates, gold, comparison["threshold"])]
