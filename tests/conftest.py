"""Shared test fixtures (the real-data helper lives in shared_data.py)."""
from __future__ import annotations

import pytest
from shared_data import shared_data_path


@pytest.fixture
def shared_data():
    return shared_data_path
