"""The project report: one self-contained HTML file plus a JSON twin.

Why this shape: the report is what people read and forward, so it must open
anywhere (no network, no server: plots are base64 PNGs inside the HTML) and
say plainly when a section has no data instead of failing; the JSON twin
(``report.json`` next to the HTML) carries the same numbers for scripts.
The HTML is rendered by Jinja2 with autoescaping on, because run names,
narratives and rationales are user text.

Use :func:`write_report` with explicit :class:`ReportInputs` from Python, or
:func:`report_from_store` to gather everything from an open workspace (a job
passes the merge it just made), :func:`report_from_workspace` from a folder.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence, Union

import numpy as np
from markupsafe import Markup, escape

from qrelkit.data.atomic import atomic_write
from qrelkit.data.qrels import PairGrades
from qrelkit.evaluate.ragalign_multi import generators_from_store
from qrelkit.evaluate.saturation import DEFAULT_GROWTH_MEASURE
from qrelkit.relevance import ADJUDICATED, ERROR, ESCALATE
from qrelkit.report import plots
from qrelkit.report.audit import audit_section
from qrelkit.report.estimates import estimates_figure, estimates_section
from qrelkit.report.estimates import gather as gather_estimates
from qrelkit.report.gathering import MergedTally, full_rankings, workspace_runs
from qrelkit.report.rag import RAG_K, rag_alignment, rag_figure, rag_section
from qrelkit.store.commands import CommandRun
from qrelkit.types import Usage

if TYPE_CHECKING:
    from qrelkit.store import Store

TEMPLATES = Path(__file__).parent / "templates"


@dataclass(frozen=True)
class CostRow:
    """Calls and spending of one judging method (or one command)."""

    name: str
    model: str = ""
    judgments: int = 0
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def usage(self) -> Usage:
        return Usage(self.calls, self.cache_hits, self.prompt_tokens, self.completion_tokens, self.cost_usd)

    @classmethod
    def of(cls, name: str, model: str, judgments: int, u: Usage) -> "CostRow":
        return cls(name, model, judgments, u.calls, u.cache_hits, u.prompt_tokens, u.completion_tokens, u.cost_usd)


@dataclass(frozen=True)
class EscalationRow:
    """A case a method would not decide, and what became of it."""

    qid: str
    docid: str
    method: str
    status: str  # escalate | error | adjudicated
    outcome: Optional[int]  # the grade finally given (people or adjudicator), None while waiting
    outcome_source: str  # people | adjudicator | waiting
    reference: Optional[int] = None  # original label, when the pair had one (audit mode)
    reason: str = ""
    span: str = ""  # the text the guard flagged, for a case it held back (qrelkit.judging.guarded)


@dataclass(frozen=True, eq=False)
class ReportInputs:
    """Everything a report can show; any part may be empty."""

    title: str = "qrelkit report"
    source: str = ""
    measure: str = "nDCG@10"
    versions: tuple = ()  # TopicScores, the first is "before"
    comparison: Any = None  # VersionComparison of versions[0] -> versions[-1]
    holes: tuple = ()  # SystemHoles
    depth: int = 10
    threshold: Any = None  # evaluate.threshold.Threshold of the binary measures
    saturation: Any = None  # PoolGrowth
    agreements: tuple = ()  # Agreement or JudgeAgreement
    agreement_reference: str = ""
    escalations: tuple[EscalationRow, ...] = ()
    costs: tuple[CostRow, ...] = ()
    commands: tuple[CostRow, ...] = ()
    narrative_costs: tuple[CostRow, ...] = ()  # inducing narratives, per instructor model
    narratives: tuple[tuple[str, str], ...] = ()  # (qid, narrative)
    provenance: tuple[tuple[str, int], ...] = ()  # (source or status, count)
    circularity: tuple = ()  # CircularityWarning
    notes: tuple[str, ...] = ()
    plan: Optional[dict] = None  # the job's plan as stored in the workspace (see qrelkit.job.plan)
    job: Optional[dict] = None  # the stored job whose labels are merged (qrelkit.job.stored), as `status` shows it
    earlier_jobs: tuple = ()  # jobs a --rejudge replaced
    state: Optional[dict] = None  # where the job stands (qrelkit.job.run.record_state): done, partial, waiting
    version: str = ""  # the qrelkit version that wrote the report
    rag: tuple = ()  # GeneratorAlignment (qrelkit.evaluate.ragalign_multi); the section shows only with data
    estimates: Optional[dict] = None  # `qrelkit estimate`'s object (or why refused); shown with a people's sample
    audits: tuple = ()  # stored audits as `qrelkit audit --json` prints them; the section shows only with data


@dataclass(frozen=True)
class ReportFiles:
    html: Path
    json: Path
    sections: dict = field(default_factory=dict, hash=False)  # section -> "ok" | reason it is empty
    threshold: dict = field(default_factory=dict, hash=False)  # {"threshold", "threshold_source"} when known
    data: dict = field(default_factory=dict, hash=False, repr=False)  # the JSON twin's content

    def headline(self) -> dict:
        """The before/after headline numbers (what `fill`/`build` print under ``evaluation``)."""
        scores = self.data.get("scores") or {}
        comp = scores.get("comparison") or {}
        out: dict = {"measure": scores.get("measure")} if scores.get("available") else {}
        for key in ("kendall_tau", "tau_ap", "spearman_rho", "rbo"):
            if key in comp:
                out[key] = comp[key]
        holes = self.data.get("holes") or {}
        if holes.get("available"):
            out["mean_hole_rate"] = holes.get("mean_hole_rate")
        return out


# ---------------------------------------------------------------- sections
def _section(data: Optional[dict], reason: str) -> dict:
    if data is None:
        return {"available": False, "reason": reason}
    return {"available": True, **data}


def _scores_section(inp: ReportInputs) -> dict:
    if not inp.versions:
        return _section(None, "no runs were evaluated (the workspace has no runs, or their files are missing)")
    first, last = inp.versions[0], inp.versions[-1]
    measure = inp.measure if inp.measure in first.measures else first.measures[0]
    systems = [s for s in first.systems if s in last.systems]
    a, b = first.subset(systems), last.subset(systems)
    ma, mb = a.means(measure), b.means(measure)
    from qrelkit.evaluate.systems import system_ranks

    ra, rb = system_ranks(ma), system_ranks(mb)
    rows = sorted(
        (
            {"system": s, "before": float(ma[i]), "after": float(mb[i]), "delta": float(mb[i] - ma[i]),
             "rank_before": int(ra[i]), "rank_after": int(rb[i]), "rank_shift": int(ra[i] - rb[i])}
            for i, s in enumerate(systems)
        ),
        key=lambda r: (r["rank_after"], r["system"]),
    )
    data = {
        "measure": measure,
        "before": first.label,
        "after": last.label,
        "one_version": len(inp.versions) == 1,  # no earlier labels (a workspace without qrels): nothing moved
        "topics": len(first.topics),
        "systems": rows,
        "all_measures": {v.label: v.to_dict()["systems"] for v in inp.versions},
    }
    if inp.comparison is not None:
        data["comparison"] = inp.comparison.to_dict()
        data["comparison"].pop("systems", None)
    return _section(data, "")


def _holes_section(inp: ReportInputs) -> dict:
    """Hole@k as BRIDGE defines it (detected holes ÷ k) and Unjudged@k (see
    :mod:`qrelkit.evaluate.saturation`); the headline "mean hole rate" is the
    mean Hole@k over runs, None until new labels exist."""
    if not inp.holes:
        return _section(None, "no runs, or no original qrels to measure holes against")
    rows = [
        {"run": h.run, "hole_rate": h.hole_rate, "detected_holes": h.holes,
         "unjudged_rate": h.unjudged_rate, "judged_after": h.judged_after}
        for h in sorted(inp.holes, key=lambda h: (-(h.hole_rate or 0.0), -h.unjudged_rate, h.run))
    ]
    rates = [h.hole_rate for h in inp.holes if h.hole_rate is not None]
    return _section({"depth": inp.depth, "runs": rows,
                     "mean_hole_rate": float(np.mean(rates)) if rates else None,
                     "mean_unjudged_rate": float(np.mean([h.unjudged_rate for h in inp.holes]))}, "")


def _saturation_section(inp: ReportInputs) -> dict:
    g = inp.saturation
    if g is None:
        return _section(None, "pool growth was not computed (needs runs and labels)")
    d = g.to_dict()
    top = sorted(d["marginal"].items(), key=lambda kv: (-kv[1]["new_holes"], kv[0]))
    d["marginal_top"] = [{"run": k, **v} for k, v in top[:15]]
    d["unmoved"] = bool(d["holes"]) and not any(d["growth"]["marginal_contribution"])
    return _section(d, "")


def _agreement_section(inp: ReportInputs) -> dict:
    """Every judge's agreement; the judge whose labels are in the merged qrels (the stored job's)
    comes first and is marked ``merged``, the workspace's other judgments are listed as such."""
    if not inp.agreements:
        return _section(None, "no labels overlap a reference (no judged pairs were re-judged, or no judgments yet)")
    merged = (inp.job or {}).get("method")
    rows = [a.to_dict() for a in inp.agreements]
    rows = [{**r, "merged": merged is not None and r.get("method") == merged} for r in rows]
    rows.sort(key=lambda r: not r["merged"])
    return _section({"reference": inp.agreement_reference, "results": rows, "merged_method": merged}, "")


