"""Variants of the guard's embedding stage on one table: classifier x selection x text (issue 44).

    python benchmarks/guard_e5_variants.py [--classifiers grammar-c1 gnear700-c0.3]
                                           [--selections low=300 low=400,text=original ...]
                                           [--ngram MODEL.json.gz] [--cache /tmp/e5sel_cache] [--data ../shared/data] [--json]

A classifier is ``RECIPE-cC`` (``grammar``: ``guard_e5_data.GRAMMAR_ONLY``, the shipped recipe;
``gnear700``: ``guard_e5_data.RECOMMENDED``, near-miss web windows down to the n-gram threshold
- 700), always with 50 gettext strings per language as negatives, as ``guard_semantic_train.py``
fits it (seed 0, balanced). A selection is the shipped model's ``low``, ``per_doc``, ``sentence``,
``unknown`` with some replaced, plus ``text``: ``folded`` (the shipped mode) or ``original`` (the
window's original text through :func:`qrelkit.judging.guard_semantic.light`, marks kept); a
classifier is trained on texts of the same mode. For each pair this prints, with the threshold
recalibrated through the selection on the held-back quarter of LLMJudge dev (at most one of its
passages flagged, as the trainer does):

- DL 2019: windows and e5 tokens sent (what decides the seconds), passages flagged by the whole
  guard (the rules and the n-gram classifier flag ``dl_guard`` of them);
- manual-page paragraphs flagged (``guard_manpages.py``'s paragraphs, 1,500 per language);
- recall of the whole guard (``--ngram``: with that n-gram model) on held-out set 7 (``guard_heldout7.txt``, a development set now) and
  sets 4-6 and ``guard_own.txt`` (the n-gram classifier has trained on these; the e5 recipes here
  read none of them, so for the e5 stage each set is left out), inserted as ``benchmarks/guard.py``
  inserts them (seed 0).

The probability is numpy's (the product sums with math.fsum: a window at the threshold itself
could differ in the last bit). Embeddings are cached by text in ``--cache``/e5_cache.npz.
"""
from __future__ import annotations

import argparse
import dataclasses
import gzip
import hashlib
import json
import os
import pickle
import random
import sys
import time
import zlib
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "passive")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import guard_e5_data as D  # noqa: E402
import numpy as np  # noqa: E402
from guard_e5 import Embedder  # noqa: E402
from guard_e5_loso import gain  # noqa: E402
from guard_manpages import LANGS as MAN_LANGS  # noqa: E402
from guard_manpages import paragraphs  # noqa: E402
from guard_train import catalogue_strings  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging import guard_model as gm  # noqa: E402
from qrelkit.judging import guard_probes  # noqa: E402
from qrelkit.judging import guard_semantic as gs  # noqa: E402
from qrelkit.judging.guard import _COMMENT, check, fold, views_of  # noqa: E402

SETS = {"7": "guard_heldout7.txt", "4": "guard_heldout4.txt", "5": "guard_heldout5.txt", "6": "guard_heldout6.txt",
        "own": "guard_own.txt"}
RECIPES = {"grammar": D.GRAMMAR_ONLY, "gnear700": D.RECOMMENDED}


