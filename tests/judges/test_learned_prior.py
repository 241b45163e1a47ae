"""learned with the prior signal: the people's labels the judge learns from reach it (real store, no model calls)."""
from __future__ import annotations

import json
import math

import pytest

from qrelkit.judging.runner import run_judging

from .test_learned import client, truth, ws  # noqa: F401  (fixture)


def _provenance(store, method):
    return {(j.qid, j.docid): json.loads(j.provenance)["learned"] for j in store.judgments(method=method)}


def test_prior_is_a_column_of_the_fit_and_not_dropped(ws):  # noqa: F811
    s = run_judging(ws, "learned(signals=lexical+prior)", client(ws))
    prov = next(iter(_provenance(ws, s.method).values()))
    assert "prior" in prov["combination"]["columns"] and prov["dropped"] == []


def test_a_cases_prior_is_its_topics_share_of_relevant_labels(ws):  # noqa: F811
    """Each topic has 7 of its 20 labelled pairs relevant, the same share everywhere, so the share
    over all topics is 0.35 and every case gets log(0.35 / 0.65)."""
    s = run_judging(ws, "learned(signals=lexical+prior)", client(ws))
    values = [p["signals"]["prior"] for p in _provenance(ws, s.method).values()]
    assert len(values) == 40 and values == pytest.approx([math.log(0.35 / 0.65)] * 40, abs=1e-5)


def test_with_prior_the_cases_are_still_decided_correctly(ws):  # noqa: F811
    s = run_judging(ws, "learned(signals=lexical+prior)", client(ws))
    js = ws.judgments(method=s.method)
    assert len(js) == 40 and [j.label for j in js] == [truth(j.docid) for j in js]
