"""Running the real command and checking the user-error contract: exit 2, one
line on stderr that names the file, and never a traceback."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def qk(*args: object, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "400"}  # long paths must not be wrapped onto a second line
    return subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def assert_user_error(p: subprocess.CompletedProcess, names: object) -> str:
    """The contract, checked one fact at a time; returns the message line."""
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2, p.stderr
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    assert str(names) in lines[0], lines[0]
    return lines[0]


def demo_files(tmp: Path) -> dict[str, Path]:
    """A tiny valid collection to vary one file of."""
    files = {
        "topics": ("topics.tsv", "q1\tfirst query\nq2\tsecond query\n"),
        "docs": ("docs.tsv", "d1\tone\nd2\ttwo\nd3\tthree\n"),
        "qrels": ("qrels.txt", "q1 0 d1 1\nq2 0 d2 0\n"),
        "run": ("a.run", "q1 Q0 d1 1 3.0 a\nq1 Q0 d3 2 2.0 a\nq2 Q0 d2 1 1.0 a\n"),
    }
    out = {}
    for key, (name, text) in files.items():
        (tmp / name).write_text(text)
        out[key] = tmp / name
    return out
