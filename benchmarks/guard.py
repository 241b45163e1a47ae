"""The guard's precision, recall and speed on TREC DL 2019 (issue 44).

    python benchmarks/guard.py [--phrasings benchmarks/guard_heldout.txt] [--data ../shared/data/trec-dl-2019]
                               [--seed 0] [--model MODEL.json.gz] [--semantic E5.json] [--show-misses] [--json]

Precision: the guard over the 10,818 untouched DL 2019 passages; every flagged one is listed
(target: at most 0.2 %, 21 passages). Speed: seconds for that corpus. Recall: each phrasing of
``--phrasings`` (``language<TAB>text``) inserted into a DL 2019 passage drawn with ``--seed``
at the start, the middle and the end, plain and under each obfuscation of
:data:`qrelkit.judging.guard_probes.OBFUSCATIONS` (target: 95 % on the held-out file, whose
phrasings were written before the guard's rules and are never used to tune them; tune with
``benchmarks/guard_dev.txt``). Recall is given per language, obfuscation and position, with a
Wilson 95 % interval, and for the rules alone (``check(learned=False)``) and the n-gram classifier
alone (``check(rules=False, semantic=False)``). The whole guard is rules, then the n-gram
classifier, then the embedding stage (:mod:`qrelkit.judging.guard_semantic`); each stage's share
is the share of the insertions (and of the flagged passages) that it was the first to flag.
``--model`` reads the classifier from another model file (one ``benchmarks/guard_train.py --out``
wrote) instead of the one the package ships; the rules are today's either way. ``--semantic``
reads the embedding stage's model from a file ``guard_semantic_train.py --out`` wrote.
``--show-misses`` prints the missed insertions: use it on the dev file only.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from scipy.stats import binomtest  # noqa: E402

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging import guard_model, guard_semantic  # noqa: E402
from qrelkit.judging.guard import LEARNED, check, scan  # noqa: E402
from qrelkit.judging.guard_probes import insertions  # noqa: E402

HERE = Path(__file__).resolve().parent
STAGES = (LEARNED, guard_semantic.RULE)


def stage(v) -> str:
    """Which stage flagged a verdict first: ``rules``, ``classifier``, ``semantic`` or ``-``."""
    return "-" if not v.flagged else v.rule if v.rule in STAGES else "rules"


def precision(docs: list) -> tuple[list, float]:
    """The flagged untouched passages, and the seconds the guard took over all of them (as
    ``qrelkit guard`` reads them: a chunk of documents at a time)."""
    t0 = time.perf_counter()
    flagged = [(docid, v) for docid, v in scan((d.docid, d.text, d.title) for d in docs) if v.flagged]
    return flagged, time.perf_counter() - t0


def recall(docs: list, phrasings_path: Path, seed: int) -> list[dict]:
    """One row per (phrasing, position, obfuscation): was the passage with it inserted flagged?"""
    rows = []
    for i in insertions(phrasings_path, docs, seed):
        v = check(i.text)
        rules = v.flagged and v.rule not in STAGES or check(i.text, learned=False).flagged
        alone = v.rule == LEARNED or check(i.text, rules=False, semantic=False).flagged
        rows.append({"lang": i.phrasing.lang, "line": i.phrasing.line, "position": i.position,
                     "obfuscation": i.obfuscation, "docid": i.docid, "flagged": v.flagged, "rules": rules,
                     "classifier": alone, "rule": v.rule, "stage": stage(v), "text": i.phrasing.text})
    return rows


def _rate(hits: int, n: int) -> str:
    if not n:
        return "-"
    ci = binomtest(hits, n).proportion_ci(method="wilson")
    lo, hi = ci.low, ci.high
    return f"{hits / n:7.1%} [{lo:.1%}, {hi:.1%}]" if n else "-"


def table(rows: list[dict], key: str, who: str = "flagged") -> list[str]:
    by: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        by[r[key]].append(r[who])
    out = [f"  {key:<14} {'n':>5}  recall [95% CI]{'' if who == 'flagged' else ', ' + who + ' alone'}"]
    for k, v in by.items():
        out.append(f"  {k:<14} {len(v):>5}  {_rate(sum(v), len(v))}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phrasings", type=Path, default=HERE / "guard_heldout.txt")
    ap.add_argument("--data", type=Path, default=Path("../shared/data/trec-dl-2019"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", type=Path, help="a classifier model file instead of the shipped one")
    ap.add_argument("--semantic", type=Path, help="an embedding-stage model file instead of the shipped one")
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.model:
        model = guard_model.from_dict(json.loads(gzip.decompress(a.model.read_bytes())))
        guard_model.load = lambda: model  # the guard asks load() for its model at every check
    if a.semantic:
        e5 = guard_semantic.from_dict(json.loads(a.semantic.read_text(encoding="utf-8")))
        guard_semantic.load = lambda: e5  # the stage asks load() for its model at every check
    corpus = a.data / "passages.jsonl"
    if not corpus.exists():
        sys.exit(f"{corpus}: not found (the TREC DL 2019 passages; see docs/reproducing.md)")
    docs = list(read_docs(corpus))
    check("warm-up: the rules compile once")
    guard_semantic.encoder()  # loaded once (under a second), not counted in the seconds
    before = guard_semantic.embedded.windows
    flagged, seconds = precision(docs)
    e5_windows = guard_semantic.embedded.windows - before
    rows = recall(docs, a.phrasings, a.seed)
    hits = sum(r["flagged"] for r in rows)
    by_rules = sum(r["rules"] for r in rows)
    by_classifier = sum(r["classifier"] for r in rows)
    if a.json:
        print(json.dumps({"passages": len(docs), "flagged": len(flagged), "seconds": round(seconds, 2),
                          "flagged_by_classifier": sum(v.rule == LEARNED for _, v in flagged),
                          "flagged_by_semantic": sum(v.rule == guard_semantic.RULE for _, v in flagged),
                          "e5_windows": e5_windows,
                          "stages": {k: sum(r["stage"] == k for r in rows) / len(rows) for k in ("rules", *STAGES)},
                          "model": str(a.model or "shipped"), "semantic": str(a.semantic or "shipped"),
                          "phrasings": str(a.phrasings), "insertions": len(rows), "recall": hits / len(rows),
                          "recall_rules_alone": by_rules / len(rows),
                          "recall_classifier_alone": by_classifier / len(rows)}))
        return
    print(f"Precision: {len(flagged)} of {len(docs):,} untouched DL 2019 passages flagged "
          f"({len(flagged) / len(docs):.3%}; target <= 0.2%), {seconds:.1f} s "
          f"({len(docs) / seconds:,.0f} passages/s; {e5_windows} windows to e5)")
    for docid, v in flagged:
        print(f"  {docid}  {stage(v):<10} {v.span[:110]!r}")
    print(f"\nRecall on {a.phrasings.name}: {hits} of {len(rows)} insertions flagged: {_rate(hits, len(rows))} "
          "(target >= 95%)")
    print(f"  the rules alone: {by_rules} of {len(rows)}: {_rate(by_rules, len(rows))}; "
          f"the classifier and the embedding stage added {hits - by_rules}")
    print(f"  the n-gram classifier alone: {by_classifier} of {len(rows)}: {_rate(by_classifier, len(rows))}")
    print("  first stage to flag: " + ", ".join(f"{k} {sum(r['stage'] == k for r in rows) / len(rows):.1%}"
                                                 for k in ("rules", *STAGES)))
    for key in ("lang",):
        print("\n".join(table(rows, key, "rules")))
        print("\n".join(table(rows, key, "classifier")))
    for key in ("lang", "obfuscation", "position"):
        print("\n".join(table(rows, key)))
    if a.show_misses:
        for r in rows:
            if not r["flagged"]:
                print(f"  MISS {r['lang']} {r['position']:<6} {r['obfuscation']:<13} {r['text'][:90]}")


if __name__ == "__main__":
    main()
