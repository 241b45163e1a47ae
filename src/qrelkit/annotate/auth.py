"""Annotators, one-time login links, sessions and CSRF tokens.

There are no passwords: an admin hands each person a link carrying a random
token. Only its SHA-256 is stored, so a copy of the workspace does not let
anybody in, and the token dies on first use (the UPDATE that consumes it is
the check, so two concurrent uses cannot both win). The session id in the
cookie is likewise stored hashed; each session has its own CSRF token.

A link also expires (the project's ``link_days``): a link forwarded, pasted
into a ticket or found in a mailbox months later must not open a session. The
token starts with its issue time (``<unix seconds>.<random>``); the stored hash
covers the whole token, so the time cannot be changed without breaking the
match, and no column is needed for it. Tokens issued before this rule carry no
time and count from the annotator's creation. Opening a link only shows a
"Sign in" button; the POST it sends spends the token, so a link-preview bot
that fetches every URL in a chat cannot use it up.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Optional
from urllib.parse import quote

from qrelkit.errors import UsageError

SESSION_COOKIE = "qrelkit_session"
MAX_NAME = 64


@dataclass(frozen=True)
class User:
    id: int
    name: str
    is_admin: bool
    revoked: bool
    link_pending: bool  # a login link was issued and not used yet


@dataclass(frozen=True)
class Session:
    user: User
    id_hash: str
    csrf: str
    expires_at: float


@dataclass(frozen=True)
class LoginLink:
    name: str
    token: str

    def url(self, host: str = "127.0.0.1", port: int = 8000, scheme: str = "http", public_url: str = "") -> str:
        """The link; on the project's ``public_url`` when it has one (the app behind a proxy)."""
        from qrelkit.annotate.settings import public_origin

        if public_url:
            return f"{public_origin(public_url)}/login?token={quote(self.token)}"
        h = f"[{host}]" if ":" in host and not host.startswith("[") else host
        return f"{scheme}://{h}:{port}/login?token={quote(self.token)}"


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _check_name(name: str) -> str:
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise UsageError(f"user name must be 1-{MAX_NAME} printable characters (got {name!r})")
    return name


def new_token(now: Optional[float] = None) -> str:
    """A fresh login token carrying its issue time (see module doc)."""
    return f"{int(time.time() if now is None else now)}.{secrets.token_urlsafe(32)}"


def token_issued_at(token: str) -> Optional[float]:
    """The issue time a token carries, None for an old token without one."""
    stamp, dot, _ = token.partition(".")
    return float(stamp) if dot and stamp.isdigit() else None


def add_user(store, name: str, admin: bool = False) -> LoginLink:
    name = _check_name(name)
    token = new_token()
    with store.transaction() as c:
        if c.execute("SELECT 1 FROM annot_users WHERE name=?", (name,)).fetchone():
            raise UsageError(f"user {name!r} exists; `qrelkit annotate users link {name}` issues a new login link")
        c.execute(
            "INSERT INTO annot_users(name, is_admin, token_hash, revoked, created_at) VALUES(?,?,?,0,?)",
            (name, int(admin), hash_secret(token), time.time()),
        )
    return LoginLink(name, token)


def new_link(store, name: str) -> LoginLink:
    """A fresh one-time link for an existing user (the previous unused one stops working)."""
    token = new_token()
    with store.transaction() as c:
        row = c.execute("SELECT revoked FROM annot_users WHERE name=?", (name,)).fetchone()
        if row is None:
            raise UsageError(f"no user named {name!r}")
        if row[0]:
            raise UsageError(f"user {name!r} is revoked; `qrelkit annotate users restore {name}` reinstates them "
                             "with a new login link")
        c.execute("UPDATE annot_users SET token_hash=? WHERE name=?", (hash_secret(token), name))
    return LoginLink(name, token)


