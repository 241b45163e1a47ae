"""Nested transactions join the open one, so callers make several typed calls atomic."""
from __future__ import annotations

import pytest

from qrelkit.store import Store


def test_nested_transaction_commits_with_the_outer_one(tmp_path):
    with Store.create(tmp_path) as s:
        with s.transaction():
            s.set_meta("a", 1)
            with s.transaction():
                s.set_meta("b", 2)
        assert (s.get_meta("a"), s.get_meta("b")) == (1, 2)


def test_failure_after_an_inner_transaction_rolls_back_everything(tmp_path):
    with Store.create(tmp_path) as s:
        with pytest.raises(RuntimeError), s.transaction():
            with s.transaction():
                s.set_meta("a", 1)
            raise RuntimeError("boom")
        assert s.get_meta("a") is None


def test_store_usable_after_a_rolled_back_transaction(tmp_path):
    with Store.create(tmp_path) as s:
        with pytest.raises(RuntimeError), s.transaction():
            raise RuntimeError("boom")
        s.set_meta("a", 1)
        assert s.get_meta("a") == 1


def test_duplicate_vote_is_refused_without_breaking_the_open_transaction(tmp_path):
    with Store.create(tmp_path) as s:
        s.add_annotator("ann", False, "h", 0.0)
        (uid,) = [a.id for a in s.annotators()]
        with s.transaction():
            first = s.add_vote(uid, "q1", "d1", 1, "", 1.0, False, 0.0)
            second = s.add_vote(uid, "q1", "d1", 0, "", 1.0, False, 0.0)
        assert (first, second, s.vote_count()) == (True, False, 1)
