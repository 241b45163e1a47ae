"""Train the guard's classifier and write ``src/qrelkit/judging/guard_model.json.gz`` (issue 44).

    python benchmarks/guard_train.py [--seed 0] [--data ../shared/data] [--out src/qrelkit/judging/guard_model.json.gz]
                                     [--leave-out benchmarks/guard_heldout6.txt] [--weight 12] [--skip-langs sv cs uk]
                                     [--no-more] [--n-press 3000] [--n-more 1500] [--no-broad] [--n-broad 600] [--broad-weight 4] [--margin 25]

Positives: instructions to a judge generated from the grammars (``guard_grammar.py`` in English,
``guard_grammar_intl.py`` with the compositional ``guard_kit*.py`` in eighteen other languages;
N_EN (32,000; 24,000 before set 7) English draws and 2,500 per other language, a tenth held back;
since set 7, ``guard_kit_more.py`` adds words in the ten languages set 7 caught least, with
N_MORE further draws in each, and ``guard_kit_press.py`` pressure without a label word: N_PRESS
English draws and a ``press`` slot in the other languages; ``--no-more --n-en 24000`` draws as before;
since set 9, ``guard_kit_broad.py`` adds the families of set 9's broader brief (threats to the
model, requests to AI answer engines, task changes, authority without a label word, "don't
overthink it", role play) in English and twenty languages with Thai, N_BROAD draws per language
(three times as many in English) from a generator of their own, each giving BROAD_DRAWS windows
drawn as a phrasing's are, and their matched hard negatives (option tables, sort menus, readers'
pleas, citations, sanctions at work, assumptions in mathematics, organisers' notices), every one
of them weighing BROAD_WEIGHT grammar draws; ``--no-broad`` leaves them out), each folded as the guard folds a
document; 40 % of them are first hidden behind one of the obfuscations of
:mod:`qrelkit.judging.guard_probes` (what folding leaves of them is what the classifier reads),
and 40 % also get a sentence of a real passage before and/or after them. Negatives: up to 40
windows (:func:`qrelkit.judging.guard_model.windows`) of each of three quarters of the LLMJudge
dev passages (by a CRC-32 of the docid), the grammars' hard negatives (courts, product ratings,
graders of essays, search engine advice), and the translated interface strings of the
machine's gettext catalogues (``/usr/share/locale``, those languages, English and Thai; real
short sentences such as "Mark as read" and "Ignore all"). TREC DL 2019 is never read: it is the
precision test. Since all of them had been read and measured, the human-written phrasing files
(PHRASING_FILES: guard_dev.txt, guard_own.txt, held-out sets 1-9) are positives too: each
phrasing gives DRAWS windows drawn as benchmarks/guard.py inserts one, each weighing WEIGHT
grammar draws; ``--leave-out FILE`` leaves a set out (a leave-one-set-out estimate, measured
with ``benchmarks/guard.py --phrasings FILE --model OUT``). A new blind set is never listed here.

Model: logistic regression (scikit-learn, liblinear, L2, C = 0.1, balanced classes) over the
features of :func:`qrelkit.judging.guard_model.features`, features seen in fewer than two
training windows dropped; then two rounds of hard-negative mining (each training passage's
highest-scoring window is added as a negative, and the model refitted); weights multiplied by
SCALE and rounded to integers. Threshold: the lowest integer score at which at most one document
(SPARED) of the held-back quarter of LLMJudge dev, and at most 0.5 % of the held-back hard negatives and
catalogue strings, is flagged, plus MARGIN. Printed: the data's sizes, the threshold, the false
positives, and the recall on held-back generated instructions (the classifier alone, and the
rules with and without it) and on ``benchmarks/guard_dev.txt`` (human-written development
phrasings, the classifier alone). Deterministic for a seed on one machine (the catalogues are
the machine's); about 5-10 minutes on 2 busy cores.
"""
from __future__ import annotations

import argparse
import gettext
import gzip
import hashlib
import json
import random
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import guard_grammar as en  # noqa: E402
import guard_grammar_intl as intl  # noqa: E402
import guard_kit_broad as broad  # noqa: E402
import guard_kit_more as more  # noqa: E402
import guard_kit_press as press  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.feature_extraction.text import CountVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging.guard import check, fold  # noqa: E402
from qrelkit.judging.guard_model import FORMAT, Model, best, features, score, sentences, window_of, windows  # noqa: E402
from qrelkit.judging.guard_probes import OBFUSCATIONS, insert, read_phrasings  # noqa: E402

