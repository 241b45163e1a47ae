"""The training data of the guard's e5 stage (issue 44): folded texts, labels and their sources.

    from guard_e5_data import Recipe, training_texts
    texts, labels, groups = training_texts(seed=0, exclude={"guard_heldout6.txt"})

Why a module of its own: the e5 stage (``benchmarks/guard_e5.py``, the experiment; its runtime in
``src/`` is built elsewhere) embeds windows of folded text and a classifier on the embeddings
decides. Its first positives were grammar instructions only, which read alike; the human-written
phrasing files, all read by now, are varied and may be training data. A leave-one-set-out
evaluation (``benchmarks/guard_e5_loso.py``) must be able to drop one file, so every text carries
the name of its source (``groups``).

What a recipe gives, in this order:

1. **The grammar part**, exactly ``guard_e5.training_set``'s (same draws from ``random.Random(seed)``):
   ``pos_en`` English and ``pos_lang`` per-language grammar instructions, folded after an
   obfuscation, 30 % with a real sentence before or after (group ``grammar``); the grammars' hard
   negatives (``grammar-hard-negative``); and windows of the first ``neg_docs`` LLMJudge dev
   training passages (three quarters, by CRC-32 of the docid): each one's windows with an n-gram
   score of at least ``threshold - low``, at most 5, plus 2 random ones (``llmjudge``).
2. **Human phrasings** of ``sets`` minus ``exclude`` (group: the file's name), each as the stage
   may see it: folded plain; folded after one obfuscation of :mod:`qrelkit.judging.guard_probes`;
   folded with a real sentence before, after or both; and the windows the n-gram model produces
   when it is inserted (obfuscated) into a training passage: the candidate windows (score at least
   ``threshold - low``) that the passage alone does not have, the best one and up to
   ``windows_per - 1`` others. Each phrasing's draws come from its own seed
   (``seed:file:line``), so a text is the same whichever sets are included, and an embedding
   cache serves every fold.
3. **Near misses** (``llmjudge-near-miss``): the other LLMJudge dev training passages' windows
   whose n-gram score reaches ``threshold - near_low``, at most ``near_cap`` of each passage's
   best ones. These are the web text that lies closest to an instruction.

Never read: TREC DL 2019 (the precision test) and the held-back quarter of LLMJudge dev (the
e5 threshold's calibration; quarter 0, or another one when the trainer cross-fits the threshold). ``GRAMMAR_ONLY`` (``Recipe(sets=(), near_miss=False)``) is
``guard_e5.training_set``; ``RECOMMENDED`` is what the leave-one-set-out evaluation chose.
"""
from __future__ import annotations

import random
import sys
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import guard_grammar as en  # noqa: E402
import guard_grammar_intl as intl  # noqa: E402
from guard_train import _context_sentence, _obfuscate  # noqa: E402

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging import guard_model as gm  # noqa: E402
from qrelkit.judging.guard import fold  # noqa: E402
from qrelkit.judging.guard_probes import OBFUSCATIONS, POSITIONS, insert, read_phrasings  # noqa: E402
from qrelkit.judging.guard_semantic import e5_text, light  # noqa: E402

DATA = HERE.parent / ".." / "shared" / "data"
# The human-written phrasing files, by a short name (the leave-one-set-out folds) and file name.
SETS = {"1": "guard_heldout.txt", "2": "guard_heldout2.txt", "3": "guard_heldout3.txt", "4": "guard_heldout4.txt",
        "5": "guard_heldout5.txt", "6": "guard_heldout6.txt", "own": "guard_own.txt", "dev": "guard_dev.txt"}
GRAMMAR, HARD, LLMJ, NEAR = "grammar", "grammar-hard-negative", "llmjudge", "llmjudge-near-miss"


