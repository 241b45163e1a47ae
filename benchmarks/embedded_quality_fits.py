"""The candidate features and fits that ``benchmarks/embedded_quality.py`` measures (see its docstring).

Each variant maps one re-draw (``{"x": {signal: values}, "qids", "docids", "g", "n", "labels",
"vec", "people"}``: the labelled rows first) to the judged rows' probabilities. ``default`` is what
``learned`` computes (query signals z-scored within the topic over every pair at hand,
``feedback``'s similarities z-scored against the labels' own values with moments shrunk by 40
pseudo-pairs, a class-balanced logistic regression with C = 0.1); every other variant changes one
thing (or, marked "second round", two), and none of them is part of the judge but the ``prior``
and ``window`` signals, which are registered signals of :mod:`qrelkit.signals`.
"""
from __future__ import annotations

import numpy as np
from embedded_variants import standardise  # the same standardisation as the earlier variants

BASE = ("pmi", "ql", "dense", "lexical")
UNSTUFFED = tuple(f"{n}_u" for n in BASE)  # the same four read without stuffed runs (qrelkit.signals.unstuffed)

# ---- features and fits ---------------------------------------------------------------------------
def columns(name: str) -> tuple[str, ...]:
    from qrelkit import signals

    sig = signals.build(name)
    return tuple(f"{name}.{f}" if len(sig.FEATURES) > 1 else name for f in sig.FEATURES)


def features(s: dict, extra=(), drop=(), k0=40) -> tuple[np.ndarray, tuple]:
    """The default judge's features of a re-draw: the query signals z-scored within the topic over
    every pair at hand, ``feedback``'s similarities z-scored against the labels' own values with
    moments shrunk by ``k0`` pseudo-pairs (what ``learned`` computes)."""
    from qrelkit import signals
    from qrelkit.signals import combine
    from qrelkit.signals.feedback import Feedback

    names = [n for n in BASE + ("pool",) if n in s["x"] and n not in drop] + ["feedback"] + list(extra)
    x = np.hstack([s["x"][n] for n in names])
    cols = sum((columns(n) for n in names), ())
    x = combine.per_topic_z(x, s["qids"], only=[signals.build(c.split(".")[0]).QUERY for c in cols])
    only = [f in Feedback.SIMILARITIES for f in Feedback.FEATURES]
    moments, fallback = combine.shrunk_moments(s["labels"][1], s["labels"][0], k0, only)
    at = cols.index("feedback.has_relevant")
    x[:, at:at + len(only)] = combine.per_topic_z(x[:, at:at + len(only)], s["qids"], moments, fallback=fallback)
    return x, cols


def fit_lr(x, y, cols, c=0.1):
    from qrelkit.signals import combine

    model = combine.fit(x, y, cols, per_topic="query", c=c)
    return model.probabilities


def _y(s) -> np.ndarray:
    return (s["g"] >= 2).astype(int)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def prior_strength(people) -> float:
    """Beta-binomial prior weight (pseudo-pairs) of the topics' shares of relevant labels, by the
    method of moments: the between-topic variance of the true shares is the observed variance of
    the topics' shares less what sampling alone puts there; clipped to [1, 200]."""
    by: dict = {}
    for q, _, y in people:
        by.setdefault(q, []).append(y)
    n = np.array([len(v) for v in by.values()], float)
    r = np.array([sum(v) for v in by.values()], float)
    m = r.sum() / n.sum()
    p = r / n
    tau2 = np.average((p - m) ** 2, weights=n) - m * (1 - m) * np.mean(1 / n)
    return float(np.clip(m * (1 - m) / tau2 - 1, 1, 200)) if tau2 > 0 else 200.0


