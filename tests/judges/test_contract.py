"""The judge contract, the usage and provenance values, and the shape of the runner's modules."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from pathlib import Path

import pytest

from qrelkit.judges import REGISTRY, build, methods, register
from qrelkit.judges.base import AdjudicatingJudge, BatchJudge, ChainJudge, Judge, LearningJudge, Task
from qrelkit.judging.labels import labelled_pairs
from qrelkit.llm.base import Usage
from qrelkit.store import Store
from qrelkit.types import Doc, Judgment, Provenance, Qrel, Topic

JUDGES = Path(__file__).resolve().parents[2] / "src" / "qrelkit" / "judges"
JUDGING = JUDGES.parent / "judging"  # the pipeline around the judges
RUNNER_MODULES = ("runner", "selection", "preparation", "labels", "batching", "budget", "escalation", "summary",
                  "context", "job")


@pytest.mark.parametrize("name", methods())
def test_every_registered_method_implements_the_contract(name):
    assert issubclass(REGISTRY[name], Judge)


@pytest.mark.parametrize(
    "name,kind",
    [("prefilter", ChainJudge), ("confidence", BatchJudge), ("icl", LearningJudge),
     ("narrative", LearningJudge), ("debate", AdjudicatingJudge)],
)
def test_each_kind_is_declared_by_its_base_class(name, kind):
    assert issubclass(REGISTRY[name], kind)


def test_a_class_outside_the_contract_is_refused():
    class NotAJudge:
        NAME = "not-a-judge"

    with pytest.raises(TypeError, match="judge contract"):
        register(NotAJudge)


@pytest.mark.parametrize("spec", ["debate(adjudicator=llm)", "prefilter+debate(adjudicator=llm)"])
def test_deferred_adjudication_is_given_when_the_judge_is_built(spec):
    debate = build(spec, defer_adjudication=True).chain()[-1]
    assert debate.defer_adjudication is True


def test_a_chain_lists_its_judges_first_to_last():
    assert [j.NAME for j in build("prefilter+zero-shot").chain()] == ["prefilter", "zero-shot"]


def test_a_batch_judge_cannot_be_called_case_by_case(graded_input):
    with pytest.raises(TypeError, match="batches"):
        asyncio.run(build("confidence")(graded_input(), None))


@pytest.mark.parametrize("module", sorted(p.stem for p in JUDGES.glob("*.py")))
def test_no_judge_module_reaches_into_the_runner(module):
    text = (JUDGES / f"{module}.py").read_text()
    for part in ("runner", "selection", "preparation", "batching", "escalation", "summary", "job"):
        assert not re.search(rf"^\s*(from|import) qrelkit\.judging\.{part}\b", text, re.M)


def test_the_pipeline_modules_live_in_judging_and_not_in_judges():
    for module in RUNNER_MODULES:
        assert (JUDGING / f"{module}.py").exists()
        assert not (JUDGES / f"{module}.py").exists()


@pytest.mark.parametrize("module", RUNNER_MODULES)
def test_the_runner_reads_capabilities_without_probing(module):
    assert "getattr(" not in (JUDGING / f"{module}.py").read_text()


@pytest.mark.parametrize("module", RUNNER_MODULES)
def test_runner_modules_stay_small(module):
    assert len((JUDGING / f"{module}.py").read_text().splitlines()) <= 400


# ---- Usage -------------------------------------------------------------------------------------
A = Usage(calls=3, cache_hits=1, prompt_tokens=30, completion_tokens=9, cost_usd=0.25)
B = Usage(calls=1, cache_hits=0, prompt_tokens=10, completion_tokens=2, cost_usd=0.125)


def test_usage_adds():
    assert A + B == Usage(calls=4, cache_hits=1, prompt_tokens=40, completion_tokens=11, cost_usd=0.375)


def test_usage_subtracts():
    assert (A + B) - B == A


def test_usage_adds_and_subtracts_every_field():
    # written out field by field (types.Usage), so a field added later must be added there too
    names = [f.name for f in dataclasses.fields(Usage)]
    x = Usage(*(i + 1 for i in range(len(names))))
    y = Usage(*(10 * (i + 1) for i in range(len(names))))
    assert [getattr(x + y, n) for n in names] == [11 * (i + 1) for i in range(len(names))]
    assert [getattr(y - x, n) for n in names] == [9 * (i + 1) for i in range(len(names))]


def test_usage_as_dict_has_the_contract_keys():
    assert list(A.as_dict()) == ["calls", "cache_hits", "prompt_tokens", "completion_tokens", "cost_usd"]


def test_usage_from_a_record_with_nulls():
    assert Usage.from_dict({"calls": 2, "cost_usd": None}) == Usage(calls=2)


# ---- Judgment and Provenance -------------------------------------------------------------------
@pytest.mark.parametrize(
    "grade,label,expected", [(3, 1, 3), (0, 0, 0), (None, 1, 1), (None, 0, 0), (None, None, None)]
)
def test_effective_grade_is_the_grade_else_the_label(grade, label, expected):
    j = Judgment("q", "d", "m", "x", label=label, grade=grade, status="auto")
    assert j.effective_grade == expected


def test_provenance_is_written_with_sorted_keys():
    assert Provenance({"b": 1, "a": {"y": 2, "x": 1}}).to_json() == '{"a": {"x": 1, "y": 2}, "b": 1}'
    # what json cannot write is written as its str() (the module-level encoder keeps default=str)
    assert Provenance({"path": Path("runs/a.run"), "n": float("nan")}).to_json() == '{"n": NaN, "path": "runs/a.run"}'


def test_provenance_reads_back_what_it_wrote():
    p = Provenance({"budget": {"for_people": False}, "oracle": "2", "reason": "why"})
    assert Provenance.parse(p.to_json()) == p


@pytest.mark.parametrize(
    "key,expected", [("budget", {"for_people": False}), ("oracle", 2), ("reason", "why")]
)
def test_provenance_typed_keys(key, expected):
    p = Provenance({"budget": {"for_people": False}, "oracle": "2", "reason": "why"})
    assert getattr(p, key) == expected


# ---- one sampling rule -------------------------------------------------------------------------
@pytest.fixture
def rare_relevant(tmp_path):
    """300 labels, 10% relevant."""
    store = Store.create(tmp_path / "ws")
    store.upsert_topics([Topic("q", "fox")])
    store.upsert_docs([Doc(f"d{i:03d}", "text") for i in range(300)])
    store.upsert_qrels([Qrel("q", f"d{i:03d}", 2 if i < 30 else 0) for i in range(300)])
    yield store
    store.close()


def test_threshold_calibration_takes_equal_shares_of_each_class(rare_relevant):
    pairs = labelled_pairs(rare_relevant, Task("graded", 2), set(), 40)
    assert sum(y for _, y in pairs) == 20


def test_threshold_calibration_fills_up_from_the_larger_class(rare_relevant):
    pairs = labelled_pairs(rare_relevant, Task("graded", 2), set(), 100)
    assert (len(pairs), sum(y for _, y in pairs)) == (100, 30)


def test_a_balanced_sample_is_the_one_measured_before(rare_relevant):
    """The rule labelled_pairs followed at 41e3b2f (seeded shuffles of each class), kept exactly."""
    import random

    keys = sorted(rare_relevant.qrels())
    rng = random.Random(0)
    pos, neg = [k for k in keys if int(k[1][1:]) < 30], [k for k in keys if int(k[1][1:]) >= 30]
    rng.shuffle(pos)
    rng.shuffle(neg)
    before = sorted(pos[:20] + neg[:20])
    pairs = labelled_pairs(rare_relevant, Task("graded", 2), set(), 40)
    assert [(inp.case.qid, inp.case.docid) for inp, _ in pairs] == before
