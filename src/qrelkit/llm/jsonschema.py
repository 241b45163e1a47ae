"""Tolerant JSON extraction and a small validator for the schema subset judges use.

Why not the `jsonschema` package: it is not a dependency, and judges only use
a handful of keywords (type, properties, required, enum, items, minimum,
maximum, additionalProperties, anyOf). Unknown keywords are ignored, as a
validator would do for annotations, so a richer schema never rejects a reply.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_DECODER = json.JSONDecoder()


def extract_json(text: str) -> Any:
    """Return the first JSON value in ``text`` (code fences removed).

    Small models and prompt-mode servers wrap JSON in prose or fences; the
    first object that decodes is taken. Raises ValueError when there is none.
    """
    s = text.strip()
    try:
        return json.loads(s)
    except ValueError:
        pass
    candidates = [m.group(1) for m in _FENCE.finditer(s)] + [s]
    for cand in candidates:
        for i, ch in enumerate(cand):
            if ch in "{[":
                try:
                    value, _ = _DECODER.raw_decode(cand, i)
                    return value
                except ValueError:
                    continue
    raise ValueError(f"no JSON object in reply: {_clip(text)}")


def _clip(text: str, n: int = 80) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= n else text[: n - 3] + "..."


_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        isinstance(v, int) and not isinstance(v, bool) or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def validate(value: Any, schema: dict, path: str = "$") -> Optional[str]:
    """Return None when ``value`` satisfies ``schema``, else the first problem found."""
    if not isinstance(schema, dict) or not schema:
        return None
    if "anyOf" in schema or "oneOf" in schema:
        alts = schema.get("anyOf") or schema.get("oneOf") or []
        problems = [validate(value, alt, path) for alt in alts]
        if alts and all(p is not None for p in problems):
            return problems[0]
    t = schema.get("type")
    if t is not None:
        types = t if isinstance(t, list) else [t]
        if not any(_TYPES.get(tt, lambda v: True)(value) for tt in types):
            return f"{path}: expected {t}, got {type(value).__name__}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{path}: {value!r} not one of {schema['enum']!r}"
    if "const" in schema and value != schema["const"]:
        return f"{path}: {value!r} != {schema['const']!r}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{path}: {value} < minimum {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{path}: {value} > maximum {schema['maximum']}"
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for name in schema.get("required") or ():
            if name not in value:
                return f"{path}: missing required property {name!r}"
        for name, sub in props.items():
            if name in value:
                p = validate(value[name], sub, f"{path}.{name}")
                if p:
                    return p
        if schema.get("additionalProperties") is False:
            extra = sorted(set(value) - set(props))
            if extra:
                return f"{path}: unexpected properties {extra}"
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for i, v in enumerate(value):
                p = validate(v, items, f"{path}[{i}]")
                if p:
                    return p
        if "minItems" in schema and len(value) < schema["minItems"]:
            return f"{path}: fewer than {schema['minItems']} items"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"{path}: more than {schema['maxItems']} items"
    return None


def parse_reply(text: str, schema: dict) -> tuple[Any, Optional[str]]:
    """(parsed, None) for a reply that parses and validates, else (None, reason)."""
    try:
        value = extract_json(text)
    except ValueError as e:
        return None, f"unparseable: {e}"
    problem = validate(value, schema)
    if problem:
        return None, f"invalid: {problem}"
    return value, None
