"""``output=label``: a generation judge's reply constrained to "Relevant" or "Not Relevant".

The RCL paper constrains its assessors by grammar to exactly these two words;
next to qrelkit's default JSON reply with a reason (``output=json``), a judge
spec can ask for the same (``zero-shot(output=label)``, ``icl(...,output=label)``).
The constraint travels as a JSON schema, a string enum, so every backend
enforces it the way it enforces JSON: the embedded model compiles it to a
llama.cpp grammar (``LlamaGrammar.from_json_schema``, see :mod:`qrelkit.llm.local`)
and OpenAI-compatible servers get it as ``response_format`` JSON schema (vLLM
and SGLang turn an enum into guided choice; llama.cpp's server into a grammar).

Reading the reply is exact: the parsed JSON string, or the reply text itself
stripped of white space, must be one of the two labels, case and spacing
included; anything else ("relevant", "Relevant.", "Yes") is an error verdict,
never a guess. For the graded task the binary label is stored as grade
``threshold`` (relevant) or 0, and provenance says the grade came from a label.
"""

from __future__ import annotations

from typing import Any, Optional

from qrelkit import prompts

JSON, LABEL = "json", "label"
OUTPUTS = (JSON, LABEL)
RELEVANT, NOT_RELEVANT = "Relevant", "Not Relevant"
LABELS = {RELEVANT: 1, NOT_RELEVANT: 0}
SCHEMA = {"type": "string", "enum": [RELEVANT, NOT_RELEVANT]}
MAX_TOKENS = 8  # '"Not Relevant"' is 4-5 tokens in common vocabularies; the grammar stops it there


def label_format(task: Any) -> str:
    """The reply-format text of a label prompt (what "Relevant" means for this task)."""
    relevant = f"grade {task.threshold} or higher" if task.graded else "it supports one of the answers"
    return prompts.load("label_output").render("format", relevant=relevant)


def read_label(completion: Any) -> tuple[Optional[int], Optional[str]]:
    """(1 or 0, None) for an exact label, else (None, why not)."""
    if not completion.ok:
        return None, f"call failed: {completion.error}"
    if isinstance(completion.parsed, str) and completion.parsed in LABELS:
        return LABELS[completion.parsed], None
    text = (completion.text or "").strip()
    if text in LABELS:
        return LABELS[text], None
    return None, f'reply is not exactly "{RELEVANT}" or "{NOT_RELEVANT}": {text[:80]!r}'
