"""``qrelkit compare --preset bridge``: what filling the holes changed, beside BRIDGE's figures.

Parsing and printing only; the work is in :mod:`qrelkit.compare.bridge`. On a filled workspace
(``-w WS``) everything comes from the workspace: its runs, original qrels, the merged new labels
and its graded RAG answers (generated and graded with ``--model`` first when it has none).
Without one, ``--runs``, ``--reference`` and ``--new-qrels`` say the same, and ``--generation``
gives the correctness labels."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from qrelkit.cli._app import console


def bridge(pre: Any, workspace: Optional[Path], runs: tuple[Optional[list[str]], str], reference: Optional[Path],
           new_qrels: Optional[Path], generation: Optional[Path], model: str, threshold: str, seed: int,
           concurrency: int, as_json: bool) -> None:
    from qrelkit.cli.compare import _emit_preset
    from qrelkit.compare.bridge import measure
    from qrelkit.relevance import parse_threshold, resolve_threshold

    runs_, original, new, gens, rag, source = _inputs(workspace, runs, reference, new_qrels, generation, model,
                                                      concurrency)
    thr = resolve_threshold(parse_threshold(threshold), original, source).value
    m = measure(runs_, original, new, thr, gens, seed=seed)
    out = {"runs": len(runs_), "threshold": thr, "new_labels": len(new), "bridge": m["systems"],
           "growth": m["growth"], "ragalign": m["ragalign"]} | ({"rag": rag} if rag else {})
    if not as_json:
        _print_measured(out)
    _emit_preset(pre, out, as_json)


def _inputs(workspace, runs, reference, new_qrels, generation, model, concurrency):
    from qrelkit.cli._app import require_runs
    from qrelkit.data import load_qrels
    from qrelkit.errors import UsageError
    from qrelkit.evaluate.ragalign_multi import read_generator

    def qrels(path: Path) -> dict:
        return dict(load_qrels(str(path)).pairs)

    gens = [read_generator(str(generation))] if generation is not None else []
    if workspace is None:
        if reference is None or new_qrels is None or not runs[0]:
            raise UsageError("--preset bridge needs a filled workspace (-w WS), or --reference QRELS (the original "
                             "labels), --new-qrels QRELS and --runs PATH ...")
        return require_runs(*runs), qrels(reference), qrels(new_qrels), gens, {}, str(reference)
    from qrelkit.compare.bridge import ensure_answers, workspace_inputs
    from qrelkit.evaluate.ragalign_multi import generators_from_store
    from qrelkit.store import Store

    with Store.open(workspace) as store:
        ws_runs, original, new = workspace_inputs(store)
        rag = {}
        gens = gens or list(generators_from_store(store))
        if not gens:
            console.print(f"RAGAlign@10: answers of every run's top 10, generated and graded by {model} "
                          "(once; stored in the workspace)", soft_wrap=True, highlight=False, markup=False)
            rag = ensure_answers(store, model, concurrency)
            gens = list(generators_from_store(store))
    original = qrels(reference) if reference is not None else original
    new = qrels(new_qrels) if new_qrels is not None else new
    return (require_runs(*runs) if runs[0] else ws_runs), original, new, gens, rag, f"{workspace} (original qrels)"


def _print_measured(out: dict) -> None:
    from qrelkit.cli.compare import _num, _pct, _table

    systems = {k: v for k, v in out["bridge"].items() if k != "*"}
    _table("Per system: Hole@10 (BRIDGE Table 4), Hit@10 before -> after hole filling (Table 5), RAGAlign@10 "
           "before -> after (Table 6)", ["system", "Hole@10 %", "holes", "Hit@10 before", "Hit@10 after", "gain",
                                         "RAGAlign before", "RAGAlign after"],
           [[name, _pct(v.get("hole_at_10")), str(v.get("detected_holes", "-")), _num(v.get("hit_at_10_before")),
             _num(v.get("hit_at_10_after")), _num(v.get("hit_at_10_gain")), _num(v.get("ragalign_before")),
             _num(v.get("ragalign_after"))] for name, v in sorted(systems.items())])
    g = out["growth"]
    c = g["growth"]
    _table(f"Pool growth (BRIDGE Figure 3): {g['runs']} runs joining the depth-{g['depth']} pool in {g['orders']} "
           f"random orders (seed {g['seed']}); {g['holes']} detected holes; {g['measure']}",
           ["runs added", "holes found %", "growth rate %", "marginal contribution"],
           [[str(t), _pct(f), _pct(r), _num(mc, 4)] for t, f, r, mc in
            zip(c["runs_added"], c["found_fraction"], c["growth_rate"], c["marginal_contribution"])])
    for name, r in out["ragalign"].items():
        console.print(f"RAGAlign@10 ({name}, {r['queries']} system-query pairs): {_num(r['before'])} on the original "
                      f"qrels -> {_num(r['after'])} on the filled ones", soft_wrap=True, highlight=False, markup=False)
    if not out["ragalign"]:
        console.print("RAGAlign@10: no graded answers (pass --generation FILE, or a workspace whose topics have "
                      "gold answers)", soft_wrap=True, highlight=False, markup=False)

