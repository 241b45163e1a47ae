"""The single-judge baseline: one call, one structured answer.

For the graded task this follows the UMBRELA recipe (a 0–3 scale described
in the prompt); for the answer task the LLMJudge-style question "does the
document support one of these answers?". The reply is ``{"reason": ...,
"grade"|"label": ...}`` — the reason first, so the model states its grounds
before it commits.

The topic's narrative: ``zero-shot`` is a true zero-shot, task instructions
and the query only (``narrative=none``, the RCL paper's zero-shot baseline);
``zero-shot(narrative=topic)`` adds the topic's TREC narrative/description
when it has one — the "TREC narrative" baseline, and what ``zero-shot`` meant
before this parameter existed. Stored ids keep their meaning: the old id
``zero-shot(doc_tokens=400)`` *is* ``zero-shot(narrative=topic)`` (its
canonical id leaves ``narrative=topic`` out), while the new default is written
out, ``zero-shot(doc_tokens=400,narrative=none)``, so the two are never mixed up.
Resuming an old workspace: like every changed default (``Param.legacy``,
:meth:`qrelkit.judges.spec.JudgeSpec.as_before`), a bare ``zero-shot`` in a
workspace that holds judgments under the old id resumes them (no model call,
no mixing of two methods); ``zero-shot(narrative=none)`` written out judges anew.

Provenance keys: ``templates`` (name -> version), ``truncation``, ``reply``
(the parsed JSON object, or the error), and for ``narrative=none``
``query`` = ``"text only (zero-shot, no narrative)"``. The TREC-narrative
baseline's provenance is left exactly as its old judgments stored it (so they
re-derive identically); its id names it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from qrelkit import prompts
from qrelkit.judges import Param, choice, integer, register, sampling
from qrelkit.judges import output as output_mod
from qrelkit.judges.base import (
    AUTO,
    Judge,
    JudgeInput,
    Meter,
    Verdict,
    error_verdict,
    parsed_decision,
    template_versions,
)
from qrelkit.llm.base import CHAT, JSON_SCHEMA

if TYPE_CHECKING:
    from qrelkit.llm.client import Client

# Bounded so that a rambling model cannot run out of tokens inside the JSON
# (grammar-constrained backends enforce maxLength; validators ignore it).
REASON = ("reason", {"type": "string", "maxLength": 200})
MAX_TOKENS = 240  # > maxLength of the reason: the JSON always closes, even at 1 char per token
NO_NARRATIVE, TOPIC = "none", "topic"
QUERY_ONLY = {"query": "text only (zero-shot, no narrative)"}


@register
class ZeroShot(Judge):
    NAME = "zero-shot"
    PARAMS = {
        "doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "document token budget"),
        "narrative": Param(NO_NARRATIVE, choice(NO_NARRATIVE, TOPIC),
                           "none: query only (true zero-shot); topic: add the TREC narrative",
                           legacy=TOPIC, absent=TOPIC),
        "output": Param(output_mod.JSON, choice(*output_mod.OUTPUTS),
                        'json: reason and decision; label: exactly "Relevant" or "Not Relevant"', omit_default=True),
        **sampling.PARAMS,
    }
    requires = frozenset({CHAT, JSON_SCHEMA})
    STORED_FORM = frozenset({"doc_tokens"})  # what ids stored before `narrative` existed wrote out

    def __init__(self, spec: Any):
        self.spec = str(spec)
        self.doc_tokens = spec["doc_tokens"]
        self.narrative = spec["narrative"] == TOPIC
        self.output = spec["output"]
        self.sampling = sampling.Sampling.of(spec)

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        return ("zeroshot", f"task_{task_name}")

    async def __call__(self, inp: JudgeInput, client: Client) -> Verdict:
        versions = template_versions(*self.templates_for(inp.task.name))
        extra = {} if self.narrative else QUERY_ONLY
        return await self.sampling.run(
            lambda temperature, sample: judge_with(
                inp, client, StructuredCall("zeroshot", self.doc_tokens, versions, extra, self.narrative, self.output),
                temperature, sample),
            inp.task,
        )


@dataclass(frozen=True)
class StructuredCall:
    """What differs between the one call of zero-shot, icl and narrative: the template and its extra
    ``sections``, the document budget, the template versions and what provenance adds."""

    template: str
    doc_tokens: int
    versions: Mapping[str, str]
    extra_prov: Mapping[str, Any] = field(default_factory=dict)
    narrative: bool = True
    output: str = output_mod.JSON
    sections: Mapping[str, str] = field(default_factory=dict)


async def judge_with(inp: JudgeInput, client: Client, call: StructuredCall, temperature: float = 0.0,
                     sample: int = 0) -> Verdict:
    """The one structured-answer call of zero-shot, icl and narrative: they differ only in the
    template and its extra sections, so parsing, errors and provenance stay the same.
    ``output=label`` asks for "Relevant"/"Not Relevant" instead (:mod:`qrelkit.judges.output`).
    ``sample`` > 0 numbers one of several samples: it joins the cache key, or every sample would
    replay the first one's cached answer."""
    template, doc_tokens, versions, extra_prov = call.template, call.doc_tokens, dict(call.versions), call.extra_prov
    narrative, output, sections = call.narrative, call.output, call.sections
    meter = Meter()
    block, tr = prompts.document_block(inp.text, doc_tokens)
    task_t = inp.task.template()
    label = output == output_mod.LABEL
    if label:
        versions = {**versions, "label_output": prompts.load("label_output").version}
    messages = prompts.load(template).messages(
        criteria=task_t.render("criteria"),
        query_block=inp.query_block(narrative),
        document=block,
        format=output_mod.label_format(inp.task) if label else task_t.render("zeroshot_format"),
        **sections,
    )
    prov: dict = {"templates": versions, "truncation": tr.as_dict(), **extra_prov}
    c = meter.add(
        await client.complete(
            messages,
            schema=output_mod.SCHEMA if label else inp.task.decision_schema(REASON),
            max_tokens=output_mod.MAX_TOKENS if label else MAX_TOKENS,
            temperature=temperature,
            version="|".join(versions.values()) + (f"|sample={sample}" if sample else ""),
        )
    )
    return _label_verdict(inp, c, meter, prov) if label else _json_verdict(inp, c, meter, prov)


def _json_verdict(inp: JudgeInput, c: Any, meter: Meter, prov: dict) -> Verdict:
    value, problem = parsed_decision(c, inp.task)
    if value is None:
        prov["reply"] = {"error": problem, "text": (c.text or "")[:500]}
        return error_verdict(problem or "no decision", meter, prov, round=1)
    prov["reply"] = c.parsed
    label = inp.task.binary(value)
    return Verdict(
        status=AUTO,
        label=label,
        grade=value if inp.task.graded else label,
        rationale=str(c.parsed.get("reason", "")),
        round=1,
        provenance=prov,
        usage=meter.usage,
    )


def _label_verdict(inp: JudgeInput, c: Any, meter: Meter, prov: dict) -> Verdict:
    label, problem = output_mod.read_label(c)
    prov["output"] = output_mod.LABEL
    if label is None:
        prov["reply"] = {"error": problem, "text": (c.text or "")[:500]}
        return error_verdict(problem or "no label", meter, prov, round=1)
    prov["reply"] = c.parsed if c.parsed is not None else (c.text or "").strip()
    if inp.task.graded:
        prov["grade_from_label"] = True
    grade = (inp.task.threshold if label else 0) if inp.task.graded else label
    return Verdict(status=AUTO, label=label, grade=grade, rationale="", round=1, provenance=prov, usage=meter.usage)
