"""Presets: a seed paper's experiment laid out as the paper does, its published figures beside.

The published figures are data (``published.toml``, one row per table row, naming the
table and the file of ``/work/shared/papers`` each was checked against), never numbers in
code, so a reader sees which figure is the paper's and which is measured. A preset row
names the judge spec that measures it; rows of the paper's people (Human-Only) have none
and print only the published column.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any, Mapping, Optional

from qrelkit.errors import UsageError

# the figures each kind of preset puts side by side, in print order
FIELDS = {
    "decided": ("balanced_accuracy", "recall_relevant", "recall_nonrelevant", "escalation_ratio",
                "usd_per_case", "latency_serial", "latency_parallel"),
    "overall": ("balanced_accuracy_overall", "recall_relevant_overall", "recall_nonrelevant_overall"),
    "rounds": ("persistence", "consensus_cases", "spurious"),
    "rcl": ("f1", "mcc"),
    "shelf": ("kendall_tau", "spearman_rho", "rbo", "ndcg_at_10"),
    "bridge": ("hole_at_10", "hit_at_10_before", "hit_at_10_after", "hit_at_10_gain", "growth_rate_last",
               "marginal_contribution_last", "ragalign_before", "ragalign_after"),
}


@dataclass(frozen=True)
class PublishedRow:
    table: str
    row: str
    method: str  # judge spec measuring it ("" = not measured)
    source: str
    figures: tuple[tuple[str, Optional[float]], ...]  # None: measured only (the paper prints no value)
    extra: tuple[tuple[str, Any], ...] = ()  # round, allocation, ...

    def get(self, key: str) -> Any:
        return dict(self.extra).get(key)


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    paper: str
    field: str
    rows: tuple[PublishedRow, ...]
    method: Optional[str] = None  # one method for the whole preset (persistence)

    def methods(self, model2: Optional[str] = None, adjust: Optional[Mapping[str, str]] = None) -> list[str]:
        """The specs to judge, in row order, once each; rows needing ``{model2}`` only with one."""
        out: list[str] = []
        for m in [r.method for r in self.rows] + [self.method or ""]:
            spec = resolve(m, model2, adjust)
            if spec and spec not in out:
                out.append(spec)
        return out


def resolve(method: str, model2: Optional[str], adjust: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """A row's spec as it is judged: ``{model2}`` filled in, and ``adjust``'s parameters set for
    its method (``{"debate": "doc_tokens=300"}``: what a small model's context needs; the row
    stays the paper's configuration otherwise)."""
    if "{model2}" in method:
        if not model2:
            return None
        method = method.replace("{model2}", model2)
    if not method:
        return None
    if not adjust:
        return method
    from qrelkit.judges import parse_spec

    spec = parse_spec(method)
    params = adjust.get(spec.main.name)
    if not params:
        return method
    return spec.with_main(spec.main.with_params(**split_params(params))).canonical


def split_params(text: str) -> dict[str, str]:
    """``"a=1,b=[x,y]"`` -> ``{"a": "1", "b": "[x,y]"}`` (commas inside brackets kept)."""
    out, depth, cur = {}, 0, ""
    for ch in text + ",":
        depth += ch in "[(" and 1 or ch in "])" and -1 or 0
        if ch == "," and depth == 0:
            if cur.strip():
                if "=" not in cur:
                    raise UsageError(f"--with: {cur.strip()!r} is not NAME=VALUE")
                k, v = cur.split("=", 1)
                out[k.strip()] = v.strip()
            cur = ""
        else:
            cur += ch
    return out


def parse_adjust(items: Optional[list[str]]) -> dict[str, str]:
    """``--with METHOD:PARAMS`` values -> ``{method: params}``."""
    out = {}
    for it in items or []:
        name, sep, params = it.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"--with {it!r}: expected METHOD:NAME=VALUE,..., e.g. debate:doc_tokens=300")
        out[name.strip()] = params
    return out


def _load() -> dict:
    text = resources.files("qrelkit.compare").joinpath("published.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


NOT_FIGURES = {"table", "row", "method", "source", "round", "allocation", "measured_as", "system", "measured_only"}


def preset(name: str) -> Preset:
    data = _load()
    if name not in data:
        raise UsageError(f"--preset {name!r}: choose from {', '.join(sorted(data))}")
    d = data[name]
    rows = tuple(
        PublishedRow(r["table"], r["row"], r.get("method", ""), r["source"],
                     tuple((k, float(v)) for k, v in r.items() if k not in NOT_FIGURES)
                     + tuple((k, None) for k in r.get("measured_only", ())),
                     tuple((k, r[k]) for k in ("round", "allocation", "measured_as", "system") if k in r))
        for r in d["rows"]
    )
    return Preset(name, d["title"], d["paper"], d["field"], rows, d.get("method"))


def names() -> list[str]:
    return sorted(_load())