def topic_prior(s, strength=None) -> np.ndarray:
    """Per row: the log-odds of its topic's share of relevant people's labels, shrunk toward all
    topics' with ``strength`` pseudo-pairs (beta-binomial), the row's own label left out."""
    people = s["people"]
    m = np.mean([y for *_, y in people])
    k = prior_strength(people) if strength is None else strength
    r: dict = {}
    n: dict = {}
    own = {(q, d): y for q, d, y in people}
    for q, _, y in people:
        r[q] = r.get(q, 0) + y
        n[q] = n.get(q, 0) + 1
    out = []
    for q, d in zip(s["qids"], s["docids"]):
        y = own.get((q, d))
        rr, nn = r.get(q, 0) - (y or 0), n.get(q, 0) - (y is not None)
        out.append((rr + k * m) / (nn + k))
    return _logit(np.array(out))[:, None]


def stage1(x, y, cols, n, folds=5, seed=0) -> np.ndarray:
    """Logits of the default fit for every row: labelled rows cross-fitted (their own label never
    enters their own value), the others from the fit on every labelled row."""
    from sklearn.model_selection import StratifiedKFold

    out = np.zeros(len(x))
    out[n:] = _logit(fit_lr(x[:n], y, cols)(x[n:]))
    for tr, te in StratifiedKFold(folds, shuffle=True, random_state=seed).split(x[:n], y):
        out[te] = _logit(fit_lr(x[tr], y[tr], cols)(x[te]))
    return out


def neighbours(s, values: np.ndarray, k=5) -> np.ndarray:
    """Per row: the mean of ``values`` over its ``k`` most similar (MiniLM cosine) other rows of its topic."""
    q = np.asarray(s["qids"])
    v = np.array([s["vec"][d] for d in s["docids"]])
    out = np.zeros(len(q))
    for t in np.unique(q):
        rows = np.flatnonzero(q == t)
        sim = v[rows] @ v[rows].T
        np.fill_diagonal(sim, -np.inf)
        kk = min(k, len(rows) - 1)
        if kk < 1:
            continue
        top = np.argsort(-sim, axis=1)[:, :kk]
        out[rows] = values[rows][top].mean(axis=1)
    return out[:, None]


def propagation(s, alpha=0.8, k=10) -> np.ndarray:
    """Per row: label propagation (Zhou et al. 2004) over its topic's k-nearest-neighbour graph
    (MiniLM cosine) of every pair at hand, the labelled ones at +1 (relevant) or -1, the row's own
    label left out: with M = (1 - alpha)(I - alpha S)^-1, F = M Y, a labelled row's value is
    F_i - M_ii Y_i."""
    q = np.asarray(s["qids"])
    v = np.array([s["vec"][d] for d in s["docids"]])
    ylab = np.zeros(len(q))
    ylab[: s["n"]] = 2 * _y(s)[: s["n"]] - 1
    out = np.zeros(len(q))
    for t in np.unique(q):
        rows = np.flatnonzero(q == t)
        if len(rows) < 3:
            continue
        sim = np.clip(v[rows] @ v[rows].T, 0, None)
        np.fill_diagonal(sim, 0)
        kk = min(k, len(rows) - 1)
        keep = np.zeros_like(sim, bool)
        np.put_along_axis(keep, np.argsort(-sim, axis=1)[:, :kk], True, axis=1)
        w = np.where(keep | keep.T, sim, 0.0)
        d = w.sum(1)
        d = np.where(d > 0, d, 1.0)
        S = w / np.sqrt(np.outer(d, d))
        M = (1 - alpha) * np.linalg.inv(np.eye(len(rows)) - alpha * S)
        Y = ylab[rows]
        out[rows] = M @ Y - np.diag(M) * Y
    return out[:, None]


# ---- variants: each gives the judged rows' probabilities from a re-draw -------------------------------
def v_default(extra=(), drop=(), c=0.1, k0=40):
    def fn(s):
        x, cols = features(s, extra, drop, k0)
        n = s["n"]
        return fit_lr(x[:n], _y(s)[:n], cols, c)(x[n:])
    return fn


