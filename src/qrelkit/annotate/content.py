"""What an annotator sees for one case: query, answers, document, debate history.

The debate history comes from another module's provenance JSON, written by a
judge that may change or fail half-way; it is read defensively (anything
missing or malformed means "no history") so that a bad record can never break
the page. Evidence highlighting builds HTML from escaped pieces only, so a
document or a quote can never inject markup. A quote that is the prompt's own
placeholder (``<verbatim quote from the document>``, copied by a weak model)
counts as no quote (:func:`placeholder_quotes`).

Each case also says why it came to people (:func:`why_asked`: the judge's reason,
in words a person reads) and how many votes it needs.
"""
from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Optional

from markupsafe import Markup, escape

from qrelkit.annotate.settings import AnnotateSettings
from qrelkit.judging.guarded import guard_of, why_guarded
from qrelkit.relevance import ERROR, ESCALATE
from qrelkit.types import Provenance

# The graded scale (TREC Deep Learning's definitions) and the binary answer task.
GRADED = (
    (0, "Irrelevant", "The document has nothing to do with the query.", "0"),
    (1, "Related", "On topic, but does not answer the query.", "1"),
    (2, "Highly relevant", "Answers the query, possibly partly or among other material.", "2"),
    (3, "Perfectly relevant", "Dedicated to the query; contains the exact answer.", "3"),
)
ANSWER = (
    (1, "Relevant", "Contains or clearly supports an answer to the query.", "r"),
    (0, "Not relevant", "Does not contain or support an answer.", "n"),
)

MAX_QUOTES = 200
MAX_QUOTE_CHARS = 2000


@dataclass(frozen=True)
class GradeOption:
    grade: int
    name: str
    definition: str
    key: str


@dataclass(frozen=True)
class Quote:
    text: str
    found: Optional[bool]


@dataclass(frozen=True)
class AgentTurn:
    stance: str
    label: Optional[int]
    grade: Optional[int]
    reasoning: str
    evidence: tuple[Quote, ...]
    judge: str = ""  # a vote's member (its spec) or a sample ("sample 2"); '' for a debate agent

    @property
    def css(self) -> str:
        """Which colour the agent's quotes get in the document (a vote's member: by what it said)."""
        if self.judge:
            return {1: "pro", 0: "con"}.get(self.label, "ev")  # type: ignore[arg-type]
        return {"relevant": "pro", "not_relevant": "con"}.get(self.stance, "ev")

    @property
    def started(self) -> str:
        """The position the agent was told to start from ('' for an agent without one)."""
        return self.stance.replace("_", " ")

    @property
    def says(self) -> str:
        """What the agent decides in this turn: "not relevant (grade 1)" (a grade alone: "grade 1",
        as the relevance threshold is the project's, not the page's)."""
        word = {1: "relevant", 0: "not relevant"}.get(self.label) if self.label is not None else None
        if word is None:
            return f"grade {self.grade}" if self.grade is not None else "undecided"
        return f"{word} (grade {self.grade})" if self.grade is not None else word


@dataclass(frozen=True)
class Round:
    number: int
    agents: tuple[AgentTurn, ...]
    rule: str = ""  # a vote: "majority: 2 of 3 must agree"; '' for a debate round

    @property
    def title(self) -> str:
        return f"The vote ({self.rule})" if self.rule else f"Round {self.number}"