def _escalation_section(inp: ReportInputs) -> dict:
    if not inp.escalations:
        return _section(None, "no case was escalated")
    by_outcome = Counter(e.outcome_source for e in inp.escalations)
    by_status = Counter(e.status for e in inp.escalations)
    decided = [e for e in inp.escalations if e.outcome is not None]
    with_ref = [e for e in decided if e.reference is not None]
    rows = [e.__dict__ for e in inp.escalations[:200]]
    return _section({
        "total": len(inp.escalations),
        "guarded": sum(e.reason.startswith("guard: ") for e in inp.escalations),  # qrelkit.judging.guarded
        "by_status": dict(sorted(by_status.items())),
        "by_outcome": dict(sorted(by_outcome.items())),
        "decided": len(decided),
        "outcome_grades": dict(sorted(Counter(str(e.outcome) for e in decided).items())),
        "outcome_matches_reference": (
            sum(1 for e in with_ref if e.outcome == e.reference) / len(with_ref) if with_ref else None),
        "cases": rows,
        "cases_shown": len(rows),
    }, "")


def _cost_section(inp: ReportInputs) -> dict:
    if not inp.costs and not inp.commands and not inp.narrative_costs:
        return _section(None, "no LLM calls were recorded")
    rows = list(inp.costs) + list(inp.narrative_costs)
    tot = {"judgments": sum(c.judgments for c in inp.costs), **sum((c.usage for c in rows), Usage()).as_dict()}
    narr_calls = sum(c.calls for c in inp.narrative_costs)
    narr_cost = sum(c.cost_usd for c in inp.narrative_costs)
    return _section({
        "methods": [c.__dict__ for c in inp.costs],
        # inducing narratives is paid once per topic, apart from judging; its share of the whole
        # is what tells whether learning from people was cheap
        "narratives": [c.__dict__ for c in inp.narrative_costs],
        "narrative_share": {
            "calls": narr_calls / tot["calls"] if tot["calls"] else None,
            "cost_usd": narr_cost / tot["cost_usd"] if tot["cost_usd"] else None,
        },
        "commands": [c.__dict__ for c in inp.commands],
        "total": tot,
    }, "")