def v_prior(extra=(), strength=None):
    def fn(s):
        x, cols = features(s, extra)
        x, cols = np.hstack([x, topic_prior(s, strength)]), cols + ("topic_prior",)
        n = s["n"]
        return fit_lr(x[:n], _y(s)[:n], cols)(x[n:])
    return fn


def v_knn(extra=(), k=5, prior=False):
    def fn(s):
        x, cols = features(s, extra)
        if prior:
            x, cols = np.hstack([x, topic_prior(s)]), cols + ("topic_prior",)
        n, y = s["n"], _y(s)
        z = stage1(x, y[:n], cols, n)
        x, cols = np.hstack([x, neighbours(s, z, k)]), cols + ("knn",)
        return fit_lr(x[:n], y[:n], cols)(x[n:])
    return fn


def v_interactions(extra=()):
    """The default columns plus each query column times ``feedback.has_relevant``: the query signals
    may weigh differently where the topic has a known relevant document and where it has none."""
    def fn(s):
        from qrelkit import signals

        x, cols = features(s, extra)
        at = cols.index("feedback.has_relevant")
        q = [i for i, c in enumerate(cols) if signals.build(c.split(".")[0]).QUERY]
        x = np.hstack([x, x[:, q] * x[:, [at]]])
        cols = cols + tuple(f"{cols[i]}*has_relevant" for i in q)
        n = s["n"]
        return fit_lr(x[:n], _y(s)[:n], cols)(x[n:])
    return fn


def v_raw_and_z(extra=()):
    """The default columns plus the query signals' raw values (their z-scores within the topic drop
    what differs between topics, which says something about how many documents are relevant)."""
    def fn(s):
        from qrelkit import signals

        x, cols = features(s, extra)
        names = [n for n in BASE + tuple(extra) if n in s["x"] and signals.build(n).QUERY and n != "ql"]
        x = np.hstack([x] + [s["x"][n] for n in names])
        cols = cols + sum((tuple(f"raw.{c}" for c in columns(n)) for n in names), ())
        n = s["n"]
        return fit_lr(x[:n], _y(s)[:n], cols)(x[n:])
    return fn


def v_topic_em(extra=(), k0=20):
    """The default fit's probabilities moved per topic: each topic's share of relevant pairs among
    its pairs at hand estimated by EM from the probabilities (Saerens et al. 2002; the labelled
    pairs counted at their labels), shrunk toward all topics' with ``k0`` pseudo-pairs; a pair is
    relevant when its posterior odds under its topic's share beat the odds of the share over all
    topics (the decision that maximises balanced accuracy pooled over topics)."""
    def fn(s):
        from qrelkit.signals import combine

        x, cols = features(s, extra)
        n, y = s["n"], _y(s)
        p = fit_lr(x[:n], y[:n], cols)(x[n:])
        q = np.asarray(s["qids"])
        every = combine.case_prior(p)
        lab = y[:n]
        out = _logit(p) - _logit(np.array([every]))
        for t in np.unique(q):
            rows, lrows = np.flatnonzero(q[n:] == t), np.flatnonzero(q[:n] == t)
            pt = combine.case_prior(p[rows]) if len(rows) else every
            m = len(rows) + len(lrows)
            share = (len(rows) * pt + lab[lrows].sum() + k0 * every) / (m + k0)
            out[rows] += _logit(np.array([share]))
        return 1 / (1 + np.exp(-out))
    return fn


def v_propagation(extra=()):
    def fn(s):
        x, cols = features(s, extra)
        x, cols = np.hstack([x, propagation(s)]), cols + ("propagation",)
        n = s["n"]
        return fit_lr(x[:n], _y(s)[:n], cols)(x[n:])
    return fn


def v_gbm(extra=(), blend=False):
    def fn(s):
        from sklearn.ensemble import HistGradientBoostingClassifier

        x, cols = features(s, extra)
        n, y = s["n"], _y(s)
        m = HistGradientBoostingClassifier(max_depth=2, max_iter=100, learning_rate=0.05, min_samples_leaf=15,
                                           l2_regularization=1.0, class_weight="balanced", random_state=0)
        p = m.fit(np.nan_to_num(x[:n]), y[:n]).predict_proba(np.nan_to_num(x[n:]))[:, 1]
        return (p + fit_lr(x[:n], y[:n], cols)(x[n:])) / 2 if blend else p
    return fn