@dataclass(frozen=True)
class CaseView:
    qid: str
    docid: str
    kind: str  # what the annotator is told: escalation | people (attention items look like escalations)
    task: str  # answer | graded
    query: str
    title: Optional[str]
    document: str
    answers: tuple[str, ...]
    narrative: Optional[str]
    history: Optional[tuple[Round, ...]]  # None: not an escalation, hidden by setting, or nothing usable
    why: str = ""  # why people are asked (why_asked)
    votes_cast: int = 0  # votes the case has
    votes_needed: int = 0  # votes it needs from distinct annotators
    guarded: bool = False  # the guard, not a judge, sent it: its document addresses the judge
    flagged: str = ""  # the text the guard flagged, marked in the document

    @property
    def votes_line(self) -> str:
        """ "Yours is 1 of 3 votes this case needs" (or, past the number, how many it has)."""
        if not self.votes_needed:
            return ""
        if self.votes_cast < self.votes_needed:
            return f"Yours is {self.votes_cast + 1} of {self.votes_needed} votes this case needs"
        return f"The case has {self.votes_cast} votes of the {self.votes_needed} it needs; yours adds one more"

    @property
    def options(self) -> tuple[GradeOption, ...]:
        return grade_options(self.task)

    @property
    def history_shown(self) -> bool:
        return bool(self.history)

    @property
    def history_kind(self) -> str:
        """``vote`` (the members' verdicts, one round) or ``debate``."""
        return "vote" if any(r.rule for r in self.history or ()) else "debate"

    def document_html(self) -> Markup:
        quotes = [(q.text, a.css) for r in (self.history or ()) for a in r.agents for q in a.evidence]
        return highlight(self.document, quotes + ([(self.flagged, "flagged")] if self.flagged else []))

    def to_api(self) -> dict[str, Any]:
        return {
            "qid": self.qid,
            "docid": self.docid,
            "query": self.query,
            "title": self.title,
            "document": self.document,
            "answers": list(self.answers),
            "narrative": self.narrative,
            "kind": self.kind,
            "history": history_to_json(self.history) if self.history else None,
            "why": self.why,
            "guarded": self.guarded,
            "votes": {"cast": self.votes_cast, "needed": self.votes_needed},
            "task": self.task,
            "grades": [{"grade": o.grade, "name": o.name, "definition": o.definition, "key": o.key}
                       for o in self.options],
        }


def grade_options(task: str) -> tuple[GradeOption, ...]:
    return tuple(GradeOption(*o) for o in (ANSWER if task == "answer" else GRADED))


def valid_grades(task: str) -> frozenset[int]:
    return frozenset(o.grade for o in grade_options(task))


def task_for(answers: Iterable[str], settings: AnnotateSettings) -> str:
    """Topics with answers get the binary answer task unless the project forces one."""
    if settings.task in ("answer", "graded"):
        return settings.task
    return "answer" if tuple(answers) else "graded"


def people_label(grade: int, task: str, settings: AnnotateSettings) -> int:
    return int(grade >= (1 if task == "answer" else settings.threshold))


# ---- debate history ---------------------------------------------------------
def parse_history(provenance: Any) -> tuple[Round, ...]:
    """Rounds of a debate from a provenance JSON string (or dict); () when absent or malformed."""
    try:
        prov = Provenance.parse(provenance).data if isinstance(provenance, (str, bytes)) else provenance
    except (ValueError, TypeError):
        return ()
    hist = prov.get("history") if isinstance(prov, dict) else None
    if not isinstance(hist, list):
        return _vote_round(prov) if isinstance(prov, dict) else ()
    rounds = []
    for i, r in enumerate(hist, 1):
        if not isinstance(r, dict) or not isinstance(r.get("agents"), list):
            continue
        agents = tuple(a for a in (_agent(x) for x in r["agents"]) if a is not None)
        if agents:
            number = r.get("round")
            rounds.append(Round(number if isinstance(number, int) and not isinstance(number, bool) else i, agents))
    return tuple(rounds)


def _vote_round(prov: dict) -> tuple[Round, ...]:
    """A vote's members (``vote.members``) or one judge's samples (``samples``) as one round, each
    voter's verdict and reasoning (:mod:`qrelkit.judges.vote`, :mod:`qrelkit.judges.sampling`)."""
    vote = prov.get("vote")
    if not isinstance(vote, dict):
        return ()
    members, samples = vote.get("members"), prov.get("samples")
    if isinstance(members, list):
        voters = [(m.get("judge"), m, m.get("rationale") or m.get("reason"), m.get("provenance"))
                  for m in members if isinstance(m, dict)]
    elif isinstance(samples, list):
        voters = [(f"sample {x.get('sample')}", x, (x.get("reply") or {}).get("reason")
                   if isinstance(x.get("reply"), dict) else None, None) for x in samples if isinstance(x, dict)]
    else:
        return ()
    agents = tuple(
        AgentTurn(stance="", label=_int_or_none(v.get("label")), grade=_int_or_none(v.get("grade")),
                  reasoning=why if isinstance(why, str) else "", judge=str(name or "judge"),
                  evidence=_evidence(inner.get("evidence")) if isinstance(inner, dict) else ())
        for name, v, why, inner in voters)
    needed, rule = _int_or_none(vote.get("needed")), vote.get("rule")
    if not agents or needed is None or not isinstance(rule, str):
        return ()
    return (Round(1, agents, f"{rule} rule: {needed} of {len(agents)} must agree"),)