@dataclass(frozen=True)
class Recipe:
    """What goes into the training set; the defaults of the grammar part are guard_e5.py's."""

    pos_en: int = 600
    pos_lang: int = 50
    neg_docs: int = 900
    low: int = 500  # n-gram score units below the threshold: the windows the stage sees
    sets: tuple[str, ...] = field(default=tuple(SETS.values()))
    windows_per: int = 2  # windows of each inserted phrasing kept as positives
    near_miss: bool = True
    near_low: int = 500
    near_cap: int = 10


GRAMMAR_ONLY = Recipe(sets=(), near_miss=False)
# What guard_e5_loso.py recommends (docs/guard.md, "the e5 stage's training data"): the grammar part
# plus the training passages' best windows down to 700 below the threshold, with a logistic
# regression at C = RECOMMENDED_C (balanced). The human phrasings did not raise the held-out recall.
RECOMMENDED = Recipe(sets=(), near_low=700, near_cap=3)
RECOMMENDED_C = 0.3


def set_file(name: str) -> str:
    """A set's file name from its short name ("6", "own") or its file name."""
    return SETS.get(name, name)


@lru_cache(maxsize=2)
def llmjudge(data: Path = DATA) -> tuple:
    return tuple(read_docs(Path(data) / "llmjudge-dev" / "passages.jsonl"))


FOLDS = 4  # LLMJudge dev's quarters, by CRC-32 of the docid


def quarter(docid: str) -> int:
    """Which quarter of LLMJudge dev a passage is in (0-3, by CRC-32 of its docid)."""
    return zlib.crc32(docid.encode()) % FOLDS


def training_docs(docs, heldback: int = 0) -> list:
    """Three quarters of LLMJudge dev: all but quarter ``heldback``, which calibrates the threshold
    (quarter 0 for the shipped model; the others when the trainer cross-fits)."""
    return [d for d in docs if quarter(d.docid) != heldback]


def candidate_windows(folded: str, low: int) -> list[tuple[int, str]]:
    """(score, text) of the windows of a folded text whose n-gram score reaches ``low``."""
    return [(h.score, folded[h.start:h.end]) for h in gm.hits(folded) if h.score >= low]