SCALE = 100
DRAWS = 12  # windows per human-written phrasing (obfuscated, with or without a real sentence beside it)
WEIGHT = 12.0  # a phrasing window's weight against a grammar draw's (leave-one-set-out: 1, 4, 12, 24 tried)
PENALTY = "l2"  # scikit-learn's default; L1 (tried: C 0.3 and 1) kept 1,200 features and half the recall
MARGIN = 25  # score units above the threshold's web documents (0.25 in log-odds)
N_EN = 32000  # English grammar draws (24,000 until set 7: the other languages' new draws outweighed English, leave-set-7-out)
N_PRESS = 3000  # English draws of guard_kit_press.py (pressure without a label word)
N_MORE = 1500  # further draws in each of the ten languages of guard_kit_more.py
N_BROAD = 600  # draws of guard_kit_broad.py per language (English three times as many); negatives NEG_BROAD per language
NEG_BROAD = 500
BROAD_DRAWS = 3  # windows per instruction of guard_kit_broad.py (drawn as a phrasing's are)
BROAD_WEIGHT = 4.0  # weight of each of them and of each of its hard negatives (a grammar draw's is 1)
SPARED = 1  # held-back LLMJudge passages (of 1,815) the threshold may flag: one, not the single highest, decides
# the human-written phrasing files (benchmarks/), all read and measured by now: training positives
PHRASING_FILES = ("guard_dev.txt", "guard_own.txt", "guard_heldout.txt", "guard_heldout2.txt", "guard_heldout3.txt",
                  "guard_heldout4.txt", "guard_heldout5.txt", "guard_heldout6.txt", "guard_heldout7.txt",
                  "guard_heldout8.txt", "guard_heldout9.txt")
LOCALES = {"de": "de", "fr": "fr", "es": "es", "it": "it", "pt": "pt_BR", "nl": "nl", "zh": "zh_CN", "ja": "ja",
           "ko": "ko", "ru": "ru", "ar": "ar", "pl": "pl", "tr": "tr", "hi": "hi", "vi": "vi", "id": "id"}
# languages of set 6 that the grammar lacks: their interface strings are negatives (drawn with a
# separate generator, so the strings of the languages above stay the same), lest the phrasings in
# them teach that the language itself is a sign of an instruction
EXTRA_LOCALES = {"sv": "sv", "cs": "cs", "uk": "uk", "th": "th"}


def _held_back(docid: str) -> bool:
    return zlib.crc32(docid.encode()) % 4 == 0


def _obfuscate(text: str, rng: random.Random, p: float = 0.4) -> str:
    if rng.random() >= p:
        return text
    name = rng.choice(sorted(OBFUSCATIONS))
    return OBFUSCATIONS[name](text, random.Random(rng.random()))


def generate(n_en: int, n_lang: int, rng: random.Random, langs: tuple[str, ...] = intl.LANGS, n_press: int = 0,
             n_more: int = 0) -> list[str]:
    """Unique instructions: n_en English, n_lang in each other language of ``langs`` (n_lang +
    n_more in the languages of ``guard_kit_more.py``), and n_press English ones that press the
    judge without a label word."""
    out = {en.instruction(rng) for _ in range(n_en)}
    out |= {press.english(rng) for _ in range(n_press)}
    for lang in langs:
        out |= {intl.instruction(lang, rng) for _ in range(n_lang + (n_more if lang in more.MORE else 0))}
    return sorted(out)


