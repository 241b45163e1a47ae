"""Plan files: a whole assessment as one reviewable, versionable TOML file.

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
    human_depth = 3              # or: people = "stratified(rate=0.1, by=rank)" (see qrelkit.allocation)

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
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from qrelkit.errors import InputError

_SECTIONS = {
    "inputs": ("topics", "docs", "qrels", "runs"),
    "pool": ("depth", "human_depth", "people"),
    "judge": ("method", "model", "task", "budget", "concurrency", "prefilter", "limit", "threshold", "engine"),
    "evaluate": ("measures", "orders", "seed"),
}


@dataclass(frozen=True)
class Plan:
    topics: Optional[str] = None
    docs: Optional[str] = None
    qrels: Optional[str] = None
    runs: tuple[str, ...] = ()
    depth: int = 10
    human_depth: Optional[int] = None  # None: 3, unless `people` names another strategy
    people: Optional[str] = None  # a people's-share spec (qrelkit.allocation); not with human_depth
    method: Optional[str] = None  # None: chosen by the job and the model (see judges.auto_method)
    model: str = "local"
    task: str = "auto"
    budget: Optional[str] = None
    concurrency: int = 8
    prefilter: Optional[str] = None
    limit: Optional[int] = None
    threshold: int | str = "auto"
    engine: Optional[str] = None  # where model calls run: None/local, or a Ray spec (qrelkit.engines)
    measures: tuple[str, ...] = ()
    orders: int = 10
    seed: int = 0
    prices: tuple[tuple[str, float, float], ...] = field(default=())

    def override(self, **options: Any) -> "Plan":
        """Command-line options win over the file; None means 'not given'. One way of saying
        the people's share on the command line replaces the file's other way."""
        given = {k: (tuple(v) if isinstance(v, list) else v) for k, v in options.items() if v is not None}
        if "runs" in given and not given["runs"]:
            del given["runs"]
        if ("people" in given) != ("human_depth" in given):
            given.setdefault("people", None)
            given.setdefault("human_depth", None)
        return dataclasses.replace(self, **given)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["runs"] = list(self.runs)
        d["measures"] = list(self.measures)
        d["prices"] = {m: {"input": i, "output": o} for m, i, o in self.prices}
        return d


def load_plan(path: Path | str) -> Plan:
    """Read and validate a plan; unknown keys are errors (a typo must not be ignored)."""
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
            values["prices"] = _prices(path, table)
            continue
        if section not in _SECTIONS or not isinstance(table, dict):
            raise InputError(path, None, f"unknown section [{section}]; expected one of "
                             + ", ".join(f"[{s}]" for s in (*_SECTIONS, "prices")))
        for key, value in table.items():
            if key not in _SECTIONS[section]:
                raise InputError(path, None, f"unknown key {key!r} in [{section}]; expected one of "
                                 + ", ".join(_SECTIONS[section]))
            values[key] = _typed(path, section, key, value)
    for key in ("topics", "docs", "qrels"):
        if key in values and values[key]:
            values[key] = _resolve(base, values[key])
    if "runs" in values:
        values["runs"] = tuple(_resolve(base, r) for r in values["runs"])
    plan = Plan(**values)
    _check_specs(path, text, plan)
    return plan


# The type of each plan key: what TOML value it takes, checked before use so
# that `depth = "ten"` is one line naming the plan, not a TypeError later.
_STR_LISTS = ("runs", "measures")
_INTS = ("depth", "human_depth", "concurrency", "limit", "orders", "seed")


def _typed(path: Path, section: str, key: str, value: Any) -> Any:
    if key in _STR_LISTS:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
            raise InputError(path, None, f"[{section}] {key} must be a string or a list of strings, got {value!r}")
        return tuple(items)
    if key in _INTS:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(path, None, f"[{section}] {key} must be an integer, got {value!r}")
        return value
    if key == "threshold":
        return _threshold(path, section, value)
    if key == "budget" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # `budget = 100` means 100 cases, as `--budget 100` does
    if not isinstance(value, str):
        raise InputError(path, None, f"[{section}] {key} must be a string, got {value!r}")
    return value


def _threshold(path: Path, section: str, value: Any) -> int | str:
    """`threshold = "auto"` or a grade, as `--threshold` takes."""
    from qrelkit.errors import UsageError
    from qrelkit.evaluate.threshold import parse_threshold

    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InputError(path, None, f"[{section}] threshold must be \"auto\" or an integer, got {value!r}")
    try:
        return parse_threshold(value)
    except UsageError as e:
        raise InputError(path, None, f"[{section}] {e}") from None


def _prices(path: Path, table: Any) -> tuple[tuple[str, float, float], ...]:
    if not isinstance(table, dict):
        raise InputError(path, None, "[prices] maps model ids to tables of input and output ($ per million tokens)")
    prices = []
    for model, p in table.items():
        if not isinstance(p, dict) or set(p) - {"input", "output"} or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in p.values()):
            raise InputError(path, None, f"[prices.\"{model}\"] takes only input and output ($ per million tokens)")
        prices.append((model, float(p.get("input", 0.0)), float(p.get("output", 0.0))))
    return tuple(prices)


def _check_specs(path: Path, text: str, plan: Plan) -> None:
    """Read the plan's spec strings now, so that a typo names the plan file and its line
    instead of surfacing later, mid-job, as a bare option error."""
    from qrelkit.allocation import resolve_people
    from qrelkit.engines import parse_engine
    from qrelkit.errors import UsageError
    from qrelkit.judges import parse_prefilter, resolve_method
    from qrelkit.llm.spec import parse_spec as parse_model

    try:
        resolve_people(plan.people, plan.human_depth)
    except UsageError as e:
        raise InputError(path, _line_of(text, "people", "pool"), str(e)) from None
    for key, value, parse in (
        ("model", plan.model, parse_model),
        ("method", plan.method, lambda v: resolve_method(v, plan.model)),
        ("prefilter", plan.prefilter, parse_prefilter),
        ("engine", plan.engine, parse_engine),
    ):
        if value is None or (key == "prefilter" and value == ""):
            continue
        try:
            parse(value)
        except UsageError as e:
            raise InputError(path, _line_of(text, key), str(e)) from None


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
