"""Shared test fixtures (the real-data helper lives in shared_data.py), and the fast tier: a test that
loads the embedded model, drives Chromium or reads the real data is ``slow`` too, so that
``pytest -m "not slow"`` leaves all of them out (docs/development.md).

Under several pytest-xdist workers the embedded model runs on one thread per worker (below).

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


def _one_thread_per_worker() -> None:
    """Under pytest-xdist (the README's ``-n 2``) each worker is a process of its own: two workers that
    each run the embedded model on two threads put four busy threads on two cores, and llama.cpp's
    threads wait on each other at every step (measured: model tests several times slower). One
    thread per worker when there are several; a value the user set is kept. Thread counts do not change
    the model's values (tests/llm_layer/test_local_pool.py checks 2x1 against 1x2)."""
    import os

    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
        os.environ.setdefault("QRELKIT_LOCAL_THREADS", "1")


_one_thread_per_worker()

from shared_data import shared_data_path  # noqa: E402
from slow_tier import SLOW_MARKERS, slow_entries  # noqa: E402


@pytest.fixture
def shared_data():
    return shared_data_path


def pytest_collection_modifyitems(config, items):
    """Mark the slow tests ``slow``: those of tests/slow.txt (one list, not a mark in each file, so
    that re-measuring touches one file) and those that load the model, drive Chromium or read real data."""
    entries = slow_entries()
    for item in items:
        nodeid = item.nodeid.split("[", 1)[0]
        file = nodeid.split("::", 1)[0]
        if (nodeid in entries or file in entries or file.rsplit("/", 1)[0] + "/" in entries
                or any(item.get_closest_marker(m) is not None for m in SLOW_MARKERS)):
            item.add_marker(pytest.mark.slow)
