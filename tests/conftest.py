"""Shared test fixtures (the real-data helper lives in shared_data.py).

It also makes ``tests`` name this folder. Some wheels install a top-level ``tests`` package of
their own (ppi-python, the estimators' oracle, does), and a regular package anywhere on
``sys.path`` wins over this folder, which has no ``__init__.py`` (a namespace package): without
this, ``from tests.report.helpers import ...`` fails with "No module named 'tests.report'".
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

import pytest


def _own_tests_package() -> None:
    here = str(Path(__file__).resolve().parent)
    current = sys.modules.get("tests")
    if current is not None and here in list(getattr(current, "__path__", [])):
        return
    spec = importlib.machinery.ModuleSpec("tests", None, is_package=True)
    spec.submodule_search_locations = [here]
    sys.modules["tests"] = importlib.util.module_from_spec(spec)


_own_tests_package()

from shared_data import shared_data_path  # noqa: E402


@pytest.fixture
def shared_data():
    return shared_data_path
