"""The measured figure next to the published one, row by row of a preset.

A measured figure is found by the judge spec the preset row names (the spec as asked, or
its canonical form), so a row is only ever filled by the configuration the paper ran;
rows of the paper's people, or of a configuration not run (no second model for a mixed
debate), keep an empty measured cell.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping, Optional

from qrelkit.compare.presets import FIELDS, Preset, resolve


@dataclass(frozen=True)
class SideRow:
    table: str
    row: str
    method: Optional[str]
    figure: str
    published: Optional[float]
    measured: Optional[float]
    source: str
    measured_std: Optional[float] = None  # over a preset's executions (rcl --repeat)

    def to_dict(self) -> dict:
        return asdict(self)


def _find(results: list[dict], spec: Optional[str]) -> Optional[dict]:
    if not spec:
        return None
    from qrelkit.judges import parse_spec

    canonical = parse_spec(spec).canonical
    return next((r for r in results if r["method"] == spec or r["canonical"] == canonical), None)


def side_by_side(p: Preset, comparison: dict, model2: Optional[str] = None,
                 adjust: Optional[Mapping[str, str]] = None) -> list[SideRow]:
    """``comparison``: a :class:`qrelkit.compare.run.Comparison` as ``to_dict`` gives it (plus the
    preset's own measurements: ``persistence`` rows, ``rcl_baseline``)."""
    results = list(comparison.get("methods", []))
    for c in comparison.get("budget_curves", []):
        results += c["points"]
    out = []
    for r in p.rows:
        spec = resolve(r.method, model2, adjust)
        measured = _measured_row(p, r, spec, results, comparison)
        published = dict(r.figures)
        keys = [k for k in FIELDS[p.field] if k in published]
        for k in keys:
            m = measured.get(k) if measured else None
            std = measured.get(f"{k}_std") if measured else None
            out.append(SideRow(r.table, r.row, spec, k, published[k], m, r.source, std))
    return out


def _measured_row(p: Preset, r: Any, spec: Optional[str], results: list[dict], comparison: dict) -> Optional[dict]:
    if p.field == "rounds":
        rows = {x["round"]: x for x in comparison.get("persistence", [])}
        x = rows.get(r.get("round"))
        if x is None:
            return None
        n = x.get("debates") or 0
        return {**x, "consensus_cases": round(x["consensus"] * n) if x.get("consensus") is not None else None}
    if p.field == "bridge":
        return comparison.get("bridge", {}).get(str(r.get("system")).lower())
    if p.field == "shelf":
        return comparison.get("shelf_life", {}).get(r.get("measured_as"))
    if p.field == "rcl":
        if spec:  # an LLM row, measured on the hybrid pool (qrelkit.compare.hybrid)
            return next((x for x in comparison.get("rcl_rows", []) if x["row"] == r.row
                         and x["allocation"] == r.get("allocation")), None)
        base = comparison.get("rcl_baseline", {})
        return {"mcc": base.get(r.get("allocation"))} if r.get("allocation") in base else None
    return _find(results, spec)
