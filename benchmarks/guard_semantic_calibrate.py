"""The e5 stage's threshold from a large pool of web text it never trained on (issue 44).

    from guard_semantic_calibrate import Pool, pool_of, rate_threshold, bootstrap

Why: the first rule ("at most one of the 1,815 held-back LLMJudge dev passages") was decided by
one or two windows. When the n-gram classifier changed which windows reach e5, it moved from 0.79
to 0.52, and the whole guard then flagged 44 DL 2019 passages instead of 10 (docs/guard.md,
"Which threshold ships"). Here the threshold flags at most a *rate* of a pool several times
larger, and the bootstrap says how far it moves:

- **LLMJudge dev, cross-fitted**: the trainer fits one model per quarter of LLMJudge dev
  (:func:`guard_e5_data.training_docs` with ``heldback``), and each passage is scored by the
  model that did not train on it. All 7,224 passages are then held back once.
- **gettext strings not drawn for training**: interface strings in 21 languages
  (:func:`guard_train.catalogue_strings`), scored by the shipped model. They are a second kind of
  text (short, not English), a check on the stage's precision outside English web prose.

A pool member is a document: the rules and the n-gram classifier read it first, and one they
flag is never e5's flag (``None``). Otherwise its score is its best candidate window's
probability (0 without a candidate), through :func:`qrelkit.judging.guard_semantic.candidates`
with a *wider* selection than the product's: each view's best n-gram window (narrowed to its
best sentence) and its best sentence within 700 n-gram units of the threshold (the trainer's
``--pool-low``; the product's are 300 and 400), the range the training's near misses come from.
Why: the n-gram classifier trained on LLMJudge dev's quarters 1-3, with each passage's best
window mined as a hard negative, so through the product's selection those quarters send e5
almost nothing (21 windows from quarter 0's 1,815 passages, 21 from the other 5,409), and a rate
over them would count passages e5 never reads. Within 700 the quarters send alike (767 windows
from quarter 0, 682-697 from each other one), and the windows are a superset of what the
product's selection sends, so a threshold that flags at most a rate of these passages flags at
most that rate of such text through the product's selection too. DL 2019 and the manual pages
are never read here: they measure the result.
"""
from __future__ import annotations

import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
from guard_e5_data import quarter  # noqa: E402
from guard_train import EXTRA_LOCALES, LOCALES, catalogue_strings  # noqa: E402

from qrelkit.judging import guard_semantic as gs  # noqa: E402
from qrelkit.judging.guard import check, views_of  # noqa: E402


@dataclass(frozen=True)
class Pool:
    """Documents of one kind: each one's fold (its LLMJudge quarter; 0 for gettext) and the
    windows e5 reads of it (``None``: the rules or the n-gram classifier flag it)."""

    name: str
    folds: tuple[int, ...]
    windows: tuple[Optional[tuple[str, ...]], ...]


def windows_of(text: str, title: Optional[str], selection: gs.SemanticModel) -> Optional[tuple[str, ...]]:
    """The windows e5 reads of a document, as :func:`guard.check_many` sends them (None: flagged before)."""
    if check(text, title, semantic=False).flagged:
        return None
    full, views = views_of(text, title)
    return tuple(c.text for vi, v in enumerate(views) for c in gs.candidates(v, vi, selection, full))


def pool_of(name: str, docs: Sequence[tuple[int, str, Optional[str]]], selection: gs.SemanticModel) -> Pool:
    """A pool from ``(fold, text, title)`` documents; ``selection`` gives the windows (its weights
    are not read: every fold's model has the same selection)."""
    return Pool(name, tuple(f for f, _, _ in docs), tuple(windows_of(t, ti, selection) for _, t, ti in docs))


def llmjudge_pool(llmj: Sequence, selection: gs.SemanticModel) -> Pool:
    return pool_of("LLMJudge dev, cross-fitted", [(quarter(d.docid), d.text, d.title) for d in llmj], selection)


def gettext_pool(seed: int, per_lang: int, trained_on: set[str], selection: gs.SemanticModel) -> Pool:
    """``per_lang`` interface strings per language (twice as many English), none of the
    training's (``trained_on``), drawn with their own seed."""
    drawn = catalogue_strings(random.Random(f"pool:{seed}"), per_lang + 200, {**LOCALES, **EXTRA_LOCALES})
    strings = [s for lang in sorted(drawn) for s in [t for t in drawn[lang] if t not in trained_on]
               [: per_lang * (2 if lang == "en" else 1)]]
    return pool_of("gettext, not trained on", [(0, s, None) for s in strings], selection)


def scores(pool: Pool, prob: Callable[[int, list[str]], list[float]], only: Optional[int] = None) -> np.ndarray:
    """Each document's best probability (-1: flagged before e5; 0: no window), by ``prob(fold,
    texts)`` (the model of that fold); ``only``: the documents of one fold."""
    out = np.full(len(pool.windows), np.nan)
    for f in sorted(set(pool.folds)) if only is None else [only]:
        idx = [i for i, g in enumerate(pool.folds) if g == f]
        flat = [t for i in idx for t in (pool.windows[i] or ())]
        it = iter(prob(f, flat) if flat else [])
        for i in idx:
            ws = pool.windows[i]
            out[i] = -1.0 if ws is None else max([next(it) for _ in ws], default=0.0)
    return out if only is None else out[[i for i, g in enumerate(pool.folds) if g == only]]


def rate_threshold(s: np.ndarray, rate: float) -> float:
    """The lowest threshold at which the stage flags at most ``rate`` of the documents: above the
    (k+1)-th highest score, k = floor(rate * n) (ties at that score all stay unflagged)."""
    k = int(math.floor(rate * len(s) + 1e-9))
    top = np.sort(s)[::-1]
    return float(np.nextafter(top[k], 1.0)) if k < len(top) else 0.0


def at_most(s: np.ndarray, k: int) -> float:
    """The first rule: the lowest threshold that flags at most ``k`` documents."""
    top = np.sort(s)[::-1]
    return float(np.nextafter(top[k], 1.0)) if k < len(top) else 0.0


def bootstrap(s: np.ndarray, rate: float, n: int, seed: int) -> np.ndarray:
    """The rate threshold of ``n`` resamples (with replacement) of the pool: its spread."""
    rng = np.random.default_rng(seed)
    return np.array([rate_threshold(s[rng.integers(0, len(s), len(s))], rate) for _ in range(n)])


def flagged(s: np.ndarray, threshold: float) -> int:
    return int((s >= threshold).sum())


__all__ = ["Pool", "at_most", "bootstrap", "flagged", "gettext_pool", "llmjudge_pool", "pool_of", "quarter",
           "rate_threshold", "scores", "windows_of"]