def build_report(inp: ReportInputs) -> dict:
    """The JSON twin: every section's numbers, or why it is empty."""
    return {
        "title": inp.title,
        "source": inp.source,
        "generated": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        **(inp.threshold.to_dict() if inp.threshold is not None else {}),
        "scores": _scores_section(inp),
        "holes": _holes_section(inp),
        "saturation": _saturation_section(inp),
        "agreement": _agreement_section(inp),
        "escalations": _escalation_section(inp),
        "costs": _cost_section(inp),
        "narratives": _section({"topics": [{"qid": q, "narrative": n} for q, n in inp.narratives]}, "")
        if inp.narratives else _section(None, "no narratives were written"),
        "provenance": _section({"counts": dict(inp.provenance)}, "") if inp.provenance
        else _section(None, "no labels yet"),
        "circularity": [{**w.__dict__, "message": w.message()} for w in inp.circularity],
        "notes": list(inp.notes),
        "plan": _section({"job": inp.job or {"kind": inp.plan.get("job")}, "earlier_jobs": inp.earlier_jobs,
                          "settings": inp.plan.get("plan", {}), "written_by": inp.plan.get("qrelkit_version")}, "")
        if inp.plan else _section(None, "no plan recorded (commands were run one by one)"),
        "qrelkit_version": inp.version or _version(),
        # where the job stands (None: no fill/build ran here); not a section: a workspace made command by
        # command has every section and no job
        "state": inp.state,
    } | ({"rag": rag_section(inp.rag)} if inp.rag else {}) | (
        {"estimates": estimates_section(inp.estimates)} if inp.estimates is not None else {}) | (
        {"audit": audit_section(inp.audits)} if inp.audits else {})


