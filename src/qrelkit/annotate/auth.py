"""Annotators, one-time login links, sessions and CSRF tokens.

There are no passwords: an admin hands each person a link carrying a random
token. Only its SHA-256 is stored, so a copy of the workspace does not let
anybody in, and the token dies on first use (the UPDATE that consumes it is
the check, so two concurrent uses cannot both win). The session id in the
cookie is likewise stored hashed; each session has its own CSRF token.
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

    def url(self, host: str = "127.0.0.1", port: int = 8000, scheme: str = "http") -> str:
        h = f"[{host}]" if ":" in host and not host.startswith("[") else host
        return f"{scheme}://{h}:{port}/login?token={quote(self.token)}"


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _check_name(name: str) -> str:
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise UsageError(f"user name must be 1-{MAX_NAME} printable characters (got {name!r})")
    return name


def add_user(store, name: str, admin: bool = False) -> LoginLink:
    name = _check_name(name)
    token = secrets.token_urlsafe(32)
    if not store.add_annotator(name, admin, hash_secret(token), time.time()):
        raise UsageError(f"user {name!r} exists; `qrelkit annotate users link {name}` issues a new login link")
    return LoginLink(name, token)


def new_link(store, name: str) -> LoginLink:
    """A fresh one-time link for an existing user (the previous unused one stops working)."""
    token = secrets.token_urlsafe(32)
    with store.transaction():
        user = store.annotator(name)
        if user is None:
            raise UsageError(f"no user named {name!r}")
        if user.revoked:
            raise UsageError(f"user {name!r} is revoked")
        store.set_login_token(name, hash_secret(token))
    return LoginLink(name, token)


def revoke_user(store, name: str) -> None:
    """Revocation kills the pending link and every open session; the user's votes stay."""
    if not store.revoke_annotator(name):
        raise UsageError(f"no user named {name!r}")


def list_users(store) -> list[User]:
    return [User(*a) for a in store.annotators()]


def login(store, token: str, hours: float, now: Optional[float] = None) -> Optional[tuple[str, Session]]:
    """Consume a login token; returns (raw session id for the cookie, session) or None if it is not valid."""
    if not token or len(token) > 200:
        return None
    now = time.time() if now is None else now
    sid = secrets.token_urlsafe(32)
    row = store.consume_login_token(
        hash_secret(token), hash_secret(sid), secrets.token_urlsafe(32), now, now + hours * 3600.0
    )
    return None if row is None else (sid, _session(row))


def session_for(store, sid: Optional[str], now: Optional[float] = None) -> Optional[Session]:
    if not sid or len(sid) > 200:
        return None
    row = store.session(hash_secret(sid), time.time() if now is None else now)
    return None if row is None else _session(row)


def _session(row) -> Session:
    return Session(User(row.user_id, row.name, row.is_admin, False, False), row.id_hash, row.csrf, row.expires_at)


def logout(store, session: Session) -> None:
    store.end_session(session.id_hash)


def csrf_ok(session: Session, token: Optional[str]) -> bool:
    return bool(token) and hmac.compare_digest(session.csrf.encode(), str(token).encode())
