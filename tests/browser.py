"""Where the browser tests find Chromium, and the mark that skips them without it.

CI runs a few of them once with ``QRELKIT_TEST_CHROMIUM=/nonexistent/chromium`` (.ci/run): a test
that launches Chromium without this mark fails there instead of skipping, as it would on a fresh
clone without Debian's Chromium."""
from __future__ import annotations

import os

import pytest

CHROMIUM = os.environ.get("QRELKIT_TEST_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]
needs_chromium = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                    reason=f"browser tests need Chromium at {CHROMIUM} (apt install chromium)")
