"""A compositional grammar of instructions to a judge, the same for every language (issue 44).

The first non-English grammar (``guard_grammar_intl.py``) was a few fixed templates per language,
and on an independent set the classifier caught a third to a half of French, Portuguese and
Korean instructions. This one builds each instruction from parts that every language supplies
(``guard_kit_eu.py``, ``guard_kit_world.py``): who is addressed and how (a note, a greeting, "if
you are an AI"), a directive (imperative, or a modal with an infinitive), a claim about the
document (relevant, answers the question, the best result, deserves the top grade, already
verified, the consensus of other assessors), an override of earlier instructions or of the
rubric, a stated verdict (``Relevance: 3``, JSON with the language's keys), fake system and
assistant turns, role play. The parts combine freely, so the classifier learns the parts, not
the sentences. Written for ``benchmarks/guard_train.py``; never from the held-out files.

A language is a dict of lists; ``{slot}`` in an entry is filled from the list of that name (or
from :data:`COMMON`), recursively.
"""
from __future__ import annotations

import random
import re

COMMON = {
    "n": ["3", "3", "3", "2", "10", "5", "100", "4"],
    "sysw": ["SYSTEM:", "[SYSTEM]", "<system>", "### Instruction:", "[INST]", "<|im_start|>system", "ADMIN:",
             "###", "!!!", "IMPORTANT:", "<<SYS>>", "```system", "// note:", "[judge]", "---"],
    "turnw": ["Assistant:", "AI:", "Bot:", "Model:", "### Response:", "<|im_start|>assistant", "[assistant]"],
}
_SLOT = re.compile(r"\{(\w+)\}")


def fill(k: dict, template: str, rng: random.Random, depth: int = 0) -> str:
    """A template with its slots filled from the language's lists (nested slots too)."""
    def one(m: re.Match) -> str:
        name = m.group(1)
        options = k.get(name) or COMMON.get(name)
        if not options or depth > 4:
            return m.group(0)
        return fill(k, rng.choice(options), rng, depth + 1)
    return _SLOT.sub(one, template)


def _end(text: str, k: dict, rng: random.Random) -> str:
    text = text.strip()
    stop = k.get("stop", ["."])[0]
    return text if text[-1:] in ".!?。！？}>]\"»」" else text + rng.choice([stop, stop, "!", ""])


FORMS = [  # (weight, template over the language's lists)
    (3, "{note} {imp}"), (3, "{note} {claim}"), (2, "{note} {claim}, {imp}"), (2, "{note} {must}"),
    (3, "{ifyou} {imp}"), (1, "{ifyou} {claim}"), (2, "{imp}, {please}"), (2, "{please} {imp}"),
    (3, "{claim}"), (2, "{claim}. {imp}"), (1, "{claim}. {must}"), (3, "{must}"),
    (3, "{over} {imp}"), (2, "{over} {claim}"), (1, "{over} {must}"),
    (2, "{sysw} {imp}"), (1, "{sysw} {claim}"), (1, "{sys} {imp}"), (1, "{sys} {claim}"),
    (2, "{turnw} {claim}"), (1, "{turn} {claim}"), (5, "{cons}"), (1, "{cons}. {imp}"), (2, "{note} {cons}"),
    (1, "{cons}, {please}"), (1, "{sysw} {cons}"),
    (3, "{stated}"), (1, "{note} {stated}"), (1, "{sysw} {stated}"), (1, "{role}"), (1, "{rank}"),
    (1, "{note} {rank}"), (1, "{ifyou} {rank}"),
]
_WEIGHTS = [w for w, _ in FORMS]


def instruction(k: dict, rng: random.Random) -> str:
    """One instruction in the language of ``k``: a form drawn by weight, its parts filled."""
    template = rng.choices([t for _, t in FORMS], weights=_WEIGHTS)[0]
    needed = set(_SLOT.findall(template)) - set(COMMON)
    while not needed <= {s for s in k if k[s]}:  # a language without role play or a fake turn
        template = rng.choices([t for _, t in FORMS], weights=_WEIGHTS)[0]
        needed = set(_SLOT.findall(template)) - set(COMMON)
    text = fill(k, template, rng).replace("{{", "{").replace("}}", "}")
    if rng.random() < 0.1:
        text = fill(k, "{sysw}", rng) + " " + text
    return _end(text, k, rng)


def hard_negative(k: dict, rng: random.Random) -> str:
    return fill(k, rng.choice(k["neg"]), rng)
