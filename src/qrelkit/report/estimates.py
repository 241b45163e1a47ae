"""The report's estimates section: scores with confidence intervals from the people's sample.

Shown only when the workspace holds a people's probability sample (`qrelkit sample -w`,
``--people 'sample(...)'``): a report without one has nothing to estimate, so the section
is left out rather than listed as empty. With a sample it is always there: either the
estimates (`qrelkit estimate -w`'s JSON object, the same numbers) or why there are none yet
(too few people's labels, a pool that changed since the draw), with the sampled pairs that
still wait for people.

The figure is a forest plot per measure: each run's estimate with its interval, the
labels-only score (the judge's labels taken as true) beside it as a hollow marker, so a
reader sees at a glance how far the uncorrected figure is from what the sample supports.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from qrelkit.report import plots

if TYPE_CHECKING:
    from qrelkit.store import Store

COLORS = {"estimate": "#1f77b4", "labels_only": "#d62728", "people_only": "#9e9e9e", "favoured": "#b35900"}


def estimates_section(estimates: Optional[dict]) -> Optional[dict]:
    """The JSON of the section: the estimates object (or why there is none), None without a sample."""
    if estimates is None:
        return None
    if estimates.get("refused"):
        return {"available": False, "reason": estimates["refused"],
                "unlabelled": estimates.get("unlabelled", [])}
    return {"available": True, **estimates}


def estimates_figure(section: Optional[dict]) -> list[dict]:
    """One forest plot per measure (``{"measure", "png"}``), runs ordered by their estimate."""
    if not section or not section.get("available"):
        return []
    rows = section.get("runs") or []
    measures = list(dict.fromkeys(r["measure"] for r in rows))
    favoured = {(f["run"], f["measure"]) for f in section.get("favoured") or []}
    return [{"measure": m, "png": forest([r for r in rows if r["measure"] == m], m,
                                         {run for run, fm in favoured if fm == m})} for m in measures]


def forest(rows: list[dict], measure: str, favoured: frozenset | set = frozenset()) -> Optional[str]:
    """Each run's estimate and interval (filled, blue), its people-only interval (thin, grey) and its
    labels-only score (hollow, red), best on top; judge-favoured runs' names marked (orange, "favoured")."""
    if not rows:
        return None
    plt = plots._plt()
    rows = sorted(rows, key=lambda r: (r["estimate"], r["run"]))
    n = len(rows)
    fig, ax = plt.subplots(figsize=(7.5, max(2.5, 0.26 * n + 1.2)))
    for y, r in enumerate(rows):
        po = r.get("people_only") or {}
        if po.get("low") is not None:
            ax.hlines(y - 0.22, po["low"], po["high"], color=COLORS["people_only"], lw=1.2,
                      label="people only" if y == 0 else None)
        ax.hlines(y, r["low"], r["high"], color=COLORS["estimate"], lw=2.4,
                  label="estimate (interval)" if y == 0 else None)
        ax.scatter([r["estimate"]], [y], color=COLORS["estimate"], s=26, zorder=3)
        if r.get("labels_only") is not None:
            ax.scatter([r["labels_only"]], [y], facecolors="none", edgecolors=COLORS["labels_only"], s=30, zorder=4,
                       label="labels only" if y == 0 else None)
    ax.set_yticks(range(n))
    ax.set_yticklabels([r["run"] + (" (favoured)" if r["run"] in favoured else "") for r in rows], fontsize=7)
    for tick, r in zip(ax.get_yticklabels(), rows):
        if r["run"] in favoured:
            tick.set_color(COLORS["favoured"])
    ax.set_xlabel(measure)
    ax.set_title(f"{measure}: estimates with their intervals, and the judge's labels taken as true", fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return plots._png(fig)


def gather(store: "Store", method: Optional[str] = None, model: Optional[str] = None) -> Optional[dict]:
    """The section's data from a workspace: None without a sample; the refusal's message (and the
    pairs that wait) when the estimate is refused; else the estimates' JSON object."""
    from qrelkit.errors import UsageError
    from qrelkit.estimate.workspace import estimate_workspace

    if store.people_sample_design() is None:
        return None
    try:
        return estimate_workspace(store, method=method, model=model).to_json()
    except UsageError as e:
        return {"refused": str(e), "unlabelled": [list(p) for p in store.sample_waiting()]}
