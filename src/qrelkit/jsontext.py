"""JSON text written by msgspec where it is the same as the standard library's, and by json
where it is not.

msgspec encodes ~15x faster than json, which a judging run at hundreds of calls a second feels
(the call cache signs and stores every request and answer), but it writes some floats
otherwise (``1e-05`` as ``0.00001``, ``1e+16`` as ``1e16``), NaN and infinity as ``null``, and takes
types json refuses. :func:`msgspec_safe` tells the values it writes exactly as json does.
"""
from __future__ import annotations

import json
from typing import Optional

import msgspec

_SORTED = msgspec.json.Encoder(order="sorted").encode


def fast_sorted(obj: object) -> Optional[bytes]:
    """``obj`` as compact JSON with sorted keys, written by msgspec, when that is exactly what
    ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` would write
    (UTF-8 encoded); None when it might not be, and the caller's json decides."""
    if msgspec_safe(obj):
        try:
            return _SORTED(obj)
        except (TypeError, ValueError, OverflowError, msgspec.EncodeError):  # json decides, and says why
            pass
    return None


def sorted_json(obj: object) -> str:
    """JSON text with sorted keys, for a stored response that is only ever parsed again: msgspec's
    compact text where it means the same as json's (:func:`fast_sorted`; NaN stays ``NaN``)."""
    raw = fast_sorted(obj)
    return raw.decode("utf-8") if raw is not None else json.dumps(obj, sort_keys=True)


_LEAVES = frozenset({str, int, bool, type(None)})  # written alike by both, whatever the value


def msgspec_safe(obj: object, depth: int = 0) -> bool:
    """Does msgspec write ``obj`` byte for byte as ``json.dumps`` does (sorted keys, and the
    separators and ``ensure_ascii=False`` of the caller)?

    Loops rather than ``all(generator)``, and the leaves of a container (mostly strings) are
    tested in place instead of by a call each: a judge's request has ~20 values, and the
    generator form cost more (~10 us on this machine) than the msgspec encoding it guards."""
    t = type(obj)
    if t in _LEAVES:
        return True
    if t is float:
        a = abs(obj)  # type: ignore[arg-type]
        return a == 0.0 or 1e-4 <= a < 1e16  # positional in both; NaN and infinity fail both tests
    if depth > 64:  # as deep as json's own recursion check would let through, roughly
        return False
    if t is dict:
        for k, v in obj.items():  # type: ignore[union-attr]
            if type(k) is not str or (type(v) not in _LEAVES and not msgspec_safe(v, depth + 1)):
                return False
        return True
    if t is list or t is tuple:
        for v in obj:  # type: ignore[union-attr]
            if type(v) not in _LEAVES and not msgspec_safe(v, depth + 1):
                return False
        return True
    return False
