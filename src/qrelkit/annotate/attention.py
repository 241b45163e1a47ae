"""Attention checks that look like escalations (the DREAM paper's crowdsourcing setup).

A check is a case whose label is known (from the original qrels); it is built to resemble a real
task: the same "escalated" badge and the same two-column layout with a debate history of two
conflicting arguments. People must not be able to tell checks from escalations, or a check only
measures attention to checks.

Where the history comes from, best first:
1. a debate run on the known-label pair itself (``qrelkit judge`` on it left one in provenance):
   its last round, when its two agents conflict;
2. the paper's construction: the last round of a debate on an *unrelated* item (another topic),
   its two conflicting arguments shown without their quotes (which belong to another document);
   the donor is chosen by a hash of the pair, so a reload shows the same history;
3. with no debate anywhere in the workspace, two fixed conflicting arguments.

Which known labels are used is :attr:`AnnotateSettings.attention_labels` (``relevant`` by
default, as in the paper: checks "must be labelled relevant"; ``both`` also uses non-relevant
ones); the pass rule is ``min_pass_rate``/``min_checks`` (default: pass all).
"""
from __future__ import annotations

import hashlib
from typing import Optional

from qrelkit.annotate.content import AgentTurn, Round, parse_history
from qrelkit.relevance import ESCALATE

FALLBACK = (
    AgentTurn(stance="relevant", label=1, grade=None, evidence=(),
              reasoning="The passage addresses the question and states the information an answer needs."),
    AgentTurn(stance="irrelevant", label=0, grade=None, evidence=(),
              reasoning="The passage is on the subject, but it does not actually give what the question asks for."),
)


def _conflicting_last_round(rounds: tuple[Round, ...]) -> Optional[Round]:
    if not rounds:
        return None
    last = rounds[-1]
    labels = {a.label for a in last.agents}
    return last if len(last.agents) >= 2 and len(labels) >= 2 else None


def _own(store, qid: str, docid: str) -> Optional[Round]:
    for prov in store.escalation_provenances(qid, docid):
        r = _conflicting_last_round(parse_history(prov))
        if r is not None:
            return r
    return None


def _borrowed(store, qid: str, docid: str) -> Optional[Round]:
    donors = []
    for j in store.judgments(status=ESCALATE):
        if j.qid == qid:
            continue  # arguments from unrelated items only
        r = _conflicting_last_round(parse_history(j.provenance))
        if r is not None:
            donors.append(r)
    if not donors:
        return None
    h = int.from_bytes(hashlib.sha256(f"{qid}\x00{docid}".encode()).digest()[:8], "big")
    r = donors[h % len(donors)]
    pair = [next(a for a in r.agents if a.label == lab) for lab in sorted({a.label for a in r.agents}, reverse=True)]
    return Round(1, tuple(AgentTurn(a.stance, a.label, a.grade, a.reasoning, ()) for a in pair[:2]))


def attention_history(store, qid: str, docid: str) -> tuple[Round, ...]:
    """A two-argument history for a check on (qid, docid); see the module docstring."""
    own = _own(store, qid, docid)
    if own is not None:
        return (Round(1, own.agents, own.rule),)  # a vote stays a vote
    borrowed = _borrowed(store, qid, docid)
    return (borrowed,) if borrowed is not None else (Round(1, FALLBACK),)