def _figures(inp: ReportInputs, data: dict) -> dict:
    figs: dict[str, Any] = {"scores": None, "holes": None, "saturation": None, "confusion": []}
    sc = data["scores"]
    if sc["available"]:
        rows = sc["systems"]
        before = None if sc["one_version"] else [r["before"] for r in rows]  # one version: its scores alone
        figs["scores"] = plots.scores_before_after(
            [r["system"] for r in rows], before, [r["after"] for r in rows], sc["measure"], sc["before"], sc["after"])
    if data["holes"]["available"]:
        hs = data["holes"]["runs"]
        figs["holes"] = plots.hole_rates([h["run"] for h in hs], [h["unjudged_rate"] for h in hs],
                                         [h["hole_rate"] for h in hs], inp.depth)
    if inp.saturation is not None and len(inp.saturation.found_mean) >= 2:  # one run: no curve to draw
        g = inp.saturation
        figs["saturation"] = plots.saturation(g.found_mean, g.found_std, g.growth_rate, g.marginal_contribution,
                                              g.measure)
    if data["agreement"]["available"]:
        for r in data["agreement"]["results"][:4]:
            cm = r["confusion_matrix_graded"]
            if len(cm["classes"]) < 2:
                continue
            png = plots.confusion(cm["matrix"], [str(c) for c in cm["classes"]], f"{r['name']} (graded)")
            if png:
                figs["confusion"].append({"name": r["name"], "png": png})
    figs["rag"] = rag_figure(inp.rag)
    figs["estimates"] = estimates_figure(data.get("estimates"))
    return figs


def write_report(inp: ReportInputs, out: Union[str, Path]) -> ReportFiles:
    """Write ``out`` (HTML) and ``report.json`` beside it; returns both paths."""
    import jinja2

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    data = build_report(inp)
    figs = _figures(inp, data)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=jinja2.select_autoescape(["html"], default_for_string=True),
        undefined=jinja2.StrictUndefined,
    )
    env.filters["num"] = _num
    env.filters["arrow"] = _arrow
    env.filters["ident"] = _ident
    html = env.get_template("report.html").render(r=data, figs=figs)
    json_path = out.with_name("report.json") if out.suffix.lower() == ".html" else out.with_suffix(".json")
    with atomic_write(json_path) as f:  # each whole, the JSON twin first (see qrelkit.data.atomic)
        f.write(json.dumps(_clean(data), indent=2, default=_default) + "\n")
    with atomic_write(out) as f:
        f.write(html)
    sections = {k: ("ok" if v.get("available") else v.get("reason")) for k, v in data.items()
                if isinstance(v, dict) and "available" in v}
    return ReportFiles(out, json_path, sections, inp.threshold.to_dict() if inp.threshold is not None else {},
                       _clean(data))


def _num(v: Any, digits: int = 4) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        return f"{v:.{digits}f}"
    return str(v)


_BREAK_AFTER = re.compile(r"([,+(/=@])")


def _ident(v: Any) -> Markup:
    """A method, model or run id in a table cell: escaped, with line-break opportunities after its
    separators (``,``, ``+``, ``(``, ``/``, ``=``, ``@``) so that a long id wraps inside its column
    instead of widening the table past its card, and the full id on hover (``title``)."""
    text = str(v)
    parts = (str(escape(p)) + ("<wbr>" if _BREAK_AFTER.fullmatch(p) else "") for p in _BREAK_AFTER.split(text))
    return Markup(f'<span class="id" title="{escape(text)}">{"".join(parts)}</span>')


def _arrow(shift: int) -> str:
    return f"▲ {shift}" if shift > 0 else (f"▼ {-shift}" if shift < 0 else "=")


def _clean(o: Any) -> Any:
    """JSON has no NaN: undefined numbers become null."""
    if isinstance(o, float) and math.isnan(o):
        return None
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    return o


def _default(o: Any) -> Any:
    if hasattr(o, "item"):
        return o.item()
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


