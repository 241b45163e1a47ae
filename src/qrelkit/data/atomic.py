"""Writing a file whole or not at all: a temporary file in the same folder, then a rename.

An export killed half-way used to leave the first part of a qrels file under
the final name, ending on a line boundary, so that `evaluate` took a 15% qrels
file for the real one. Every file qrelkit writes goes through
:func:`atomic_write` instead: the bytes go to a hidden temporary file beside
the target, which is flushed to disk (``fsync``) and renamed over the target
only when the writer finished without an error. A rename within one folder is
atomic on POSIX file systems, so a reader sees the old file or the new one,
never a part; the folder is synced too, so that the rename itself survives a
power cut. A temporary file left by a killed process (a SIGKILL runs no
cleanup) is removed by the next write of the same target.

A target that exists and is not a regular file (``/dev/stdout``, a named pipe,
a terminal) is written in place: a stream cannot be replaced, and renaming
over a device as root would replace the device node itself.
"""
from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Union

from qrelkit.errors import InputError
from qrelkit.processes import pid_alive

PathLike = Union[str, "os.PathLike[str]"]
TMP_SUFFIX = ".qrelkit-tmp"


def temp_name(target: Path) -> Path:
    """The hidden temporary file for ``target``: its name, this process and a random part."""
    return target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}{TMP_SUFFIX}")


def _stale_temps(target: Path) -> Iterator[Path]:
    """Temporary files of ``target`` whose process is gone (killed while writing)."""
    for tmp in target.parent.glob(f".{target.name}.*{TMP_SUFFIX}"):
        pid = tmp.name[len(target.name) + 2:].split(".", 1)[0]
        if pid.isdecimal() and not pid_alive(int(pid)):
            yield tmp


def _sync_folder(folder: Path) -> None:
    """Make a rename durable; a file system that cannot sync a folder is not an error."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _target(path: PathLike) -> Path:
    """The file to replace: a symbolic link's target, so that the link stays a link."""
    p = Path(path)
    if p.is_dir():
        raise InputError(path, None, "is a directory, expected a file to write")
    return Path(os.path.realpath(p)) if p.is_symlink() else p


@contextmanager
def atomic_write(path: PathLike, mode: str = "w", encoding: str = "utf-8", newline: str | None = "\n",
                 **kwargs: Any) -> Iterator[IO[Any]]:
    """``with atomic_write(path) as f: f.write(...)``: ``path`` is replaced when the block
    ends without an exception and is left as it was otherwise. ``mode`` is ``"w"`` (text,
    UTF-8, ``\\n`` line endings) or ``"wb"``. Parent folders are created (exports go to fresh
    folders); a path that cannot be written is an :class:`InputError` naming it."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write writes a new file: mode 'w' or 'wb', not {mode!r}")
    text = {"encoding": encoding, "newline": newline, **kwargs} if mode == "w" else kwargs
    target = _target(path)
    if target.exists() and not target.is_file():  # a device or a pipe: written as a stream
        with _opened(path, lambda: open(target, mode, **text)) as f:
            yield f
        return
    _opened(path, lambda: target.parent.mkdir(parents=True, exist_ok=True))
    for stale in _stale_temps(target):
        stale.unlink(missing_ok=True)
    tmp = temp_name(target)
    # O_EXCL: never write through a file someone planted under the name; 0o666 lets the umask decide
    fd = _opened(path, lambda: os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        with open(fd, mode, **text) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        _opened(path, lambda: os.replace(tmp, target))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)


def _opened(path: PathLike, action: Any) -> Any:
    """``action()``, with an OSError turned into an InputError naming ``path``."""
    try:
        return action()
    except OSError as exc:
        raise InputError(path, None, f"cannot write: {exc.strerror or exc}") from None