def generate_broad(n: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """The families of set 9's brief (``guard_kit_broad.py``): unique instructions, n in each language
    (3n in English), and unique hard negatives on the same subjects, NEG_BROAD in each (3x in English)."""
    pos, neg = set(), set()
    for lang in broad.LANGS:
        k = 3 if lang == "en" else 1
        pos |= {broad.instruction(lang, rng) for _ in range(n * k)}
        neg |= {broad.negative(lang, rng) for _ in range(NEG_BROAD * k)}
    return sorted(pos), sorted(neg - pos)


def _context_sentence(passages: list[str], rng: random.Random) -> str:
    text = fold(rng.choice(passages))
    spans = sentences(text)
    a, b = rng.choice(spans)
    return text[a:b].strip()


def positive_windows(instructions: list[str], passages: list[str], rng: random.Random) -> list[list[list[str]]]:
    """The tokens of each instruction, folded after an obfuscation, alone or with a neighbour."""
    out = []
    for text in instructions:
        folded = fold(_obfuscate(text, rng))
        out.append(window_of(folded))
        r = rng.random()
        if r < 0.15:
            out.append(window_of(_context_sentence(passages, rng) + " " + folded))
        elif r < 0.3:
            out.append(window_of(folded + " " + _context_sentence(passages, rng)))
        elif r < 0.4:
            out.append(window_of(f"{_context_sentence(passages, rng)} {folded} {_context_sentence(passages, rng)}"))
    return [t for t in out if t]


def phrasing_windows(texts: list[str], passages: list[str], draws: int, rng: random.Random) -> list[list[list[str]]]:
    """``draws`` windows of each human-written phrasing, each drawn as benchmarks/guard.py
    inserts one: under one of the obfuscations half the time, then folded; alone, or with a
    sentence of a real passage before, after or on both sides."""
    out = []
    for text in texts:
        for _ in range(draws):
            folded = fold(_obfuscate(text, rng, 0.5))
            r = rng.random()
            if r < 0.2:
                folded = f"{_context_sentence(passages, rng)} {folded}"
            elif r < 0.4:
                folded = f"{folded} {_context_sentence(passages, rng)}"
            elif r < 0.5:
                folded = f"{_context_sentence(passages, rng)} {folded} {_context_sentence(passages, rng)}"
            out.append(window_of(folded))
    return [t for t in out if t]


def phrasings(names: list[str], leave_out: list[str]) -> list[str]:
    """The texts of the phrasing files ``names`` (under benchmarks/) except those of ``leave_out``,
    each text once (a leave-one-set-out run leaves a set out and measures it)."""
    texts: set[str] = set()
    for name in names:
        if Path(name).name not in {Path(x).name for x in leave_out}:
            texts |= {p.text for p in read_phrasings(HERE / Path(name).name)}
    return sorted(texts)


def document_windows(text: str, rng: random.Random, cap: int = 40) -> list[list[list[str]]]:
    """A document's windows (sentences' tokens), at most ``cap`` of them (drawn at random)."""
    ws = [parts for _, _, parts in windows(fold(text))]
    return ws if len(ws) <= cap else rng.sample(ws, cap)


def catalogue_strings(rng: random.Random, per_lang: int, locales: dict[str, str] = LOCALES,
                      english: bool = True) -> dict[str, list[str]]:
    """Translated interface strings (msgid -> msgstr) of the gettext catalogues on this machine
    (and, with ``english``, their English originals)."""
    out: dict[str, list[str]] = {}
    root = Path("/usr/share/locale")
    originals: set[str] = set()
    for lang, loc in locales.items():
        strings: set[str] = set()
        for mo in sorted((root / loc / "LC_MESSAGES").glob("*.mo")) if root.exists() else []:
            try:
                catalog = gettext.GNUTranslations(mo.open("rb"))._catalog  # type: ignore[attr-defined]
            except (OSError, UnicodeDecodeError):
                continue
            for k, v in catalog.items():
                if isinstance(k, str) and isinstance(v, str) and 12 <= len(v) <= 300 and "%" not in v:
                    strings.add(v.strip())
                    if 12 <= len(k) <= 300 and "%" not in k:
                        originals.add(k.strip())
        out[lang] = rng.sample(sorted(strings), min(per_lang, len(strings)))
    if english:
        out["en"] = rng.sample(sorted(originals), min(per_lang * 2, len(originals)))
    return out


def _model(weights: dict[str, int], bias: int) -> Model:
    return Model(weights, bias, 0, SCALE, {})


def _scores(model: Model, windows_: list[list[list[str]]]) -> np.ndarray:
    return np.array([score(model, t) for t in windows_], dtype=np.int64)


def _doc_score(model: Model, text: str) -> int:
    hit = best(fold(text), model)
    return hit.score if hit is not None else model.bias


def mine(model: Model, folded_docs: list[str], floor: int = -100) -> list[list[list[str]]]:
    """Hard negatives: each training passage's highest-scoring window, when it scores above
    ``floor`` (a window of a long page that the random draw of :func:`document_windows` missed,
    or text unlike any the model has seen, such as timetables and style sheets)."""
    out = []
    for text in folded_docs:
        hit = best(text, model)
        if hit is not None and hit.score > floor:
            out += [parts for a, b, parts in windows(text) if a == hit.start and b == hit.end]
    return out


def train(pos: list[list[list[str]]], neg: list[list[list[str]]], c: float,
          extra: list[list[list[str]]] = (), extra_weight: float = 1.0,
          weighted: tuple[tuple[list[list[list[str]]], int, float], ...] = ()) -> tuple[dict[str, int], int]:
    """The fitted integer weights and bias; ``extra`` are further positives (the human-written
    phrasings' draws), each window weighing ``extra_weight`` grammar draws; ``weighted`` are
    further (windows, label, weight) groups (``guard_kit_broad.py``'s draws and hard negatives)."""
    vec = CountVectorizer(analyzer=features, min_df=2, lowercase=False)
    more_windows = [t for group, _, _ in weighted for t in group]
    X = vec.fit_transform(list(pos) + list(extra) + neg + more_windows)
    y = np.array([1] * (len(pos) + len(extra)) + [0] * len(neg) + [label for g, label, _ in weighted for _ in g])
    w = np.array([1.0] * len(pos) + [extra_weight] * len(extra) + [1.0] * len(neg)
                 + [weight for g, _, weight in weighted for _ in g])
    clf = LogisticRegression(C=c, solver="liblinear", class_weight="balanced", max_iter=2000, random_state=0)
    clf.fit(X, y, sample_weight=w)
    names = vec.get_feature_names_out()
    ints = np.rint(clf.coef_[0] * SCALE).astype(np.int64)
    weights = {str(n): int(w) for n, w in zip(names, ints) if w != 0}
    return weights, int(round(float(clf.intercept_[0]) * SCALE))


def threshold(doc_scores: list[int], short_scores: np.ndarray, margin: int = MARGIN) -> int:
    """The lowest score that flags at most SPARED held-back web documents (one of 1,815, 0.055 %)
    and at most 0.5 % of the held-back hard negatives and catalogue strings, plus MARGIN. Why not
    zero documents: the single highest-scoring passage of the quarter decided the threshold alone
    (a medical form, "evaluation document ... provide results", 80 points above the next), so it
    moved by 60-90 points from one training run to the next."""
    t = sorted(doc_scores)[-1 - SPARED] + 1
    if len(short_scores):
        t = max(t, int(np.quantile(short_scores, 0.995, method="higher")) + 1)
    return t + margin


def dev_recall(model: Model, t: int, passages: list[str], seed: int, name: str = "guard_dev.txt") -> tuple[int, int]:
    """How many of a phrasing file's phrasings, inserted in held-back passages at three places and
    under each obfuscation, reach the threshold (the classifier alone)."""
    rng, hits, n = random.Random(seed), 0, 0
    for p in read_phrasings(HERE / Path(name).name):
        for position in ("start", "middle", "end"):
            for name, obfuscate in OBFUSCATIONS.items():
                text = insert(rng.choice(passages), obfuscate(p.text, random.Random(f"{seed}:{p.line}:{name}")), position)
                hits += _doc_score(model, text) >= t
                n += 1
    return hits, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, default=HERE.parent / "src/qrelkit/judging/guard_model.json.gz")
    ap.add_argument("--c", type=float, default=0.1, help="inverse regularisation strength (tried: 0.04, 0.1, 0.15, 0.5, 2)")
    ap.add_argument("--n-en", type=int, default=N_EN)
    ap.add_argument("--n-lang", type=int, default=2500)
    ap.add_argument("--mining", type=int, default=2, help="rounds of hard-negative mining")
    ap.add_argument("--no-catalogues", dest="catalogues", action="store_false",
                    help="leave out the machine's gettext strings (a model that depends on the repository alone)")
    ap.add_argument("--phrasings", nargs="*", default=list(PHRASING_FILES),
                    help="human-written phrasing files (benchmarks/) used as positives; none: the grammar alone")
    ap.add_argument("--skip-langs", nargs="*", default=[],
                    help="grammar languages left out (sv cs uk: the draws of the others as before guard_kit_north.py)")
    ap.add_argument("--no-more", dest="more", action="store_false",
                    help="leave out guard_kit_more.py and guard_kit_press.py (with --n-en 24000: the draws before set 7)")
    ap.add_argument("--n-press", type=int, default=N_PRESS, help="English pressure draws (guard_kit_press.py)")
    ap.add_argument("--n-more", type=int, default=N_MORE, help="further draws in each language of guard_kit_more.py")
    ap.add_argument("--no-broad", dest="broad", action="store_false",
                    help="leave out guard_kit_broad.py (set 9's families and their hard negatives)")
    ap.add_argument("--n-broad", type=int, default=N_BROAD, help="draws per language of guard_kit_broad.py")
    ap.add_argument("--broad-weight", type=float, default=BROAD_WEIGHT, help="weight of a guard_kit_broad.py window")
    ap.add_argument("--margin", type=int, default=MARGIN, help="score units added to the threshold")
    ap.add_argument("--leave-out", nargs="*", default=[], help="phrasing files left out of training and measured")
    ap.add_argument("--draws", type=int, default=DRAWS, help="windows drawn per human-written phrasing")
    ap.add_argument("--weight", type=float, default=WEIGHT, help="weight of a phrasing's window (a grammar draw's is 1)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    docs = list(read_docs(a.data / "llmjudge-dev" / "passages.jsonl"))
    train_docs = [d.text for d in docs if not _held_back(d.docid)]
    dev_docs = [d.text for d in docs if _held_back(d.docid)]
    langs = tuple(x for x in intl.LANGS if x not in a.skip_langs)
    if a.more:
        more.extend(intl.KITS)
    instructions = generate(a.n_en, a.n_lang, rng, langs, a.n_press if a.more else 0, a.n_more if a.more else 0)
    rng.shuffle(instructions)
    cut = len(instructions) // 10
    dev_instr, train_instr = instructions[:cut], instructions[cut:]
    pos = positive_windows(train_instr, train_docs, rng)
    neg_short = [en.hard_negative(rng) for _ in range(8000)]
    for lang in langs:
        neg_short += [intl.hard_negative(lang, rng) for _ in range(600)]
    if a.more:
        neg_short += [press.english_negative(rng) for _ in range(2000)]
    catalogues = catalogue_strings(rng, 3000) if a.catalogues else {}
    if a.catalogues:
        catalogues |= catalogue_strings(random.Random(f"{a.seed}:extra"), 3000, EXTRA_LOCALES, english=False)
    for strings in catalogues.values():
        neg_short += strings
    catalogue_hash = hashlib.sha256("\n".join(s for k in sorted(catalogues) for s in catalogues[k]).encode()).hexdigest()[:16]
    print(f"gettext catalogue strings: {sum(map(len, catalogues.values())):,} (sha256 {catalogue_hash})", flush=True)
    neg_short = sorted(set(neg_short))
    rng.shuffle(neg_short)
    cut = len(neg_short) // 10
    dev_short, train_short = neg_short[:cut], neg_short[cut:]
    neg = [w for text in train_docs for w in document_windows(text, rng)]
    neg += [window_of(fold(s)) for s in train_short]
    neg = [t for t in neg if t]
    print(f"training windows: {len(pos):,} positive ({len(train_instr):,} instructions), {len(neg):,} negative "
          f"({len(train_docs):,} LLMJudge passages, {len(train_short):,} short sentences)", flush=True)
    human = phrasings(a.phrasings, a.leave_out)
    extra = phrasing_windows(human, train_docs, a.draws, random.Random(f"{a.seed}:phrasings"))
    print(f"human-written phrasings: {len(human):,} (left out: {', '.join(a.leave_out) or 'none'}), "
          f"{len(extra):,} windows of weight {a.weight:g}", flush=True)
    weighted: tuple = ()
    if a.broad:
        broad_pos, broad_neg = generate_broad(a.n_broad, random.Random(f"{a.seed}:broad"))
        brng = random.Random(f"{a.seed}:broad-windows")
        weighted = ((phrasing_windows(broad_pos, train_docs, BROAD_DRAWS, brng), 1, a.broad_weight),
                    ([t for t in (window_of(fold(s)) for s in broad_neg) if t], 0, a.broad_weight))
        print(f"guard_kit_broad.py: {len(broad_pos):,} instructions ({len(weighted[0][0]):,} windows), "
              f"{len(weighted[1][0]):,} hard negatives, each of weight {a.broad_weight:g}", flush=True)
    folded_train = [fold(t) for t in train_docs]
    weights, bias = train(pos, neg, a.c, extra, a.weight, weighted)
    for round_ in range(a.mining):
        hard = mine(_model(weights, bias), folded_train)
        neg += hard
        print(f"mining round {round_ + 1}: {len(hard):,} highest-scoring windows of training passages added", flush=True)
        weights, bias = train(pos, neg, a.c, extra, a.weight, weighted)
    model = _model(weights, bias)
    doc_scores = [_doc_score(model, t) for t in dev_docs]
    short_scores = _scores(model, [window_of(fold(s)) for s in dev_short])
    t = threshold(doc_scores, short_scores, a.margin)
    dev_pos = _scores(model, positive_windows(dev_instr, dev_docs, random.Random(a.seed + 1)))
    hits, n = dev_recall(model, t, dev_docs, a.seed)
    print(f"features {len(weights):,}; bias {bias}; threshold {t} (held-back documents' highest scores "
          f"{sorted(doc_scores)[-3:][::-1]})")
    print(f"held back: {sum(s >= t for s in doc_scores)} of {len(doc_scores):,} LLMJudge passages flagged; "
          f"{int((short_scores >= t).sum())} of {len(short_scores):,} short negatives")
    alone = _scores(model, [window_of(fold(i)) for i in dev_instr])
    ruled = [check(insert(dev_docs[k % len(dev_docs)], i, "middle"), learned=False).flagged for k, i in enumerate(dev_instr)]
    either = [r or _doc_score(model, insert(dev_docs[k % len(dev_docs)], i, "middle")) >= t
              for k, (r, i) in enumerate(zip(ruled, dev_instr))]
    print(f"held-back generated instructions inserted in held-back passages: rules {sum(ruled) / len(ruled):.1%}, "
          f"rules or classifier {sum(either) / len(either):.1%} of {len(ruled):,}")
    print(f"recall: generated (held back) {float((dev_pos >= t).mean()):.1%} of {len(dev_pos):,} windows, "
          f"{float((alone >= t).mean()):.1%} of {len(alone):,} plain instructions alone; "
          f"guard_dev.txt inserted {hits / n:.1%} of {n:,}"
          f"{' (a training file)' if 'guard_dev.txt' in {Path(x).name for x in a.phrasings} - {Path(x).name for x in a.leave_out} else ''}")
    for name in a.leave_out:
        hits, n = dev_recall(model, t, dev_docs, a.seed, name)
        print(f"left out {Path(name).name}: the classifier alone flags {hits / n:.1%} of {n:,} insertions "
              "in held-back LLMJudge passages")
    data = {"format": FORMAT, "weights": dict(sorted(weights.items())), "bias": bias, "threshold": t, "scale": SCALE,
            "meta": {"seed": a.seed, "c": a.c, "penalty": PENALTY, "mining": a.mining, "script": "benchmarks/guard_train.py", "positives": len(pos),
                     "negatives": len(neg), "instructions": len(train_instr),
                     "data_sha256": hashlib.sha256("\n".join(train_instr).encode()).hexdigest()[:16],
                     "catalogues_sha256": catalogue_hash if a.catalogues else None,
                     "phrasings": [Path(x).name for x in a.phrasings if Path(x).name not in {Path(y).name for y in a.leave_out}],
                     "skip_langs": a.skip_langs, "more": a.more, "n_press": a.n_press if a.more else 0,
                     "n_more": a.n_more if a.more else 0, "broad": a.broad,
                     "n_broad": a.n_broad if a.broad else 0,
                     "broad_weight": a.broad_weight if a.broad else 0, "phrasing_draws": a.draws, "phrasing_weight": a.weight,
                     "phrasings_sha256": hashlib.sha256("\n".join(human).encode()).hexdigest()[:16]}}
    if a.margin != MARGIN:  # recorded only when not the default (a default run's file stays as it was)
        data["meta"]["margin"] = a.margin
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False).encode("utf-8")
    a.out.write_bytes(gzip.compress(raw, mtime=0))
    print(f"wrote {a.out} ({a.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
