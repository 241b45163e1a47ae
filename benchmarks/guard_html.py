"""The guard's precision and speed on real HTML pages, with and without the attribute view.

    python benchmarks/guard_html.py [--rustdoc 5000] [--seed 0] [--data ../shared/data] [--show 20] [--json]

The attribute view (:mod:`qrelkit.judging.guard_markup`) reads what tags say in their
attributes; almost every page has attributes, so this measures what the view costs on real HTML:
how many pages get it, how many the whole guard flags without it ("before", the guard as it was)
and with it ("after"), which flags are new (with their spans), and the seconds each took. The
pages are the machine's own: a seeded sample of ``--rustdoc`` rustdoc pages
(``/root/.rustup/toolchains/*/share/doc``), and every HTML file under ``/usr/share/doc``,
``/usr/lib/node_modules/npm`` and the venv's ``lib/python3.11``. They are read, never copied,
and depend on the machine. TREC DL 2019 and LLMJudge dev passages (``--data``) are plain text,
where the view should never be built: they are measured the same way.

"Before" is the same process with :func:`guard_markup.attribute_view` replaced by one that
builds no view, which is exactly the guard without this change (nothing else differs). The two
run a chunk of 256 pages at a time, before-after-after-before, so that the shared machine's load
falls on both; "view seconds" is what deciding on (and building) the view cost over all pages.
"""
from __future__ import annotations

import argparse
import glob
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging import guard, guard_markup, guard_model, guard_semantic  # noqa: E402

CHUNK = 256
TREES = {"/usr/share/doc": "/usr/share/doc/**/*.html", "npm": "/usr/lib/node_modules/npm/**/*.html",
         "venv": sys.prefix + "/lib/python3.11/**/*.html"}


@dataclass
class Row:
    """One source's figures."""

    name: str
    pages: int = 0
    chars: int = 0
    with_view: int = 0
    view_seconds: float = 0.0  # building the attribute view (or deciding not to) for every page
    before: dict = field(default_factory=dict)
    after: dict = field(default_factory=dict)
    seconds: list = field(default_factory=lambda: [0.0, 0.0])


def html_sources(rustdoc: int, seed: int) -> dict[str, list[tuple[str, str]]]:
    """``source -> [(path, text)]``: the rustdoc sample and the other trees' pages, sorted."""
    out = {}
    docs = sorted(glob.glob("/root/.rustup/toolchains/*/share/doc/**/*.html", recursive=True))
    if docs:
        out[f"rustdoc (sample of {min(rustdoc, len(docs)):,} of {len(docs):,})"] = sorted(
            random.Random(seed).sample(docs, min(rustdoc, len(docs))))
    for name, pattern in TREES.items():
        if paths := sorted(p for p in glob.glob(pattern, recursive=True) if Path(p).is_file()):
            out[name] = paths
    return {k: [(p, Path(p).read_text(encoding="utf-8", errors="replace")) for p in v] for k, v in out.items()}


def _no_view(doc, may_flag, fold):
    return None


def _run(chunk: list[tuple[str, str]], view) -> tuple[dict, float]:
    """The flagged pages of a chunk with the attribute view function ``view``, and the seconds."""
    guard_markup.attribute_view = view
    guard_model._scorer.cache_clear()  # the classifier remembers texts: neither side may reuse the other's
    t0 = time.perf_counter()
    verdicts = guard.check_many([(t, None) for _, t in chunk])
    seconds = time.perf_counter() - t0
    return {d: v for (d, _), v in zip(chunk, verdicts) if v.flagged}, seconds


def measure(name: str, docs: list[tuple[str, str]]) -> Row:
    """Both guards over ``docs``, a chunk at a time, in the order before, after, after, before (so
    that a load that rises or falls during a chunk costs both sides alike); each side's seconds
    are the mean of its two runs, and its two runs must flag the same pages."""
    row = Row(name, len(docs), sum(len(t) for _, t in docs))
    real = guard_markup.attribute_view
    try:
        for k in range(0, len(docs), CHUNK):
            chunk = docs[k:k + CHUNK]
            t0 = time.perf_counter()
            row.with_view += sum(real(t, guard._attribute_gate(), guard.fold) is not None for _, t in chunk)
            row.view_seconds += time.perf_counter() - t0
            runs = [_run(chunk, v) for v in (_no_view, real, real, _no_view)]
            for side, (a, b) in ((0, (runs[0], runs[3])), (1, (runs[1], runs[2]))):
                if a[0].keys() != b[0].keys():
                    raise SystemExit(f"{name}: two runs of the same guard flagged different pages")
                (row.after if side else row.before).update(a[0])
                row.seconds[side] += (a[1] + b[1]) / 2
    finally:
        guard_markup.attribute_view = real
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rustdoc", type=int, default=5000, help="rustdoc pages drawn (seeded)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--show", type=int, default=20, help="new and lost flags listed per source")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    guard.check("warm-up: the rules compile once")
    guard_semantic.encoder()
    sources = html_sources(a.rustdoc, a.seed)
    for name in ("trec-dl-2019", "llmjudge-dev"):
        path = a.data / name / "passages.jsonl"
        if path.exists():
            sources[name] = [(d.docid, d.text) for d in read_docs(path)]
    rows = []
    for name, docs in sources.items():
        rows.append(measure(name, docs))
        print(f"measured {name}: {len(docs):,} pages", file=sys.stderr)
    if a.json:
        print(json.dumps({"rows": [{"source": r.name, "pages": r.pages, "chars": r.chars, "with_view": r.with_view,
                                    "flagged_before": len(r.before), "flagged_after": len(r.after),
                                    "new": {d: [v.rule, v.span] for d, v in r.after.items() if d not in r.before},
                                    "lost": sorted(set(r.before) - set(r.after)),
                                    "seconds_before": round(r.seconds[0], 2), "seconds_after": round(r.seconds[1], 2),
                                    "view_seconds": round(r.view_seconds, 2)}
                                   for r in rows]}))
        return
    print(f"| source | pages | MB | attribute view built | flagged before | flagged after | new | lost "
          f"| seconds before | seconds after | view seconds |\n|{'---|' * 11}")
    for r in rows:
        new = [d for d in r.after if d not in r.before]
        lost = [d for d in r.before if d not in r.after]
        print(f"| {r.name} | {r.pages:,} | {r.chars / 1e6:.1f} | {r.with_view:,} | {len(r.before)} | {len(r.after)} "
              f"| {len(new)} | {len(lost)} | {r.seconds[0]:.1f} | {r.seconds[1]:.1f} | {r.view_seconds:.2f} |")
    for r in rows:
        for d in [d for d in r.after if d not in r.before][:a.show]:
            print(f"  NEW  {r.name}: {d}  {r.after[d].rule}  {r.after[d].span[:160]!r}")
        for d in [d for d in r.before if d not in r.after][:a.show]:
            print(f"  LOST {r.name}: {d}  {r.before[d].rule}  {r.before[d].span[:160]!r}")


if __name__ == "__main__":
    main()
