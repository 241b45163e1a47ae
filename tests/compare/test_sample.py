"""The comparison's sample: drawn as asked, read from a file with file:line errors, and never
the only labels a learning method could learn from."""

from __future__ import annotations

from collections import Counter

import pytest

from qrelkit.compare.sample import Draw, check_learnable, draw_pairs, ensure_sample, read_sample_file
from qrelkit.errors import InputError, UsageError
from qrelkit.store import Store
from qrelkit.types import Doc, Qrel, Topic

REFERENCE = {(f"q{i % 3}", f"d{i}"): [0, 0, 0, 1, 2, 3][i % 6] for i in range(60)}


def test_a_stratified_draw_takes_equal_shares_of_each_grade():
    pairs = draw_pairs(REFERENCE, 20, "stratified", seed=1)
    assert Counter(g for _, _, g in pairs) == {0: 5, 1: 5, 2: 5, 3: 5}


def test_a_draw_is_the_same_for_the_same_seed_whatever_the_input_order():
    shuffled = dict(reversed(list(REFERENCE.items())))
    assert draw_pairs(REFERENCE, 20, "uniform", 4) == draw_pairs(shuffled, 20, "uniform", 4)


def test_an_unknown_draw_is_refused():
    with pytest.raises(UsageError, match="--draw"):
        draw_pairs(REFERENCE, 5, "clustered", 0)


def test_a_sample_file_line_without_a_reference_label_names_the_file_and_line(tmp_path):
    f = tmp_path / "pairs.txt"
    f.write_text("q0 d0\nq9 d9\n")
    with pytest.raises(InputError, match=r"pairs.txt:2: pair q9 d9 has no reference label"):
        read_sample_file(f, REFERENCE)


def test_a_sample_file_takes_the_reference_grade_not_its_own(tmp_path):
    f = tmp_path / "pairs.txt"
    f.write_text("q0 0 d3 0\n")
    assert read_sample_file(f, REFERENCE) == [("q0", "d3", 1)]


def _store(tmp_path, qrels):
    s = Store.create(tmp_path / "ws")
    s.upsert_topics([Topic("q0", "query")])
    s.upsert_docs([Doc(d, "text") for _, d in qrels])
    s.upsert_qrels([Qrel(q, d, g) for (q, d), g in qrels.items()])
    return s


def test_a_learning_method_is_refused_when_the_sample_holds_every_label(tmp_path):
    qrels = {("q0", f"d{i}"): i % 2 * 2 for i in range(6)}
    with _store(tmp_path, qrels) as s:
        sample = ensure_sample(s, "all", qrels, Draw(6))
        with pytest.raises(UsageError, match="none outside the sample"):
            check_learnable(s, sample, ["icl(k=1)"])


def test_a_stored_sample_is_read_back_in_draw_order(tmp_path):
    qrels = {("q0", f"d{i}"): i % 2 * 2 for i in range(10)}
    with _store(tmp_path, qrels) as s:
        first = ensure_sample(s, "x", qrels, Draw(4, seed=2))
        again = ensure_sample(s, "x", qrels, Draw(99), explicit=False)
    assert again.pairs == first.pairs


def test_a_learning_method_is_refused_with_too_few_labels_outside_the_sample(tmp_path):
    qrels = {("q0", f"d{i}"): i % 2 * 2 for i in range(12)}
    with _store(tmp_path, qrels) as s:
        sample = ensure_sample(s, "most", qrels, Draw(6))
        with pytest.raises(UsageError, match="at least 20 labelled pairs"):
            check_learnable(s, sample, ["likelihood(threshold=auto)"])
