"""Reading and writing test collections: qrels, runs, topics and documents.

Every reader streams, accepts gzip transparently (by magic bytes) and reports
a malformed line as one :class:`qrelkit.errors.InputError` of the form
``file:line: problem``. Topics, qrels and documents may also come from
ir_datasets as ``irds:<dataset-id>`` (optional extra ``qrelkit[irds]``).
"""
from qrelkit.data._open import open_text, open_write
from qrelkit.data.cases import read_cases, write_cases
from qrelkit.data.docs import DocIndex, read_docs, unique_docs
from qrelkit.data.qrels import QrelsFile, as_pairs, load_qrels, read_qrels, write_qrels
from qrelkit.data.runs import Run, expand_paths, read_run, read_runs, trec_eval_order, write_run
from qrelkit.data.topics import load_topics, read_topics, unique_topics

__all__ = [
    "DocIndex",
    "QrelsFile",
    "Run",
    "as_pairs",
    "expand_paths",
    "load_qrels",
    "load_topics",
    "open_text",
    "open_write",
    "read_cases",
    "read_docs",
    "read_qrels",
    "read_run",
    "read_runs",
    "read_topics",
    "trec_eval_order",
    "unique_docs",
    "unique_topics",
    "write_cases",
    "write_qrels",
    "write_run",
]