def grammar_part(llmj, low: int, r: Recipe, rng: random.Random, mode: str = "folded",
                 heldback: int = 0) -> tuple[list[str], list[int], list[str]]:
    """The grammar part (module docstring, 1), with each text's group; ``guard_e5.training_set``
    is this without the groups. ``mode`` ``original``: each text as the e5 stage reads a window
    in that mode (:func:`qrelkit.judging.guard_semantic.e5_text`), the draws unchanged."""
    norm = fold if mode == "folded" else light
    passages = [d.text for d in llmj]
    instr = sorted({en.instruction(rng) for _ in range(r.pos_en)})
    for lang in intl.LANGS:
        instr += sorted({intl.instruction(lang, rng) for _ in range(r.pos_lang)})
    pos = []
    for t in instr:
        f, x = norm(_obfuscate(t, rng)), rng.random()
        pos.append(f if x >= 0.3 else f"{_context_sentence(passages, rng)} {f}" if x < 0.15
                   else f"{f} {_context_sentence(passages, rng)}")
    hard = [norm(en.hard_negative(rng)) for _ in range(r.pos_en // 3)]
    hard += [norm(intl.hard_negative(lang, rng)) for lang in intl.LANGS for _ in range(r.pos_lang // 3)]
    windows = []
    for d in training_docs(llmj, heldback)[: r.neg_docs]:
        v = fold(d.text)
        hs = list(gm.hits(v))
        top = sorted((h for h in hs if h.score >= low), key=lambda h: -h.score)[:5]
        windows += [e5_text(d.text, v[h.start:h.end], mode) for h in top + rng.sample(hs, min(2, len(hs)))]
    texts = pos + hard + windows
    return texts, [1] * len(pos) + [0] * (len(hard) + len(windows)), \
        [GRAMMAR] * len(pos) + [HARD] * len(hard) + [LLMJ] * len(windows)


def phrasing_views(text: str, passages: list[str], low: int, windows_per: int, rng: random.Random) -> list[str]:
    """One human phrasing as the e5 stage may see it (module docstring, 2); distinct texts."""
    names = sorted(n for n in OBFUSCATIONS if n != "plain")
    obf = [OBFUSCATIONS[rng.choice(names)](text, random.Random(rng.random())) for _ in range(3)]
    out = [fold(text), fold(obf[0])]
    before, after, f = _context_sentence(passages, rng), _context_sentence(passages, rng), fold(obf[1])
    out.append([f"{before} {f}", f"{f} {after}", f"{before} {f} {after}"][rng.randrange(3)])
    passage = rng.choice(passages)
    doc = insert(passage, obf[2], rng.choice(POSITIONS))
    seen = {w for _, w in candidate_windows(fold(passage), low)}
    new = sorted((s, w) for s, w in candidate_windows(fold(doc), low) if w not in seen)
    if new and windows_per > 0:
        best, rest = new[-1][1], [w for _, w in new[:-1]]
        out += [best] + rng.sample(rest, min(windows_per - 1, len(rest)))
    return list(dict.fromkeys(t for t in out if t.strip()))


def human_part(llmj, low: int, r: Recipe, seed: int, exclude: frozenset[str],
               heldback: int = 0) -> tuple[list[str], list[str]]:
    """Positives from the human-written phrasing files, each text with its file's name."""
    passages = [d.text for d in training_docs(llmj, heldback)]
    texts, groups = [], []
    for name in r.sets:
        name = set_file(name)
        if name in exclude:
            continue
        for p in read_phrasings(HERE / name):
            views = phrasing_views(p.text, passages, low, r.windows_per, random.Random(f"{seed}:{name}:{p.line}"))
            texts += views
            groups += [name] * len(views)
    return texts, groups


def near_misses(llmj, threshold: int, r: Recipe, mode: str = "folded", heldback: int = 0) -> list[str]:
    """The best windows (score >= threshold - near_low) of the training passages the grammar
    part did not read."""
    out = []
    for d in training_docs(llmj, heldback)[r.neg_docs:]:
        ws = sorted(candidate_windows(fold(d.text), threshold - r.near_low), key=lambda sw: -sw[0])
        out += [e5_text(d.text, w, mode) for _, w in ws[: r.near_cap]]
    return out


def training_texts(seed: int = 0, exclude: frozenset[str] | set[str] = frozenset(), recipe: Recipe = Recipe(),
                   data: Path = DATA, mode: str = "folded",
                   heldback: int = 0) -> tuple[list[str], list[int], list[str]]:
    """``(texts, labels, groups)``: folded texts, 1 for an instruction, and each text's source.
    ``exclude`` names sets (short or file names) whose phrasings are left out. ``mode``
    ``original``: the texts as the e5 stage reads them in that mode (the grammar part and the near
    misses; the human phrasings are folded only). ``heldback``: the quarter of LLMJudge dev left out
    (:func:`training_docs`)."""
    if mode != "folded" and recipe.sets:
        raise ValueError("the human phrasings are built folded only: a recipe in the original mode has sets=()")
    llmj = llmjudge(Path(data))
    threshold = gm.load().threshold
    low = threshold - recipe.low
    exclude = frozenset(set_file(n) for n in exclude)
    texts, labels, groups = grammar_part(llmj, low, recipe, random.Random(seed), mode, heldback)
    human, hgroups = human_part(llmj, low, recipe, seed, exclude, heldback)
    texts, labels, groups = texts + human, labels + [1] * len(human), groups + hgroups
    if recipe.near_miss:
        near = near_misses(llmj, threshold, recipe, mode, heldback)
        texts, labels, groups = texts + near, labels + [0] * len(near), groups + [NEAR] * len(near)
    return texts, labels, groups


if __name__ == "__main__":
    from collections import Counter

    t, y, g = training_texts()
    print(f"{len(t)} texts, {sum(y)} positives; by group: {dict(Counter(g))}")
