"""Stored topic narratives: induced once per topic, editable, reused by every narrative judge."""
from __future__ import annotations

import json
from typing import Optional

from qrelkit.store.core import now


class NarrativeStore:
    """Narratives per topic (mixin of :class:`qrelkit.store.Store`)."""

    def put_narrative(
        self, qid: str, narrative: str, instructions: str = "", variant: str = "all", model: str = "",
        edited: bool = False, provenance: Optional[dict] = None,
    ) -> None:
        self.execute(
            "INSERT INTO narratives(qid, narrative, instructions, variant, model, edited, provenance, updated_at) "
            "VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(qid) DO UPDATE SET narrative=excluded.narrative, "
            "instructions=excluded.instructions, variant=excluded.variant, model=excluded.model, "
            "edited=excluded.edited, provenance=excluded.provenance, updated_at=excluded.updated_at",
            (qid, narrative, instructions, variant, model, int(edited), json.dumps(provenance or {}), now()),
        )

    def narratives(self) -> dict[str, dict]:
        return {
            q: {"narrative": n, "instructions": i, "variant": v, "model": m, "edited": bool(e),
                "provenance": json.loads(p)}
            for q, n, i, v, m, e, p in self.query(
                "SELECT qid, narrative, instructions, variant, model, edited, provenance FROM narratives ORDER BY qid"
            )
        }
