"""One judging run's parts, as one value the runner's steps share.

The runner, the batch loop and the summary used to pass the same dozen arguments along
(store, judge, client, selection, task, budget, oracle, method, model, concurrency, ...);
they are fixed for a run, so they travel together.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Optional

if TYPE_CHECKING:
    from qrelkit.judges.base import Judge
    from qrelkit.judges.spec import JudgeSpec
    from qrelkit.judging.budget import Budget
    from qrelkit.llm.client import Client
    from qrelkit.relevance import Task
    from qrelkit.store import Store
    from qrelkit.store.selections import Selection

Pair = tuple[str, str]


@dataclass(frozen=True)
class RunContext:
    """What a run judges (``selection``, ``task``), with what (``spec``, ``judge``, ``client``) and
    under which rules (``budget``, ``oracle``); ``args`` is the command record's arguments."""

    store: "Store"
    spec: "JudgeSpec"
    judge: "Judge"
    client: "Client"
    selection: "Selection"
    task: "Task"
    budget: Optional["Budget"]
    oracle: Optional[Mapping[Pair, int]] = field(default=None, hash=False)
    t0: float = 0.0
    args: dict = field(default_factory=dict, hash=False)
    command: str = "judge"  # the command the user ran: the name its record is stored under

    @property
    def method(self) -> str:
        return self.spec.canonical

    @property
    def model(self) -> str:
        return self.client.model_id

    @property
    def concurrency(self) -> int:
        return int(self.args.get("concurrency", 8))

    @property
    def share(self) -> str:
        return str(self.args.get("share", "llm"))
