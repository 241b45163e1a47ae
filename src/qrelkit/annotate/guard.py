"""The app's outer guard: a cap on request bodies, the security headers on
every response, and a plain 500 for an exception no handler knows.

It sits inside Starlette's own error middleware, which would otherwise answer
a bug with a bare 500 (no Content-Security-Policy, no nosniff); catching here
means even that response carries the headers. Cancellation (a client gone) is
a BaseException and passes through.
"""
from __future__ import annotations

import logging

from fastapi.responses import JSONResponse

log = logging.getLogger("qrelkit.annotate")

MAX_BODY = 64 * 1024
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    # login links carry a token in the URL: never send it elsewhere. Not "no-referrer":
    # with it Chromium sends "Origin: null" on same-origin form posts, which the Origin check refuses.
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class _TooLarge(Exception):
    pass


class Guard:
    """Body-size limit, security headers and the last-resort 500 for every HTTP response."""

    def __init__(self, app, max_body: int = MAX_BODY):
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        state = {"started": False, "received": 0}
        static = scope.get("path", "").startswith("/static/")

        async def send_wrapped(message):
            if message["type"] == "http.response.start":
                state["started"] = True
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"server"]
                headers += SECURITY_HEADERS
                if not static:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return await _too_large(scope, receive, send_wrapped)

        async def receive_capped():
            message = await receive()
            if message["type"] == "http.request":
                state["received"] += len(message.get("body", b""))
                if state["received"] > self.max_body:
                    raise _TooLarge()
            return message

        try:
            await self.app(scope, receive_capped, send_wrapped)
        except Exception as e:  # the app may wrap our exception in an exception group
            if _contains(e, _TooLarge) and not state["started"]:
                return await _too_large(scope, receive, send_wrapped)
            if state["started"]:
                raise
            log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
            await JSONResponse({"error": "internal error"}, status_code=500)(scope, receive, send_wrapped)


def _contains(e: BaseException, kind: type) -> bool:
    if isinstance(e, kind):
        return True
    if isinstance(e, BaseExceptionGroup):
        return any(_contains(x, kind) for x in e.exceptions)
    return _contains(e.__cause__, kind) if e.__cause__ is not None else False


async def _too_large(scope, receive, send):
    await JSONResponse({"error": f"request body larger than {MAX_BODY} bytes"}, status_code=413)(
        scope, receive, send
    )
