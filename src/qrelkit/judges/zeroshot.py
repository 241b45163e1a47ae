"""The single-judge baseline: one call, one structured answer.

For the graded task this follows the UMBRELA recipe (a 0–3 scale described
in the prompt, the topic's narrative when there is one); for the answer task
the LLMJudge-style question "does the document support one of these
answers?". The reply is ``{"reason": ..., "grade"|"label": ...}`` — the reason
first, so the model states its grounds before it commits.

Provenance keys: ``templates`` (name -> version), ``truncation``, ``reply``
(the parsed JSON object, or the error).
"""

from __future__ import annotations

from typing import Any

from qrelkit import prompts
from qrelkit.judges import Param, integer, register
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

# Bounded so that a rambling model cannot run out of tokens inside the JSON
# (grammar-constrained backends enforce maxLength; validators ignore it).
REASON = ("reason", {"type": "string", "maxLength": 200})
MAX_TOKENS = 240  # > maxLength of the reason: the JSON always closes, even at 1 char per token


@register
class ZeroShot(Judge):
    NAME = "zero-shot"
    PARAMS = {"doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "document token budget")}
    requires = frozenset({CHAT, JSON_SCHEMA})

    def __init__(self, spec: Any):
        self.spec = str(spec)
        self.doc_tokens = spec["doc_tokens"]

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        return ("zeroshot", f"task_{task_name}")

    async def __call__(self, inp: JudgeInput, client: Any) -> Verdict:
        versions = template_versions(*self.templates_for(inp.task.name))
        return await judge_with(inp, client, "zeroshot", self.doc_tokens, versions, {})


async def judge_with(
    inp: JudgeInput,
    client: Any,
    template: str,
    doc_tokens: int,
    versions: dict,
    extra_prov: dict,
    **sections: str,
) -> Verdict:
    """The one structured-answer call of zero-shot, icl and narrative: they differ only in the
    template and its extra sections, so parsing, errors and provenance stay the same."""
    meter = Meter()
    block, tr = prompts.document_block(inp.text, doc_tokens)
    task_t = inp.task.template()
    messages = prompts.load(template).messages(
        criteria=task_t.render("criteria"),
        query_block=inp.query_block(),
        document=block,
        format=task_t.render("zeroshot_format"),
        **sections,
    )
    prov: dict = {"templates": versions, "truncation": tr.as_dict(), **extra_prov}
    c = meter.add(
        await client.complete(
            messages,
            schema=inp.task.decision_schema(REASON),
            max_tokens=MAX_TOKENS,
            version="|".join(versions.values()),
        )
    )
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
