"""``qrelkit compare``: which judging protocol, at what escalation budget, at what cost, on your data.

One stored sample of labelled pairs (:mod:`.sample`) is judged by every method through the
judging pipeline (:mod:`.run`), scored as DREAM's Tables 1 and 2 (:mod:`.scores`) and costed as
its Table 11 (:mod:`.cost`); confidence methods get budget curves (:mod:`.methods`,
:func:`.run.budget_curves`). Presets (:mod:`.presets`, figures in ``published.toml``) lay out a
seed paper's experiment with its published figures beside the measured ones
(:mod:`.side_by_side`); :mod:`.rcl` is the RCL paper's people-only baseline, :mod:`.hybrid` its
LLM rows on the hybrid pool, and :mod:`.page` the comparison as an HTML page.
"""
from qrelkit.compare.run import CompareRequest, Comparison, Curve, MethodResult, acompare, compare
from qrelkit.compare.sample import Draw, Sample

__all__ = ["CompareRequest", "Comparison", "Curve", "Draw", "MethodResult", "Sample", "acompare", "compare"]
