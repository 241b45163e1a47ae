"""The Python API: doctests of qrelkit.api, and the lazy top-level names."""
from __future__ import annotations

import doctest
import subprocess
import sys

import pandas as pd
import pytest

import qrelkit
import qrelkit.api
from qrelkit.demo import demo_paths


def test_api_doctests():
    res = doctest.testmod(qrelkit.api, raise_on_error=False)
    assert res.attempted >= 5 and res.failed == 0


def test_evaluate_dataframe_matches_pytrec_eval():
    import pytrec_eval

    d = demo_paths()
    df = qrelkit.score([str(p) for p in d.runs], d.qrels, measures=["nDCG@10", "P@10"])
    assert isinstance(df, pd.DataFrame) and set(df.index) == {p.stem for p in d.runs}
    qrels: dict = {}
    for line in d.qrels.read_text().splitlines():
        q, _, doc, g = line.split()
        qrels.setdefault(q, {})[doc] = int(g)
    run: dict = {}
    for line in d.runs[0].read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        run.setdefault(q, {})[doc] = float(score)
    run = {q: dict(sorted(v.items(), key=lambda kv: -kv[1])[:10]) for q, v in run.items()}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
    res = ev.evaluate(run)
    expect = sum(r["ndcg_cut_10"] for r in res.values()) / len(qrels)
    assert df.loc["bm25", "nDCG@10"] == pytest.approx(expect, abs=1e-9)


def test_score_works_whatever_was_imported_first():
    import qrelkit.evaluate.systems  # noqa: F401  binds qrelkit.evaluate to the package

    d = demo_paths()
    df = qrelkit.score([str(p) for p in d.runs], d.qrels, measures=["P@10"])
    assert df.shape == (6, 1)
    assert df.attrs == {"threshold": 2, "threshold_source": "auto-graded"}


def test_evaluate_is_the_package_not_a_callable():
    import types

    assert isinstance(qrelkit.evaluate, types.ModuleType)
    assert not callable(qrelkit.evaluate)


def test_import_is_light():
    code = "import sys, qrelkit; qrelkit.read_qrels; print(sorted(m for m in ('llama_cpp','fastapi','matplotlib','sklearn') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_unknown_attribute():
    with pytest.raises(AttributeError):
        qrelkit.nope  # noqa: B018