# --------------------------------------------------------------- workspace
def report_from_workspace(
    workspace: Union[str, Path],
    out: Union[str, Path],
    settings: "Optional[ReportSettings]" = None,
    **given: Any,
) -> ReportFiles:
    """:func:`report_from_store` on a workspace folder (``qrelkit report``); ``given``: the
    keywords of :class:`ReportSettings` (``measure``, ``depth``, ``orders``, ``saturation_measure``...)."""
    from qrelkit.store import Store

    with Store.open(workspace) as store:
        return report_from_store(store, out, settings, **given)


@dataclass(frozen=True)
class ReportSettings:
    """What a workspace report merges, measures and compares with (the keywords of :func:`report_from_store`)."""

    merged_result: Any = None
    measure: str = "nDCG@10"
    depth: Optional[int] = None  # None: the stored job's pool depth (10 without one)
    orders: int = 10
    seed: int = 0
    threshold: Union[str, int] = "auto"
    reference: Optional[tuple[str, Mapping[tuple[str, str], int]]] = None
    saturation_measure: str = DEFAULT_GROWTH_MEASURE  # the pool-growth panel's measure (BRIDGE: Hit@10)


def report_from_store(
    store: Store,
    out: Union[str, Path],
    settings: "Optional[ReportSettings]" = None,
    **given: Any,
) -> ReportFiles:
    """Gather an open workspace's state (original and merged qrels, runs, judgments,
    costs, narratives) into a report. The "after" qrels are ``merged_result``
    (what a job just merged), else a fresh merge (original + human + the latest
    judge's labels, see :mod:`qrelkit.merge`). ``reference`` = (name, labels): the
    judges' agreement is measured against these labels (the demo's hidden ones)
    instead of the original qrels."""
    s = settings if settings is not None else ReportSettings(**given)
    merged_result, measure, depth = s.merged_result, s.measure, s.depth
    orders, seed, threshold = s.orders, s.seed, s.threshold
    reference = s.reference
    notes: list[str] = []
    workspace = store.workspace
    from qrelkit.job.stored import HISTORY_KEY
    from qrelkit.status import job_summary

    job, earlier = job_summary(store), tuple(store.get_meta(HISTORY_KEY, []))
    depth = depth or (job or {}).get("depth") or 10  # the holes and saturation of the job's own pool
    cut = max(depth, RAG_K, _cut(measure, depth))
    one: dict[str, str] = {}  # the runs' docid strings, shared by the labels (report.gathering)
    run_rows = store.runs()
    runs = workspace_runs(run_rows, cut, notes, one)
    original = PairGrades(store.iter_qrels(), one)
    judged = bool(store.method_counts())  # judgments are streamed where they are needed (report.gathering)
    stored_narratives = store.narratives()
    narratives = tuple((q, d.get("narrative", "")) for q, d in stored_narratives.items())
    plan = store.get_meta("plan")
    command_runs = store.command_runs()
    tally = (MergedTally.of(merged_result.labels, len(merged_result.unresolved), one) if merged_result is not None
             else MergedTally.from_store(store, one))
    del one
    rag_generators = generators_from_store(store)
    merged = tally.grades if tally is not None else original
    from qrelkit.relevance import resolve_threshold

    thr = resolve_threshold(threshold, original or merged, f"{workspace} ({'original' if original else 'merged'} qrels)")
    threshold = thr.value

    rag = rag_alignment(rag_generators, runs, [(n, q) for n, q in (("original", original), ("merged", merged)) if q],
                        threshold)
    versions: tuple = ()
    comparison = None
    holes: tuple = ()
    growth = None
    circ: tuple = ()
    if runs:
        from qrelkit.evaluate.holes import hole_rates
        from qrelkit.evaluate.saturation import pool_growth
        from qrelkit.evaluate.systems import DEFAULT_MEASURES, evaluate_stream

        measures = list(DEFAULT_MEASURES) + ([measure] if measure not in DEFAULT_MEASURES else [])
        version_list = [("original", original), ("merged", merged)] if original else [("merged", merged)]
        if original or merged:
            # streamed: one run at a time, to full depth, from its file (benchmarks/scale.py)
            versions = evaluate_stream(full_rankings(runs), version_list, measures, threshold)
            if len(versions) == 2 and len(runs) >= 2:
                from qrelkit.evaluate.compare import compare_versions

                comparison = compare_versions(versions[0], versions[1], measure=measure, seed=seed)
        else:
            notes.append("no labels at all: scores are not shown")
        if original:
            holes = hole_rates(runs, original, merged, depth, threshold)
        if merged:
            growth = pool_growth(runs, original, merged, depth, orders, seed, threshold, s.saturation_measure)
        from qrelkit.evaluate.circularity import circularity_warnings, dense_signal_warnings

        run_models = {n: str(m.get("model")) for n, _, m in run_rows if isinstance(m, dict) and m.get("model")}
        # about the judge whose labels are merged (the stored job's), else every judge of the workspace
        merged_model = (job or {}).get("model_id") if (job or {}).get("method") else None
        circ = circularity_warnings(run_models, [merged_model] if merged_model else store.judge_models())
        circ += dense_signal_warnings({n: run_models.get(n, "") for n, _, _ in run_rows}, set(store.judge_methods()))

    people = _people_labels(store) if judged else {}
    agreements, reference_name = _agreements(store, judged, reference, original, people, threshold)

    inputs = ReportInputs(
        title=f"qrelkit report: {Path(workspace).name}",
        source=str(workspace),
        measure=measure,
        versions=versions,
        comparison=comparison,
        holes=holes,
        depth=depth,
        threshold=thr,
        saturation=growth,
        agreements=agreements,
        agreement_reference=reference_name,
        escalations=_escalations(store, people, original, (job or {}).get("method")),
        costs=_costs(store),
        commands=_commands(command_runs),
        narrative_costs=_narrative_costs(stored_narratives),
        narratives=narratives,
        provenance=_provenance(tally, original, _job_statuses(store, job)),
        circularity=circ,
        notes=tuple(notes),
        plan=plan,
        job=job,
        state=_job_state(store, job),
        earlier_jobs=tuple({"kind": j.get("kind"), "method": j.get("method"), "model_id": j.get("model_id")}
                           for j in earlier),
        rag=rag,
        estimates=gather_estimates(store, (job or {}).get("method"), (job or {}).get("model_id")),
        audits=tuple(a.result for a in store.audits()),
    )
    return write_report(inputs, out)


