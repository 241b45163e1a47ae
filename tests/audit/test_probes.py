"""Probes built from literal labelled pairs: what each one alters, and that the draw is seeded."""

from __future__ import annotations

import random

import pytest

from qrelkit.audit import probes as P
from qrelkit.types import Doc, Topic

TOPICS = {"q1": Topic("q1", "solar panel efficiency"), "q2": Topic("q2", "medieval castle sieges")}
DOCS = {
    "d1": Doc("d1", "Bread rises because yeast ferments sugar. The dough doubles in an hour."),
    "d2": Doc("d2", "Panels convert sunlight at about twenty percent efficiency. Newer cells do better."),
    "d3": Doc("d3", "Trebuchets threw stones over the walls during a siege. Defenders answered with arrows."),
    "d4": Doc("d4", "Knitting a scarf takes wool and patience."),
    "d5": Doc("d5", "Solar farms in deserts need cleaning robots."),
}
LABELS = {("q1", "d1"): 0, ("q1", "d2"): 3, ("q1", "d5"): 1, ("q2", "d3"): 2, ("q2", "d4"): 0}


def built(seed: int = 0, kinds=None) -> list[P.Probe]:
    drawn = P.draw(LABELS, 2, 10, seed)
    return P.build(drawn, TOPICS, DOCS, seed, kinds)


def by(name: str, seed: int = 0) -> dict[tuple[str, str], P.Probe]:
    return {(p.qid, p.docid): p for p in built(seed, [name])}


def test_the_draw_takes_grade_0_pairs_as_non_relevant_and_grades_at_the_threshold_as_relevant():
    drawn = P.draw(LABELS, 2, 10, 0)
    assert [(q, d) for q, d, _ in drawn.nonrelevant] == [("q1", "d1"), ("q2", "d4")]
    assert [(q, d) for q, d, _ in drawn.relevant] == [("q1", "d2"), ("q2", "d3")]


def test_a_grade_below_the_threshold_but_above_0_is_in_neither_class():
    drawn = P.draw(LABELS, 2, 10, 0)
    assert ("q1", "d5") not in {(q, d) for q, d, _ in drawn.nonrelevant + drawn.relevant}


def test_the_draw_is_the_same_for_a_seed_whatever_the_order_of_the_labels():
    many = {(f"q{i % 7}", f"d{i}"): i % 3 for i in range(300)}
    shuffled = list(many.items())
    random.Random(5).shuffle(shuffled)
    assert P.draw(many, 2, 20, 4) == P.draw(dict(shuffled), 2, 20, 4)


def test_another_seed_draws_other_pairs():
    many = {(f"q{i % 7}", f"d{i}"): i % 3 for i in range(300)}
    assert P.draw(many, 2, 20, 4).nonrelevant != P.draw(many, 2, 20, 5).nonrelevant


def test_the_draw_takes_n_pairs_of_each_class():
    many = {(f"q{i % 7}", f"d{i}"): i % 3 for i in range(300)}
    drawn = P.draw(many, 2, 20, 4)
    assert (len(drawn.nonrelevant), len(drawn.relevant)) == (20, 20)


def test_stuffing_at_the_start_puts_the_query_before_the_untouched_text():
    p = by("stuffing-start")[("q1", "d1")]
    assert p.doc.text == "solar panel efficiency " + DOCS["d1"].text


def test_stuffing_at_the_end_puts_the_query_after_the_untouched_text():
    p = by("stuffing-end")[("q1", "d1")]
    assert p.doc.text == DOCS["d1"].text + " solar panel efficiency"


def test_repeated_stuffing_holds_the_query_repeat_times():
    p = by("stuffing-repeated")[("q1", "d1")]
    assert p.doc.text.count("solar panel efficiency") == P.REPEAT


def test_stuffing_alters_only_non_relevant_pairs():
    assert set(by("stuffing-start")) == {("q1", "d1"), ("q2", "d4")}


def test_injection_puts_an_instruction_between_two_sentences_of_the_passage():
    p = by("injection")[("q1", "d1")]
    head, tail = "Bread rises because yeast ferments sugar.", "The dough doubles in an hour."
    middle = p.doc.text[len(head):-len(tail)].strip()
    assert p.doc.text.startswith(head) and p.doc.text.endswith(tail)
    assert middle in P.INSTRUCTIONS


def test_injection_into_a_passage_of_one_sentence_goes_after_it():
    p = by("injection")[("q2", "d4")]
    assert p.doc.text.startswith(DOCS["d4"].text + " ")


def test_dilution_appends_a_passage_of_another_topic_sharing_no_query_word():
    p = by("dilution")[("q1", "d2")]
    assert p.doc.text.startswith(DOCS["d2"].text + "\n\n")
    appended = p.doc.text[len(DOCS["d2"].text) + 2:]
    assert appended in {DOCS["d3"].text, DOCS["d4"].text}  # d5 says "solar", d1 is q1's own


def test_dilution_alters_only_relevant_pairs():
    assert set(by("dilution")) == {("q1", "d2"), ("q2", "d3")}


def test_a_probe_keeps_the_title_and_gets_an_id_naming_its_pair_and_probe():
    p = by("stuffing-end")[("q1", "d1")]
    assert p.doc.docid.startswith("d1~audit.stuffing-end.")


def test_the_same_seed_builds_the_same_probes():
    assert built(3) == built(3)


def test_a_probe_whose_text_changes_gets_another_id():
    ids = {s: by("injection", s)[("q1", "d1")] for s in range(6)}
    texts = {p.doc.text for p in ids.values()}
    assert len({p.doc.docid for p in ids.values()}) == len(texts) > 1


@pytest.mark.parametrize("name", sorted(P.KINDS))
def test_every_probe_changes_the_text(name):
    assert all(p.doc.text != DOCS[p.docid].text for p in by(name).values())
