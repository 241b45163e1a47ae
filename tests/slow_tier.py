"""The fast tier's list of slow tests (tests/slow.txt) and the markers that make a test slow.

Its own module, not conftest.py: ``from conftest import ...`` in a test names whichever conftest
was imported first (tests/data/ has one too), which broke the whole suite's collection.
"""
from __future__ import annotations

from pathlib import Path

SLOW_MARKERS = ("model", "browser", "realdata")  # each takes seconds a test, or more
SLOW_LIST = Path(__file__).with_name("slow.txt")  # the files and tests measured slow, one a line


def slow_entries() -> set[str]:
    """The node ids in tests/slow.txt: a folder (``tests/x/``), a file (``tests/x/test_y.py``) or a
    test in it (``tests/x/test_y.py::test_z``, every parameter of it); ``#`` starts a comment."""
    lines = (line.split("#", 1)[0].strip() for line in SLOW_LIST.read_text().splitlines())
    return {line for line in lines if line}
