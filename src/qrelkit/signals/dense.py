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
