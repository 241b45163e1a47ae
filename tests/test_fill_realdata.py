"""`fill` on real data: TREC DL 2019, leave one group out, filled by the embedded model.

The official runs are fully judged to depth 10, so holes are simulated the
classic way: hide the labels that only one group's runs contributed to the
depth-10 pool, fill them, and compare with the hidden NIST labels. The
numbers this prints are the ones recorded in the README.
"""
from __future__ import annotations

import json

import pytest
from shared_data import shared_data_path

from qrelkit.data import load_qrels, read_runs, write_qrels
from qrelkit.evaluate.leaveout import dropped_pairs
from qrelkit.evaluate.systems import evaluate_runs
from qrelkit.job.run import fill, recovered
from qrelkit.types import Qrel

pytestmark = [pytest.mark.model, pytest.mark.realdata]

GROUP = "idst"
METHOD = "likelihood(threshold=auto,calib=60)"


def _rank(scores, system: str, measure: str) -> int:
    means = scores.means(measure)
    mine = means[scores.systems.index(system)]
    return 1 + int((means > mine).sum())


def test_leave_one_group_out_filled_by_the_embedded_model(tmp_path):
    dl = shared_data_path("trec-dl-2019")
    runs = read_runs([str(dl / "runs" / "official")])
    nist = load_qrels(str(dl / "qrels.txt")).pairs
    (drop,) = [g for g in dropped_pairs(runs, nist, 10) if g.group == GROUP]
    hidden = drop.pairs
    assert len(hidden) == 57 and drop.relevant == 24
    partial = tmp_path / "qrels.hidden.txt"
    write_qrels(partial, [Qrel(q, d, g) for (q, d), g in sorted(nist.items()) if (q, d) not in hidden])

    result = fill(tmp_path / "ws", auto=True, topics=str(dl / "topics.tsv"), docs=str(dl / "passages.jsonl"),
                  qrels=str(partial), runs=[str(dl / "runs" / "official")], method=METHOD)
    assert result.state == "done"
    # every hidden pair came back as a hole, plus the pooled pairs NIST never judged
    never = {(q, e.docid) for r in runs for q, es in r.by_topic.items() if q in {k[0] for k in nist}
             for e in es[:10]} - set(nist)
    assert result.pool["holes"] == len(hidden) + len(never)
    assert result.merged["unresolved"] == result.pool["no_text"]  # no text: an error, never a guessed label

    rec = recovered(result.qrels, partial, dl / "qrels.txt")
    assert rec["hidden"] == 57 and rec["hidden_relevant"] == 24 and rec["filled"] == 57

    merged = load_qrels(str(result.qrels)).pairs
    partial_pairs = load_qrels(str(partial)).pairs
    group_runs = [r for r in runs if r.name in drop.runs]
    measures = ["nDCG@10", "P@10"]
    full_s = evaluate_runs(runs, nist, measures)
    hid_s = evaluate_runs(runs, partial_pairs, measures)
    new_s = evaluate_runs(runs, merged, measures)
    rows = []
    for r in group_runs:
        # labels were only added to pairs the hidden qrels left unjudged: P@10 cannot fall
        assert new_s.mean_of(r.name, "P@10") >= hid_s.mean_of(r.name, "P@10") - 1e-12
        rows.append({
            "run": r.name,
            "nDCG@10": [round(s.mean_of(r.name, "nDCG@10"), 4) for s in (full_s, hid_s, new_s)],
            "rank": [_rank(s, r.name, "nDCG@10") for s in (full_s, hid_s, new_s)],
        })
    print("\nleave-out", GROUP, json.dumps(rec), json.dumps(rows), "judge", json.dumps(
        {k: result.judge[k] for k in ("calls", "cache_hits", "prompt_tokens", "seconds")}))