def revoke_user(store, name: str) -> None:
    """Revocation kills the pending link and every open session; the user's votes stay."""
    with store.transaction() as c:
        row = c.execute("SELECT id FROM annot_users WHERE name=?", (name,)).fetchone()
        if row is None:
            raise UsageError(f"no user named {name!r}")
        c.execute("UPDATE annot_users SET revoked=1, token_hash=NULL WHERE id=?", (row[0],))
        c.execute("DELETE FROM annot_sessions WHERE user_id=?", (row[0],))
        c.execute("DELETE FROM annot_leases WHERE user_id=?", (row[0],))


def restore_user(store, name: str) -> LoginLink:
    """Reinstate a revoked user with a fresh link; their earlier votes never left."""
    from qrelkit.store.logins import restore_annotator

    token = new_token()
    done = restore_annotator(store, name, hash_secret(token))
    if done is None:
        raise UsageError(f"no user named {name!r}")
    if not done:
        raise UsageError(f"user {name!r} is not revoked; `qrelkit annotate users link {name}` issues a new login link")
    return LoginLink(name, token)


def link_owner(store, token: str, link_days: float, now: Optional[float] = None) -> Optional[str]:
    """The name of the user this unused, unexpired link belongs to, else None
    (the link page shows it without spending the token)."""
    from qrelkit.store.logins import pending_login

    if not token or len(token) > 200:
        return None
    owner = pending_login(store, hash_secret(token))
    if owner is None:
        return None
    issued = token_issued_at(token)
    issued = owner.created_at if issued is None else issued
    now = time.time() if now is None else now
    return owner.name if now - issued <= link_days * 86400.0 else None


def list_users(store) -> list[User]:
    return [
        User(i, n, bool(a), bool(r), t is not None)
        for i, n, a, r, t in store.query(
            "SELECT id, name, is_admin, revoked, token_hash FROM annot_users ORDER BY name"
        )
    ]


def login(store, token: str, hours: float, now: Optional[float] = None,
          link_days: float = 3.0) -> Optional[tuple[str, Session]]:
    """Consume a login token; returns (raw session id for the cookie, session)
    or None if it is not valid (unknown, used, revoked or expired)."""
    now = time.time() if now is None else now
    if link_owner(store, token, link_days, now) is None:
        return None
    sid = secrets.token_urlsafe(32)
    csrf = secrets.token_urlsafe(32)
    with store.transaction() as c:
        row = c.execute(
            "SELECT id, name, is_admin FROM annot_users WHERE token_hash=? AND revoked=0", (hash_secret(token),)
        ).fetchone()
        if row is None:
            return None
        uid, name, admin = row
        c.execute("UPDATE annot_users SET token_hash=NULL WHERE id=?", (uid,))
        c.execute("DELETE FROM annot_sessions WHERE expires_at <= ?", (now,))
        c.execute(
            "INSERT INTO annot_sessions(id_hash, user_id, csrf, created_at, expires_at) VALUES(?,?,?,?,?)",
            (hash_secret(sid), uid, csrf, now, now + hours * 3600.0),
        )
    return sid, Session(User(uid, name, bool(admin), False, False), hash_secret(sid), csrf, now + hours * 3600.0)


def session_for(store, sid: Optional[str], now: Optional[float] = None) -> Optional[Session]:
    if not sid or len(sid) > 200:
        return None
    now = time.time() if now is None else now
    rows = store.query(
        "SELECT s.id_hash, s.csrf, s.expires_at, u.id, u.name, u.is_admin FROM annot_sessions s "
        "JOIN annot_users u ON u.id=s.user_id WHERE s.id_hash=? AND s.expires_at>? AND u.revoked=0",
        (hash_secret(sid), now),
    )
    if not rows:
        return None
    id_hash, csrf, expires, uid, name, admin = rows[0]
    return Session(User(uid, name, bool(admin), False, False), id_hash, csrf, expires)


def logout(store, session: Session) -> None:
    with store.transaction() as c:
        c.execute("DELETE FROM annot_sessions WHERE id_hash=?", (session.id_hash,))
        c.execute("DELETE FROM annot_skips WHERE session_hash=?", (session.id_hash,))


def csrf_ok(session: Session, token: Optional[str]) -> bool:
    return bool(token) and hmac.compare_digest(session.csrf.encode(), str(token).encode())
