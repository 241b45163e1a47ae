"""The bundled demo collection: six topics, 150 short documents, six runs.

It exists so that every command can be tried on a fresh machine without
downloading anything, and so that a whole build (pool -> judge -> merge ->
evaluate) finishes in minutes with the small embedded model. The partial
qrels judge only the pool of the three "old" runs, leaving deliberate holes
that the three newer runs fall into; the full qrels are the answer key. How
the files were made is in README.md next to this file.

The files stay flat in this folder because the package data is declared as
``demo/*``; that is why the runs come as a tuple of files and a glob rather
than a directory of their own.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: tags of the runs whose depth-10 pool was judged in ``qrels.txt``
OLD_RUNS = ("bm25", "bm25-noisy", "dense")
#: tags of the newer runs that were not pooled
NEW_RUNS = ("monot5", "rankllm", "splade")


@dataclass(frozen=True)
class DemoPaths:
    topics: Path
    docs: Path
    qrels: Path
    full_qrels: Path
    runs: tuple[Path, ...]
    runs_glob: str
    old_runs: tuple[str, ...] = OLD_RUNS
    new_runs: tuple[str, ...] = NEW_RUNS


def demo_dir() -> Path:
    return Path(__file__).resolve().parent


def demo_paths() -> DemoPaths:
    """Where the demo files are installed. ``runs`` lists the old runs first."""
    d = demo_dir()
    return DemoPaths(
        topics=d / "topics.jsonl",
        docs=d / "docs.jsonl",
        qrels=d / "qrels.txt",
        full_qrels=d / "qrels.full.txt",
        runs=tuple(d / f"{tag}.run" for tag in OLD_RUNS + NEW_RUNS),
        runs_glob=str(d / "*.run"),
    )
