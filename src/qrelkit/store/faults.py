"""Storage faults: a full disk, a read-only mount, a folder the user may not write.

Why: these are the user's to fix, not bugs, yet they surfaced as tracebacks from wherever the
first write happened to be (the writer lock's file, a commit, the call cache's group write), and
a judging run that could no longer store anything kept calling the model, paying for answers it
then dropped ("they will be paid again"). Every write path turns such an error into one
:class:`qrelkit.errors.StorageError` naming the workspace folder and the cause (exit 2), and
the store remembers the first one (``write_failed``) so that a judging client makes no new call
after it (:mod:`qrelkit.llm.client`).

SQLite's own codes say little about the cause (``SQLITE_CANTOPEN``, ``SQLITE_IOERR``,
``SQLITE_READONLY`` for a read-only mount and for a missing permission alike), so the cause is
asked of the file system itself (:func:`diagnose`).
"""
from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

from qrelkit.errors import StorageError

FULL = "the disk is full (no space left on device): free some space and run the same command again"
READ_ONLY = ("the folder is on a read-only file system: only read-only commands work here "
             "(status, export and report with --out elsewhere)")
DENIED = ("permission denied: this user may not write to the folder (only read-only commands work: "
          "status, export and report with --out elsewhere)")
_ERRNO = {errno.ENOSPC: FULL, errno.EDQUOT: FULL, errno.EROFS: READ_ONLY, errno.EACCES: DENIED,
          errno.EPERM: DENIED}
# SQLite error names whose cause is the disk (or the folder), not the data or a bug
_FULL_NAMES = ("SQLITE_FULL",)
_VAGUE_NAMES = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_PERM")
LOW_SPACE = 64 * 1024  # bytes free below which a vague write error is taken for a full disk


def diagnose(folder: Path) -> Optional[str]:
    """What the file system says is wrong with writing under ``folder``: a read-only mount, no
    permission, no space; None when it sees nothing wrong."""
    try:
        st = os.statvfs(folder)
    except OSError:
        st = None
    if st is not None and st.f_flag & os.ST_RDONLY:
        return READ_ONLY
    if not os.access(folder, os.W_OK) or any(p.exists() and not os.access(p, os.W_OK)
                                             for p in _db_files(folder)):
        return DENIED
    if st is not None and st.f_bavail * st.f_frsize < LOW_SPACE:
        return FULL
    return None


def _db_files(folder: Path) -> list[Path]:
    from qrelkit.store.schema import DB_NAME

    return [folder / DB_NAME, folder / (DB_NAME + "-wal"), folder / (DB_NAME + "-shm")]


def storage_error(e: BaseException, folder: Path | str) -> Optional[StorageError]:
    """``e`` as a :class:`StorageError` when its cause is the disk or the folder, else None."""
    if isinstance(e, StorageError):
        return e
    folder = Path(folder)
    if isinstance(e, OSError) and e.errno in _ERRNO:
        return StorageError(folder, f"cannot write: {_ERRNO[e.errno]}")
    if isinstance(e, sqlite3.Error):
        name = getattr(e, "sqlite_errorname", "") or ""
        if name.startswith(_FULL_NAMES) or "disk is full" in str(e):
            return StorageError(folder, f"cannot write: {FULL}")
        if name.startswith(_VAGUE_NAMES) or "readonly database" in str(e):
            cause = diagnose(folder)
            return StorageError(folder, f"cannot write: {cause}" if cause else
                                f"cannot use the workspace database (SQLite: {e})")
    return None


@contextmanager
def storage_guard(folder: Path | str) -> Iterator[None]:
    """Inside: an error whose cause is the disk or the folder leaves as a :class:`StorageError`."""
    try:
        yield
    except (OSError, sqlite3.Error) as e:
        err = storage_error(e, folder)
        if err is None:
            raise
        raise err from None
