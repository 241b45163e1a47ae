"""Where the `pmi` signal's time goes, and the levers that could cut it, measured side by side.

    python benchmarks/embedded_tokens.py [--parts share,batch,formats] [--calib 20] [--n 30]
        [--rounds 2] [--threads 2] [--seqs 1,4,8] [--formats q8_0,q4_0,iq4_nl,q4_k_m]
        [--data ../shared/data/llmjudge-dev] [--json OUT]

`pmi` (with `ql`, from the same call) is 90-93% of the embedded judge's CPU time
(``benchmarks/embedded_speed.py``), and its cost is the embedded model's forward passes over
each pair's likelihood prompt (the passage, the instruction, the query), at a flat CPU cost per
token. So only fewer tokens, or cheaper tokens, can make the judge faster. The pairs are those
``benchmarks/embedded_speed.py`` draws (``--calib + --n`` LLMJudge dev qrels, seed 0); the
reference values are the shipped path's (:meth:`qrelkit.llm.local._Loaded.score`, whose
``logprob`` is ``ql`` and ``pmi``'s per-pair term).

``share``: tokens per pair, tokenised as the shipped path does, and how many a single KV cache
must evaluate in the drawn order (it keeps the common prefix with the previous call; the
client's cache answers a repeated prompt) against the best order (lexicographic, which evaluates
each node of the prompts' token trie once): what reusing a shared prefix could save, exactly.
Also over every qrel of the collection, and the share of tokens in long passages (capping them
would change values: a new signal id).

``batch``: several pairs' prompts in one ``llama_decode``, each a sequence with its own KV stream
(``n_seq_max`` = the group size, ``kv_unified`` off), against one call per pair (the shipped
path): CPU and wall milliseconds per token, and the largest |difference| of the log-likelihoods.

``formats``: the shipped Q4_1 weights against copies requantised by llama.cpp's own
``llama_model_quantize`` (no download; into a temporary directory, removed at the end), each scored through the
shipped path with ``--threads`` threads: CPU milliseconds per token, and how far the values move
(a new weights file is a new model id, so a new signal id).

Every part runs its variants in turn, ``--rounds`` times, the order reversed every other round
(ABBA), and prints the mean; CPU seconds are the process's (every thread).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from embedded import DEFAULT_DATA, draw  # noqa: E402

FTYPES = {"q8_0": 7, "q4_0": 2, "q4_k_m": 15, "iq4_nl": 25, "f16": 1}
PER_SEQ_CTX = 512  # each sequence's KV stream when pairs share a decode; longer prompts are left out


def prompts_of(pairs, data: Path, doc_tokens: int = 400) -> list[tuple[str, str]]:
    """(prefix, continuation) of each pair, rendered as the ``pmi`` signal renders them."""
    from qrelkit import prompts
    from qrelkit.data import read_docs, read_topics
    from qrelkit.signals.likelihood import Scorer, _Pair

    topics = {t.qid: t for t in read_topics(data / "topics.tsv")}
    wanted = {d for _, d in pairs}
    docs = {d.docid: d.text for d in read_docs(data / "passages.jsonl") if d.docid in wanted}
    scorer = Scorer(doc_tokens)
    out = []
    for q, d in pairs:
        shown, _ = prompts.truncate(docs[d], doc_tokens)
        inp = _Pair(topics[q], docs[d])
        out.append((scorer.template.render("with_document", document=shown), scorer.continuation(inp)))
    return out


def token_ids(model, prefix: str, continuation: str) -> tuple[list[int], list[int]]:
    """Tokenised as :meth:`qrelkit.llm.local._Loaded.score` does."""
    llm = model.llm
    p = llm.tokenize(prefix.encode("utf-8"), add_bos=True, special=True)
    c = llm.tokenize(continuation.encode("utf-8"), add_bos=False, special=True)
    return p, c


def evaluated(seqs: list[list[int]]) -> int:
    """Tokens a single KV cache evaluates for ``seqs`` in this order (see the module's ``share``)."""
    prev: list[int] = []
    seen: set[tuple[int, ...]] = set()
    total = 0
    for s in seqs:
        if tuple(s) in seen:
            continue  # the client's cache answers it
        seen.add(tuple(s))
        n = 0
        for a, b in zip(prev, s):
            if a != b:
                break
            n += 1
        total += len(s) - min(n, len(s) - 1)
        prev = s
    return total


def share(model, pairs, data: Path) -> dict:
    from qrelkit.data import read_qrels

    out = {}
    every = [(q.qid, q.docid) for q in read_qrels(data / "qrels.txt")]
    for name, ps in (("drawn", pairs), ("collection", every)):
        seqs = [sum(token_ids(model, *pc), []) for pc in prompts_of(ps, data)]
        lengths = np.array([len(s) for s in seqs])
        given, best = evaluated(seqs), evaluated(sorted(seqs))
        out[name] = {
            "pairs": len(seqs), "mean": float(lengths.mean()), "median": float(np.median(lengths)),
            "p90": float(np.percentile(lengths, 90)), "max": int(lengths.max()),
            "evaluated_given": given, "evaluated_best": best, "saving": 1 - best / given,
            "share_over_128": float(np.clip(lengths - 128, 0, None).sum() / lengths.sum()),
            "share_over_256": float(np.clip(lengths - 256, 0, None).sum() / lengths.sum()),
        }
    return out


class Streams:
    """A second context on the shipped model's weights: ``n`` sequences per decode, one KV stream each."""

    def __init__(self, model, n: int, threads: int):
        lc = model._llama_cpp
        p = lc.llama_context_default_params()
        p.n_ctx = p.n_batch = p.n_ubatch = n * PER_SEQ_CTX
        p.n_seq_max, p.kv_unified = n, False
        p.n_threads = p.n_threads_batch = threads
        p.flash_attn_type = lc.LLAMA_FLASH_ATTN_TYPE_DISABLED  # as the shipped Llama(...) has it
        self.lc, self.n, self.n_vocab = lc, n, model.n_vocab
        self.ctx = lc.llama_init_from_model(model.llm._model.model, p)
        self.batch = lc.llama_batch_init(n * PER_SEQ_CTX, 0, n)

    def close(self) -> None:
        self.lc.llama_batch_free(self.batch)
        self.lc.llama_free(self.ctx)

    def score(self, group: list[tuple[list[int], list[int]]]) -> list[float]:
        """log P(continuation | prefix) of each (prefix, continuation), all in one decode."""
        from qrelkit.llm.local import log_softmax

        lc, b = self.lc, self.batch
        lc.llama_memory_clear(lc.llama_get_memory(self.ctx), True)
        k, rows = 0, []
        for s, (p, c) in enumerate(group):
            first = len(p) - 1
            for i, tok in enumerate((p + c)[:-1]):
                b.token[k], b.pos[k], b.n_seq_id[k], b.logits[k] = tok, i, 1, i >= first
                b.seq_id[k][0] = s
                k += 1
            rows.append((k - len(c), c))
        b.n_tokens = k
        if lc.llama_decode(self.ctx, b) != 0:
            raise RuntimeError("llama_decode failed")
        out = []
        for start, c in rows:
            lp = 0.0
            for j, tok in enumerate(c):
                ptr = lc.llama_get_logits_ith(self.ctx, start + j)
                lp += float(log_softmax(np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)).copy())[tok])
            out.append(lp)
        return out