def _agent(a: Any) -> Optional[AgentTurn]:
    if not isinstance(a, dict):
        return None
    evidence = _evidence(a.get("evidence"))
    stance = a.get("stance")
    reasoning = a.get("reasoning")
    return AgentTurn(
        stance=stance if isinstance(stance, str) else "",
        label=_int_or_none(a.get("label")),
        grade=_int_or_none(a.get("grade")),
        reasoning=reasoning if isinstance(reasoning, str) else "",
        evidence=evidence,
    )


def _evidence(ev: Any) -> tuple[Quote, ...]:
    """Quotes of a turn's ``evidence`` list (dicts with ``quote``/``found``, or strings); placeholders dropped."""
    out = []
    for q in ev if isinstance(ev, list) else ():
        if isinstance(q, dict) and isinstance(q.get("quote"), str) and not is_placeholder(q["quote"]):
            found = q.get("found")
            out.append(Quote(q["quote"], found if isinstance(found, bool) else None))
        elif isinstance(q, str) and not is_placeholder(q):
            out.append(Quote(q, None))
    return tuple(out)


_EVIDENCE_FORMAT = re.compile(r'"evidence"\s*:\s*\[([^\]]*)\]')


@functools.lru_cache(maxsize=1)
def placeholder_quotes() -> frozenset[str]:
    """The quotes the prompt templates show as the form of an answer (``"evidence":
    ["<verbatim quote from the document>", ...]``), normalised; read from the templates
    themselves so that a reworded prompt is covered too. A model that copies one quoted nothing."""
    from qrelkit import prompts
    from qrelkit.judges.evidence import normalise

    found = {"...", "…"}
    for name in prompts.available():
        for text in prompts.load(name).sections.values():
            for items in _EVIDENCE_FORMAT.findall(text):
                found.update(re.findall(r'"([^"]*)"', items))
    return frozenset(normalise(q).strip(" \"'") for q in found)


def is_placeholder(quote: str) -> bool:
    """An empty quote, or one of the prompts' placeholders (:func:`placeholder_quotes`)."""
    from qrelkit.judges.evidence import normalise

    text = normalise(quote).strip(" \"'“”")
    return not text or text in placeholder_quotes()


def _int_or_none(v: Any) -> Optional[int]:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def history_to_json(rounds: tuple[Round, ...]) -> list[dict]:
    return [
        {
            "round": r.number,
            "agents": [
                {
                    "stance": a.stance, "label": a.label, "grade": a.grade, "reasoning": a.reasoning,
                    "evidence": [{"quote": q.text, "found": q.found} for q in a.evidence],
                    **({"judge": a.judge} if a.judge else {}),
                }
                for a in r.agents
            ],
            **({"rule": r.rule} if r.rule else {}),
        }
        for r in rounds
    ]


BY_DESIGN = "People judge this case by design: it is in the people's share of the pool."
NOT_SETTLED = "The AI judge could not settle this case, so people decide."  # when the debate is not shown


def why_asked(provenance: Any, history: tuple[Round, ...]) -> str:
    """Why people are asked about an escalated case, from the escalating judgment's provenance:
    the assessors' disagreement after the debate's last round, an uncertain judge, a failed call."""
    try:
        prov = Provenance.parse(provenance).data if isinstance(provenance, (str, bytes)) else (provenance or {})
    except (ValueError, TypeError):
        prov = {}
    status, reason = prov.get("status"), str(prov.get("reason") or "")
    guarded = why_guarded(prov)
    if guarded:
        return guarded
    if history and history[-1].rule and status != ERROR:
        return _vote_split(history[-1])
    if history and status != ERROR:
        n = len(history[-1].agents)
        who = "two" if n == 2 else str(n)
        return (f"The {who} AI assessors still disagreed after round {history[-1].number}, "
                "so the case needs people to decide.")
    if status == ERROR:  # the reason is a call's error text (a server's message, its file paths): not shown
        return "The AI judge could not decide (its answers could not be used), so people decide."
    return f"The AI judge was not sure enough{f' ({reason})' if reason else ''}, so people decide."


def _vote_split(vote: Round) -> str:
    """ "The 3 AI judges split (2 said relevant, 1 said not relevant; majority rule: 2 of 3 must
    agree), so people decide." """
    said = Counter(a.label for a in vote.agents)
    parts = [f"{said[label]} said {word}" for label, word in ((1, "relevant"), (0, "not relevant"), (None, "nothing"))
             if said[label]]
    sampled = vote.agents[0].judge.startswith("sample ")
    who = f"The AI judge's {len(vote.agents)} samples" if sampled else f"The {len(vote.agents)} AI judges"
    return f"{who} split ({', '.join(parts)}; {vote.rule}), so people decide."


