"""Annotators, their one-time login tokens and their sessions.

Only hashes of tokens and session ids are stored (see :mod:`qrelkit.annotate.auth`
for why); this module never sees a raw secret.
"""
from __future__ import annotations

from typing import NamedTuple, Optional


class Annotator(NamedTuple):
    id: int
    name: str
    is_admin: bool
    revoked: bool
    link_pending: bool  # a login link was issued and not used yet


class SessionRow(NamedTuple):
    id_hash: str
    csrf: str
    expires_at: float
    user_id: int
    name: str
    is_admin: bool


class PendingLogin(NamedTuple):
    user_id: int
    name: str
    created_at: float  # when the annotator was added (the issue time of links older than timed tokens)


class AnnotatorStore:
    """Annotation users and sessions (mixin of :class:`qrelkit.store.Store`)."""

    def annotators(self) -> list[Annotator]:
        """Every annotator, revoked ones included, by name."""
        return [
            Annotator(i, n, bool(a), bool(r), t is not None)
            for i, n, a, r, t in self.query(
                "SELECT id, name, is_admin, revoked, token_hash FROM annot_users ORDER BY name"
            )
        ]

    def annotator(self, name: str) -> Optional[Annotator]:
        return next((a for a in self.annotators() if a.name == name), None)

    def active_annotator_count(self) -> int:
        return self.scalar("SELECT COUNT(*) FROM annot_users WHERE revoked=0")

    def add_annotator(self, name: str, is_admin: bool, token_hash: str, created_at: float) -> bool:
        """A new annotator with a pending login token; False when the name is taken."""
        with self.transaction() as c:
            if c.execute("SELECT 1 FROM annot_users WHERE name=?", (name,)).fetchone():
                return False
            c.execute(
                "INSERT INTO annot_users(name, is_admin, token_hash, revoked, created_at) VALUES(?,?,?,0,?)",
                (name, int(is_admin), token_hash, created_at),
            )
        return True

    def set_login_token(self, name: str, token_hash: str) -> None:
        """Replace an annotator's pending login token (the previous one stops working)."""
        self.execute("UPDATE annot_users SET token_hash=? WHERE name=?", (token_hash, name))

    def pending_login(self, token_hash: str) -> Optional[PendingLogin]:
        """The annotator whose unused login token has this hash, unless they are revoked."""
        rows = self.query(
            "SELECT id, name, created_at FROM annot_users WHERE token_hash=? AND revoked=0", (token_hash,)
        )
        return PendingLogin(*rows[0]) if rows else None

    def expire_login_token(self, token_hash: str) -> None:
        """Kill a login token found expired, so that raising ``link_days`` later cannot revive it."""
        self.execute("UPDATE annot_users SET token_hash=NULL WHERE token_hash=?", (token_hash,))

    def restore_annotator(self, name: str, token_hash: str) -> Optional[bool]:
        """Reinstate a revoked annotator with a fresh pending token: True when done,
        False when they are not revoked, None when there is no such annotator."""
        with self.transaction() as c:
            row = c.execute("SELECT revoked FROM annot_users WHERE name=?", (name,)).fetchone()
            if row is None:
                return None
            if not row[0]:
                return False
            c.execute("UPDATE annot_users SET revoked=0, token_hash=? WHERE name=?", (token_hash, name))
        return True

    def revoke_annotator(self, name: str) -> bool:
        """Kill the pending token, every session and every lease; False when there is no such user."""
        with self.transaction() as c:
            row = c.execute("SELECT id FROM annot_users WHERE name=?", (name,)).fetchone()
            if row is None:
                return False
            c.execute("UPDATE annot_users SET revoked=1, token_hash=NULL WHERE id=?", (row[0],))
            c.execute("DELETE FROM annot_sessions WHERE user_id=?", (row[0],))
            c.execute("DELETE FROM annot_leases WHERE user_id=?", (row[0],))
        return True

    def consume_login_token(
        self, token_hash: str, session_hash: str, csrf: str, now: float, expires_at: float
    ) -> Optional[SessionRow]:
        """Spend a login token and open a session in one transaction (the UPDATE that
        spends it is the check, so two concurrent uses cannot both win); None if the
        token is unknown, spent or its user revoked."""
        with self.transaction() as c:
            row = c.execute(
                "SELECT id, name, is_admin FROM annot_users WHERE token_hash=? AND revoked=0", (token_hash,)
            ).fetchone()
            if row is None:
                return None
            uid, name, admin = row
            c.execute("UPDATE annot_users SET token_hash=NULL WHERE id=?", (uid,))
            c.execute("DELETE FROM annot_sessions WHERE expires_at <= ?", (now,))
            c.execute(
                "INSERT INTO annot_sessions(id_hash, user_id, csrf, created_at, expires_at) VALUES(?,?,?,?,?)",
                (session_hash, uid, csrf, now, expires_at),
            )
        return SessionRow(session_hash, csrf, expires_at, uid, name, bool(admin))

    def session(self, session_hash: str, now: float) -> Optional[SessionRow]:
        """A live session of a user who is not revoked."""
        rows = self.query(
            "SELECT s.id_hash, s.csrf, s.expires_at, u.id, u.name, u.is_admin FROM annot_sessions s "
            "JOIN annot_users u ON u.id=s.user_id WHERE s.id_hash=? AND s.expires_at>? AND u.revoked=0",
            (session_hash, now),
        )
        if not rows:
            return None
        id_hash, csrf, expires, uid, name, admin = rows[0]
        return SessionRow(id_hash, csrf, expires, uid, name, bool(admin))

    def end_session(self, session_hash: str) -> None:
        """Log out: the session and its skips go."""
        with self.transaction() as c:
            c.execute("DELETE FROM annot_sessions WHERE id_hash=?", (session_hash,))
            c.execute("DELETE FROM annot_skips WHERE session_hash=?", (session_hash,))
