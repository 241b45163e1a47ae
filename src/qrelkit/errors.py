"""User-facing errors.

A user error (bad file, bad flag) is reported as one line and exit code 2 by
the CLI, a model server that cannot be used (:class:`ModelUnavailable`) as one
line and exit code 3; a traceback is a bug. Code raises these, never
prints and exits itself, so the Python API sees ordinary exceptions.
"""
from __future__ import annotations

from typing import Optional


class QrelkitError(Exception):
    """Base of every error the CLI turns into a one-line message and exit 2."""


class InputError(QrelkitError):
    """A malformed input: names the file, the line (1-based) and the problem."""

    def __init__(self, path: object, line: Optional[int], problem: str):
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {problem}")


class UsageError(QrelkitError):
    """A bad option or combination of options, or a missing workspace."""


class StorageError(QrelkitError):
    """The workspace's disk refused a write or an open: full, read-only, or not the user's to
    write. One line naming the folder and the cause (exit 2); the user fixes the disk, not the
    data (:mod:`qrelkit.store.faults`)."""

    def __init__(self, folder: object, cause: str):
        self.folder = str(folder)
        self.cause = cause
        super().__init__(f"{self.folder}: {cause}")


class CapabilityError(QrelkitError):
    """A judge asked a backend for something it cannot do (e.g. log-probabilities)."""


class BackendError(QrelkitError):
    """A model server that cannot be reached or configured at all."""


class ModelUnavailable(BackendError):
    """A model server that cannot be used: nothing answers, the key is refused, the URL is not an
    OpenAI API, the model is not served, or the server stopped answering mid-run. The CLI exits 3;
    finished work is kept and the same command continues once the server is fixed."""
