"""People's corrections of induced narratives: the text they edit, how it is read back, and saving
it as *edited*, so that no judge replaces it (only ``qrelkit narratives generate --force``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Optional

from qrelkit.errors import UsageError
from qrelkit.judges.narrative import Guide

if TYPE_CHECKING:
    from qrelkit.store import Store

EDIT_HELP = (
    "# Lines starting with '#' are ignored. Edit the narrative and the instructions below,\n"
    "# then save and close the editor; an empty narrative cancels the edit.\n"
)


def edit_text(qid: str, query: str, row: Optional[dict]) -> str:
    """The text a person edits: the current narrative and instructions under two headings."""
    row = row or {}
    return (
        f"# Relevance narrative for topic {qid}: {query}\n{EDIT_HELP}"
        f"## narrative\n{row.get('narrative', '')}\n\n## instructions\n{row.get('instructions', '')}\n"
    )


def parse_edit(text: str) -> tuple[str, Optional[str]]:
    """(narrative, instructions or None when the text has no instructions heading)."""
    lines = [
        ln
        for ln in text.splitlines()
        if not ln.startswith("#") or ln.strip() in ("## narrative", "## instructions")
    ]
    parts: dict[str, list[str]] = {}
    current = None
    for ln in lines:
        head = ln.strip()
        if head in ("## narrative", "## instructions"):
            current = head[3:]
            parts[current] = []
            continue
        parts.setdefault(current or "narrative", []).append(ln)
    narrative = "\n".join(parts.get("narrative", [])).strip()
    instructions = "\n".join(parts["instructions"]).strip() if "instructions" in parts else None
    return narrative, instructions


def save_edit(
    store: Store, qid: str, narrative: str, instructions: Optional[str] = None, via: str = "editor"
) -> dict:
    """Store a person's narrative as edited (so no judge replaces it); returns the stored row.

    The induced narrative's provenance is kept, with the edit appended under ``edits``."""
    if qid not in store.topics():
        raise UsageError(f"no topic {qid!r} in {store.workspace}")
    narrative = narrative.strip()
    if not narrative:
        raise UsageError("the narrative is empty; nothing was saved")
    row = store.narratives().get(qid) or {}
    old = Guide(qid, row.get("narrative", ""), row.get("instructions", ""), "", "", "")
    prov = dict(row.get("provenance") or {})
    prov["edits"] = list(prov.get("edits") or []) + [
        {"at": round(time.time(), 3), "via": via, "previous_digest": old.digest if row else None}
    ]
    store.put_narrative(
        qid,
        narrative,
        row.get("instructions", "") if instructions is None else instructions.strip(),
        variant=row.get("variant", "manual"),
        model=row.get("model", ""),
        edited=True,
        provenance=prov,
    )
    return store.narratives()[qid]