def _doc(full: str, views: list[str]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """A document the first two stages let pass: its text, its folded views and each view's original."""
    return full, tuple(views), (full, _COMMENT.sub("", full))[:len(views)]


def _passing(items) -> tuple[int, list]:
    out, n = [], 0
    for text, title in items:
        n += 1
        full, views = views_of(text, title)
        if not check(text, title, semantic=False).flagged:
            out.append(_doc(full, views))
    return n, out


def prepare(data: Path, cache: Path, model_file: Path) -> dict:
    """What every variant reads, computed once per n-gram model and kept in ``cache``."""
    tag = hashlib.sha1(model_file.read_bytes() + b"".join((HERE / f).read_bytes() for f in SETS.values())).hexdigest()[:12]
    path = cache / f"variants_prep_{tag}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes())
    t0 = time.perf_counter()
    dl = list(read_docs(data / "trec-dl-2019" / "passages.jsonl"))
    llmj = [d for d in read_docs(data / "llmjudge-dev" / "passages.jsonl") if not zlib.crc32(d.docid.encode()) % 4]
    n_dl, dl_pass = _passing((d.text, d.title) for d in dl)
    prep = {"dl_n": n_dl, "dl": dl_pass, "held": _passing((d.text, d.title) for d in llmj)[1], "sets": {}, "man": {}}
    for k, name in SETS.items():
        rows = []
        for i in guard_probes.insertions(HERE / name, dl, 0):
            g = check(i.text, semantic=False).flagged
            rows.append((i.phrasing.lang, g, None if g else _doc(*views_of(i.text))))
        prep["sets"][k] = rows
    for lang in MAN_LANGS:
        ps = paragraphs(lang, 1500)
        if ps:
            prep["man"][lang] = _passing((p, None) for p in ps)
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(prep))
    print(f"prepared in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return prep


def selection(spec: str, base: gs.SemanticModel) -> tuple[gs.SemanticModel, str]:
    """``low=400,per_doc=2,text=original``: the shipped selection with those values, and the text mode."""
    kw: dict = {}
    mode = "folded"
    for part in filter(None, spec.split(",")):
        key, value = part.split("=")
        if key == "text":
            mode = value
        else:
            kw[key] = bool(int(value)) if key == "sentence" else float(value) if key == "unknown" else int(value)
    return dataclasses.replace(base, **kw), mode


def windows(doc, model: gs.SemanticModel, mode: str) -> list[str]:
    """The texts of one document that e5 reads under a selection (as the product reads them)."""
    full, views, _ = doc
    model = dataclasses.replace(model, text=mode)
    return [c.text for vi, v in enumerate(views) for c in gs.candidates(v, vi, model, full)]


def classifier(name: str, mode: str, embed: Embedder, data: Path) -> tuple[np.ndarray, float]:
    """``RECIPE-cC[-gN]`` (N gettext strings per language, 50 by default) fitted as
    guard_semantic_train.py fits it, on texts of ``mode``."""
    recipe, c, *g = name.split("-")
    texts, y, _ = D.training_texts(0, recipe=RECIPES[recipe], data=data, mode=mode)
    norm = fold if mode == "folded" else gs.light
    strings = catalogue_strings(random.Random(0), int(g[0].removeprefix("g")) if g else 50)
    cat = [norm(t) for lang in sorted(strings) for t in strings[lang]]
    texts, y = texts + cat, y + [0] * len(cat)
    clf = LogisticRegression(C=float(c.removeprefix("c")), class_weight="balanced", max_iter=2000, random_state=0).fit(embed(texts), y)
    embed.save()
    return clf.coef_[0], float(clf.intercept_[0])


def best(docs: list, model, mode, embed, w, b) -> tuple[np.ndarray, list[list[str]]]:
    """Each document's best probability (0 without a window) and its windows."""
    per = [windows(d, model, mode) for d in docs]
    flat = [t for ts in per for t in ts]
    p = 1 / (1 + np.exp(-(embed(flat) @ w + b))) if flat else np.zeros(0)
    out, i = [], 0
    for ts in per:
        out.append(float(p[i:i + len(ts)].max()) if ts else 0.0)
        i += len(ts)
    return np.array(out), per


def measure(prep: dict, model: gs.SemanticModel, mode: str, embed: Embedder, w, b) -> dict:
    held, _ = best(prep["held"], model, mode, embed, w, b)
    top = np.sort(held)[::-1]
    t = float(np.nextafter(top[1], 1.0))
    dl, per = best(prep["dl"], model, mode, embed, w, b)
    flat = [x for ts in per for x in ts]
    out = {"threshold": round(t, 4), "dl_windows": len(flat), "dl_tokens": sum(embed.model.token_count(x) for x in flat),
           "dl_flagged": prep["dl_n"] - len(prep["dl"]) + int((dl >= t).sum()), "dl_e5": int((dl >= t).sum()),
           "man": {lang: int((best(ps, model, mode, embed, w, b)[0] >= t).sum()) + n - len(ps)
                   for lang, (n, ps) in prep["man"].items()}, "sets": {}}
    out["man_all"] = sum(out["man"].values())
    for k, rows in prep["sets"].items():
        passing = [r for r in rows if not r[1]]
        p, _ = best([r[2] for r in passing], model, mode, embed, w, b)
        caught = iter(p >= t)
        langs: dict = defaultdict(lambda: [0, 0])
        hit = [bool(g) or bool(next(caught)) for _, g, _ in rows]
        for (lang, _, _), h in zip(rows, hit):
            langs[lang][0] += 1
            langs[lang][1] += h
        block = len(guard_probes.POSITIONS) * len(guard_probes.OBFUSCATIONS)  # one phrasing's insertions
        out["sets"][k] = {"n": len(rows), "hits": sum(hit), "guard": len(rows) - len(passing), "langs": dict(langs),
                          "per_phrasing": [sum(hit[i:i + block]) for i in range(0, len(hit), block)]}
    embed.save()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--classifiers", nargs="+", default=["grammar-c1", "gnear700-c0.3"])
    ap.add_argument("--selections", nargs="+", default=["", "low=400", "low=500"])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/e5sel_cache"))
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--ngram", type=Path, help="an n-gram model file (guard_train.py --out) instead of the shipped "
                    "one, e.g. one trained without set 7: the e5 recipes, selections and thresholds read its scores")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.ngram:
        ngram = gm.from_dict(json.loads(gzip.decompress(a.ngram.read_bytes())))
        gm.load = lambda: ngram  # as benchmarks/guard.py --model: every stage asks load() for it
    prep = prepare(a.data, a.cache, a.ngram or Path(gm.__file__).with_name("guard_model.json.gz"))
    embed = Embedder(a.cache, threads=0)
    base = gs.load()
    fitted, rows = {}, {}
    for cname in a.classifiers:
        for spec in a.selections:
            model, mode = selection(spec, base)
            if (cname, mode) not in fitted:
                fitted[cname, mode] = classifier(cname, mode, embed, a.data)
            r = rows[f"{cname} {spec or 'shipped'}"] = measure(prep, model, mode, embed, *fitted[cname, mode])
            print(f"{cname} {spec or 'shipped'}: t {r['threshold']}, DL {r['dl_windows']} windows {r['dl_tokens']} tokens "
                  f"{r['dl_flagged']} flagged; man {r['man_all']} {r['man']}; "
                  + ", ".join(f"set {k} {v['hits'] / v['n']:.1%}" for k, v in r["sets"].items())
                  + f" (set 7 guard {r['sets']['7']['guard'] / r['sets']['7']['n']:.1%})", file=sys.stderr, flush=True)
    first = next(iter(rows))
    for name in list(rows)[1:]:
        d, lo, hi = gain({n: {"7": {"s": rows[n]["sets"]["7"]}} for n in (first, name)}, first, name, ["7"], "s")
        print(f"{name} - {first}, set 7: {d:+.1%} [{lo:+.1%}, {hi:+.1%}] (95 %, phrasings resampled)", file=sys.stderr)
    print(json.dumps(rows) if a.json else json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
