"""The RCL paper's people-only baseline on TREC DL 2019 (official runs, NIST labels)."""

from __future__ import annotations

from pathlib import Path

import pytest

DL19 = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trec-dl-2019"


@pytest.mark.realdata
def test_the_depth_10_people_only_baseline_matches_the_papers_mcc():
    if not (DL19 / "runs" / "official").exists():
        pytest.skip(f"real data not found at {DL19} (needs ../shared/data/trec-dl-2019)")
    from qrelkit.compare.rcl import people_only
    from qrelkit.data import load_qrels, read_runs

    qrels = dict(load_qrels(str(DL19 / "qrels.txt")).pairs)
    runs = read_runs(str(DL19 / "runs" / "official"), max_depth=1000)
    assert people_only(runs, qrels, allocation="depth").mcc == pytest.approx(0.7316, abs=0.01)
