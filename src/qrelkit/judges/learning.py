"""People's labels as judges see them: what a learning judge may read, what it learnt, and the one
sampling rule (the judge contract's half; reading the labels from a workspace is
:mod:`qrelkit.judging.labels`).

Three kinds of judges read human labels, and they all read them from here:

- learning judges (``learns``: icl, narrative, debate with narratives) get a
  :class:`LearningContext` before the first case and return a :class:`Learned`;
- calibrating judges (``needs_labels``: likelihood with ``threshold=auto``, the
  likelihood prefilter) get a sample of labelled pairs (:func:`labelled_pairs`);
- batch judges (confidence) get every label on their selection plus a sample of
  the others.

Human labels are the original qrels, then people's decided labels (which win),
and — in simulation only — the oracle's answers to escalations.

**One sampling rule** (:func:`sample_labels`): a seeded sample of at most ``n``
labels, sorted by pair, whose class shares follow what the labels are used to
estimate.

- A *probability* (confidence's calibrator) takes its base rate from the labels
  it is fitted on: equal shares of each class would push it towards 0.5 —
  towards "relevant" on pools where most pairs are not. So it gets a simple
  random sample, which keeps the base rate.
- A *threshold* chosen by balanced accuracy (``likelihood(threshold=auto)``) or
  by the recall of relevant pairs (the likelihood prefilter) does not depend on
  the base rate, and is estimated best with as many labels of each class as
  possible: on a pool where one relevant pair in five is labelled, a simple
  random sample of 60 holds about 12 relevant pairs to place a threshold by.
  So it gets equal shares of the two classes where the labels allow
  (``balanced``).

Both are what qrelkit measured with (the README's numbers): up to 41e3b2f they
were two functions; the rule is now written down once.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Optional, Sequence

from qrelkit.relevance import Task
from qrelkit.types import Doc, Topic, Usage

if TYPE_CHECKING:
    from qrelkit.store import Store

MIN_CALIBRATION = 20  # below this many labels outside the selection, calibration may use the selection's
Pair = tuple[str, str]


@dataclass(frozen=True)
class HumanLabel:
    """One label people gave: an original qrel, a people's decided label, or — in
    simulation only — the oracle's answer to an escalation."""

    qid: str
    docid: str
    grade: int
    label: int  # binary, by the task's threshold
    source: str  # original | people | oracle


@dataclass(frozen=True)
class LearningContext:
    """What a learning judge may read before judging.

    ``store`` is there for documents and the narratives table; judges write
    nothing else to it. Labels of pairs still to be judged are never in ``labels``,
    nor original qrels of the selected pairs (audit mode)."""

    store: "Store"
    task: Task
    topics: Mapping[str, Topic]  # topics of the selected cases
    pending_qids: tuple[str, ...]  # topics with cases still to judge, sorted
    labels: tuple[HumanLabel, ...]  # sorted by (qid, docid)

    def for_topic(self, qid: str) -> tuple[HumanLabel, ...]:
        return tuple(h for h in self.labels if h.qid == qid)

    def doc(self, docid: str) -> Optional[Doc]:
        return self.store.doc(docid)


@dataclass(frozen=True)
class Learned:
    """What learning found (``info``, reported under ``calibration``) and cost (calls the judge
    made before judging; reported apart as ``narrative_calls``/``narrative_cost``)."""

    info: dict = field(default_factory=dict, hash=False)
    usage: Usage = Usage()
    separate_client: bool = False  # the calls went to another client than the assessor's


def sample_labels(items: Sequence[HumanLabel], n: int, seed: int, balanced: bool = False) -> list[HumanLabel]:
    """Up to ``n`` labels, seeded, sorted by pair; the input's order does not matter.

    A simple random sample, or with ``balanced`` equal shares of relevant and
    non-relevant labels (the larger class fills what the smaller cannot); the
    rule and why: see the module docstring."""
    ordered = sorted(items, key=lambda h: (h.qid, h.docid))
    rng = random.Random(seed)
    if not balanced:
        return ordered if len(ordered) <= n else sorted(rng.sample(ordered, n), key=lambda h: (h.qid, h.docid))
    pos = [h for h in ordered if h.label]
    neg = [h for h in ordered if not h.label]
    rng.shuffle(pos)
    rng.shuffle(neg)
    k_pos = min(len(pos), max(n // 2, n - len(neg)))
    k_neg = min(len(neg), n - k_pos)
    return sorted(pos[:k_pos] + neg[:k_neg], key=lambda h: (h.qid, h.docid))
