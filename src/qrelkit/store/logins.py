"""Login-link questions the annotation app asks beyond issuing and spending a
link: whose pending link is this, and reinstating a revoked annotator.

Kept as functions over a :class:`qrelkit.store.Store` in their own module so
that they sit with the rest of the SQL while the annotator methods are being
gathered into the store (see :mod:`qrelkit.annotate.auth` for the token rules).
"""
from __future__ import annotations

from typing import NamedTuple, Optional


class PendingLogin(NamedTuple):
    user_id: int
    name: str
    created_at: float  # when the annotator was added (the issue time of links older than timed tokens)


def pending_login(store, token_hash: str) -> Optional[PendingLogin]:
    """The annotator whose unused link has this hash, unless they are revoked."""
    rows = store.query(
        "SELECT id, name, created_at FROM annot_users WHERE token_hash=? AND revoked=0", (token_hash,)
    )
    return PendingLogin(*rows[0]) if rows else None


def restore_annotator(store, name: str, token_hash: str) -> Optional[bool]:
    """Reinstate a revoked annotator with a fresh pending link: True when done,
    False when they are not revoked, None when there is no such annotator."""
    with store.transaction() as c:
        row = c.execute("SELECT revoked FROM annot_users WHERE name=?", (name,)).fetchone()
        if row is None:
            return None
        if not row[0]:
            return False
        c.execute("UPDATE annot_users SET revoked=0, token_hash=? WHERE name=?", (token_hash, name))
    return True
