"""Documents: JSONL or TSV, streamed, and looked up by id through a side index.

JSONL lines carry an id (``docid``, ``doc_id``, ``id`` or ``_id``) and a text
(``text``, ``doc``, ``contents`` or ``body``) plus an optional ``title``: the
field names of the usual corpora. TSV lines are ``docid<TAB>text`` or
``docid<TAB>title<TAB>text`` (so a text must not contain tabs in the
three-column form). Empty texts are allowed (real corpora have them) and are
counted by :class:`DocIndex`; an empty file is an error, since a collection
without documents cannot be judged.

Judging needs random access by id into corpora far larger than memory, so
:class:`DocIndex` keeps an SQLite side index instead of a dict: for plain files
it stores each document's byte offset and re-reads the line on demand; gzip
streams cannot seek, so for those it stores the texts themselves. Building is
streaming (constant memory); the index is keyed by the file's path, size and
modification time, so it is reused until the file changes, and it is written
to a temporary name and renamed, so an interrupted build never leaves a
half-index behind.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import msgspec

from qrelkit.data import irds
from qrelkit.data._open import PathLike, check_readable, decode_line, is_gzip, iter_lines, iter_raw_lines
from qrelkit.data.topics import detect_format, json_id, parse_json_object, pick
from qrelkit.data.unique import UniqueById
from qrelkit.errors import InputError
from qrelkit.store.docindex import DocIndexDB, IndexEntry, index_complete
from qrelkit.types import Doc

ID_KEYS = ("docid", "doc_id", "id", "_id")
TEXT_KEYS = ("text", "doc", "contents", "body")
INDEX_VERSION = "1"
_BATCH = 1000


def parse_doc_line(path: PathLike, lineno: int, line: str, fmt: str) -> Doc:
    """One document from one line of a ``jsonl`` or ``tsv`` file."""
    if fmt == "jsonl":
        obj = parse_json_object(path, lineno, line)
        docid = json_id(path, lineno, obj, ID_KEYS, "document id")
        key, text = pick(obj, TEXT_KEYS)
        if key is None:
            raise InputError(path, lineno, f"missing text field (one of {', '.join(TEXT_KEYS)})")
        if not isinstance(text, str):
            raise InputError(path, lineno, f"{key} must be a string, got {type(text).__name__}")
        title = obj.get("title")
        if title is not None and not isinstance(title, str):
            raise InputError(path, lineno, f"title must be a string, got {type(title).__name__}")
        return Doc(docid=docid, text=text, title=title or None)
    cols = line.split("\t")
    if len(cols) == 2:
        docid, title, text = cols[0], None, cols[1]
    elif len(cols) == 3:
        docid, title, text = cols
    else:
        raise InputError(
            path, lineno,
            f"expected 2 or 3 tab-separated columns (docid<TAB>text or docid<TAB>title<TAB>text), got {len(cols)}",
        )
    docid = docid.strip()
    if not docid:
        raise InputError(path, lineno, "empty document id")
    return Doc(docid=docid, text=text.strip(), title=(title or "").strip() or None)


def _doc_format(path: PathLike) -> str:
    return detect_format(path)


def _iter_with_lines(path: PathLike) -> Iterator[tuple[int, Doc]]:
    if irds.is_irds(path):
        for n, (docid, text, title) in enumerate(irds.iter_doc_fields(str(path)), start=1):
            yield n, Doc(docid=docid, text=text, title=title or None)
        return
    fmt = _doc_format(path)
    count = 0
    lines = _iter_jsonl_fast(path) if fmt == "jsonl" else iter_lines(path)
    for lineno, line in lines:
        count += 1
        yield lineno, line if isinstance(line, Doc) else parse_doc_line(path, lineno, line, fmt)
    if count == 0:
        raise InputError(path, None, "no documents found (the file is empty)")


def _iter_jsonl_fast(path: PathLike) -> Iterator[tuple[int, Doc | str]]:
    """Every non-blank JSONL line as a :class:`Doc` when it is the plain case (an object with
    string ``docid`` and ``text``, no stray spaces in the id, an optional string ``title``),
    parsed by msgspec straight from bytes (4x the standard library's json); anything else as
    its decoded text, for :func:`parse_doc_line` to read or to refuse naming the line."""
    decode = msgspec.json.Decoder().decode
    for lineno, _, raw in iter_raw_lines(path):
        try:
            obj = decode(raw)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):  # the careful parser says what is wrong
            obj = None
        if type(obj) is dict:
            docid, text, title = obj.get("docid"), obj.get("text"), obj.get("title")
            if (type(docid) is str and type(text) is str and docid and not docid[0].isspace()
                    and not docid[-1].isspace() and (title is None or type(title) is str)):
                yield lineno, Doc(docid, text, title or None)
                continue
        line = decode_line(path, lineno, raw)
        if line.strip():
            yield lineno, line


def read_docs(path: PathLike) -> Iterator[Doc]:
    """Stream documents from a JSONL or TSV file (gzipped or not) or an ``irds:``
    dataset, as they are (repeats included); :func:`unique_docs` checks ids."""
    for _, doc in _iter_with_lines(path):
        yield doc


def docs_with_lines(path: PathLike) -> Iterator[tuple[int, Doc]]:
    """``(line, doc)`` for every document, repeats included (an ``irds:`` dataset's are numbered)."""
    return _iter_with_lines(path)


def first_line_of(path: PathLike, docid: str) -> int | None:
    """The line of the first document with this id (for a message about a repeat)."""
    return next((n for n, d in _iter_with_lines(path) if d.docid == docid), None)


def unique_docs(path: PathLike) -> UniqueById[Doc]:
    """The documents once each, streamed: an identical repeat is dropped and
    counted (``.duplicates``); a repeated id with a different text or title is
    an error naming both lines (the workspace would otherwise keep the last)."""
    return UniqueById(path, _iter_with_lines(path), key=lambda d: d.docid, what="document id")


def default_cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / "qrelkit-docindex"


def _signature(path: Path) -> str:
    st = path.stat()
    key = f"{path.resolve()}\0{st.st_size}\0{st.st_mtime_ns}\0{INDEX_VERSION}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


class DocIndex:
    """Random access to documents by id with memory independent of corpus size.

    Use :meth:`open`; it builds the side index on first use and reuses it
    afterwards. Safe to share between threads (lookups are serialised)."""

    def __init__(self, source: str, index_path: Path | None, conn: DocIndexDB | None,
                 fmt: str, stores_text: bool, count: int, empty: int | None, irds_docs: Any = None):
        self.source = source
        self.index_path = index_path
        self.format = fmt
        self.stores_text = stores_text
        self.count = count
        #: documents whose text is empty (None when the source cannot tell cheaply)
        self.empty = empty
        self._conn = conn
        self._store = irds_docs
        self._lock = threading.Lock()
        self._fh = None

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def open(cls, path: PathLike, cache_dir: PathLike | None = None) -> DocIndex:
        """Index ``path`` (or reuse its index) in ``cache_dir`` (default: a
        ``qrelkit-docindex`` folder in the system temp dir; a workspace passes its own)."""
        if irds.is_irds(path):
            source = str(path)
            store = irds.doc_store(source)
            count = irds.doc_count(source, store)
            return cls(source, None, None, "irds", True, count or 0, None, irds_docs=store)
        p = Path(path)
        check_readable(path)
        cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        cache.mkdir(parents=True, exist_ok=True)
        index_path = cache / f"{strip_name(p)}.{_signature(p)}.docindex.sqlite"
        if not index_complete(index_path, INDEX_VERSION):
            _build(p, index_path)
        conn = DocIndexDB.open(index_path)
        meta = conn.meta()
        return cls(str(path), index_path, conn, meta["format"], meta["stores_text"] == "1",
                   int(meta["count"]), int(meta["empty"]))

    # -- lookups ------------------------------------------------------------------------------
    def get(self, docid: str) -> Doc | None:
        """The document, or None when the id is not in the collection."""
        with self._lock:
            if self._store is not None:
                found = irds.doc_from_store(self.source, self._store, docid)
                return None if found is None else Doc(found[0], found[1], found[2] or None)
            row = self._db().entry(docid)
            if row is None:
                return None
            line, off, length, title, text = row
            if self.stores_text:
                return Doc(docid=docid, text=text, title=title)
            fh = self._file()
            fh.seek(off)
            raw = fh.read(length)
        return parse_doc_line(self.source, line, decode_line(self.source, line, raw), self.format)

    def __contains__(self, docid: object) -> bool:
        if not isinstance(docid, str):
            return False
        if self._store is not None:
            return self.get(docid) is not None
        with self._lock:
            return self._db().contains(docid)

    def __len__(self) -> int:
        return self.count

    def docids(self) -> Iterator[str]:
        """All ids, sorted (not available for ``irds:`` sources)."""
        if self._store is not None:
            raise InputError(self.source, None, "listing ids of an irds: source is not supported")
        with self._lock:
            ids = self._db().docids()
        yield from ids

    def close(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _db(self) -> DocIndexDB:
        if self._conn is None:
            raise ValueError("DocIndex is closed")
        return self._conn

    def _file(self):
        if self._fh is None:
            self._fh = open(self.source, "rb")  # noqa: SIM115 (kept open for lookups)
        return self._fh


def strip_name(p: Path) -> str:
    """A readable, filesystem-safe prefix for the index file name."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in p.name)
    return safe[:60] or "docs"


def _build(path: Path, index_path: Path) -> None:
    fmt = _doc_format(path)
    stores_text = is_gzip(path)
    tmp = index_path.with_name(f"{index_path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    if tmp.exists():
        tmp.unlink()
    conn = DocIndexDB.build(tmp)
    try:
        count = 0
        empty = 0
        batch: list[tuple] = []
        for lineno, offset, raw in iter_raw_lines(path):
            line = decode_line(path, lineno, raw)
            if not line.strip():
                continue
            doc = parse_doc_line(path, lineno, line, fmt)
            count += 1
            if not doc.text.strip():
                empty += 1
            if stores_text:
                batch.append((doc.docid, lineno, None, None, doc.title, doc.text))
            else:
                batch.append((doc.docid, lineno, offset, len(raw), None, None))
            if len(batch) >= _BATCH:
                count, empty = _minus((count, empty), _insert(conn, path, batch, fmt))
                batch = []
        if batch:
            count, empty = _minus((count, empty), _insert(conn, path, batch, fmt))
        if count == 0:
            raise InputError(path, None, "no documents found (the file is empty)")
        conn.finish({"version": INDEX_VERSION, "source": str(path.resolve()), "format": fmt,
                     "stores_text": "1" if stores_text else "0", "count": str(count),
                     "empty": str(empty), "complete": "1"})
        conn.close()
        os.replace(tmp, index_path)
    except BaseException:
        conn.close()
        if tmp.exists():
            tmp.unlink()
        raise


def _minus(totals: tuple[int, int], dropped: tuple[int, int]) -> tuple[int, int]:
    return totals[0] - dropped[0], totals[1] - dropped[1]


def _insert(conn: DocIndexDB, path: Path, batch: list[tuple], fmt: str) -> tuple[int, int]:
    """Insert a batch. A repeated id whose document is identical is dropped, as
    :func:`unique_docs` drops it; a different one is refused naming both lines.
    Returns ``(repeats dropped, of which empty)`` for the counts. Costs nothing
    unless the batch has repeats (the primary key finds them)."""
    rows = {row[1]: row for row in batch}
    dropped = empty = 0
    for dup in conn.insert(batch):
        again = _entry_doc(path, IndexEntry(*rows[dup.line][1:]), fmt)
        if _entry_doc(path, conn.entry(dup.docid), fmt) != again:
            raise InputError(path, dup.line, f"duplicate document id {dup.docid} with different content: "
                                             f"lines {dup.first_line} and {dup.line}")
        dropped += 1
        empty += not again[1].strip()
    return dropped, empty


def _entry_doc(path: Path, entry: IndexEntry, fmt: str) -> tuple[str | None, str]:
    """``(title, text)`` of an index entry, re-read from the file when the index
    holds the line's offset instead of its text."""
    if entry.off is None:
        return entry.title, entry.text
    with open(path, "rb") as fh:
        fh.seek(entry.off)
        raw = fh.read(entry.len)
    doc = parse_doc_line(path, entry.line, decode_line(path, entry.line, raw), fmt)
    return doc.title, doc.text
