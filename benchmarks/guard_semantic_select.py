"""Candidate selection for the guard's embedding stage: DL 2019 windows and seconds against recall (issue 44).

    python benchmarks/guard_semantic_select.py [--rules low=500,per_doc=99 low=400,sentence=1 ...]
                                               [--model FILE] [--cache /tmp/e5run_cache] [--data ../shared/data] [--json]

e5 reads 250-850 tokens a second on this machine (2 shared cores), so which windows it reads
decides both the guard's speed and what it can catch. For each selection rule (the parameters of
:class:`qrelkit.judging.guard_semantic.SemanticModel`: ``low``, ``per_doc``, ``sentence``,
``unknown``; the shipped model's values for the rest) this prints:

- DL 2019: the windows and e5 tokens of the 10,818 passages that the rules and the n-gram model
  let pass, the seconds they take at the speed measured at the start of the run (and the load),
  and the passages flagged, with the threshold recalibrated through the rule on the held-back
  quarter of LLMJudge dev as ``guard_semantic_train.py`` does (at most one passage flagged);
- the *selection cap*: of the insertions of the phrasing files (inserted as ``benchmarks/guard.py``
  inserts them: positions x obfuscations, seed 0) that the first two stages let pass, the share
  with at least one window sent to e5 ("any"), and with a window holding at least half of the
  inserted instruction's words ("holds it");
- the recall of the whole guard on those files with that rule, per file.

The classifier's weights are the shipped ones whatever the rule (a model trained for another rule
would differ a little). Embeddings are cached by text in ``--cache``/e5_cache.npz.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
import zlib
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # as guard_semantic.encoder() does
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from guard_e5 import Embedder  # noqa: E402

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging import guard_model as gm  # noqa: E402
from qrelkit.judging import guard_probes  # noqa: E402
from qrelkit.judging import guard_semantic as gs  # noqa: E402
from qrelkit.judging.guard import check, fold, views_of  # noqa: E402

SETS = ("guard_heldout.txt", "guard_heldout2.txt", "guard_heldout3.txt", "guard_heldout4.txt", "guard_heldout5.txt",
        "guard_heldout6.txt", "guard_dev.txt", "guard_own.txt")
RULES = ("low=500,per_doc=99,sentence=0,unknown=9", "low=500,per_doc=1,sentence=0,unknown=9",
         "low=500,per_doc=1,sentence=1,unknown=9", "low=450,per_doc=1,sentence=1,unknown=9",
         "low=400,per_doc=1,sentence=0,unknown=9", "low=400,per_doc=1,sentence=1,unknown=9",
         "low=350,per_doc=1,sentence=1,unknown=9", "low=400,per_doc=1,sentence=1,unknown=0.8",
         "low=450,per_doc=1,sentence=1,unknown=0.8")


def rule(spec: str, base: gs.SemanticModel) -> gs.SemanticModel:
    """``low=400,per_doc=1,sentence=1,unknown=0.8`` as the shipped model with those parameters."""
    kw: dict = {}
    for part in spec.split(","):
        key, value = part.split("=")
        kw[key] = bool(int(value)) if key == "sentence" else float(value) if key == "unknown" else int(value)
    return dataclasses.replace(base, **kw)


def passing(docs: list) -> list[list[str]]:
    """The folded views of each document the rules and the n-gram model let pass."""
    return [views_of(d.text, d.title)[1] for d in docs if not check(d.text, d.title, semantic=False).flagged]


def insertions(dl: list, seed: int = 0) -> tuple[dict[str, int], list[tuple[str, list[str], set[str]]]]:
    """Per file, its number of insertions; and each insertion the first two stages let pass: its
    file, folded views and the folded instruction's tokens (``benchmarks/guard.py``'s draws)."""
    total, passed = {}, []
    for name in SETS:
        n = 0
        for i in guard_probes.insertions(HERE / name, dl, seed):
            n += 1
            if not check(i.text, semantic=False).flagged:
                passed.append((name, views_of(i.text)[1], set(gm.tokens(fold(i.hidden)))))
        total[name] = n
    return total, passed


def best_probs(views: list[list[str]], model: gs.SemanticModel, embed: Embedder) -> tuple[list[float], list]:
    """Each document's best probability (0 without a candidate), and its candidates."""
    per = [[c for vi, v in enumerate(vs) for c in gs.candidates(v, vi, model)] for vs in views]
    flat = [c.text for cs in per for c in cs]
    probs = iter([gs.probability(v.tolist(), model) for v in embed(flat)] if flat else [])
    return [max([next(probs) for _ in cs], default=0.0) for cs in per], per