def topic_columns(s, scale: float) -> tuple[np.ndarray, tuple]:
    """One indicator column per topic with labelled pairs, times ``scale`` (a random intercept per
    topic: its penalty, relative to the standardised features', is 1 / scale**2)."""
    q = np.asarray(s["qids"])
    topics = sorted(set(q[: s["n"]]))
    return np.array([[scale * (t == u) for u in topics] for t in q], float), tuple(f"topic.{t}" for t in topics)


def fit_raw(z, y, c=0.1, w=None):
    """Class-balanced logistic regression on columns taken as they are (not standardised)."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit(z, y, sample_weight=w)


def v_intercepts(scale=None, extra=()):
    """The default fit plus a random intercept per topic; ``scale`` None: chosen among 0.25, 0.5,
    1, 2 by 5-fold cross-validation (log-loss) on the labelled pairs."""
    def fn(s):
        from sklearn.model_selection import StratifiedKFold, cross_val_score

        x, _ = features(s, extra)
        n, y = s["n"], _y(s)
        zl, zc = standardise(x[:n], x[n:])
        pick = scale
        if pick is None:
            cv = StratifiedKFold(5, shuffle=True, random_state=0)
            score = {}
            for a in (0.25, 0.5, 1.0, 2.0):
                t, _ = topic_columns(s, a)
                score[a] = cross_val_score(fit_raw_model(), np.hstack([zl, t[:n]]), y[:n], cv=cv,
                                           scoring="neg_log_loss").mean()
            pick = max(score, key=score.get)
        t, _ = topic_columns(s, pick)
        return fit_raw(np.hstack([zl, t[:n]]), y[:n]).predict_proba(np.hstack([zc, t[n:]]))[:, 1]
    return fn


def fit_raw_model(c=0.1):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, class_weight="balanced", max_iter=2000)


VARIANTS = {  # name: (probabilities of the judged rows, the extra signals it needs)
    "default": (v_default(), ()),
    "+window": (v_default(("window",)), ("window",)),
    "C=0.05": (v_default(c=0.05), ()),
    "topic prior (EB)": (v_prior(), ()),
    "+prior": (v_default(("prior",)), ("prior",)),
    "+prior+window": (v_default(("prior", "window")), ("prior", "window")),
    "+prior, C=0.05": (v_default(("prior",), c=0.05), ("prior",)),
    "+prior, C=0.03": (v_default(("prior",), c=0.03), ("prior",)),
    "topic prior, +window": (v_prior(("window",)), ("window",)),
    "knn k=5": (v_knn(), ()),
    "knn k=5, topic prior": (v_knn(prior=True), ()),
    "topic intercepts a=0.5": (v_intercepts(0.5), ()),
    "topic intercepts a=1": (v_intercepts(1.0), ()),
    "topic intercepts a=cv": (v_intercepts(), ()),
    "label propagation": (v_propagation(), ()),
    "C=0.03": (v_default(c=0.03), ()),
    "topic share by EM, k0=20": (v_topic_em(), ()),
    "query signals raw and z": (v_raw_and_z(), ()),
    "interactions with has_relevant": (v_interactions(), ()),
    "gbm": (v_gbm(), ()),
    "gbm+lr": (v_gbm(blend=True), ()),
    # the `_u` signals in place of the four (issue 44), alone and with `+prior, C=0.03` (issue 46)
    "_u": (v_default(UNSTUFFED, drop=BASE), UNSTUFFED),
    "_u, +prior, C=0.03": (v_default(UNSTUFFED + ("prior",), drop=BASE, c=0.03), UNSTUFFED + ("prior",)),
}
