"""llama.cpp's OpenMP threads sleep when idle (spinning starves a shared two-core machine)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("llama_cpp")

IMPORT = "from qrelkit.llm.local import import_llama_cpp; import_llama_cpp()"


def openmp_settings(**env: str) -> str:
    """What libgomp printed about itself when the local backend imported llama_cpp."""
    base = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    done = subprocess.run([sys.executable, "-c", IMPORT], env={**base, "OMP_DISPLAY_ENV": "VERBOSE", **env},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_idle_openmp_threads_sleep_by_default():
    # libgomp prints PASSIVE for an unset policy too; the spin count tells them apart (300000 unset)
    assert "GOMP_SPINCOUNT = '0'" in openmp_settings()


def test_a_users_own_wait_policy_is_kept():
    assert "OMP_WAIT_POLICY = 'ACTIVE'" in openmp_settings(OMP_WAIT_POLICY="ACTIVE")
