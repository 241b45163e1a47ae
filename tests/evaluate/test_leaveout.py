"""Leave-one-group-out pool-bias simulation."""
from __future__ import annotations

import json

import pytest

from qrelkit.errors import InputError, UsageError
from qrelkit.evaluate.leaveout import dropped_pairs, group_of, leave_out, read_groups
from qrelkit.evaluate.systems import evaluate_runs, system_ranks

from .helpers import make_run, random_collection


def test_group_of():
    assert group_of("ICT-BERT2") == "ICT"
    assert group_of("bm25base_p") == "bm"
    assert group_of("idst_bert_p1") == "idst"
    assert group_of("TUW19-p1-f") == "TUW"
    assert group_of("runid2") == "runid"
    assert group_of("colbert_rankzephyr") == "colbert"
    assert group_of("123") == "123"


def test_dropped_pairs_by_hand():
    a1 = make_run("a1", {"q": [("x", 3), ("y", 2), ("deep", 1)]})
    a2 = make_run("a2", {"q": [("y", 3), ("w", 2)]})
    b1 = make_run("b1", {"q": [("x", 3), ("z", 2)]})
    qrels = {("q", "x"): 2, ("q", "y"): 3, ("q", "w"): 0, ("q", "z"): 1, ("q", "deep"): 3, ("q", "v"): 2}
    drops = {d.group: d for d in dropped_pairs([a1, a2, b1], qrels, depth=2)}
    assert drops["a"].pairs == {("q", "y"), ("q", "w")}  # x is shared with b; deep is below depth
    assert drops["a"].relevant == 1
    assert drops["b"].pairs == {("q", "z")}
    assert drops["a"].runs == ("a1", "a2")
    mapped = {d.group: d for d in dropped_pairs([a1, a2, b1], qrels, 2, {"a1": "G", "a2": "H", "b1": "G"})}
    assert mapped["H"].pairs == {("q", "w")}


def test_leave_out_matches_direct_evaluation():
    runs, qrels = random_collection(seed=8, n_runs=6)
    groups = {r.name: ("g1" if i < 3 else "g2") for i, r in enumerate(runs)}
    res = leave_out(runs, qrels, depth=10, groups=groups, measures=["nDCG@10", "P@10"])
    full = evaluate_runs(runs, qrels, ["nDCG@10", "P@10"])
    for drop, g in zip(dropped_pairs(runs, qrels, 10, groups), res.groups):
        assert g.group == drop.group and g.dropped == len(drop.dropped)
        reduced = {p: v for p, v in qrels.items() if p not in drop.pairs}
        direct = evaluate_runs(runs, reduced, ["nDCG@10", "P@10"], topics=full.topics)
        ranks = system_ranks(direct.means("nDCG@10"))
        for r in g.runs:
            s = direct.systems.index(r.run)
            assert r.scores_left_out[0] == pytest.approx(direct.means("nDCG@10")[s])
            assert r.scores_left_out[1] == pytest.approx(direct.means("P@10")[s])
            assert r.scores_left_out[1] <= r.scores_full[1] + 1e-12  # losing labels cannot raise P@10
            assert r.scores_full[0] == pytest.approx(full.means("nDCG@10")[s])
            assert r.rank_left_out == ranks[s]
    d = res.to_dict()
    assert d["summary"]["groups"] == 2
    assert {"full", "left_out", "delta"} <= set(d["groups"][0]["runs"][0]["P@10"])


def test_read_groups(tmp_path):
    tsv = tmp_path / "g.tsv"
    tsv.write_text("a1\tA\n\n# comment\nb1\tB\n")
    assert read_groups(tsv) == {"a1": "A", "b1": "B"}
    bad = tmp_path / "bad.tsv"
    bad.write_text("a1\tA\nb1\n")
    with pytest.raises(InputError, match=r"bad.tsv:2"):
        read_groups(bad)
    js = tmp_path / "g.json"
    js.write_text(json.dumps({"a1": "A"}))
    assert read_groups(js) == {"a1": "A"}
    toml = tmp_path / "g.toml"
    toml.write_text('a1 = "A"\nb1 = "B"\n')
    assert read_groups(toml) == {"a1": "A", "b1": "B"}
    js.write_text("{oops")
    with pytest.raises(InputError):
        read_groups(js)
    runs = [make_run("zz", {"q": [("x", 1)]})]
    with pytest.raises(UsageError):
        leave_out(runs, {("q", "x"): 1}, groups={"a1": "A"})
