"""Numbers in TREC files, read as trec_eval reads them: plain ASCII, nothing Python adds.

Python's ``int`` and ``float`` accept more than a TREC file means: ``int("1_0")``
is 10 (PEP 515 underscores) and ``int("١")`` is 1 (any Unicode decimal digit),
so a typo or a stray non-ASCII character became a valid grade.
trec_eval reads with C's ``atol``/``atof``, which know ASCII digits only.

A grade must also be one that every consumer can take. A Python int of any size
used to reach SQLite (``OverflowError``) or pytrec_eval (``SystemError``). Within
32 bits is not enough: trec_eval keeps arrays and loops per grade level up to a
topic's largest grade. One topic of 2 documents with one grade g, scored for nDCG,
nDCG@10, AP, P@10 and RR, took pytrec_eval 0.001 s at g = 100, 0.02 s at 1000, 0.06 s at
10^4, 0.6 s at 3*10^4, 7.6 s at 10^5, and did not finish in a minute at 10^6 (measured
2026-12-01 on the shared, loaded 2-core machine). Collections grade from -2 (TREC
Web's junk) to 4, so grades are refused outside -1000..1000: far beyond any real
scale, and as cheap as small grades. Ranks in a case list are only stored, so they
are bounded by SQLite's and C's 32-bit integers instead.
"""
from __future__ import annotations

GRADE_MIN = -1000
GRADE_MAX = 1000
INT32_MAX = 2**31 - 1


def _plain(text: str) -> bool:
    return text.isascii() and "_" not in text


def plain_int(text: str) -> int | None:
    """``text`` as an integer when it is one in ASCII (optional sign, digits), else None."""
    if not _plain(text):
        return None
    try:
        return int(text)
    except ValueError:
        return None


def plain_float(text: str) -> float | None:
    """``text`` as a number when it is one in ASCII (``2.5``, ``-1e-3``, ``inf``), else None.
    NaN is a value ``float`` reads but not a number a ranking can be sorted by: None too."""
    if not _plain(text):
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return None if value != value else value


def grade_problem(text: str) -> str | None:
    """Why ``text`` is not a grade (for a message naming the line), or None when it is one."""
    digits = text[1:] if text[:1] in "+-" else text
    if not (digits.isascii() and digits.isdigit()):
        lax = _python_reads(int, text)
        return f"grade must be {'a plain' if lax else 'an'} integer{_ASCII if lax else ''}, got {_short(text)!r}"
    if len(digits) > 5 or not GRADE_MIN <= int(text) <= GRADE_MAX:
        return f"grade {_short(text)} is out of range: grades are integers from {GRADE_MIN} to {GRADE_MAX}"
    return None


_ASCII = " (ASCII digits, no underscores, as trec_eval reads it)"


def _python_reads(cast: type, text: str) -> bool:
    """Would Python's own ``int``/``float`` have taken this (``1_0``, Unicode digits)?"""
    try:
        cast(text)
    except ValueError:
        return False
    return True


def number_problem(text: str) -> str:
    """Why a score is not a number, as :func:`plain_float` refused it."""
    lax = _python_reads(float, text) and text.strip().lower() not in ("nan", "+nan", "-nan")
    return f"score must be {'a plain' if lax else 'a'} number{_ASCII if lax else ''}, got {_short(text)!r}"


def _short(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[:n] + "..."
