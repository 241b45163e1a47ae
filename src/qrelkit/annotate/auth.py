"""Annotators, one-time login links, sessions and CSRF tokens.

There are no passwords: an admin hands each person a link carrying a random
token. Only its SHA-256 is stored, so a copy of the workspace does not let
anybody in, and the token dies on first use (the UPDATE that consumes it is
the check, so two concurrent uses cannot both win). The session id in the
cookie is likewise stored hashed; each session has its own CSRF token.

A link also expires (the project's ``link_days``): a link forwarded, pasted
into a ticket or found in a mailbox months later must not open a session. A link
refused as expired is spent then and there, so raising ``link_days`` afterwards
does not bring it back (the admin issues a new one). The
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
    if not store.add_annotator(name, admin, hash_secret(token), time.time()):
        raise UsageError(f"user {name!r} exists; `qrelkit annotate users link {name}` issues a new login link")
    return LoginLink(name, token)


def new_link(store, name: str) -> LoginLink:
    """A fresh one-time link for an existing user (the previous unused one stops working)."""
    token = new_token()
    with store.transaction():
        user = store.annotator(name)
        if user is None:
            raise UsageError(f"no user named {name!r}")
        if user.revoked:
            raise UsageError(f"user {name!r} is revoked; `qrelkit annotate users restore {name}` reinstates them "
                             "with a new login link")
        store.set_login_token(name, hash_secret(token))
    return LoginLink(name, token)


def revoke_user(store, name: str) -> None:
    """Revocation kills the pending link and every open session; the user's votes stay."""
    if not store.revoke_annotator(name):
        raise UsageError(f"no user named {name!r}")


def restore_user(store, name: str) -> LoginLink:
    """Reinstate a revoked user with a fresh link; their earlier votes never left."""
    token = new_token()
    done = store.restore_annotator(name, hash_secret(token))
    if done is None:
        raise UsageError(f"no user named {name!r}")
    if not done:
        raise UsageError(f"user {name!r} is not revoked; `qrelkit annotate users link {name}` issues a new login link")
    return LoginLink(name, token)


def link_owner(store, token: str, link_days: float, now: Optional[float] = None) -> Optional[str]:
    """The name of the user this unused, unexpired link belongs to, else None
    (the link page shows it without spending the token)."""
    if not token or len(token) > 200:
        return None
    token_hash = hash_secret(token)
    owner = store.pending_login(token_hash)
    if owner is None:
        return None
    issued = token_issued_at(token)
    issued = owner.created_at if issued is None else issued
    now = time.time() if now is None else now
    if now - issued <= link_days * 86400.0:
        return owner.name
    store.expire_login_token(token_hash)  # refused once, dead: a later, longer link_days does not revive it
    return None


def list_users(store) -> list[User]:
    return [User(*a) for a in store.annotators()]


def login(store, token: str, hours: float, now: Optional[float] = None,
          link_days: float = 3.0) -> Optional[tuple[str, Session]]:
    """Consume a login token; returns (raw session id for the cookie, session)
    or None if it is not valid (unknown, used, revoked or expired)."""
    now = time.time() if now is None else now
    if link_owner(store, token, link_days, now) is None:
        return None
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
