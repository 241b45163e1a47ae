"""Warnings for ratio measures outside the settings where their intervals were measured to cover."""
from __future__ import annotations

import pytest

from qrelkit.estimate.validity import SHOWN, ratio_warnings


@pytest.mark.parametrize("design, labelled, topics", [
    ("uniform", 120, 8),    # 15 per topic, the synthetic collection
    ("uniform", 926, 43),   # 21.5, DL 2019 at 10%
    ("weighted", 926, 43),  # 21.5, the setting: 0.990 in 100 draws with the collapsed variance
    ("weighted", 463, 43),  # 10.8, DL 2019 at 5%: 0.979 in 100
    ("weighted", 1852, 43),  # 43.07, DL 2019 at 20%: 0.994 in 100
    ("weighted", 120, 8),   # 15, the synthetic collection at 25%: 0.964
])
def test_a_measured_setting_gives_no_warning(design, labelled, topics):
    assert ratio_warnings(["nDCG@10"], design, labelled, topics) == ()


@pytest.mark.parametrize("design, labelled, topics", [
    ("weighted", 60, 8),     # 7.5, the synthetic collection at 12.5%: 0.872
    ("weighted", 2000, 43),  # 46.5: never measured
    ("defensive", 926, 43),  # 21.5: 0.927 in 200 draws (stratified variance): no band
    ("uniform", 60, 8),      # 7.5: measured 0.90
    ("uniform", 463, 43),    # 10.8: covered, but 5.7% wrong signs
    ("active", 926, 43),     # never measured
    ("", 926, 43),           # a sample file that names no design
])
def test_outside_the_measured_settings_one_warning_names_the_measure_and_the_setting(design, labelled, topics):
    warnings = ratio_warnings(["nDCG@10", "R@100"], design, labelled, topics)
    assert len(warnings) == 1
    assert warnings[0].startswith("nDCG@10, R@100: interval coverage not shown")
    assert f"{labelled / topics:.1f} people's labels per topic" in warnings[0]


def test_linear_measures_alone_are_never_warned_about():
    assert ratio_warnings([], "active", 10, 43) == ()


def test_the_bands_are_ordered():
    for low, high in SHOWN.values():
        assert 0 < low <= high
