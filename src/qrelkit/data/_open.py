"""Opening collection files, gzipped or not, with errors that name the file.

Collections are shipped compressed as often as not, and a file's suffix is not
always truthful (``run.txt`` that is really gzip, ``.gz`` that was decompressed
by a browser), so reading trusts the gzip magic bytes first and the suffix only
for writing. Lines are decoded one by one so that a bad byte is reported with
its line number instead of as a traceback from deep inside a codec.
"""
from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Union

from qrelkit.errors import InputError

PathLike = Union[str, "os.PathLike[str]"]

GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: PathLike) -> bool:
    """True when the file starts with the gzip magic bytes (the suffix is ignored)."""
    _check_readable(path)
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def strip_gz(name: str) -> str:
    """The file name without a trailing ``.gz``: format sniffing looks past compression."""
    return name[:-3] if name.lower().endswith(".gz") else name


def _check_readable(path: PathLike) -> None:
    p = Path(path)
    if not p.exists():
        raise InputError(path, None, "no such file")
    if p.is_dir():
        raise InputError(path, None, "is a directory, expected a file")


def open_binary(path: PathLike) -> IO[bytes]:
    """A binary reader that decompresses transparently when the file is gzip."""
    _check_readable(path)
    try:
        if is_gzip(path):
            return gzip.open(path, "rb")
        return open(path, "rb")
    except OSError as exc:  # permissions and the like
        raise InputError(path, None, f"cannot open: {exc.strerror or exc}") from exc


def open_text(path: PathLike) -> IO[str]:
    """A UTF-8 text reader, gzip by magic bytes. Prefer :func:`iter_lines` for
    parsing, which reports undecodable bytes with a line number."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8", newline="")


def read_text(path: PathLike) -> str:
    """A whole small UTF-8 file (a plan, a group map) as text. A directory, an
    unreadable or a binary file is an :class:`InputError`, the last one with the
    line of the first undecodable byte."""
    _check_readable(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(path, line, "not valid UTF-8 (a binary file?)") from None


def parse_json(path: PathLike, lineno: int | None, text: str) -> Any:
    """One JSON value, or an :class:`InputError` at ``lineno``. Deeply nested
    input exhausts Python's recursion limit inside the decoder; that is the
    file's fault too, so it is reported, not raised as a RecursionError."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        hint = " (a JSON array? expected one object per line)" if lineno and text.lstrip().startswith("[") else ""
        raise InputError(path, lineno, f"invalid JSON: {exc.msg} at column {exc.colno}{hint}") from None
    except RecursionError:
        raise InputError(path, lineno, "invalid JSON: nested too deeply") from None


def open_write(path: PathLike) -> IO[str]:
    """A UTF-8 text writer; gzip when the path ends with ``.gz``. Parent folders
    are created because exports usually go to fresh output folders. A path that
    is a folder or cannot be written is an :class:`InputError` naming it."""
    p = Path(path)
    if p.is_dir():
        raise InputError(path, None, "is a directory, expected a file to write")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.name.lower().endswith(".gz"):
            # mtime=0 keeps the bytes deterministic: same qrels, same file.
            raw = gzip.GzipFile(filename="", mode="wb", fileobj=open(p, "wb"), mtime=0)  # noqa: SIM115 (caller closes)
            return _ClosingTextWrapper(raw)
        return open(p, "w", encoding="utf-8", newline="\n")
    except OSError as exc:
        raise InputError(path, None, f"cannot write: {exc.strerror or exc}") from None


class _ClosingTextWrapper(io.TextIOWrapper):
    """GzipFile does not close a fileobj it was handed; this closes both."""

    def __init__(self, raw: gzip.GzipFile):
        super().__init__(raw, encoding="utf-8", newline="\n")
        self._fileobj = raw.fileobj

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._fileobj is not None and not self._fileobj.closed:
                self._fileobj.close()


def decode_line(path: PathLike, lineno: int, raw: bytes) -> str:
    """One line as text without its line ending; a BOM on line 1 is dropped."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, lineno, f"not valid UTF-8 (byte {exc.start + 1} of the line)") from None
    if lineno == 1 and text.startswith("\ufeff"):
        text = text[1:]
    return text.rstrip("\r\n")


def iter_raw_lines(path: PathLike) -> Iterator[tuple[int, int, bytes]]:
    """``(line number, byte offset, raw bytes)`` for every line. Offsets are
    positions in the *decompressed* stream; they are only seekable for plain files."""
    fh = open_binary(path)
    lineno = 0
    offset = 0
    try:
        with fh:
            for raw in fh:
                lineno += 1
                yield lineno, offset, raw
                offset += len(raw)
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise InputError(path, lineno + 1, f"corrupt or truncated gzip data ({exc})") from None


def iter_lines(path: PathLike) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` for every non-blank line; blank lines are skipped
    (trailing newlines and blank separators are common in hand-made files)."""
    for lineno, _, raw in iter_raw_lines(path):
        text = decode_line(path, lineno, raw)
        if text.strip():
            yield lineno, text


def first_content_line(path: PathLike) -> str | None:
    """The first non-blank line, for format sniffing; None for an empty file."""
    for _, text in iter_lines(path):
        return text
    return None