def escalation_provenance(store, qid: str, docid: str) -> Optional[str]:
    """The provenance of the judgment that sent the case to people (a debate first)."""
    provs = store.escalation_provenances(qid, docid)
    return provs[0] if provs else None


def escalation_history(store, qid: str, docid: str) -> tuple[Round, ...]:
    """The debate of the escalating judgment; a debate method is preferred when several escalated."""
    for prov in store.escalation_provenances(qid, docid):
        rounds = parse_history(prov)
        if rounds:
            return rounds
    return ()


def load_case(store, settings: AnnotateSettings, qid: str, docid: str, kind: str,
              user_id: Optional[int] = None) -> Optional[CaseView]:
    """Everything needed to show one task; None when its topic or doc has vanished."""
    topic = _topic(store, qid)
    doc = store.doc(docid)
    if topic is None or doc is None:
        return None
    text, answers, narrative = topic
    history: Optional[tuple[Round, ...]] = None
    shown = settings.shows_history(qid, docid, user_id)
    if kind == "escalation" and shown:
        history = escalation_history(store, qid, docid) or None
    elif kind == "attention" and shown:  # a check looks like an escalation (qrelkit.annotate.attention)
        from qrelkit.annotate.attention import attention_history

        history = attention_history(store, qid, docid)
    shown_kind = "escalation" if kind in ("escalation", "attention") else "people"
    prov = _parsed(escalation_provenance(store, qid, docid)) if kind == "escalation" else {}
    guarded, flagged = why_guarded(prov), str((guard_of(prov) or {}).get("span") or "")
    if shown_kind == "people":
        why = BY_DESIGN
    elif guarded:  # said even where the debate is not shown: it is no judge's reasoning
        why = guarded
    elif not shown:
        why = NOT_SETTLED
    elif kind == "escalation":
        why = why_asked(escalation_provenance(store, qid, docid), history or ())
    else:  # an attention check reads like the escalation it imitates
        why = why_asked({"status": ESCALATE}, history or ())
    return CaseView(
        qid=qid, docid=docid, kind=shown_kind,
        task=task_for(answers, settings), query=text, title=doc.title, document=doc.text,
        answers=answers, narrative=narrative or None, history=history,
        why=why, votes_cast=len(store.votes_for(qid, docid)), votes_needed=settings.votes,
        guarded=guarded is not None, flagged=flagged,
    )


def _parsed(provenance: Optional[str]) -> dict:
    try:
        return dict(Provenance.parse(provenance).data) if provenance else {}
    except (ValueError, TypeError):
        return {}


def _topic(store, qid: str) -> Optional[tuple[str, tuple[str, ...], Optional[str]]]:
    topic = store.topic(qid)
    if topic is None:
        return None
    return topic.text, tuple(str(a) for a in topic.answers), topic.narrative


def task_of(store, settings: AnnotateSettings, qid: str) -> str:
    t = _topic(store, qid)
    return task_for(t[1] if t else (), settings)


# ---- highlighting -------------------------------------------------------------
def highlight(text: str, quotes: Iterable[tuple[str, str]]) -> Markup:
    """The document as HTML with each quote's occurrences wrapped in <mark>.

    Quotes are matched on the raw text (case-insensitive, any run of
    whitespace matching any other, as models re-flow quotes), then every
    piece of the document is escaped on its own and only our literal <mark>
    tags stay raw. Matching the raw text rather than the escaped one keeps a
    mark from ever splitting an HTML entity such as ``&amp;``.
    """
    flags = bytearray(len(text))
    bits = {"pro": 1, "con": 2, "flagged": 8}
    for n, (quote, css) in enumerate(quotes):
        if n >= MAX_QUOTES:
            break
        words = quote[:MAX_QUOTE_CHARS].split()
        if not words or sum(len(w) for w in words) < 3:
            continue
        pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
        bit = bits.get(css, 4)
        for m in pattern.finditer(text):
            for i in range(m.start(), m.end()):
                flags[i] |= bit
    out: list[str] = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and flags[j] == flags[i]:
            j += 1
        piece = str(escape(text[i:j]))
        f = flags[i]
        if f:
            css = "pro" if f == 1 else "con" if f == 2 else "ev" if f == 4 else "flagged" if f == 8 else "both"
            out.append(f'<mark class="{css}">{piece}</mark>')
        else:
            out.append(piece)
        i = j
    return Markup("".join(out))
