"""The shelf-life preset's measurements, by :func:`qrelkit.evaluate.stability.stability`.

Parry et al. rank the systems by nDCG@10 under the secondary assessors' qrels and compare
with the primary (NIST) ranking: the natural combination (each topic's assessor as assigned;
needs the ``qid<TAB>assessor`` file, ``--combination``) and sampled combinations that include
the primary as one more candidate per topic; and they score the assessors' own grades,
aggregated per pair by mean, min and max, as rankers against the primary qrels.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence


def measure(runs: Sequence[Any], primary: Mapping, assessors: Sequence[tuple[str, Any]],
            natural: Optional[Mapping[str, str]] = None, samples: int = 10_000, seed: int = 0) -> dict:
    """``{row's measured_as: {figure: value}}`` for the preset's rows (see ``published.toml``)."""
    from qrelkit.evaluate.stability import stability

    with_primary = stability(runs, primary, assessors, samples=samples, seed=seed, natural=natural,
                             include_primary=True).to_dict()
    out: dict[str, dict] = {"sampled_with_primary": {"kendall_tau": with_primary["kendall_tau"]["mean"]}}
    nat = with_primary.get("natural")
    if nat:
        out["natural"] = {"kendall_tau": nat["kendall_tau"], "spearman_rho": nat["spearman_rho"], "rbo": nat["rbo"]}
    for name, r in with_primary["rankers"].items():
        if name.startswith("aggregated "):
            out[name] = {"ndcg_at_10": r["nDCG@10"]["mean"]}
    return out
