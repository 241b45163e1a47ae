"""A parameter whose default changed more than once (``Param.legacy`` a tuple, oldest first): every
earlier form is looked for, the most recent first, and a stored id still reads back as itself."""
from __future__ import annotations

import pytest

from qrelkit.judges import REGISTRY, Param, parse_spec
from qrelkit.judges.base import Judge
from qrelkit.judges.spec import EARLIER_LIMIT
from qrelkit.specs import integer


def text(t: str) -> str:
    return t


class Toy(Judge):
    """A judge whose ``mode`` default changed twice (a -> b -> c) and ``size`` once (1 -> 2)."""

    NAME = "toy"
    PARAMS = {"mode": Param("c", text, legacy=("a", "b")), "size": Param(2, integer(0), legacy=1),
              "seed": Param(0, integer(0)), "extra": Param("off", text, absent="off")}
    STORED_FORM = frozenset({"mode", "seed", "size"})


class Many(Judge):
    """Seven parameters, each with two earlier defaults: 3^7 - 1 combinations."""

    NAME = "many"
    PARAMS = {f"p{i}": Param(2, integer(0), legacy=(0, 1)) for i in range(7)}


@pytest.fixture(autouse=True)
def toys(monkeypatch):
    monkeypatch.setitem(REGISTRY, "toy", Toy)
    monkeypatch.setitem(REGISTRY, "many", Many)


@pytest.mark.parametrize(("legacy", "previous"), [(None, ()), ("a", ("a",)), (("a", "b"), ("b", "a")),
                                                  (((1, 2),), ((1, 2),))])
def test_a_parameters_earlier_defaults_are_listed_the_most_recent_first(legacy, previous):
    assert Param("c", text, legacy=legacy).previous == previous


def test_every_combination_of_earlier_defaults_is_looked_for_the_fewest_steps_back_first():
    assert [str(s) for s in parse_spec("toy", stored=False).earlier()] == [
        "toy(mode=c,seed=0,size=1)",  # one step back: size
        "toy(mode=b,seed=0,size=2)",  # one step back: mode
        "toy(mode=b,seed=0,size=1)",  # two
        "toy(mode=a,seed=0,size=2)",  # two (mode's oldest)
        "toy(mode=a,seed=0,size=1)",  # three: everything at its oldest
    ]


def test_as_before_sets_every_parameter_to_its_oldest_default():
    assert str(parse_spec("toy", stored=False).as_before()) == "toy(mode=a,seed=0,size=1)"


def test_a_parameter_the_user_gave_is_never_set_back():
    forms = [str(s) for s in parse_spec("toy(mode=c)", stored=False).earlier()]
    assert forms == ["toy(mode=c,seed=0,size=1)"]


@pytest.mark.parametrize("stored", ["toy(mode=a,seed=0,size=1)", "toy(mode=b,seed=0,size=2)",
                                    "toy(extra=on,mode=c,seed=0,size=2)"])
def test_each_stored_form_reads_back_as_itself(stored):
    assert str(parse_spec(stored)) == stored


def test_the_search_is_bounded_and_keeps_the_most_recent_forms():
    forms = parse_spec("many", stored=False).earlier()
    assert len(forms) == EARLIER_LIMIT and sum(1 for f in forms[:7] if str(f).count("=1") == 1) == 7


def test_a_bare_spec_is_not_among_its_earlier_forms():
    spec = parse_spec("toy", stored=False)
    assert spec not in spec.earlier()
