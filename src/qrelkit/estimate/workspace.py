"""The estimate as the product runs it: its inputs gathered from files or from a workspace.

The estimators are the package's (:mod:`qrelkit.estimate.estimators`); this module only decides what they
are given (it was ``qrelkit.estimating``, outside the package it belongs to):

- from files: the runs (named as `evaluate` names them), the judge's labels, the people's labels
  and a sample file (:mod:`qrelkit.estimate.sample_file`);
- from a workspace: the stored runs (under the names `init` gave them), the judge's labels of one
  method (default: the stored job's, else the latest judge's), the people's labels (the annotation
  app's decisions, and the original qrels, which are a census: people labelled them already), and
  the stored draw (:mod:`qrelkit.store.samples`). A draw from a pool that has changed since is
  refused: its probabilities describe a universe that no longer exists.

Imports of the store, the pool and the workspace stay inside the functions: ``qrelkit.pooling`` imports
this package (the designs), and the package is itself callable (``qrelkit.estimate(...)`` runs
``qrelkit.api.estimate``, which imports this module; see :mod:`qrelkit._callable`), so a module-level
import here would close a cycle through whichever of them is imported first.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from qrelkit.estimate.design import Sample
    from qrelkit.store import Store

Pair = tuple[str, str]
DEFAULT_MEASURES = ("P@10", "nDCG@10")
_CUTOFF = re.compile(r"@(\d+)")


def run_depth(measures: Sequence[str], sample_depth: Optional[int] = None) -> Optional[int]:
    """How deep the runs must be read for these measures and the universe of a sample drawn to
    ``sample_depth`` (None: whole, a measure without a cut-off)."""
    cuts = [_CUTOFF.search(m) for m in measures]
    if any(c is None for c in cuts):
        return None
    return max([int(c[1]) for c in cuts] + ([sample_depth] if sample_depth else []))


def estimate_files(runs: Sequence[Any], labels: Mapping[Pair, int], people: Mapping[Pair, int], sample: "Sample",
                   measures: Sequence[str] = DEFAULT_MEASURES, alpha: float = 0.05, seed: int = 0) -> Any:
    """Estimates from runs (``Run`` values, named as `evaluate` names them), labels and a sample."""
    from qrelkit.estimate.estimators import estimate_runs
    from qrelkit.pooling.people_sample import rankings

    return estimate_runs(rankings(runs), dict(labels), dict(people), sample, list(measures), alpha=alpha, seed=seed)


def stored_sample(store: "Store") -> "Sample":
    """The workspace's stored draw as a Sample; refused (EstimateError) without one or when the pool
    it was drawn from has changed since."""
    from qrelkit.estimate.design import Sample, SampledPair
    from qrelkit.estimate.errors import EstimateError
    from qrelkit.pooling.people_sample import fingerprint

    design = store.people_sample_design()
    ws = store.workspace
    if design is None:
        raise EstimateError(f"{ws}: the workspace has no people's sample; draw one with "
                            f"`qrelkit sample -w {ws} --size 10%` (or pool with --people 'sample(size=10%)')")
    pool = [(c.qid, c.docid) for c in store.cases()]
    if fingerprint(pool) != design.get("pool"):
        raise EstimateError(f"{ws}: the people's sample ({design.get('spec')}) was drawn from a pool of "
                            f"{design.get('universe')} pairs, and the pool has changed since ({len(pool)} pairs now): "
                            f"its inclusion probabilities no longer match the pool; draw again with "
                            f"`qrelkit sample -w {ws} ...` (the same design and seed draw the same pairs from the same pool)")
    rows = store.people_sample()
    return Sample(tuple(SampledPair(r.qid, r.docid, r.probability) for r in rows if not r.census),
                  design.get("design", "unknown"), int(design.get("seed") or 0),
                  frozenset((r.qid, r.docid) for r in rows if r.census), design.get("depth"),
                  universe=frozenset(pool))  # the pool it was drawn from


def judge_method(store: "Store", method: Optional[str]) -> tuple[str, Optional[str]]:
    """The judge whose labels are corrected: ``method`` (as stored), else the stored job's, else the latest
    judge's, else the one imported version when there is only one (`qrelkit import`)."""
    from qrelkit.errors import UsageError
    from qrelkit.status import job_summary

    known = store.judge_methods()
    job = job_summary(store) or {}
    chosen = method or (job.get("method") if job.get("method") in known else None)
    if chosen is None:
        latest = store.latest_llm_method()
        chosen = latest[0] if latest else None
    if chosen is None and len(known) == 1:
        chosen = known[0]
    if chosen is None or chosen not in known:
        listed = ", ".join(m for m in known if m != "people") or "none"
        raise UsageError(f"{store.workspace}: no labels of judge {chosen or '(any)'} to estimate from; "
                         f"judged methods: {listed} (pass --labels METHOD)")
    return chosen, None


def workspace_inputs(store: "Store", method: Optional[str] = None, model: Optional[str] = None,
                     measures: Sequence[str] = DEFAULT_MEASURES) -> tuple[dict, dict, dict, "Sample"]:
    """(runs, judge's labels, people's labels, sample) of a workspace, as the estimators take them."""
    from qrelkit.pooling.people_sample import rankings
    from qrelkit.store.waiting import PEOPLE_METHOD
    from qrelkit.workspace import _pool_inputs

    sample = stored_sample(store)
    chosen, _ = judge_method(store, method)
    original = dict(store.qrels())
    labels = dict(original)  # census pairs: the judge is not needed where people have labelled
    for j in store.iter_judgments(chosen, model):
        if j.grade is not None and j.source != "human":
            labels[(j.qid, j.docid)] = j.grade
    people = dict(original)
    people.update({(j.qid, j.docid): j.grade for j in store.judgments(method=PEOPLE_METHOD, source="human")
                   if j.grade is not None})
    stored = store.runs()
    depth = run_depth(measures, sample.depth)
    runs = _pool_inputs([p for _, p, _ in stored], [n for n, _, _ in stored], depth or 10**9)
    return rankings(runs), labels, people, sample


def estimate_workspace(store: "Store", method: Optional[str] = None, model: Optional[str] = None,
                       measures: Sequence[str] = DEFAULT_MEASURES, alpha: float = 0.05, seed: int = 0) -> Any:
    """Estimates from a workspace's stored labels and sample (see the module docstring)."""
    from qrelkit.estimate.errors import EstimateError
    from qrelkit.estimate.estimators import estimate_runs

    runs, labels, people, sample = workspace_inputs(store, method, model, measures)
    try:
        return estimate_runs(runs, labels, people, sample, list(measures), alpha=alpha, seed=seed)
    except EstimateError as e:
        waiting = store.sample_counts().waiting
        if not waiting:
            raise
        raise EstimateError(f"{e}; {waiting} of the sample's {len(sample.pairs)} pairs wait for people "
                            f"(serve them with `qrelkit annotate serve -w {store.workspace}`)") from None


def read_labels(path: str | Path) -> dict[Pair, int]:
    from qrelkit.data import load_qrels

    return dict(load_qrels(str(path)).pairs)
