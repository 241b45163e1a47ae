"""The hand-worked example every pooling test reads: three runs, two topics, as TREC text.

Topic q1 (rank: docid score)          Topic q2
  A: 1 X 10   2 Z 8    3 Y 4   4 P 2    A: 1 x1 1.0   2 x2 0.5
  B: 1 Z 0.9  2 Q 0.5  3 Y 0.1          B: 1 x2 2.0   2 x3 1.0
  C: 1 Q -1   2 R -3                    C: (nothing)

Relevant (the MTF oracle): Q, R and Y on q1; x3 on q2.
"""
from __future__ import annotations

from pathlib import Path

from qrelkit.data import read_runs

RUNS = {
    "A": "q1 Q0 X 1 10 A\nq1 Q0 Z 2 8 A\nq1 Q0 Y 3 4 A\nq1 Q0 P 4 2 A\nq2 Q0 x1 1 1.0 A\nq2 Q0 x2 2 0.5 A\n",
    "B": "q1 Q0 Z 1 0.9 B\nq1 Q0 Q 2 0.5 B\nq1 Q0 Y 3 0.1 B\nq2 Q0 x2 1 2.0 B\nq2 Q0 x3 2 1.0 B\n",
    "C": "q1 Q0 Q 1 -1 C\nq1 Q0 R 2 -3 C\n",
}
QRELS = {("q1", "Q"): 1, ("q1", "R"): 1, ("q1", "Y"): 1, ("q2", "x3"): 1, ("q1", "X"): 0}


def write_runs(folder: Path) -> list[Path]:
    paths = []
    for name, text in RUNS.items():
        p = folder / f"{name}.run"
        p.write_text(text)
        paths.append(p)
    return paths


def runs(folder: Path):
    return read_runs([str(p) for p in write_runs(folder)])


def relevant(qid: str, docid: str) -> bool:
    return QRELS.get((qid, docid), 0) >= 1
