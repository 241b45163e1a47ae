"""Plan files: a whole assessment as one reviewable, versionable TOML file.

The keys, their types, defaults and bounds are the job's option table
(:data:`qrelkit.job.options.OPTIONS`); :class:`Plan` has one field per key, made from it.

A plan holds everything the command line can say for `fill` and `build`
(inputs, pool depths, judge spec, model spec, budget, concurrency, prices).
Command-line options override it. Relative paths are resolved against the
plan file's folder, so a plan can live next to its data. The plan actually
used (after overrides) is stored in the workspace and shown in the report,
together with the code version, so a set of qrels can be re-derived.

Example::

    [inputs]
    topics = "topics.jsonl"
    docs = "docs.jsonl"
    qrels = "qrels.txt"          # omit for `build`
    runs = ["runs/*.run"]

    [pool]
    depth = 10
    human_depth = 3              # or: people = "stratified(rate=0.1, by=rank)" (see qrelkit.pooling.allocation)

    [judge]
    method = "debate(rounds=2)"
    model = "openai:Qwen/Qwen2.5-7B-Instruct@http://127.0.0.1:8000/v1"
    task = "auto"
    budget = "10%"
    concurrency = 16
    prefilter = ""               # e.g. "prefilter(by=likelihood, keep=0.8)"
    engine = "local"             # or "ray(address=auto, actors=4, gpus=1)" (qrelkit.engines)

    [prices."openai:Qwen/Qwen2.5-7B-Instruct"]
    input = 0.0                  # $ per million input tokens
    output = 0.0
"""
from __future__ import annotations

import dataclasses
import math
import tomllib
from pathlib import Path
from typing import Any, Optional

from qrelkit.errors import InputError, UsageError
from qrelkit.job import options as opts

_SECTIONS = opts.SECTIONS  # section -> keys, from the option table


def _plan_field(o: opts.JobOption) -> tuple[str, Any, Any]:
    return (o.name, Any, dataclasses.field(default=o.default))


class _PlanMethods:
    def override(self, **options: Any) -> "Plan":
        """Command-line options win over the file; None means 'not given'. One way of saying
        the people's share on the command line replaces the file's other way."""
        given = {k: (tuple(v) if isinstance(v, list) else v) for k, v in options.items() if v is not None}
        if "runs" in given and not given["runs"]:
            del given["runs"]
        if ("people" in given) != ("human_depth" in given):
            given.setdefault("people", None)
            given.setdefault("human_depth", None)
        return dataclasses.replace(self, **given)  # type: ignore[type-var]

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)  # type: ignore[call-overload]
        for key, value in d.items():
            if isinstance(value, tuple) and key != "prices":
                d[key] = list(value)
        d["prices"] = {m: {"input": i, "output": o} for m, i, o in self.prices}  # type: ignore[attr-defined]
        return d


# One field per plan key of the option table, plus the [prices] table.
Plan = dataclasses.make_dataclass(
    "Plan",
    [_plan_field(o) for o in opts.OPTIONS if o.section]
    + [("prices", tuple, dataclasses.field(default=()))],
    bases=(_PlanMethods,),
    frozen=True,
    namespace={"__doc__": "A plan: one field per plan-file key of qrelkit.job.options.OPTIONS, plus prices "
                          "((model, input, output) in $ per million tokens).",
               "__module__": __name__},
)


def load_plan(path: Path | str) -> "Plan":
    """Read and validate a plan; unknown keys are errors (a typo must not be ignored), and every
    value is checked against the option table's type and bounds, naming the plan's line."""
    path = Path(path)
    from qrelkit.data._open import read_text

    if not path.exists():
        raise InputError(path, None, "plan file not found")
    text = read_text(path)  # a folder or a binary file is an InputError too
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        line = getattr(e, "lineno", None)
        raise InputError(path, line, f"not valid TOML: {e.msg if hasattr(e, 'msg') else e}") from None
    except RecursionError:
        raise InputError(path, None, "not valid TOML: nested too deeply") from None
    base = path.resolve().parent
    values: dict[str, Any] = {}
    for section, table in raw.items():
        if section == "prices":
            values["prices"] = _prices(path, text, table)
            continue
        if section not in _SECTIONS or not isinstance(table, dict):
            raise InputError(path, None, f"unknown section [{section}]; expected one of "
                             + ", ".join(f"[{s}]" for s in (*_SECTIONS, "prices")))
        for key, value in table.items():
            if key not in _SECTIONS[section]:
                raise InputError(path, _line_of(text, key, section), f"unknown key {key!r} in [{section}]; "
                                 "expected one of " + ", ".join(_SECTIONS[section]))
            try:
                values[key] = opts.check_value(opts.BY_NAME[key], value)
            except UsageError as e:
                raise InputError(path, _line_of(text, key, section), f"[{section}] {e}") from None
    for key in ("topics", "docs", "qrels"):
        if key in values and values[key]:
            values[key] = _resolve(base, values[key])
    if "runs" in values:
        values["runs"] = tuple(_resolve(base, r) for r in values["runs"])
    plan = Plan(**values)
    _check_people(path, text, plan)
    return plan


def _prices(path: Path, text: str, table: Any) -> tuple[tuple[str, float, float], ...]:
    """``[prices."MODEL"]`` tables: input and output, finite and >= 0 (a NaN or negative price
    would be stored as a cost and break the accounting mid-job)."""
    if not isinstance(table, dict):
        raise InputError(path, None, "[prices] maps model ids to tables of input and output ($ per million tokens)")
    prices = []
    for model, p in table.items():
        if not isinstance(p, dict) or set(p) - {"input", "output"} or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in p.values()):
            raise InputError(path, None, f"[prices.\"{model}\"] takes only input and output ($ per million tokens)")
        for key, v in p.items():
            if not math.isfinite(v) or v < 0:
                raise InputError(path, _line_of(text, key, f'prices."{model}"'),
                                 f"[prices.\"{model}\"] {key} must be a finite number >= 0, got {v!r}")
        prices.append((model, float(p.get("input", 0.0)), float(p.get("output", 0.0))))
    return tuple(prices)


def _check_people(path: Path, text: str, plan: Any) -> None:
    """The people's share said both ways, or a human depth deeper than the pool, names the plan."""
    from qrelkit.pooling.allocation import resolve_people

    try:
        resolve_people(plan.people, plan.human_depth)
    except UsageError as e:
        raise InputError(path, _line_of(text, "people", "pool") or _line_of(text, "human_depth", "pool"),
                         str(e)) from None


def _line_of(text: str, key: str, table: str = "judge") -> Optional[int]:
    """The line of ``key = ...`` in the ``[table]`` table (1-based), if it can be found."""
    section = ""
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[] ")
        elif section == table and stripped.split("=", 1)[0].strip() == key:
            return lineno
    return None


def _resolve(base: Path, value: str) -> str:
    if value.startswith("irds:") or Path(value).is_absolute():
        return value
    return str(base / value)
