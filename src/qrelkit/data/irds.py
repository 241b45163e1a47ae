"""``irds:<dataset-id>`` sources, read through ir_datasets when it is installed.

Many collections are already packaged by ir_datasets (with downloads, checksums
and licences handled there), so accepting its ids wherever a file path is
accepted saves users a conversion step. The import is lazy: ir_datasets is an
optional extra (``pip install qrelkit[irds]``) and its import is slow.

Only the record *fields* are mapped here; the readers in this package decide
how records become :mod:`qrelkit.types` values, so a dataset behaves exactly
like the equivalent file.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from qrelkit.errors import InputError

PREFIX = "irds:"


def is_irds(source: object) -> bool:
    """True for ``irds:<dataset-id>`` strings (paths never start like that)."""
    return isinstance(source, str) and source.startswith(PREFIX)


def dataset_id(source: str) -> str:
    ds = source[len(PREFIX):].strip()
    if not ds:
        raise InputError(source, None, "empty ir_datasets id; expected irds:<dataset-id>, "
                                       "e.g. irds:msmarco-passage/trec-dl-2019/judged")
    return ds


def load_dataset(source: str) -> Any:
    """The ir_datasets dataset object, or an InputError a user can act on."""
    ds_id = dataset_id(source)
    try:
        import ir_datasets  # type: ignore[import-not-found]
    except ImportError:
        raise InputError(
            source, None,
            "reading irds: sources needs the ir_datasets package, which is not installed; "
            "install it with: pip install qrelkit[irds]",
        ) from None
    try:
        return ir_datasets.load(ds_id)
    except KeyError:
        raise InputError(source, None, f"unknown ir_datasets id {ds_id!r}") from None


def _require(source: str, dataset: Any, what: str) -> None:
    if not getattr(dataset, f"has_{what}", lambda: False)():
        raise InputError(source, None, f"ir_datasets dataset {dataset_id(source)!r} provides no {what}")


def _guard(source: str, records: Iterator[Any]) -> Iterator[Any]:
    """ir_datasets downloads lazily; a failed download must be a one-line error."""
    try:
        yield from records
    except InputError:
        raise
    except Exception as exc:  # network, checksum, missing manual download ...
        raise InputError(source, None, f"ir_datasets could not provide the data: {exc}") from exc


def _first(record: Any, names: tuple[str, ...]) -> Any:
    for name in names:
        value = getattr(record, name, None)
        if value not in (None, ""):
            return value
    return None


def iter_topic_fields(source: str) -> Iterator[dict[str, Any]]:
    """Topics as plain dicts with ``qid``, ``text`` and optional ``narrative``/``description``.
    Query records differ between datasets (``text``, ``title``, ``query``...), so the
    first non-empty of the usual names is taken."""
    dataset = load_dataset(source)
    _require(source, dataset, "queries")
    for q in _guard(source, dataset.queries_iter()):
        yield {
            "qid": str(q.query_id),
            "text": _first(q, ("text", "title", "query", "question")) or "",
            "narrative": _first(q, ("narrative",)),
            "description": _first(q, ("description",)),
        }


def iter_qrel_fields(source: str) -> Iterator[tuple[str, str, int]]:
    dataset = load_dataset(source)
    _require(source, dataset, "qrels")
    for r in _guard(source, dataset.qrels_iter()):
        yield str(r.query_id), str(r.doc_id), int(r.relevance)


def iter_doc_fields(source: str) -> Iterator[tuple[str, str, str | None]]:
    dataset = load_dataset(source)
    _require(source, dataset, "docs")
    for d in _guard(source, dataset.docs_iter()):
        yield str(d.doc_id), _doc_text(d), _first(d, ("title",))


def _doc_text(d: Any) -> str:
    text = _first(d, ("text", "body", "contents", "passage", "abstract"))
    if text is None and hasattr(d, "default_text"):
        text = d.default_text()
    return str(text or "")


def doc_store(source: str) -> Any:
    """ir_datasets' own random-access store: indexing its docs ourselves would
    duplicate what it already keeps on disk."""
    dataset = load_dataset(source)
    _require(source, dataset, "docs")
    try:
        return dataset.docs_store()
    except Exception as exc:
        raise InputError(source, None, f"ir_datasets could not open the document store: {exc}") from exc


def doc_from_store(source: str, irds_docs: Any, docid: str) -> tuple[str, str, str | None] | None:
    try:
        d = irds_docs.get(docid)
    except KeyError:
        return None
    except Exception as exc:
        raise InputError(source, None, f"ir_datasets lookup of {docid!r} failed: {exc}") from exc
    if d is None:
        return None
    return str(d.doc_id), _doc_text(d), _first(d, ("title",))


def doc_count(source: str, dataset_or_docs: Any) -> int | None:
    dataset = load_dataset(source)
    try:
        return int(dataset.docs_count())
    except Exception:  # noqa: BLE001 (a count is optional; some datasets cannot give one)
        return None
