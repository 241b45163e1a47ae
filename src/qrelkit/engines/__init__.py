"""Engines: where a judging job's model calls run — in this process (``local``) or on a Ray cluster.

    local                                       the default: the model lives in this process
    ray                                         a local Ray started for the command, 2 actors
    ray(address=auto, actors=4, cpus=1, gpus=1) an existing cluster, 4 actors of 1 CPU + 1 GPU
    ray(address=ray://head:10001)               a remote cluster through Ray Client

Why the seam is the model backend and not the judge: the driver keeps the
workspace and is its only writer, so everything that decides *what* is asked
and *what is kept* — case selection, resume, the call cache (hits are answered
by the driver and never shipped), retries, the escalation budget, learning
judges' refit points, accounting and provenance — stays the one code path of
the plain engine and cannot drift. Only the expensive part, a model answering a
prompt (which carries the case's topic and document text), is shipped, in
batches, to Ray actors that each hold one loaded model or client
(:mod:`qrelkit.engines.ray`). Results are therefore identical to the local
engine by construction; the tests check it anyway.

An engine is configured by a spec string (:mod:`qrelkit.specs`) and travels
between layers as an :class:`EngineSpec` value.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from qrelkit.errors import UsageError
from qrelkit.specs import Param, bind, canonical_text, integer, number, parse_chain


def _address(text: str) -> str:
    if text in ("", "local", "auto") or text.startswith("ray://") or ":" in text:
        return text
    raise ValueError(f"expected local, auto, ray://host:10001 or host:port, got {text!r}")


# The engines and their parameters, one line each (the table parses, validates and documents).
ENGINES: dict[str, dict[str, Param]] = {
    "local": {},
    "ray": {
        "address": Param("local", _address, "local (a Ray started for the command), auto, ray://host:10001"),
        "actors": Param(2, integer(1), "Ray actors, each holding one loaded model/client"),
        "cpus": Param(1.0, number(0.0), "CPUs reserved per actor"),
        "gpus": Param(0.0, number(0.0), "GPUs reserved per actor"),
        "batch": Param(8, integer(1), "model calls shipped to an actor at once"),
    },
}


@dataclass(frozen=True)
class EngineSpec:
    """Where model calls run. ``address`` ``local`` starts (and stops) a Ray for the command."""

    name: str = "local"
    address: str = "local"
    actors: int = 2
    cpus: float = 1.0
    gpus: float = 0.0
    batch: int = 8

    @property
    def is_local(self) -> bool:
        return self.name == "local"

    @property
    def text(self) -> str:
        """The spec string of this value (what plan files and stored commands hold)."""
        if self.is_local:
            return "local"
        return canonical_text(self.name, tuple(sorted(
            (k, getattr(self, k)) for k in ENGINES[self.name])))

    def with_options(self, address: Optional[str] = None, actors: Optional[int] = None,
                     cpus: Optional[float] = None, gpus: Optional[float] = None) -> "EngineSpec":
        """The command line's ``--ray-*`` options over the spec's own values (None: not given)."""
        from dataclasses import replace

        given = {k: v for k, v in dict(address=address, actors=actors, cpus=cpus, gpus=gpus).items()
                 if v is not None}
        if given and self.is_local:
            raise UsageError(f"--ray-{next(iter(given))} needs --engine ray")
        if "address" in given:
            try:
                _address(given["address"])
            except ValueError as e:
                raise UsageError(f"--ray-address: {e}") from None
        return replace(self, **given)


def parse_engine(text: Optional[str | EngineSpec]) -> EngineSpec:
    """``"ray(actors=4)"`` -> ``EngineSpec("ray", actors=4)``; None or ``local`` -> the local engine."""
    if isinstance(text, EngineSpec):
        return text
    if text is None or not str(text).strip():
        return EngineSpec()
    calls = parse_chain(str(text), "engine spec")
    if len(calls) != 1 or calls[0].name not in ENGINES:
        raise UsageError(f"engine spec {text!r}: expected one of {', '.join(ENGINES)}, e.g. 'ray(actors=2)'")
    name = calls[0].name
    values = bind(ENGINES[name], calls[0].args, f"engine spec {text!r}")
    return EngineSpec(name, **values)


def engine_option(engine: Optional[str], address: Optional[str] = None, actors: Optional[int] = None,
                  cpus: Optional[float] = None, gpus: Optional[float] = None) -> Optional[str]:
    """The command line's ``--engine`` and ``--ray-*`` options as one engine spec string (None: not
    given). A ``--ray-*`` option alone means ``--engine ray``."""
    ray_given = any(v is not None for v in (address, actors, cpus, gpus))
    if engine is None and not ray_given:
        return None
    spec = parse_engine(engine if engine is not None else "ray")
    return spec.with_options(address, actors, cpus, gpus).text


def make_backend(engine: EngineSpec, model: str, concurrency: int = 8) -> Any:
    """The model backend for ``model`` (a model spec string) on ``engine``.

    The local engine is :func:`qrelkit.llm.make_backend`; the Ray engine builds
    that same backend inside each actor and returns the driver's side of it."""
    from qrelkit.llm.spec import make_backend as local_backend
    from qrelkit.llm.spec import parse_model_spec

    if engine.is_local:
        return local_backend(model, concurrency=concurrency)
    parse_model_spec(model)  # a bad model spec is a usage error here, before a cluster is contacted
    from qrelkit.engines.ray import RayBackend

    return RayBackend.start(_ModelFactory(model, concurrency), engine)


@dataclass(frozen=True)
class _ModelFactory:
    """Builds the backend of a model spec inside an actor (a picklable value, not a closure)."""

    model: str
    concurrency: int

    def __call__(self) -> Any:
        from qrelkit.llm.spec import make_backend as local_backend

        return local_backend(self.model, concurrency=self.concurrency)


__all__ = ["ENGINES", "EngineSpec", "engine_option", "make_backend", "parse_engine"]
