"""Where the intervals of ratio measures have been shown to cover: the measured settings, and a warning
outside them.

A linear measure's interval (P@k, RBP) rests on an exactly unbiased estimator and variance. A ratio's
(nDCG@k, R@k) rests on the jackknife's bias correction and variance (:mod:`.jackknife`), which are
first-order right but were measured to cover at least 0.93 only in some settings: with few people's
labels per topic the ideal DCG's counts are too noisy for the bias correction, and with the weighted
design rarely drawn, heavily weighted pairs decide the ideal (docs/estimates.md).

A setting is described by two numbers of the sample: the design, and the people's labels per topic (the
labelled sample pairs over the topics). :data:`SHOWN` holds, per design, the band of labels per topic in
which every measured cell reached coverage 0.93 and at most 5% of the significant differences had the
wrong sign (benchmarks/estimates.py, 7 December 2026; TREC DL 2019 with two label sets, 30 draws each,
and the synthetic collection of the tests, 120 draws; docs/estimates.md has the table):

- ``uniform``: 15 labels per topic (synthetic) 0.942, 21.5 (DL 2019 at 10%) 0.950 / 0.937 (0.931 in
  100 draws with the Llama-3.3-70B labels), 30 (synthetic) 0.943; outside: 7.5 (synthetic) 0.904, 10.8 (DL 2019 at 5%) 0.945 / 0.956 but 5.7% wrong
  signs and intervals 0.5-0.6 wide, 43 (20%) 0.916 / 0.943;
- ``weighted``: nowhere: 21.5 labels per topic (10%) 0.919 in 100 draws with the Llama-3.3-70B labels
  (the issue's setting), 10.8 (5%) 0.925 in 30, 43 (20%) 0.863 in 100;
- ``defensive`` (the weighted design as a defensive mixture, :mod:`.design`): nowhere either: 21.5 labels
  per topic 0.927 in 200 draws with the Llama-3.3-70B labels and 0.929 / 0.941 / 0.949 in 30 with the
  three other label sets; 10.8 (5%) 0.873 in 100; 43 (20%) 0.942 in 100; the synthetic collection at
  7.5, 15 and 30: 0.889, 0.956, 0.881. Better where the ideal DCG's rarely drawn pairs decided the error
  (20%, the synthetic 50%), still under 0.93 at 10% and at 5% (docs/estimates.md).

Any other design (``active``, or a sample file naming none) has not been measured. Outside the bands an
estimate is still computed and reported, with a warning saying so (never silently).
"""
from __future__ import annotations

from collections.abc import Sequence

SHOWN: dict[str, tuple[float, float]] = {  # design -> (least, most) people's labels per topic measured valid
    "uniform": (15.0, 30.0),
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
