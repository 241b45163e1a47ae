"""Command-line values coerced without pydantic when that gives typer's own result.

typer (0.2x, with its own copy of click) coerces every option through a pydantic
``TypeAdapter`` built when the command line is parsed, one per option, given or not: for
`qrelkit judge` that is 18 adapters and the pydantic import behind them, a quarter of its
start-up, and 30 ms more at exit to tear pydantic down again. Every qrelkit option is a
plain ``str``, ``int``, ``float``, ``Path`` or list of ``str``, and for those the result is
known without pydantic: the string itself, ``int("64")``, ``Path("ws")`` checked by typer's
own path rules. :func:`install` makes typer's parameters try that first; anything else — a
bound not met, a value that is not plainly a number, a type or option of another kind —
goes to typer's adapter, built then, which gives its usual value or error (so the messages
are typer's). tests/test_cli_coercion.py checks both paths give the same results.

A typer without this machinery (older releases coerce with click's own types) is left alone.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args, get_origin

_INT = re.compile(r"-?[0-9]{1,18}")
_FLOAT = re.compile(r"-?[0-9]{1,18}(\.[0-9]{1,18})?")
_TYPER = object()  # "ask typer": no fast answer for this value


def fast_value(param: Any, value: Any, ctx: Any) -> Any:
    """``value`` coerced as typer would coerce it for ``param``, or ``_TYPER`` when it is not one
    of the plain cases (never a different answer: a doubt is typer's)."""
    desc = param.type_descriptor
    info = desc.parameter_info
    if desc.file_annotation is not None or info.parser is not None or getattr(info, "click_type", None) is not None:
        return _TYPER
    ann = desc.annotation
    if param.multiple or param.nargs == -1:
        if get_origin(ann) is list and get_args(ann) == (str,) and isinstance(value, (tuple, list)) \
                and all(type(v) is str for v in value):
            return list(value)
        return _TYPER
    if param.nargs != 1:
        return _TYPER
    if ann is str:
        return value if type(value) is str else _TYPER
    if ann is int or ann is float:
        return _number(ann, info, value)
    if ann is Path and info.path_type is None:
        return _path(info, value, param, ctx)
    return _TYPER


def _number(ann: type, info: Any, value: Any) -> Any:
    if info.clamp:
        return _TYPER
    if type(value) is ann:
        number = value
    elif type(value) is str and (_INT if ann is int else _FLOAT).fullmatch(value):
        number = ann(value)
    else:
        return _TYPER
    if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
        return _TYPER  # typer says how it is out of range
    return number


def _path(info: Any, value: Any, param: Any, ctx: Any) -> Any:
    from typer._param_types import coerce_cli_path

    if type(value) is str:
        value = Path(value)  # what pydantic makes of a string, before typer's own checks
    elif not isinstance(value, Path):
        return _TYPER
    try:
        return coerce_cli_path(value, info, path_type=Path, param=param, ctx=ctx)
    except Exception:  # noqa: BLE001  (typer raises the error, with the value as given)
        return _TYPER


class _Coercion:
    """In place of typer's runtime parameter: :func:`fast_value`, else typer's own, built once."""

    def __init__(self, descriptor: Any, build: Any):
        self._descriptor, self._build, self._typer = descriptor, build, None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:  # as typer's RuntimeParam.coerce, which never needs the adapter for it
            return () if param.multiple or param.nargs == -1 else None
        got = fast_value(param, value, ctx)
        if got is not _TYPER:
            return got
        if self._typer is None:
            self._typer = self._build(self._descriptor)
        return self._typer.coerce(value, param=param, ctx=ctx)


def install() -> bool:
    """Make typer's parameters coerce through :class:`_Coercion` (once); False where this typer
    has no pydantic coercion to spare."""
    try:
        from typer import _coercion
        from typer._param_types import coerce_cli_path  # noqa: F401  (what _path calls)
        from typer.core import _TyperParameter
    except ImportError:
        return False
    if not hasattr(_TyperParameter, "get_runtime_param") or not hasattr(_coercion, "build_runtime_param"):
        return False
    if getattr(_TyperParameter.get_runtime_param, "_qrelkit", False):
        return True
    build = _coercion.build_runtime_param

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            self._runtime_param = _Coercion(self.type_descriptor, build)
        return self._runtime_param

    get_runtime_param._qrelkit = True  # type: ignore[attr-defined]
    _TyperParameter.get_runtime_param = get_runtime_param
    return True
