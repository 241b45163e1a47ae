"""qrelkit.llm: one async client for every judge; backends for servers, the embedded model and tests."""

from qrelkit.llm.base import (
    CHAT,
    JSON_SCHEMA,
    SCORE,
    TOP_LOGPROBS,
    Backend,
    CallFailed,
    Completion,
    Message,
    Prices,
    ScoreResult,
    TokenLogprob,
    Usage,
)
from qrelkit.llm.client import CORRECTIVE, Client
from qrelkit.llm.scripted import ScriptedBackend
from qrelkit.llm.spec import ModelSpec, canonical_model_id, make_backend, make_client, parse_model_spec

__all__ = [
    "CHAT",
    "JSON_SCHEMA",
    "SCORE",
    "TOP_LOGPROBS",
    "Backend",
    "CallFailed",
    "Client",
    "Completion",
    "CORRECTIVE",
    "Message",
    "ModelSpec",
    "Prices",
    "ScoreResult",
    "ScriptedBackend",
    "TokenLogprob",
    "Usage",
    "canonical_model_id",
    "make_backend",
    "make_client",
    "parse_model_spec",
]
