"""Where the intervals of ratio measures have been shown to cover: the measured settings, and a warning
outside them.

A linear measure's interval (P@k, RBP) rests on an exactly unbiased estimator and variance. A ratio's
(nDCG@k, R@k) rests on the jackknife's bias correction and its collapsed-strata variance
(:mod:`.jackknife`), which were measured to cover at least 0.93 only in some settings: with few
people's labels per topic the ideal DCG's counts are too noisy for the bias correction
(docs/estimates.md).

A setting is described by two numbers of the sample: the design, and the people's labels per topic (the
labelled sample pairs over the topics). :data:`SHOWN` holds, per design, the band of labels per topic in
which every measured cell reached coverage 0.93 and at most 5% of the significant differences had the
wrong sign (benchmarks/estimates.py, 7 December 2026; TREC DL 2019 and the synthetic collection of the
tests; docs/estimates.md has the tables):

- ``uniform`` (one stratum per topic, so the collapsed variance is the stratified one): 15 labels per
  topic (synthetic, 120 draws) 0.942, 21.5 (DL 2019 at 10%, 30 draws) 0.950 / 0.937 (0.931 in 100
  draws with the Llama-3.3-70B labels), 30 (synthetic) 0.943; outside: 7.5 (synthetic) 0.904, 10.8
  (DL 2019 at 5%) 0.945 / 0.956 but 5.7% wrong signs and intervals 0.5-0.6 wide, 43 (20%) 0.916 / 0.943;
- ``weighted`` (collapsed variance): 10.8 labels per topic (DL 2019 at 5%, 100 draws with the
  Llama-3.3-70B labels) 0.979, 15 (synthetic, 60 draws) 0.964, 21.5 (DL 2019 at 10%) 0.990 in 100
  draws with the Llama-3.3-70B labels (the issue's setting) and 0.988 / 0.980 / 0.985 in 30 with the
  three other label sets, 30 (synthetic) 1.000, 43 (DL 2019 at 20%) 0.994 in 100; outside: 7.5
  (synthetic) 0.872. Before the collapsed variance (the design's strata as variance groups) it covered
  0.929, 0.919 and 0.863 at 10.8, 21.5 and 43 (100 draws);
- ``defensive`` (the weighted design as a defensive mixture, :mod:`.design`): nowhere; measured with
  the stratified variance: 21.5 labels per topic 0.927 in 200 draws with the Llama-3.3-70B labels,
  10.8 (5%) 0.873 in 100, 43 (20%) 0.942 in 100, the synthetic collection at 7.5, 15 and 30: 0.889,
  0.956, 0.881; with the collapsed variance only 21.5 was measured (0.973 in 30 draws, width 0.147),
  too little for a band.

Any other design (``active``, or a sample file naming none) has not been measured. Outside the bands an
estimate is still computed and reported, with a warning saying so (never silently).
"""
from __future__ import annotations

from collections.abc import Sequence

SHOWN: dict[str, tuple[float, float]] = {  # design -> (least, most) people's labels per topic measured valid
    "uniform": (15.0, 30.0),
    "weighted": (10.7, 43.1),  # DL 2019 at 5%, 20%: 463, 1,852 labels over 43 topics (10.77, 43.07)
}


def ratio_warnings(ratios: Sequence[str], design: str, labelled: int, topics: int) -> tuple[str, ...]:
    """One warning for the ratio measures ``ratios`` (as the user wrote them) when the sample's design and
    people's labels per topic lie outside :data:`SHOWN`; () otherwise."""
    if not ratios or topics < 1:
        return ()
    per_topic = labelled / topics
    band = SHOWN.get(design)
    if band is not None and band[0] <= per_topic <= band[1]:
        return ()
    where = (f"{band[0]:g}-{band[1]:g} people's labels per topic with the {design} design" if band else
             " or ".join(f"{lo:g}-{hi:g} labels per topic ({d})" for d, (lo, hi) in SHOWN.items()))
    return (f"{', '.join(ratios)}: interval coverage not shown for this sample ({per_topic:.1f} people's labels "
            f"per topic, design {design or 'unknown'}); measured at 0.93 or more only with {where} "
            "(docs/estimates.md); read these intervals as approximate",)
