"""The fake's ``vllm.sampling_params``: the parameter classes qrelkit's vLLM backend builds.

Strict like the real ones where it matters to the backend: one constraint per structured-output
value, and ``SamplingParams`` refuses keywords this vLLM does not have (a test removes
``StructuredOutputsParams`` to be a vLLM 0.8.5 - 0.11, which only knows ``guided_decoding``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

CONSTRAINTS = ("json", "regex", "choice", "grammar", "json_object")


@dataclass
class StructuredOutputsParams:
    json: Any = None
    regex: Optional[str] = None
    choice: Optional[list] = None
    grammar: Optional[str] = None
    json_object: Optional[bool] = None

    def __post_init__(self):
        given = [c for c in CONSTRAINTS if getattr(self, c) is not None]
        if len(given) != 1:
            raise ValueError(f"exactly one structured-output constraint, got {given}")


@dataclass
class GuidedDecodingParams(StructuredOutputsParams):
    """vLLM 0.8.5 - 0.11's name for the same thing."""


_FIELDS = {"n": 1, "temperature": 1.0, "top_p": 1.0, "top_k": 0, "seed": None, "stop": None, "max_tokens": 16,
           "logprobs": None, "prompt_logprobs": None}


class SamplingParams:
    def __init__(self, **kwargs: Any):
        import vllm.sampling_params as me

        known = dict(_FIELDS)
        if hasattr(me, "StructuredOutputsParams"):
            known["structured_outputs"] = None
        else:
            known["guided_decoding"] = None
        unknown = set(kwargs) - set(known)
        if unknown:
            raise TypeError(f"SamplingParams got unexpected keyword arguments {sorted(unknown)}")
        for k, v in {**known, **kwargs}.items():
            setattr(self, k, v)

    @property
    def constraint(self) -> Any:
        """The structured-output value, whichever name this vLLM gives it."""
        return getattr(self, "structured_outputs", None) or getattr(self, "guided_decoding", None)
