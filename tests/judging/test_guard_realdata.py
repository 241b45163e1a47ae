"""The guard on TREC DL 2019: precision on the untouched passages, recall on the held-out
instructions (benchmarks/guard.py prints the whole table; this keeps its figures from falling)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from shared_data import shared_data_path

from qrelkit.data.docs import read_docs
from qrelkit.judging.guard import check
from qrelkit.judging.guard_probes import OBFUSCATIONS, POSITIONS, insert, read_phrasings

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def passages():
    return list(read_docs(shared_data_path("trec-dl-2019", "passages.jsonl")))


def test_at_most_0_2_percent_of_the_dl_2019_passages_are_flagged(passages):
    flagged = [d.docid for d in passages if check(d.text, d.title).flagged]
    assert len(passages) == 10818
    assert len(flagged) <= 21


# Floors under what benchmarks/guard.py measured (docs/guard.md): dev 99.8 %; held-out set 1
# 93.3 % while held out, 100 % after its misses were read; set 2 86.9 %, then 89.6 %; set 3 75.1 %
# (the target is 95 %: not reached on new phrasings).
@pytest.mark.parametrize("name, floor", [("guard_dev.txt", 0.99), ("guard_heldout.txt", 0.99),
                                         ("guard_heldout2.txt", 0.89), ("guard_heldout3.txt", 0.75)])
def test_inserted_instructions_are_flagged(passages, name, floor):
    rng = random.Random(0)
    rows = []
    for p in read_phrasings(BENCH / name):
        for position in POSITIONS:
            for obf_name, obfuscate in OBFUSCATIONS.items():
                text = insert(rng.choice(passages).text, obfuscate(p.text, random.Random(f"0:{p.line}:{obf_name}")),
                              position)
                rows.append(check(text).flagged)
    assert sum(rows) / len(rows) >= floor
