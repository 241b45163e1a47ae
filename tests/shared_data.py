"""Where the real data lives (../shared/data beside the repository), or a skip.

A fresh clone outside this workspace has no such folder: tests that need it
skip with a message saying so.
"""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO / ".." / "shared" / "data").resolve()


def shared_data_path(*parts: str) -> Path:
    """The path under ../shared/data, or a skip when the data is not there."""
    p = SHARED_DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"real data not available: {p} is absent (it lives in ../shared/data beside the repository)")
    return p
