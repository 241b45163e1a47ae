"""The confidence judge's probabilities in LARA's input form, so LARA's own scripts run on qrelkit's calls.

LARA (Takehi et al., "LLM-Assisted Relevance Assessments: When Should We Ask LLMs for Help?",
SIGIR 2025) reads a CSV ``topic_id,doc_id,annotation,prob_yes,prob_no``: the human label (0/1) and
the LLM's probability of each answer. qrelkit's ``confidence`` judge keeps, per case, the model's
P(yes) (``score=yesno``: yes and no normalised against each other) and its calibrated
P(relevant); ``prob_yes`` is the former when the judge asked yes/no, else the latter
(``score=likelihood`` has no yes/no answer), and ``prob_no = 1 - prob_yes``. ``annotation`` is the
people's label — the original qrels, else people's decided label, binary by the judgment's task
threshold — and empty where nobody has labelled the pair (LARA's simulation needs it there; the
``--json`` counts say how many rows have one). A case whose score failed has no probability and
is left out, counted as ``no_probability``: no number is invented.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from qrelkit.errors import UsageError

if TYPE_CHECKING:
    from qrelkit.store import Store

COLUMNS = ("topic_id", "doc_id", "annotation", "prob_yes", "prob_no")


def confidence_method(store: Store, method: Optional[str]) -> str:
    """The confidence method whose calls are exported: the one given, else the only (or latest) one."""
    if method is not None:
        if not method.startswith("confidence"):
            raise UsageError(f"--lara reads the confidence judge's probabilities; {method!r} is not a confidence method")
        return method
    found = [m for m in store.judge_methods() if m.startswith("confidence")]
    if not found:
        raise UsageError(f"{store.workspace} has no confidence judgments; run `qrelkit judge --method confidence` first")
    latest = store.latest_llm_method()
    return latest[0] if latest and latest[0] in found else found[-1]


def export_lara(store: Store, out: Path, method: Optional[str] = None, model: Optional[str] = None) -> dict:
    """Write LARA's CSV for one confidence method; returns what ``export --lara`` prints."""
    method = confidence_method(store, method)
    model = model if model is not None else (store.models_of(method) or [""])[-1]
    human = dict(store.qrels())
    human.update({(j.qid, j.docid): j.effective_grade for j in store.people_labels() if j.effective_grade is not None})
    counts = {"rows": 0, "annotated": 0, "no_probability": 0, "prob_yes_from_p_yes": 0}
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(COLUMNS)
        for j in store.iter_judgments(method, model):
            prov = json.loads(j.provenance)
            conf = prov.get("confidence") or {}
            p = conf.get("p_yes") if conf.get("p_yes") is not None else conf.get("probability")
            if p is None:
                counts["no_probability"] += 1
                continue
            counts["prob_yes_from_p_yes"] += conf.get("p_yes") is not None
            grade = human.get((j.qid, j.docid))
            task = prov.get("task") or {}
            threshold = int(task.get("threshold", 2)) if task.get("name", "graded") == "graded" else 1
            annotation = "" if grade is None else int(grade >= threshold)
            counts["annotated"] += grade is not None
            counts["rows"] += 1
            w.writerow([j.qid, j.docid, annotation, f"{float(p):.6g}", f"{1 - float(p):.6g}"])
    return {"lara": str(out), "method": method, "model": model, **counts}
