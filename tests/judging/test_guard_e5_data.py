"""The e5 stage's training data (benchmarks/guard_e5_data.py): deterministic for a seed, a left-out
set's phrasings absent, hard negatives labelled 0, and the grammar-only recipe equal to what
benchmarks/guard_e5.py trained on (the figures of docs/guard.md's experiment)."""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import pytest
from shared_data import shared_data_path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import guard_e5_data as data  # noqa: E402

from qrelkit.judging.guard import fold  # noqa: E402
from qrelkit.judging.guard_probes import read_phrasings  # noqa: E402

pytestmark = pytest.mark.realdata
SMALL = data.Recipe(pos_en=60, pos_lang=4, neg_docs=60, sets=("guard_heldout6.txt", "guard_own.txt"), near_cap=2)


@pytest.fixture(scope="module")
def root():
    shared_data_path("llmjudge-dev", "passages.jsonl")
    return data.DATA


def test_the_same_seed_gives_the_same_texts_and_another_seed_others(root):
    a = data.training_texts(3, recipe=SMALL, data=root)
    assert a == data.training_texts(3, recipe=SMALL, data=root)
    assert a[0] != data.training_texts(4, recipe=SMALL, data=root)[0]


def test_a_left_out_set_gives_no_positive(root):
    texts, labels, groups = data.training_texts(0, exclude={"6"}, recipe=SMALL, data=root)
    positives = {t for t, y in zip(texts, labels) if y}
    assert "guard_heldout6.txt" not in groups and "guard_own.txt" in groups
    others = {fold(p.text) for p in read_phrasings(BENCH / "guard_own.txt")}
    six = [fold(p.text) for p in read_phrasings(BENCH / "guard_heldout6.txt")]
    assert len(six) > 150
    assert not [s for s in six if s not in others and any(s in t for t in positives)]
    kept = data.training_texts(0, recipe=SMALL, data=root)
    assert sum(g == "guard_heldout6.txt" for g in kept[2]) >= len(six)
    assert fold(read_phrasings(BENCH / "guard_heldout6.txt")[0].text) in kept[0]


def test_groups_label_every_text_and_hard_negatives_are_zero(root):
    texts, labels, groups = data.training_texts(1, recipe=SMALL, data=root)
    assert len(texts) == len(labels) == len(groups)
    by = {g: {y for y, gg in zip(labels, groups) if gg == g} for g in set(groups)}
    assert by[data.HARD] == {0} and by[data.LLMJ] == {0} and by[data.NEAR] == {0}
    assert by[data.GRAMMAR] == {1} and by["guard_own.txt"] == {1}


def test_grammar_only_is_what_guard_e5_trained_on(root):
    import guard_e5

    from qrelkit.judging import guard_model as gm

    llmj = list(data.llmjudge(root))
    low = gm.load().threshold - 500
    a = argparse.Namespace(pos_en=60, pos_lang=4, neg_docs=60)
    texts, labels = guard_e5.training_set(llmj, low, a, random.Random(0))
    recipe = data.Recipe(pos_en=60, pos_lang=4, neg_docs=60, sets=(), near_miss=False)
    assert data.training_texts(0, recipe=recipe, data=root)[:2] == (texts, labels)


def test_leaving_a_set_out_is_dropping_its_group(root):
    """What guard_e5_loso.py relies on: each phrasing's texts do not depend on the other sets."""
    full = data.training_texts(2, recipe=SMALL, data=root)
    left = data.training_texts(2, exclude={"guard_own.txt"}, recipe=SMALL, data=root)
    kept = [i for i, g in enumerate(full[2]) if g != "guard_own.txt"]
    assert left == tuple([part[i] for i in kept] for part in full)


def test_the_original_mode_draws_the_same_texts_with_their_marks_kept(root):
    """What a stage reading original text trains on: the same draws and labels, each text folding
    to the folded recipe's text (a window mapped back to its passage is cut to 300 characters)."""
    recipe = data.Recipe(pos_en=60, pos_lang=4, neg_docs=60, sets=(), near_cap=2)
    folded = data.training_texts(0, recipe=recipe, data=root)
    original = data.training_texts(0, recipe=recipe, data=root, mode="original")
    assert original[1:] == folded[1:]
    assert all(fold(o)[:40] == f.strip()[:40] for o, f in zip(original[0], folded[0]))  # markup shortens 300
    assert any(o != f for o, f in zip(original[0], folded[0]))
    with pytest.raises(ValueError, match="sets"):
        data.training_texts(0, recipe=SMALL, data=root, mode="original")
