"""Fixtures for the collection I/O tests: inline files and the shared real data."""
from __future__ import annotations

import gzip
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


@pytest.fixture
def write(tmp_path):
    """write(name, text, gz=None) -> Path; gzips when gz is True or the name ends in .gz."""

    def _write(name: str, text, gz: bool | None = None) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8") if isinstance(text, str) else text
        if gz is None:
            gz = name.endswith(".gz")
        if gz:
            data = gzip.compress(data)
        path.write_bytes(data)
        return path

    return _write


@pytest.fixture
def dl19() -> Path:
    d = SHARED_DATA / "trec-dl-2019"
    if not d.is_dir():
        pytest.skip(f"real data not found at {d.resolve()} (expects ../shared/data next to the repository)")
    return d
