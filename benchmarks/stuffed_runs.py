"""How many labelled passages of a collection the ``_u`` signals would read differently.

    python benchmarks/stuffed_runs.py [../shared/data/trec-dl-2019 ../shared/data/llmjudge-dev ...]

``pmi_u``, ``ql_u``, ``dense_u`` and ``lexical_u`` (:mod:`qrelkit.signals.unstuffed`) read a passage
without its stuffed runs; on a passage without one they are exactly ``pmi``, ``ql``, ``dense`` and
``lexical``. So the judge's quality on natural text can only change through the labelled pairs
whose passage has such a run: this counts them, per grade (a folder holds topics.tsv,
passages.jsonl and qrels.txt).
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

DEFAULT = ("../shared/data/trec-dl-2019", "../shared/data/llmjudge-dev")


def count(folder: Path) -> tuple[Counter, Counter, list]:
    """Labelled pairs per grade, those with a stuffed run per grade, and those pairs. The texts are
    read by qrelkit's own reader, as a workspace holds them (these collections keep the text under
    ``doc``; an earlier version of this script read ``text`` and so counted empty passages)."""
    from qrelkit import prompts
    from qrelkit.data.docs import read_docs
    from qrelkit.data.topics import load_topics
    from qrelkit.signals.unstuffed import unstuffed

    topics = {q: t.text for q, t in load_topics(folder / "topics.tsv").items()}
    docs = {d.docid: prompts.doc_text(d.text, d.title) for d in read_docs(folder / "passages.jsonl")}
    total, changed, pairs = Counter(), Counter(), []
    for line in open(folder / "qrels.txt", encoding="utf-8"):
        q, _, d, g = line.split()
        if q in topics and d in docs:
            total[int(g)] += 1
            if unstuffed(docs[d], topics[q]) != docs[d]:
                changed[int(g)] += 1
                pairs.append((q, d, int(g), topics[q]))
    return total, changed, pairs


def main(argv: list[str]) -> int:
    print("| collection | labelled pairs | by grade | with a stuffed run | by grade |")
    print("|---|---|---|---|---|")
    found = []
    for folder in argv or DEFAULT:
        total, changed, pairs = count(Path(folder))
        grades = sorted(total)
        print(f"| {Path(folder).name} | {sum(total.values())} | {' / '.join(str(total[g]) for g in grades)} | "
              f"{sum(changed.values())} | {' / '.join(str(changed[g]) for g in grades)} |")
        found.extend((Path(folder).name, *p) for p in pairs)
    for name, q, d, g, query in found:
        print(f"  {name} {q} {d} grade {g}: {query!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
