"""A small HTTP client for the annotation API, for scripts and simulated people.

It exists because of one trap: the session cookie is Secure, and httpx (like
Python's cookie jar) sends Secure cookies over https only, so a plain client
against http://127.0.0.1 logs in and then looks signed out. This client takes
the cookie from the login response and sends it itself.
"""
from __future__ import annotations

from typing import Optional

import httpx

from qrelkit.annotate.auth import SESSION_COOKIE
from qrelkit.errors import BackendError


class AnnotatorClient:
    """One annotator's session against a running `qrelkit annotate serve`."""

    def __init__(self, base_url: str, token: str, timeout: float = 60.0):
        self._http = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)
        try:
            r = self._http.post("/login", data={"token": token}, follow_redirects=False)
        except httpx.TransportError as e:
            self._http.close()
            raise BackendError(f"annotation server {base_url} unreachable: {e}") from None
        sid = r.cookies.get(SESSION_COOKIE)
        if r.status_code != 303 or not sid:
            self._http.close()
            raise BackendError(f"login refused by {base_url} (HTTP {r.status_code}): link used, revoked or wrong")
        self._http.cookies.set(SESSION_COOKIE, sid)  # a jar entry without the Secure flag
        session = self._get("/api/session")
        self.user: str = session["user"]
        self.is_admin: bool = session["is_admin"]
        self._csrf: str = session["csrf"]

    def _get(self, path: str) -> dict:
        r = self._http.get(path)
        r.raise_for_status()
        return r.json()

    def next(self) -> Optional[dict]:
        """The next case (see GET /api/next), or None when nothing is left for this annotator."""
        case = self._get("/api/next")
        return None if case.get("done") else case

    def vote(self, qid: str, docid: str, grade: int, comment: str = "", seconds: Optional[float] = None) -> httpx.Response:
        """The raw response: 200 recorded; 4xx refused (409: already voted or no longer open)."""
        body = {"qid": qid, "docid": docid, "grade": grade, "comment": comment}
        if seconds is not None:
            body["seconds"] = seconds
        return self._http.post("/api/vote", json=body, headers={"X-CSRF-Token": self._csrf})

    def skip(self, qid: str, docid: str) -> httpx.Response:
        return self._http.post("/api/skip", json={"qid": qid, "docid": docid}, headers={"X-CSRF-Token": self._csrf})

    def progress(self) -> dict:
        return self._get("/api/progress")

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "AnnotatorClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
