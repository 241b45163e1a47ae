"""``dense``: cosine similarity of the query's and the document's all-MiniLM-L6-v2 embeddings.

A dense retriever's view of relevance, computed in-process (:mod:`qrelkit.signals.minilm`). It is
itself a retrieval model: when the runs being evaluated include dense retrievers built on similar
encoders, labels that lean on it favour them (the report's circularity warning says so; leave
``dense`` out of ``signals=`` to avoid it).

Documents are cut to their first 4,096 characters before tokenising (the model reads at most 256
tokens, which is far less text; the cut only spares the tokenizer passages of hundreds of
thousands of characters). Each distinct query and document is embedded once per call.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from qrelkit.signals import Pair, Signal, SignalContext, minilm, register

MAX_CHARS = 4096


@register
class Dense(Signal):
    NAME = "dense"
    FEATURES = ("cosine",)
    QUERY = True

    def unavailable(self, ctx: SignalContext) -> Optional[str]:
        try:
            minilm.model_zip()
            return minilm.default_backend().unavailable()
        except (minilm.ModelMissing, ValueError) as e:
            return str(e)

    def version(self, ctx: SignalContext) -> str:
        """Backends whose values equal numpy's to float rounding share the version (and the cache)."""
        tag = minilm.default_backend().tag
        return (f"{minilm.MODEL_ID}|{minilm.DISTRIBUTION}|max_seq_length={minilm.MAX_SEQ_LENGTH}|chars={MAX_CHARS}"
                + (f"|{tag}" if tag else ""))

    async def compute(self, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
        return cosines(minilm.load(), pairs, ctx)


def cosines(model: minilm.MiniLM, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
    """``(len(pairs), 1)`` cosines; each distinct query and document embedded once."""
    qids = sorted({q for q, _ in pairs})
    docids = sorted({d for _, d in pairs})
    qv = dict(zip(qids, model.encode([ctx.topics[q].text for q in qids])))
    dv = dict(zip(docids, model.encode([ctx.text(d)[:MAX_CHARS] for d in docids])))
    return np.array([[float(qv[q] @ dv[d])] for q, d in pairs])


VECTOR_SIGNAL = "dense-vector"  # cache rows of document vectors: qid "" (a document's, not a pair's)


def doc_vectors(docids: Sequence[str], ctx: SignalContext) -> dict[str, np.ndarray]:
    """Unit MiniLM vectors of documents, cached in the workspace under the dense signal's version
    (one row per document, qid empty), so signals comparing documents with each other
    (:mod:`qrelkit.signals.feedback`) embed each document once per workspace."""
    version = Dense().version(ctx)
    wanted = sorted(set(docids))
    got: dict[str, np.ndarray] = {}
    if ctx.store is not None and wanted:
        cached = ctx.store.signal_values(VECTOR_SIGNAL, version, [("", d) for d in wanted])
        got = {d: np.asarray(v, dtype=np.float32) for (_, d), v in cached.items()}
    todo = [d for d in wanted if d not in got]
    if todo:
        # rounded as stored, so a fresh vector and its cached copy give the same values
        fresh = [[round(float(v), 7) for v in row] for row in minilm.load().encode([ctx.text(d)[:MAX_CHARS] for d in todo])]
        got.update((d, np.asarray(v, dtype=np.float32)) for d, v in zip(todo, fresh))
        if ctx.store is not None:
            ctx.store.put_signal_values(VECTOR_SIGNAL, version, [(("", d), v) for d, v in zip(todo, fresh)])
    return got
