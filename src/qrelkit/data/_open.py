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
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Union

from qrelkit.data.atomic import atomic_write
from qrelkit.errors import InputError

PathLike = Union[str, "os.PathLike[str]"]

GZIP_MAGIC = b"\x1f\x8b"
MAX_LINE = 64 << 20  # bytes in one line of an input file; a longer one is refused, not read into memory


def is_gzip(path: PathLike) -> bool:
    """True when the file starts with the gzip magic bytes (the suffix is ignored)."""
    check_readable(path)
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def strip_gz(name: str) -> str:
    """The file name without a trailing ``.gz``: format sniffing looks past compression."""
    return name[:-3] if name.lower().endswith(".gz") else name


def check_readable(path: PathLike) -> None:
    """A missing path, a folder and anything but a regular file are refused before opening:
    ``/dev/zero`` never ends and a named pipe without a writer blocks ``open`` forever."""
    p = Path(path)
    if not p.exists():
        raise InputError(path, None, "no such file")
    if p.is_dir():
        raise InputError(path, None, "is a directory, expected a file")
    if not p.is_file():
        raise InputError(path, None, "not a regular file (a device, pipe or socket); pass a file")


def open_binary(path: PathLike) -> IO[bytes]:
    """A binary reader that decompresses transparently when the file is gzip."""
    check_readable(path)
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
    check_readable(path)
    if Path(path).stat().st_size > MAX_LINE:
        raise InputError(path, None, f"larger than {MAX_LINE >> 20} MB (expected a small text file)")
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
    file's fault too, so it is reported, not raised as a RecursionError. So is
    a lone surrogate (``"\\ud800"``): JSON's escapes can spell one, Python's
    decoder accepts it, and it fails only later, when the text is stored."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = " (a JSON array? expected one object per line)" if lineno and text.lstrip().startswith("[") else ""
        raise InputError(path, lineno, f"invalid JSON: {exc.msg} at column {exc.colno}{hint}") from None
    except RecursionError:
        raise InputError(path, lineno, "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # a number of more than 4,300 digits (Python's int conversion limit)
        raise InputError(path, lineno, f"invalid JSON: {exc}") from None
    if "\\u" in text:  # only an escape can spell a surrogate: valid UTF-8 cannot
        check_surrogates(path, lineno, value)
    return value


def check_surrogates(path: PathLike, lineno: int | None, value: Any) -> None:
    """An :class:`InputError` when a string in ``value`` (keys included) holds a lone surrogate."""
    todo = [value]
    while todo:  # iterative: the decoder accepted nesting close to the recursion limit
        v = todo.pop()
        if isinstance(v, dict):
            todo.extend(v.keys())
            todo.extend(v.values())
        elif isinstance(v, list):
            todo.extend(v)
        elif isinstance(v, str) and not _encodable(v):
            bad = next(ch for ch in v if 0xD800 <= ord(ch) <= 0xDFFF)
            raise InputError(path, lineno, f"invalid Unicode (lone surrogate \\u{ord(bad):04x})")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@contextmanager
def open_write(path: PathLike) -> Iterator[IO[str]]:
    """``with open_write(path) as f``: a UTF-8 text writer, gzip when the path ends with
    ``.gz``, written whole or not at all (:func:`qrelkit.data.atomic.atomic_write`). Parent
    folders are created because exports usually go to fresh output folders. A path that is a
    folder or cannot be written is an :class:`InputError` naming it."""
    if not Path(path).name.lower().endswith(".gz"):
        with atomic_write(path, "w") as fh:
            yield fh
        return
    with atomic_write(path, "wb") as raw:
        # mtime=0 keeps the bytes deterministic: same qrels, same file.
        packed = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
        with io.TextIOWrapper(packed, encoding="utf-8", newline="\n") as fh:
            yield fh


def decode_line(path: PathLike, lineno: int, raw: bytes) -> str:
    """One line as text without its line ending; a BOM on line 1 is dropped."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, lineno, f"not valid UTF-8 (byte {exc.start + 1} of the line)") from None
    if lineno == 1 and text.startswith("\ufeff"):
        text = text[1:]
    return text.rstrip("\r\n")


def bounded_lines(path: PathLike, fh: IO[bytes]) -> Iterator[bytes]:
    """The raw lines of ``fh``, each at most :data:`MAX_LINE` bytes (not counting its
    newline): a longer one is an :class:`InputError` naming it, before it fills memory
    (a binary file, or a file with no newlines). Costs 50 ns a line over plain iteration."""
    readline = fh.readline
    limit = MAX_LINE + 1
    lineno = 0
    while raw := readline(limit):
        lineno += 1
        if len(raw) == limit and not raw.endswith(b"\n"):
            raise InputError(path, lineno, f"line longer than {MAX_LINE >> 20} MB (a binary file, or no newlines?)")
        yield raw


def iter_raw_lines(path: PathLike) -> Iterator[tuple[int, int, bytes]]:
    """``(line number, byte offset, raw bytes)`` for every line. Offsets are
    positions in the *decompressed* stream; they are only seekable for plain files."""
    fh = open_binary(path)
    lineno = 0
    offset = 0
    try:
        with fh:
            for raw in bounded_lines(path, fh):
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
