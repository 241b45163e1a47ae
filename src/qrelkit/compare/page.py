"""The comparison as one self-contained HTML page: the trade-off a user chooses on, drawn.

Two figures carry the decision: balanced accuracy on decided cases against the escalation
ratio (DREAM Figure 2: each method a point with its bootstrap interval, each confidence
method's budget curve a line, so an agreement method above a curve wins at that budget),
and cost against balanced accuracy (dollars per case, or calls per case when every call
was free, as with a local model). The tables under them are the command's. PNGs are
embedded as data URIs, so the page opens anywhere; the ``rcl`` preset adds the RCL paper's
per-query F1 box plot (one box per row and allocation, the paper's mean F1 marked beside
it); it is written to a temporary file and
renamed, so a reader never sees half a page.
"""
from __future__ import annotations

import base64
import io
import os
import tempfile
from importlib import resources
from pathlib import Path
from typing import Optional


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    _plt().close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def accuracy_vs_escalation(out: dict) -> Optional[str]:
    pts = [m for m in out["methods"] if m["balanced_accuracy"] is not None]
    if not pts and not out["budget_curves"]:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for m in pts:
        lo, hi, ba = m["balanced_accuracy_low"], m["balanced_accuracy_high"], m["balanced_accuracy"]
        yerr = [[100 * (ba - lo)], [100 * (hi - ba)]] if lo is not None else None
        ax.errorbar([100 * m["escalation_ratio"]], [100 * ba], yerr=yerr, fmt="o", capsize=3, label=m["method"])
    for c in out["budget_curves"]:
        xs = [100 * p["escalation_ratio"] for p in c["points"] if p["balanced_accuracy"] is not None]
        ys = [100 * p["balanced_accuracy"] for p in c["points"] if p["balanced_accuracy"] is not None]
        ax.plot(xs, ys, "-s", label=f"{c['method']} (budget curve)")
    ax.set_xlabel("escalation ratio (%)")
    ax.set_ylabel("balanced accuracy on decided cases (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False)  # below: long specs
    return _png(fig)


def cost_vs_accuracy(out: dict) -> Optional[str]:
    pts = [m for m in out["methods"] if m["balanced_accuracy"] is not None]
    if not pts:
        return None
    dollars = any(m["usd_per_case"] for m in pts)
    key, label = ("usd_per_case", "dollars per case") if dollars else ("calls_per_case", "calls per case")
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for m in pts:
        ax.scatter([m[key]], [100 * m["balanced_accuracy_overall"] if m["balanced_accuracy_overall"] is not None
                              else float("nan")], label=m["method"])
    ax.set_xlabel(label)
    ax.set_ylabel("balanced accuracy, every case (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False)  # below: long specs
    return _png(fig)


PANEL = {"depth": "people label every run's top 3 (depth-k), the LLM the rest of the depth-10 pool",
         "stratified": "people label a 10 % stratified sample of the pool, the LLM the rest"}


def f1_boxes(out: dict) -> Optional[str]:
    """Per-query F1 of each rcl row (every execution's topics), one panel per allocation: the box
    and its median line are the measured distribution, a hollow circle its mean, a red diamond
    the paper's mean F1 of that row."""
    rows = [r for r in out.get("rcl_rows") or [] if r["per_query_f1"]]
    if not rows:
        return None
    published = {r["row"]: r["published"] for r in (out.get("preset") or {}).get("rows", []) if r["figure"] == "f1"}
    allocs = list(dict.fromkeys(r["allocation"] for r in rows))
    sizes = [sum(r["allocation"] == a for r in rows) for a in allocs]
    plt = _plt()
    fig, axes = plt.subplots(len(allocs), 1, figsize=(7.4, 0.34 * sum(sizes) + 1.2 * len(allocs)), sharex=True,
                             gridspec_kw={"height_ratios": sizes}, squeeze=False)
    for ax, a in zip(axes[:, 0], allocs):
        rs = [r for r in rows if r["allocation"] == a][::-1]  # the paper's order, top to bottom
        ax.boxplot([[f for _, _, f in r["per_query_f1"]] for r in rs], vert=False, widths=0.6,
                   medianprops={"color": "black"}, flierprops={"marker": "+", "markeredgecolor": "0.55"})
        ax.set_yticks(range(1, len(rs) + 1), [r["row"].removesuffix(", depth-k").removesuffix(", sampling")
                                              for r in rs], fontsize=8)
        for key, style in (("measured", {"marker": "o", "facecolors": "none", "edgecolors": "tab:blue", "s": 34,
                                         "label": "measured mean F1"}),
                           ("published", {"marker": "D", "color": "tab:red", "s": 18, "label": "paper's mean F1"})):
            vals = [(i + 1, r["f1"] if key == "measured" else published.get(r["row"])) for i, r in enumerate(rs)]
            pts = [(y, v) for y, v in vals if v is not None]
            if pts:
                ax.scatter([v for _, v in pts], [y for y, _ in pts], zorder=3, **style)
        ax.set_title(PANEL.get(a, f"people: {a}"), fontsize=9, loc="left")
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel("per-query F1 against the reference (every execution)")
    axes[-1, 0].set_xlim(-0.03, 1.03)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=8, frameon=False)
    fig.tight_layout()
    return _png(fig)


def render(out: dict) -> str:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resources.files("qrelkit.compare").joinpath("templates"))),
        autoescape=jinja2.select_autoescape(["html"], default_for_string=True),
        undefined=jinja2.StrictUndefined,
    )
    env.filters["pct"] = lambda v: "–" if v is None else f"{100 * v:.1f}"
    env.filters["num"] = lambda v: "–" if v is None else f"{v:.4g}"
    judged = "methods" in out
    figs = {"accuracy": accuracy_vs_escalation(out) if judged else None,
            "cost": cost_vs_accuracy(out) if judged else None, "f1": f1_boxes(out)}
    return env.get_template("compare.html").render(c=out, figs=figs)


def write_page(out: dict, path: Path) -> Path:
    """Write the page atomically (temporary file in the same folder, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    html = render(out)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(html)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
