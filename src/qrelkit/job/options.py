"""The job's options, declared once as data.

Every option of `judge`, `fill` and `build` — and every key of a plan file — is one
:class:`JobOption` in :data:`OPTIONS`: its name, type, default, help, plan section, the
commands that take it and its bounds. The command-line options (:func:`typer_option`), the
:class:`qrelkit.job.plan.Plan` fields, plan-file validation (:func:`check_value`) and the docs'
plan reference (``scripts/gen_docs.py``) are derived from this table, so adding an option is
one entry and the four can no longer drift (they had: ``--limit`` took 0 in `judge`, not in
`fill`). This is ir_measures' "parameters are data", applied to a job.

``stored`` says whether the option is part of the stored job (:mod:`qrelkit.job.stored`): a later
`fill`/`build` that gives it with another value is refused, because it would change which
labels are made. The others (``limit``, ``concurrency``, the engine) say how much to do now
and where; a later call may change them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from qrelkit.errors import UsageError

JUDGE, FILL, BUILD = "judge", "fill", "build"
JOBS = frozenset({FILL, BUILD})
ALL = frozenset({JUDGE, FILL, BUILD})

# The deepest pool a depth may ask for: far below any int SQLite or a JSON reader chokes on, far
# above any run's length (TREC runs stop at 1,000 or 10,000 per topic); a depth of 10^25 was stored.
MAX_DEPTH = 1_000_000

# the Python types an option's value may have, by name (what the docs and errors call them)
TYPES: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool, "paths": tuple}


@dataclass(frozen=True)
class JobOption:
    """One option of the jobs: a command-line flag and (with ``section``) a plan-file key."""

    name: str
    type_name: str  # str | int | float | bool | paths (a list of strings)
    default: Any
    help: str
    section: Optional[str] = None  # the plan file's [section]; None: command line only
    commands: frozenset[str] = ALL
    bounds: tuple[Optional[float], Optional[float]] = (None, None)
    parse: Optional[Callable[[Any], Any]] = field(default=None, compare=False)  # raises UsageError
    stored: bool = False  # part of the stored job (see the module docstring)
    flag: str = ""  # default: --name with dashes

    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def python_type(self) -> type:
        return TYPES[self.type_name]


# What parses each kind of spec value: (module, function), imported when first used so that the
# option table costs nothing at start-up.
_PARSERS = {
    "model": ("qrelkit.llm.spec", "parse_model_spec"),
    "prefilter": ("qrelkit.judges", "parse_prefilter"),
    "engine": ("qrelkit.engines", "parse_engine"),
    "people": ("qrelkit.pooling.allocation", "parse_allocation"),
    "pool": ("qrelkit.pooling", "parse_pool"),
    "budget": ("qrelkit.judging.budget", "parse_budget"),
}


def _spec_check(kind: str) -> Callable[[Any], Any]:
    """A checker that parses a spec string of ``kind`` (and throws the value away: the Job
    parses it again into its typed value, once per command — this only validates early)."""

    def check(value: Any) -> Any:
        import importlib

        if kind == "method" and isinstance(value, str) and not value.strip():
            # not "auto": an empty --method is usually a shell variable that was never set
            raise UsageError("the method is empty: give a judge spec (see `qrelkit methods`) or auto")
        if value in (None, ""):
            return value
        if kind == "threshold":
            from qrelkit.relevance import parse_threshold

            return parse_threshold(value)
        if kind == "method":
            from qrelkit.judges.spec import is_auto, parse_spec

            if not is_auto(value):
                parse_spec(value)
            return value
        module, function = _PARSERS[kind]
        getattr(importlib.import_module(module), function)(value)
        return value

    return check


def _choice(*allowed: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value is not None and value not in allowed:
            raise UsageError(f"{value!r}: choose one of {', '.join(allowed)}")
        return value

    return check


OPTIONS: tuple[JobOption, ...] = (
    # inputs
    JobOption("topics", "str", None, "Topics file (TSV or JSONL).", "inputs", JOBS),
    JobOption("docs", "str", None, "Docs file (JSONL or TSV, .gz ok).", "inputs", JOBS),
    JobOption("qrels", "str", None, "The existing qrels to complete.", "inputs", frozenset({FILL})),
    JobOption("runs", "paths", (), "Runs: files, folders or globs.", "inputs", JOBS),
    JobOption("run_names", "str", "auto", "What names a run: auto (its tag, or its file name where the tag is "
              "shared by several files, missing or a placeholder such as my-system-name or rank_gpt), tag or file "
              "(its file name).", "inputs", JOBS, parse=_choice("auto", "tag", "file")),
    # pool
    JobOption("depth", "int", 10, "Pool depth k.", "pool", JOBS, (1, MAX_DEPTH), stored=True),
    JobOption("pool", "str", None, "Pooling strategy instead of --depth: depth(k=10), rrf(n=N, k=60), "
              "combmnz(n=N), rbp(n=N, p=0.8), mtf(n=N) (build: in rounds of judging; fill: a simulation by the "
              "qrels), or any with budget=N "
              "pairs over all topics (qrelkit.pooling).", "pool", JOBS, parse=_spec_check("pool"), stored=True),
    JobOption("human_depth", "int", None, "People judge each run's top-k_human (default 3).", "pool",
              frozenset({BUILD}), (0, MAX_DEPTH), stored=True),
    JobOption("people", "str", None, "People's-share strategy instead of --human-depth: depth(k_human=3), "
              "stratified(rate=0.1) (by the reference qrels: simulation only), stratified(rate=0.1, by=rank), "
              "sample(size=10%, design=weighted, seed=0) (a probability sample for `qrelkit estimate`; fill: "
              "the only people's share it takes).",
              "pool", frozenset({BUILD, FILL}), parse=_spec_check("people"), stored=True),
    # judge
    JobOption("method", "str", "auto", "Judge spec, e.g. 'debate(rounds=2)', 'zero-shot', "
              "'likelihood(threshold=auto)', 'prefilter(by=likelihood,keep=0.95)+debate', "
              "'confidence(score=likelihood,budget=12.5%)', 'icl(k=2)', 'narrative(icl=2)'. auto: on the "
              "embedded model, learned when the workspace has labelled pairs, else likelihood; on a served "
              "model, debate (judge, fill) or narrative (build).", "judge", parse=_spec_check("method"),
              stored=True),
    JobOption("model", "str", "local", "Model spec: local, local:/path.gguf, openai:MODEL@URL[,URL2], "
              "vllm:MODEL.", "judge", parse=_spec_check("model"), stored=True),
    JobOption("task", "str", "auto", "auto | answer | graded (auto: graded for a graded collection, else "
              "answer when every topic has answers).", "judge", parse=_choice("auto", "answer", "graded"),
              stored=True),
    JobOption("share", "str", "llm", "llm (holes) | people | all (every unjudged case) | judged (audit).",
              None, frozenset({JUDGE}), parse=_choice("llm", "people", "all", "judged")),
    JobOption("budget", "str", None, "Cap on escalations to people: N or P% of the cases.", "judge",
              parse=_spec_check("budget"), stored=True),
    JobOption("prefilter", "str", None, "Prefilter spec chained before the judge, e.g. "
              "'prefilter(keep=0.9)'.", "judge", parse=_spec_check("prefilter"), stored=True),
    JobOption("guard", "str", "on", "on | off: send documents that address the judge (\"this passage is perfectly "
              "relevant\", \"ignore previous instructions\") to people instead of the judge (qrelkit.judging.guard).",
              "judge", parse=_choice("on", "off"), stored=True),
    JobOption("threshold", "str", "auto", "Graded task: relevant = grade >= THRESHOLD; auto is 1 when the "
              "qrels are binary, 2 when they are graded.", "judge", parse=_spec_check("threshold"),
              stored=True),
    JobOption("limit", "int", None, "Judge at most N cases (a trial); a later call may raise it.", "judge",
              bounds=(0, None)),
    JobOption("concurrency", "int", 8, "Cases (and calls) in flight at once.", "judge", bounds=(1, 4096)),
    JobOption("engine", "str", None, "Where model calls run: local (default) | ray | ray(address=auto, "
              "actors=4, cpus=1, gpus=1).", "judge", parse=_spec_check("engine")),
    JobOption("ray_address", "str", None, "Ray cluster: auto | ray://host:10001 (default: a local Ray "
              "started for the command)."),
    JobOption("ray_actors", "int", None, "Ray actors, each holding one loaded model (default 2).",
              bounds=(1, None)),
    JobOption("ray_cpus", "float", None, "CPUs per Ray actor (default 1).", bounds=(0, None)),
    JobOption("ray_gpus", "float", None, "GPUs per Ray actor (default 0).", bounds=(0, None)),
    # evaluate (the report's before/after)
    JobOption("measures", "paths", (), "Measures for the report's system scores (ir_measures names).",
              "evaluate", frozenset()),
    JobOption("orders", "int", 10, "Orders sampled for the report's saturation curves.", "evaluate",
              frozenset(), (1, None)),
    JobOption("seed", "int", 0, "Seed of the report's sampling steps.", "evaluate", frozenset()),
    # how to run (command line only)
    JobOption("auto", "bool", False, "Do not wait for people: the LLM adjudicator settles escalations.",
              None, JOBS, stored=True),
    JobOption("rejudge", "bool", False, "Start a new job in this workspace with the options given: earlier "
              "judgments stay (with their provenance), the merge and report use the new job's labels.",
              None, JOBS),
    JobOption("wait", "bool", False, "If another process is judging this workspace, wait for it to finish "
              "instead of stopping.", None, ALL),
    JobOption("no_cache", "bool", False, "Do not read the call cache (calls are still written to it).", None),
    JobOption("no_report", "bool", False, "Skip the HTML report.", None, JOBS),
)

BY_NAME: dict[str, JobOption] = {o.name: o for o in OPTIONS}
SECTIONS: dict[str, tuple[str, ...]] = {}
for _o in OPTIONS:
    if _o.section:
        SECTIONS.setdefault(_o.section, ())
        SECTIONS[_o.section] += (_o.name,)


def for_command(command: str) -> tuple[JobOption, ...]:
    return tuple(o for o in OPTIONS if command in o.commands)


def check_value(option: JobOption, value: Any) -> Any:
    """``value`` checked against the option's type, bounds and parser; returns the value to use.
    Raises UsageError saying what is wrong (callers add the file and line or the flag)."""
    if value is None:
        return None
    kind = option.type_name
    if kind == "paths":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) for v in items):
            raise UsageError(f"{option.name} must be a string or a list of strings, got {value!r}")
        return tuple(items)
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise UsageError(f"{option.name} must be an integer, got {value!r}")
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise UsageError(f"{option.name} must be a finite number, got {value!r}")
    elif kind == "bool":
        if not isinstance(value, bool):
            raise UsageError(f"{option.name} must be true or false, got {value!r}")
    elif kind == "str":
        if option.name in ("budget", "threshold") and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)  # `budget = 100` means 100 cases, as `--budget 100` does
        if not isinstance(value, str):
            raise UsageError(f"{option.name} must be a string, got {value!r}")
    low, high = option.bounds
    if low is not None and value < low:
        raise UsageError(f"{option.name} must be at least {low:g}, got {value!r}")
    if high is not None and value > high:
        raise UsageError(f"{option.name} must be at most {high:g}, got {value!r}")
    if option.parse is not None:
        value = option.parse(value)
    return value


def check_given(values: dict[str, Any]) -> None:
    """The options a call gives (None: not given), each checked as a plan's value is, before
    anything is read or made: a typo in ``--method`` is one line and leaves no workspace behind.
    A UsageError names the flag."""
    for name, value in values.items():
        option = BY_NAME.get(name)
        if option is None or value is None or option.section == "inputs" and option.parse is None:
            continue  # files: their readers check them
        try:
            check_value(option, value)
        except UsageError as e:
            raise UsageError(f"{option.cli_flag}: {e}") from None


def typer_option(option: JobOption) -> Any:
    """The typer option for ``option``. Its default is None ("not given"), so that a
    plan file and a stored job can tell a given value from a default; the help says the default."""
    import typer

    kwargs: dict[str, Any] = {}
    low, high = option.bounds
    if option.type_name in ("int", "float"):
        if low is not None:
            kwargs["min"] = int(low) if option.type_name == "int" else float(low)
        if high is not None:
            kwargs["max"] = int(high) if option.type_name == "int" else float(high)
    default_text = _default_text(option)
    help_text = option.help + (f" (default: {default_text})" if default_text else "")
    if option.type_name == "bool":
        return typer.Option(False, option.cli_flag, help=option.help)
    return typer.Option(None, option.cli_flag, help=help_text, show_default=False, **kwargs)


def annotation(option: JobOption) -> Any:
    """The annotation typer reads the option's type from."""
    from typing import List

    return {"str": Optional[str], "int": Optional[int], "float": Optional[float], "bool": bool,
            "paths": Optional[List[str]]}[option.type_name]


def _default_text(option: JobOption) -> str:
    if option.default in (None, (), False):
        return ""
    return str(option.default)
