"""The report's RAG section: retrieval–generation alignment per generator and qrels version.

Shown only when the workspace holds graded answers (``qrelkit rag grade -w``):
a report of a collection without RAG answers has nothing to say here, so the
section is left out rather than listed as empty. The figure puts each system
at (mean retrieval score, generation accuracy), one marker per qrels version,
so a reader sees whether filling holes moves systems toward agreement.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from qrelkit.report import plots

RAG_K = 10


def rag_alignment(generators: Sequence[Any], runs: Sequence[Any], versions: Sequence[tuple[str, Any]],
                  threshold: int, k: int = RAG_K) -> tuple:
    """Alignment of the workspace's graded answers on its runs (empty when either is missing).
    Labels of systems that are not among the runs are left out, as ragalign's user would."""
    from qrelkit.evaluate.ragalign_multi import Generator, rag_align_multi

    names = {r.name for r in runs}
    known = [Generator(g.name, g.source, tuple(x for x in g.labels if x.system in names)) for g in generators]
    known = [g for g in known if g.labels]
    if not known or not versions:
        return ()
    return rag_align_multi(runs, versions, known, k, threshold)


def rag_section(rag: Sequence[Any], k: int = RAG_K) -> Optional[dict]:
    """The JSON of the section, or None when there is nothing to show."""
    if not rag:
        return None
    return {"available": True, "k": k, "generators": {g.generator: g.to_dict() for g in rag}}


def rag_figure(rag: Sequence[Any], k: int = RAG_K) -> Optional[str]:
    """Scatter of nDCG@k vs generation accuracy per system (first generator, every qrels version)."""
    if not rag or not rag[0].versions or not rag[0].versions[0].points:
        return None
    plt = plots._plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    measure = f"nDCG@{k}"
    for gv, marker in zip(rag[0].versions, "os^Dv<>"):
        xs = [p.score(measure) for p in gv.points]
        ys = [p.accuracy for p in gv.points]
        ax.scatter(xs, ys, marker=marker, label=gv.alignment.qrels, alpha=0.8)
        for p, x, y in zip(gv.points, xs, ys):
            ax.annotate(p.system, (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel(f"mean {measure} (retrieval)")
    ax.set_ylabel("generation accuracy")
    ax.set_title(f"Retrieval vs generation per system ({rag[0].generator})", fontsize=10)
    ax.legend(fontsize=8)
    return plots._png(fig)