def _job_statuses(store: Store, job: Optional[dict]) -> dict[str, int]:
    """Judgments per status of the job whose labels are merged (what the escalations section
    lists), and how many earlier jobs made; every judge's without a stored job."""
    if not job or not job.get("method"):
        return store.status_counts()
    own = store.status_counts(job["method"], job.get("model_id") or "")
    people = len(store.people_labels())
    other = sum(store.status_counts().values()) - sum(own.values()) - people
    return {**own, **({"by people": people} if people else {}),
            **({"of earlier jobs and other judges (not merged)": other} if other > 0 else {})}


def _job_state(store: Store, job: Optional[dict]) -> Optional[dict]:
    """Where the current job stands, as its last `fill`/`build` left it; None without one, or when
    it describes a job a later --rejudge replaced."""
    from qrelkit.job.stored import STATE_KEY

    state = store.get_meta(STATE_KEY)
    if not state or not job or (state.get("method"), state.get("model_id")) != (job.get("method"), job.get("model_id")):
        return None
    return {k: state.get(k) for k in ("state", "left", "people", "todo", "at")}


def _version() -> str:
    from qrelkit import __version__

    return __version__


def _people_labels(store: Store) -> dict[tuple[str, str], int]:
    """People's decided grades per pair (the last by method and model, as the report always read them)."""
    return {(j.qid, j.docid): j.effective_grade for j in store.iter_judgment_labels(source="human")
            if j.effective_grade is not None}


def _agreements(store: Store, judged: bool, reference: Optional[tuple[str, Mapping[tuple[str, str], int]]],
                original: Mapping, people: Mapping, threshold: int) -> tuple[tuple, str]:
    """Every judge's agreement with the first reference that overlaps its labels: the one given,
    else the original qrels (people's labels included as a source), else the people's labels;
    the judgments are streamed from the store once per reference tried."""
    from qrelkit.evaluate.judge_agreement import judgments_agreement

    tries = [(reference[0], dict(reference[1]), "human")] if reference else []
    tries += [("the original qrels", original, None)] if original else []
    tries += [("the people's labels", people, "human")] if people else []
    for name, ref, skip in tries:
        agreements = tuple(a for a in judgments_agreement(
            store.iter_judgment_labels(not_source=skip), ref, threshold) if a.overall.pairs)
        if agreements:
            return agreements, name
    return (), ""