def measure(model: gs.SemanticModel, data: dict, embed: Embedder, tok_per_s: float) -> dict:
    held, _ = best_probs(data["held"], model, embed)
    top = sorted(held, reverse=True)
    model = dataclasses.replace(model, threshold=float(top[1]) + 1e-12 if len(top) > 1 else 0.5)
    dl, dl_cands = best_probs(data["dl"], model, embed)
    windows = [c.text for cs in dl_cands for c in cs]
    tokens = sum(embed.model.token_count(t) for t in windows)
    ins, ins_cands = best_probs([v for _, v, _ in data["ins"]], model, embed)
    out = {"threshold": round(model.threshold, 4), "dl_windows": len(windows), "dl_tokens": tokens,
           "dl_seconds_est": round(tokens / tok_per_s, 1), "dl_flagged": sum(p >= model.threshold for p in dl),
           "passed": len(ins), "cap_any": sum(bool(cs) for cs in ins_cands) / max(1, len(ins)),
           "cap_holds": sum(any(len(set(gm.tokens(c.text)) & words) >= len(words) / 2 for c in cs)
                            for (_, _, words), cs in zip(data["ins"], ins_cands)) / max(1, len(ins)),
           "recall": {}}
    for name, n in data["total"].items():
        caught = sum(p >= model.threshold for (f, _, _), p in zip(data["ins"], ins) if f == name)
        missed = sum(f == name for f, _, _ in data["ins"])
        out["recall"][name] = {"n": n, "guard": (n - missed) / n, "with_e5": (n - missed + caught) / n}
    return out


def speed(embed: Embedder, texts: list[str]) -> tuple[float, float]:
    """Tokens per second of e5 on ``texts`` (embedded one by one, uncached), and the load."""
    t0 = time.perf_counter()
    for t in texts:
        embed.model.passage(t)
    return sum(embed.model.token_count(t) for t in texts) / (time.perf_counter() - t0), os.getloadavg()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", nargs="+", default=list(RULES))
    ap.add_argument("--cache", type=Path, default=Path("/tmp/e5run_cache"))
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--model", type=Path, help="a guard_semantic.json to read instead of the shipped one")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    base = gs.from_dict(json.loads(a.model.read_text("utf-8"))) if a.model else gs.load()
    dl = list(read_docs(a.data / "trec-dl-2019" / "passages.jsonl"))
    llmj = [d for d in read_docs(a.data / "llmjudge-dev" / "passages.jsonl") if not zlib.crc32(d.docid.encode()) % 4]
    total, ins = insertions(dl)
    data = {"dl": passing(dl), "held": passing(llmj), "ins": ins, "total": total}
    embed = Embedder(a.cache, threads=0)
    sample = [c.text for vs in data["dl"][:400] for vi, v in enumerate(vs) for c in gs.candidates(v, vi, base)][:60]
    tok_per_s, load = speed(embed, sample)
    print(f"e5: {tok_per_s:.0f} tokens/s at a load of {load:.1f}; {len(data['dl'])} DL 2019 passages and "
          f"{len(ins)} insertions pass the first two stages", file=sys.stderr, flush=True)
    rows = {}
    for spec in a.rules:
        rows[spec] = measure(rule(spec, base), data, embed, tok_per_s)
        embed.save()
        r = rows[spec]
        print(f"{spec}: DL {r['dl_windows']} windows, {r['dl_tokens']} tokens, ~{r['dl_seconds_est']} s, "
              f"{r['dl_flagged']} flagged; cap {r['cap_any']:.1%} any / {r['cap_holds']:.1%} holds; recall "
              + ", ".join(f"{k.replace('guard_', '').replace('.txt', '')} {v['with_e5']:.1%}"
                          for k, v in r["recall"].items()), file=sys.stderr, flush=True)
    out = {"tokens_per_s": round(tok_per_s), "load": round(load, 1), "rules": rows}
    print(json.dumps(out) if a.json else json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
