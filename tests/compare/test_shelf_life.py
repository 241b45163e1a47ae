"""The shelf-life preset on TREC DL 2019: the eight re-judging assessors against NIST."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

DL19 = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trec-dl-2019"


@pytest.fixture(scope="module")
def preset_rows():
    if not (DL19 / "rejudgments" / "main").exists():
        pytest.skip(f"real data not found at {DL19} (needs ../shared/data/trec-dl-2019)")
    r = subprocess.run(
        [sys.executable, "-m", "qrelkit", "compare", "--preset", "shelf-life", "--runs", str(DL19 / "runs" / "official"),
         str(DL19 / "runs" / "post-hoc"), "--reference", str(DL19 / "qrels.txt"), "--assessors",
         str(DL19 / "rejudgments" / "main"), "--json"],
        capture_output=True, text=True, env=dict(os.environ), timeout=600,
    )
    assert r.returncode == 0, r.stderr
    return {(x["row"], x["figure"]): x for x in json.loads(r.stdout)["preset"]["rows"]}


@pytest.mark.realdata
def test_sampled_assessors_with_nist_rank_the_61_runs_as_the_paper_finds(preset_rows):
    row = preset_rows[("sampled combinations including the primary (NIST)", "kendall_tau")]
    assert row["measured"] == pytest.approx(row["published"], abs=0.01)


@pytest.mark.realdata
@pytest.mark.parametrize("how", ["mean", "min", "max"])
def test_aggregated_assessors_as_rankers_score_what_the_paper_reports(preset_rows, how):
    row = preset_rows[(f"aggregated {how}", "ndcg_at_10")]
    assert row["measured"] == pytest.approx(row["published"], abs=0.03)
