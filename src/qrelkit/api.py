"""The notebook-facing API: the jobs and the evaluation as plain functions.

Everything here is a thin layer over the same library functions the command
line uses, returning plain objects or pandas DataFrames.

>>> import qrelkit
>>> d = qrelkit.demo_paths()
>>> runs = qrelkit.read_runs([str(p) for p in d.runs])
>>> df = qrelkit.score(runs, d.qrels, measures=["nDCG@10", "Judged@10"])
>>> sorted(df.columns)
['Judged@10', 'nDCG@10']
>>> float(df.loc["bm25", "Judged@10"])
1.0
>>> h = qrelkit.holes(runs, d.qrels)
>>> h["pooled"] > h["holes"] > 0
True
>>> h["threshold"], h["threshold_source"]
(2, 'auto-graded')
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

QrelsLike = Union[str, Path, Mapping, Iterable]


def _pairs(qrels: QrelsLike) -> dict:
    from qrelkit.data import as_pairs, load_qrels

    if isinstance(qrels, (str, Path)):
        return dict(load_qrels(str(qrels)).pairs)
    return dict(as_pairs(qrels))


def _runs(runs: Any, run_names: str = "auto") -> list:
    """Runs given as paths are read and named as the command line names them (``run_names``:
    auto, tag or file; :mod:`qrelkit.data.runs`), with a warning saying which are not named as
    their files are; runs read already keep their names."""
    from qrelkit.data import read_runs

    paths = [str(runs)] if isinstance(runs, (str, Path)) else list(runs)
    if not paths or not isinstance(paths[0], (str, Path)):
        return paths
    read = read_runs([str(r) for r in paths], by=run_names)
    from qrelkit.data.runs import name_warning

    note = name_warning(read, run_names)
    if note:
        import warnings

        warnings.warn(note, stacklevel=3)
    return read


def score(
    runs: Any,
    qrels: QrelsLike,
    measures: Optional[Sequence[str]] = None,
    threshold: Union[str, int] = "auto",
    judged_only: bool = False,
    run_names: str = "auto",
):
    """Mean scores per system as a DataFrame (rows: systems, columns: measures);
    what ``qrelkit evaluate`` prints for one qrels version.

    ``runs``: paths (files, folders, globs; named by ``run_names`` as ``--run-names`` does) or
    runs from :func:`read_runs`;
    ``qrels``: a path, a ``{(qid, docid): grade}`` mapping or Qrel records.
    Measures are ir_measures names; binary ones use ``threshold`` (``auto``: 1
    for binary qrels, 2 for graded ones; see :mod:`qrelkit.relevance`),
    which is kept in ``df.attrs``."""
    import pandas as pd

    from qrelkit.evaluate.systems import DEFAULT_MEASURES, evaluate_runs
    from qrelkit.relevance import resolve_threshold

    pairs = _pairs(qrels)
    thr = resolve_threshold(threshold, pairs, qrels if isinstance(qrels, (str, Path)) else None)
    scores = evaluate_runs(_runs(runs, run_names), pairs, measures or DEFAULT_MEASURES, thr.value, judged_only)
    data = {m: scores.means(m) for m in scores.measures}
    df = pd.DataFrame(data, index=pd.Index(scores.systems, name="system"))
    df.attrs.update(thr.to_dict())
    return df


def holes(runs: Any, qrels: QrelsLike, depth: int = 10, new_qrels: Optional[QrelsLike] = None,
          threshold: Union[str, int] = "auto", run_names: str = "auto") -> dict:
    """Pooled pairs, holes and per-run Judged@k / Unjudged@k, with ``new_qrels``
    also Hole@k (the `qrelkit holes --json` object)."""
    from qrelkit.evaluate.holes import holes_report
    from qrelkit.relevance import resolve_threshold

    pairs = _pairs(qrels)
    thr = resolve_threshold(threshold, pairs, qrels if isinstance(qrels, (str, Path)) else None)
    new = _pairs(new_qrels) if new_qrels is not None else None
    return {**thr.to_dict(), **holes_report(_runs(runs, run_names), pairs, depth, new, thr.value)}


def estimate(
    runs: Any = None,
    labels: Optional[QrelsLike] = None,
    people: Optional[QrelsLike] = None,
    sample: Any = None,
    measures: Sequence[str] = ("P@10", "nDCG@10"),
    *,
    workspace: Union[str, Path, None] = None,
    alpha: float = 0.05,
    seed: int = 0,
):
    """Each run's estimated score with its interval, as a DataFrame (one row per run and measure:
    ``estimate``, ``low``, ``high``, ``labels_only``, ``people_only``, ``people_low``, ``people_high``);
    what ``qrelkit estimate --json`` prints, whose whole object (differences, tied groups,
    calibration, the sample's unlabelled pairs) is in ``df.attrs``.

    From files: ``runs`` (paths or runs from :func:`read_runs`), ``labels`` (the judge's) and
    ``people`` (paths or ``{(qid, docid): grade}``), ``sample`` (a sample file's path or a
    :class:`qrelkit.estimate.Sample`). From a workspace: ``workspace``, and ``labels`` the judged method
    whose labels are corrected (default: the stored job's judge), as `qrelkit estimate -w WS --labels METHOD`.
    Refusals raise :class:`qrelkit.estimate.EstimateError`."""
    import pandas as pd

    from qrelkit.estimate.workspace import estimate_files, estimate_workspace

    if workspace is not None:
        from qrelkit.store import Store

        with Store.open(workspace) as store:
            result = estimate_workspace(store, method=labels, measures=list(measures), alpha=alpha, seed=seed)
    else:
        from qrelkit.errors import UsageError
        from qrelkit.estimate import read_sample

        if runs is None or labels is None or people is None or sample is None:
            raise UsageError("estimate needs runs, labels, people and sample (or workspace=)")
        drawn = read_sample(sample) if isinstance(sample, (str, Path)) else sample
        result = estimate_files(_runs(runs), _pairs(labels), _pairs(people), drawn, list(measures), alpha, seed)
    out = result.to_json()
    df = pd.DataFrame([{"run": r["run"], "measure": r["measure"], "estimate": r["estimate"], "low": r["low"],
                        "high": r["high"], "labels_only": r["labels_only"],
                        "people_only": r["people_only"]["estimate"], "people_low": r["people_only"]["low"],
                        "people_high": r["people_only"]["high"]} for r in out["runs"]])
    df.attrs.update(out)
    return df


def fill(workspace: Union[str, Path], plan: Union[str, Path, None] = None, *, auto: bool = False, **options):
    """Complete an existing collection; see :func:`qrelkit.job.run.fill`. ``plan`` may be a TOML path."""
    from qrelkit.job import run as jobs

    return jobs.fill(workspace, plan, auto=auto, **options)


def build(workspace: Union[str, Path], plan: Union[str, Path, None] = None, *, auto: bool = False, **options):
    """Build a new collection by hybrid pooling; see :func:`qrelkit.job.run.build`."""
    from qrelkit.job import run as jobs

    return jobs.build(workspace, plan, auto=auto, **options)


def judgments(workspace: Union[str, Path]):
    """A workspace's judgments (every method, people included) as a DataFrame."""
    import dataclasses

    import pandas as pd

    from qrelkit.store import Store

    with Store.open(workspace) as store:
        rows = [dataclasses.asdict(j) for j in store.judgments()]
    return pd.DataFrame(rows)


def merged_qrels(workspace: Union[str, Path], method: Optional[str] = None, model: Optional[str] = None,
                 columns: str = "qrelkit"):
    """The merged qrels (original, people, judge) with provenance, as a DataFrame.

    ``columns``: ``qrelkit`` (``qid, docid, grade``), ``ir_measures`` (``query_id, doc_id,
    relevance``: pass it to ``ir_measures.calc_aggregate`` as it is) or ``pyterrier`` (``qid, docno,
    label``); the provenance columns follow under their own names."""
    import dataclasses

    import pandas as pd

    from qrelkit.interchange.columns import names, renamed
    from qrelkit.merge import MergedLabel, merge
    from qrelkit.store import Store

    names(columns)  # a bad name fails before the workspace is read
    with Store.open(workspace) as store:
        result = merge(store, method=method, model=model)
    frame = pd.DataFrame([dataclasses.asdict(m) for m in result.labels],
                         columns=[f.name for f in dataclasses.fields(MergedLabel)])
    return renamed(frame, columns)
