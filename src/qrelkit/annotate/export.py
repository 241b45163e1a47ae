"""Export of the people's work: every vote (JSONL) and the decided labels (TREC qrels).

All votes are exported, excluded ones and attention checks included and
flagged, so that others can re-derive the decisions with their own rules.
Each file is written whole or not at all (:func:`qrelkit.data.atomic.atomic_write`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from qrelkit.annotate.content import task_of
from qrelkit.annotate.settings import AnnotateSettings, load_settings
from qrelkit.annotate.votes import METHOD, attention_passed, excluded_users, qrels_threshold
from qrelkit.data.atomic import atomic_write

VOTES_FILE = "votes.jsonl"
QRELS_FILE = "decided.qrels"


@dataclass(frozen=True)
class ExportResult:
    votes: int
    excluded_votes: int
    attention_votes: int
    decided: int
    votes_path: Path
    qrels_path: Path

    def to_json(self) -> dict:
        return {
            "votes": self.votes, "excluded_votes": self.excluded_votes, "attention_votes": self.attention_votes,
            "decided": self.decided, "votes_path": str(self.votes_path), "qrels_path": str(self.qrels_path),
        }


def export_annotations(store, out_dir: Path, settings: AnnotateSettings | None = None) -> ExportResult:
    settings = settings or load_settings(store)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    excluded = excluded_users(store, settings)
    qthr = qrels_threshold(store, settings)
    rows = store.vote_records()
    n_excl = n_att = 0
    votes_path = out / VOTES_FILE
    with atomic_write(votes_path) as f:
        for name, uid, qid, docid, grade, comment, secs, shown, created, kind, expected in rows:
            rec = {
                "annotator": name, "qid": qid, "docid": docid, "grade": grade, "comment": comment,
                "seconds": secs, "history_shown": bool(shown), "kind": kind, "created_at": created,
                "excluded": uid in excluded,
            }
            if kind == "attention":
                n_att += 1
                rec["expected_grade"] = expected
                rec["passed"] = attention_passed(grade, expected, task_of(store, settings, qid), settings, qthr)
            n_excl += uid in excluded
            f.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
    decided = store.judgments(method=METHOD, model="", status="human")
    qrels_path = out / QRELS_FILE
    with atomic_write(qrels_path) as f:
        for j in decided:
            f.write(f"{j.qid} 0 {j.docid} {j.grade}\n")
    return ExportResult(len(rows), n_excl, n_att, len(decided), votes_path, qrels_path)