def timed(fn) -> tuple[list[float], float, float]:
    w, c = time.perf_counter(), time.process_time()
    vals = fn()
    return vals, time.perf_counter() - w, time.process_time() - c


def abba(variants: dict, rounds: int, n_tokens: int, ref: np.ndarray) -> dict:
    """Each variant's mean CPU/wall ms per token over the rounds, and its values against ``ref``."""
    runs: dict[str, list] = {k: [] for k in variants}
    names = list(variants)
    for r in range(rounds):
        for k in (names if r % 2 == 0 else names[::-1]):
            runs[k].append(timed(variants[k]))
            print(f"  round {r + 1} {k}: {runs[k][-1][2] / n_tokens * 1e3:.2f} ms CPU/token, "
                  f"load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    out = {}
    for k, rs in runs.items():
        diffs = np.array([np.abs(np.array(v) - ref) for v, _, _ in rs])
        first = np.array(rs[0][0])
        out[k] = {"cpu_ms_per_token": float(np.mean([c for _, _, c in rs]) / n_tokens * 1e3),
                  "wall_ms_per_token": float(np.mean([w for _, w, _ in rs]) / n_tokens * 1e3),
                  "max_abs_diff": float(diffs.max()), "mean_abs_diff": float(diffs.mean()),
                  "correlation": float(np.corrcoef(first, ref)[0, 1]) if len(ref) > 1 else 1.0}
    return out


def batch(model, texts, sizes, rounds: int, threads: int) -> dict:
    toks = [token_ids(model, p, c) for p, c in texts]
    keep = [i for i, (p, c) in enumerate(toks) if len(p) + len(c) <= PER_SEQ_CTX]
    left_out = len(toks) - len(keep)
    toks, texts = [toks[i] for i in keep], [texts[i] for i in keep]
    ref = np.array([model.score(p, c).logprob for p, c in texts])
    n_tokens = sum(len(p) + len(c) - 1 for p, c in toks)
    variants = {"1 (shipped)": lambda: [model.score(p, c).logprob for p, c in texts]}
    streams = {n: Streams(model, n, threads) for n in sizes if n > 1}
    for n, st in streams.items():
        variants[f"{n} per decode"] = lambda st=st, n=n: sum(
            (st.score(toks[i:i + n]) for i in range(0, len(toks), n)), [])
    try:
        out = abba(variants, rounds, n_tokens, ref)
    finally:
        for st in streams.values():
            st.close()
    return {"pairs": len(toks), "left_out": left_out, "tokens": n_tokens,
            "variants": out}


def formats(model, texts, names, rounds: int, threads: int) -> dict:
    from qrelkit.llm.local import _Loaded

    lc, src = model._llama_cpp, str(model.path)
    tmp = Path(tempfile.mkdtemp(prefix="qrelkit-formats-"))
    copies = {"q4_1 (shipped)": _Loaded(model.path, threads)}
    for name in names:
        qp = lc.llama_model_quantize_default_params()
        qp.ftype, qp.allow_requantize, qp.nthread = FTYPES[name], True, 1
        out = tmp / f"{name}.gguf"
        if lc.llama_model_quantize(src.encode(), str(out).encode(), qp) != 0:
            raise RuntimeError(f"llama_model_quantize to {name} failed")
        copies[name] = _Loaded(out, threads)
    ref = np.array([model.score(p, c).logprob for p, c in texts])
    n_tokens = sum(len(p) + len(c) - 1 for p, c in (token_ids(model, *t) for t in texts))
    variants = {k: (lambda m=m: [m.score(p, c).logprob for p, c in texts]) for k, m in copies.items()}
    try:
        return {"pairs": len(texts), "tokens": n_tokens, "variants": abba(variants, rounds, n_tokens, ref)}
    finally:
        for m in copies.values():
            m.llm.close()
        shutil.rmtree(tmp, ignore_errors=True)  # the copies are 60-140 MB each


def show(title: str, part: dict) -> None:
    base = next(iter(part["variants"].values()))["cpu_ms_per_token"]
    print(f"{title}: {part['pairs']} pairs, {part['tokens']} tokens")
    print(f"  {'variant':<18}{'CPU ms/token':>14}{'vs first':>10}{'wall ms/token':>15}{'max |diff|':>12}"
          f"{'mean |diff|':>13}{'corr':>8}")
    for k, v in part["variants"].items():
        print(f"  {k:<18}{v['cpu_ms_per_token']:>14.2f}{v['cpu_ms_per_token'] / base:>10.2f}"
              f"{v['wall_ms_per_token']:>15.2f}{v['max_abs_diff']:>12.3g}{v['mean_abs_diff']:>13.3g}"
              f"{v['correlation']:>8.4f}")


def main(argv=None) -> int:
    from qrelkit.data import read_qrels
    from qrelkit.llm.local import _Loaded, default_model_path

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="share,batch,formats")
    ap.add_argument("--calib", type=int, default=20)
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seqs", default="1,4,8")
    ap.add_argument("--formats", default="q8_0,q4_0,iq4_nl,q4_k_m")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    if not (a.data / "qrels.txt").exists():
        print(f"no data at {a.data} (expected topics.tsv, qrels.txt, passages.jsonl)", file=sys.stderr)
        return 2
    labelled, judged = draw(list(read_qrels(a.data / "qrels.txt")), a.calib, a.n, 0)
    pairs = [(q.qid, q.docid) for q in labelled + judged]
    texts = prompts_of(pairs, a.data)
    model = _Loaded(default_model_path(), a.threads)
    parts = a.parts.split(",")
    res: dict = {"threads": a.threads, "rounds": a.rounds}
    print(f"pmi's prompts, {len(pairs)} LLMJudge dev pairs (drawn as embedded_speed.py draws them), "
          f"{a.threads} thread(s), {a.rounds} rounds ABBA")
    if "share" in parts:
        res["share"] = share(model, pairs, a.data)
        for k, v in res["share"].items():
            print(f"share, {k}: {v['pairs']} pairs, tokens per pair mean {v['mean']:.1f}, median {v['median']:.0f}, "
                  f"p90 {v['p90']:.0f}, max {v['max']}; evaluated {v['evaluated_given']} in order, "
                  f"{v['evaluated_best']} in the best order (saves {v['saving']:.1%}); tokens beyond "
                  f"128 per pair {v['share_over_128']:.1%}, beyond 256 {v['share_over_256']:.1%}")
    if "batch" in parts:
        res["batch"] = batch(model, texts, [int(s) for s in a.seqs.split(",")], a.rounds, a.threads)
        show("sequences per decode", res["batch"])
    if "formats" in parts:
        res["formats"] = formats(model, texts, [f for f in a.formats.split(",") if f], a.rounds, a.threads)
        show("weights", res["formats"])
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if a.json:
        a.json.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