def _escalations(store: Store, people: Mapping[tuple[str, str], int], original: dict,
                 method: Optional[str] = None) -> tuple[EscalationRow, ...]:
    """Escalated, failed and adjudicated judgments (read whole, for their reasons) and what
    became of them; ``people`` are people's decided grades per pair (their outcomes). With
    ``method`` (the stored job's), only that judge's: one row per case of the merged job, not
    one per method id that ever judged it. A pair that had no text to judge is not an escalation."""
    from qrelkit.judging.guarded import guard_of

    rows = []
    for status in (ESCALATE, ERROR, ADJUDICATED):
        for j in store.judgments(status=status):
            if j.source == "human" or (method is not None and j.method != method) or j.prov.get("missing"):
                continue
            key = (j.qid, j.docid)
            if key in people:
                outcome, src = people[key], "people"
            elif j.status == ADJUDICATED and j.effective_grade is not None:
                outcome, src = j.effective_grade, "adjudicator"
            else:
                outcome, src = None, "waiting"
            reason = ""
            try:
                reason = j.prov.reason
            except (ValueError, AttributeError):
                pass
            guard = guard_of(j.prov)
            rows.append(EscalationRow(j.qid, j.docid, j.method, j.status, outcome, src, original.get(key), reason,
                                      str(guard.get("span") or "") if guard else ""))
    return tuple(sorted(rows, key=lambda r: (r.qid, r.docid, r.method)))


def _summed(items: Iterable[tuple[tuple[str, str], Usage]]) -> tuple[CostRow, ...]:
    """Usage values summed per (name, model); ``judgments`` counts the records."""
    agg: dict[tuple[str, str], tuple[int, Usage]] = defaultdict(lambda: (0, Usage()))
    for key, u in items:
        n, total = agg[key]
        agg[key] = (n + 1, total + u)
    return tuple(CostRow.of(name, model, n, u) for (name, model), (n, u) in sorted(agg.items()))


def _costs(store: Store) -> tuple[CostRow, ...]:
    """Calls and spending per (method, model), summed in SQL."""
    return tuple(
        CostRow.of(method, model, n, Usage(calls=c or 0, prompt_tokens=pt or 0, completion_tokens=ct or 0,
                                           cost_usd=cost or 0.0))
        for method, model, n, c, pt, ct, cost in store.judgment_costs()
    )


def _usage_rows(items: Iterable[tuple[tuple[str, str], dict]]) -> tuple[CostRow, ...]:
    """Usage records (calls, tokens, cost) summed per (name, model); ``judgments`` counts the records."""
    return _summed((key, Usage.from_dict(t)) for key, t in items)


def _narrative_costs(narratives: dict) -> tuple[CostRow, ...]:
    """Instructor calls, from each induced narrative's provenance (a hand-written one cost nothing)."""
    provs = [(d, d.get("provenance") or {}) for d in narratives.values()]
    return _usage_rows((("narrative generation", str(p.get("instructor") or d.get("model") or "")), p)
                       for d, p in provs if p.get("calls"))


def _commands(command_runs: Sequence[CommandRun]) -> tuple[CostRow, ...]:
    return _summed(((r.command, ""), r.usage) for r in command_runs)


GUARDED_LABELS = "of them, on cases the guard sent people"  # a row under "labels from human"


def _provenance(tally: Any, original: dict, statuses: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """Where the merged labels came from (a :class:`MergedTally`) and the judgments per status."""
    out: dict[str, int] = {}
    if tally is not None:
        counts = tally.counts()
        for k, v in counts.items():
            if k not in ("labels", "unresolved"):
                out[f"labels from {k}"] = v
            if k == "human" and tally.guarded["human"]:  # their provenance carries the guard's reason and span
                out[GUARDED_LABELS] = tally.guarded["human"]
        out["labels"] = counts["labels"]
        out["pairs left without a label (escalated, waiting)"] = counts.get("unresolved", 0)
        for k, v in sorted(tally.statuses.items()):
            out[f"status {k}"] = v
    elif original:
        out["labels from original"] = len(original)
        out["labels"] = len(original)
    for k, v in sorted(statuses.items()):
        out[f"judgments {k}"] = v
    return tuple(out.items())


def _cut(measure: str, depth: int) -> int:
    """The cut-off of the pool growth's measure (``nDCG@20`` -> 20; none: ``depth``)."""
    _, _, cut = measure.partition("@")
    return int(cut) if cut.isdigit() else depth
