"""How many labelled passages of a collection the ``_u`` signals would read differently.

    python benchmarks/stuffed_runs.py [../shared/data/trec-dl-2019 ../shared/data/llmjudge-dev ...]

``pmi_u``, ``ql_u``, ``dense_u`` and ``lexical_u`` (:mod:`qrelkit.signals.unstuffed`) read a passage
without its stuffed runs; on a passage without one they are exactly ``pmi``, ``ql``, ``dense`` and
``lexical``. So the judge's quality on natural text can only change through the labelled pairs
whose passage has such a run: this counts them, per grade (a folder holds topics.tsv,
passages.jsonl and qrels.txt).
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

DEFAULT = ("../shared/data/trec-dl-2019", "../shared/data/llmjudge-dev")


def count(folder: Path) -> tuple[Counter, Counter]:
    from qrelkit import prompts
    from qrelkit.signals.unstuffed import unstuffed

    topics = dict(line.rstrip("\n").split("\t", 1) for line in open(folder / "topics.tsv", encoding="utf-8"))
    docs = {}
    for line in open(folder / "passages.jsonl", encoding="utf-8"):
        r = json.loads(line)
        docs[str(r.get("docid") or r.get("id") or r.get("_id"))] = prompts.doc_text(r.get("text", ""), r.get("title"))
    total, changed = Counter(), Counter()
    for line in open(folder / "qrels.txt", encoding="utf-8"):
        q, _, d, g = line.split()
        if q in topics and d in docs:
            total[int(g)] += 1
            changed[int(g)] += unstuffed(docs[d], topics[q]) != docs[d]
    return total, changed


def main(argv: list[str]) -> int:
    print("| collection | labelled pairs | by grade | with a stuffed run | by grade |")
    print("|---|---|---|---|---|")
    for folder in argv or DEFAULT:
        total, changed = count(Path(folder))
        grades = sorted(total)
        print(f"| {Path(folder).name} | {sum(total.values())} | {' / '.join(str(total[g]) for g in grades)} | "
              f"{sum(changed.values())} | {' / '.join(str(changed[g]) for g in grades)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
