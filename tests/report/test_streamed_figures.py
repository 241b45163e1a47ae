"""The report's streamed figures (labels per topic with shared strings, judgments streamed from
the store, pool growth a topic at a time) equal the same analyses on whole in-memory dicts and
runs, as the report computed them before issue 30."""
from __future__ import annotations

import pytest

from qrelkit.data import read_run
from qrelkit.evaluate.holes import hole_rates
from qrelkit.evaluate.judge_agreement import judgments_agreement
from qrelkit.evaluate.saturation import pool_growth
from qrelkit.merge import merge
from qrelkit.report import report_from_store
from qrelkit.report.report import (
    ReportInputs,
    _agreement_section,
    _clean,
    _holes_section,
    _saturation_section,
)
from qrelkit.status import job_summary
from qrelkit.store import Store
from tests.report.helpers import build_workspace


@pytest.fixture(scope="module", params=[0, 1, 2])
def both(request, tmp_path_factory):
    """(the report's sections, the in-memory computation's sections) of one generated workspace."""
    ws = build_workspace(tmp_path_factory.mktemp(f"streamed{request.param}") / "ws", seed=request.param)
    with Store.open(ws) as store:
        files = report_from_store(store, ws / "report.html")
        thr = files.threshold["threshold"]
        original = dict(store.qrels())
        merged = {(m.qid, m.docid): m.grade for m in merge(store).labels}
        runs = [read_run(path) for _, path, _ in store.runs()]
        runs = [type(r)(name, r.path, r.by_topic, r.tags) for r, (name, _, _) in zip(runs, store.runs())]
        agreements = tuple(a for a in judgments_agreement(list(store.judgment_labels()), original, thr)
                           if a.overall.pairs)
        inputs = ReportInputs(holes=hole_rates(runs, original, merged, 10, thr), depth=10,
                              saturation=pool_growth(runs, original, merged, 10, 10, 0, thr),
                              agreements=agreements, agreement_reference="the original qrels",
                              job=job_summary(store))
    whole = {"holes": _holes_section(inputs), "saturation": _saturation_section(inputs),
             "agreement": _agreement_section(inputs)}
    return files.data, _clean(whole)


@pytest.mark.parametrize("section", ["holes", "saturation", "agreement"])
def test_the_streamed_section_equals_the_in_memory_one(both, section):
    streamed, whole = both
    assert streamed[section] == whole[section]


@pytest.mark.parametrize("section", ["holes", "saturation", "agreement"])
def test_the_section_has_figures_to_compare(both, section):
    assert both[0][section]["available"]
