"""The report's figures as base64 PNG strings.

Why base64 PNG: the report must be one file that opens anywhere without a
network or a plotting runtime; PNGs embedded as data URIs do that. matplotlib
runs on the Agg backend (no display), and every figure is closed after
rendering so that long sessions do not accumulate memory.
"""
from __future__ import annotations

import base64
import io
from typing import Optional, Sequence

import numpy as np


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _png(fig) -> str:
    plt = _plt()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def scores_before_after(systems: Sequence[str], before: Optional[Sequence[float]], after: Sequence[float],
                        measure: str, label_a: str, label_b: str) -> Optional[str]:
    """Dumbbell chart: each system's score under both versions, best (after) on top; with no
    ``before`` (one version of the labels), the scores alone."""
    if not systems:
        return None
    plt = _plt()
    order = np.argsort(np.asarray(after))
    n = len(systems)
    fig, ax = plt.subplots(figsize=(7.5, max(2.5, 0.22 * n + 1)))
    y = np.arange(n)
    a = np.asarray(after)[order]
    if before is not None:
        b = np.asarray(before)[order]
        ax.hlines(y, np.minimum(a, b), np.maximum(a, b), color="#bbbbbb", lw=1.5, zorder=1)
        ax.scatter(b, y, color="#7f7f7f", label=label_a, zorder=2, s=22)
    ax.scatter(a, y, color="#1f77b4", label=label_b, zorder=3, s=22)
    ax.set_yticks(y)
    ax.set_yticklabels([systems[i] for i in order], fontsize=7)
    ax.set_xlabel(measure)
    ax.set_title(f"{measure} per system: {label_a} vs {label_b}" if before is not None
                 else f"{measure} per system: {label_b}")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def hole_rates(runs: Sequence[str], unjudged: Sequence[float], holes: Sequence[Optional[float]],
               depth: int) -> Optional[str]:
    """Unjudged@k (share of the top-k without an original label) and Hole@k
    (detected holes ÷ k, BRIDGE) per run; Hole@k bars only once new labels exist."""
    if not runs:
        return None
    plt = _plt()
    order = np.argsort(np.asarray(unjudged))
    n = len(runs)
    fig, ax = plt.subplots(figsize=(7.5, max(2.5, 0.22 * n + 1)))
    y = np.arange(n)
    ax.barh(y, np.asarray(unjudged)[order], color="#ff7f0e", label=f"Unjudged@{depth}")
    if any(h is not None for h in holes):
        hv = np.array([h if h is not None else 0.0 for h in holes])
        ax.barh(y, hv[order], color="#2ca02c", label=f"Hole@{depth} (detected holes ÷ {depth})")
    ax.set_yticks(y)
    ax.set_yticklabels([runs[i] for i in order], fontsize=7)
    ax.set_xlabel(f"share of the top-{depth} (mean over topics)")
    ax.set_title(f"Unjudged@{depth} and Hole@{depth} of each run against the original qrels")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def saturation(found: Sequence[float], found_std: Sequence[float], rate: Sequence[float],
               contribution: Sequence[float], measure: str) -> Optional[str]:
    """BRIDGE Figure 3: growth rate (new detected holes at step t ÷ all detected
    holes) and marginal contribution (mean change of the systems' scores at step t)."""
    if not len(found):
        return None
    plt = _plt()
    x = np.arange(1, len(found) + 1)
    f, s = np.asarray(found), np.asarray(found_std)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    ax = axes[0]
    ax.plot(x, f, color="#1f77b4", label="detected holes found (cumulative)")
    ax.fill_between(x, np.clip(f - s, 0, 1), np.clip(f + s, 0, 1), color="#1f77b4", alpha=0.2)
    ax.bar(x, rate, color="#2ca02c", alpha=0.6, label="growth rate")
    ax.set_xlabel("retrievers in the pool (t)")
    ax.set_ylabel("fraction of all detected holes")
    ax.set_ylim(0, 1.02)
    ax.set_title("Growth rate")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax = axes[1]
    ax.plot(x, contribution, color="#d62728", marker="o", ms=3)
    ax.set_xlabel("retrievers in the pool (t)")
    ax.set_ylabel(f"mean Δ {measure} over systems")
    ax.set_title("Marginal contribution")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return _png(fig)


def confusion(matrix: Sequence[Sequence[int]], classes: Sequence[str], title: str) -> Optional[str]:
    m = np.asarray(matrix)
    if m.size == 0 or m.sum() == 0:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(2.6 + 0.25 * len(classes), 2.3 + 0.25 * len(classes)))
    ax.imshow(m, cmap="Blues")
    ax.set_xticks(range(len(classes)))
    ax.set_yticks(range(len(classes)))
    ax.set_xticklabels(classes, fontsize=8)
    ax.set_yticklabels(classes, fontsize=8)
    ax.set_xlabel("labels")
    ax.set_ylabel("reference")
    hi = m.max()
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            ax.text(j, i, str(int(m[i, j])), ha="center", va="center",
                    color="white" if m[i, j] > hi / 2 else "black", fontsize=9)
    ax.set_title(_wrapped(title, 44), fontsize=8)  # a long method id would widen (and so shrink) the figure
    return _png(fig)


def _wrapped(text: str, width: int) -> str:
    """``text`` in lines of about ``width`` characters, broken after an id's separators too."""
    import re
    import textwrap

    return "\n".join(textwrap.wrap(re.sub(r"([,+])(?=\S)", r"\1 ", text), width)) or text
