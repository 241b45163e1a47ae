"""The annotation web app: server-rendered pages for people, a JSON API for scripts.

Security is enforced in one place per concern so that no route can forget it:
- `guard.Guard` (ASGI middleware) caps request bodies and adds the security
  headers (a strict Content-Security-Policy with no inline script, so even an
  escaping bug could not run a document's script) to every response;
- `_session` / `_admin` dependencies check the session cookie on every page
  and API call (only /login and /static are public);
- `_check_post` checks the per-session CSRF token (form field or X-CSRF-Token
  header) and the Origin header on every POST. The expected origin is the
  project's ``public_url`` when set (the app behind a TLS-terminating proxy),
  else the forwarded scheme and host when ``trust_proxy`` is on, else the
  request's own;
- an exception no handler knows becomes a plain 500 inside `Guard`, so that
  even a bug's response carries the security headers (Starlette's own error
  middleware sits outside every user middleware and would send it bare).
Uvicorn adds a ``server`` header below the app; :func:`uvicorn_config` turns
it off, and both ``annotate serve`` and the tests' server use it.
Templates autoescape everything; the only markup built in Python is the
document with its evidence marks, built from escaped pieces (content.highlight).

The session cookie is HttpOnly, SameSite=Lax (Strict would drop the cookie on
the redirect after a login link clicked in a webmail, leaving the user locked
out with a used link) and Secure by default: browsers accept Secure cookies on
http://127.0.0.1 and http://localhost, which the browser test checks. Plain
HTTP clients may not (httpx's cookie jar keeps Secure cookies for https):
they send the cookie themselves or the project sets ``secure_cookie`` false.
"""
from __future__ import annotations

import json
import math
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Optional

import jinja2
from fastapi import Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from qrelkit.annotate import auth, tasks
from qrelkit.annotate.content import load_case
from qrelkit.annotate.guard import Guard
from qrelkit.annotate.settings import AnnotateSettings, load_settings, public_origin
from qrelkit.annotate.stats import project_stats
from qrelkit.annotate.votes import VoteRejected, cast_vote
from qrelkit.data._open import check_surrogates
from qrelkit.errors import InputError
from qrelkit.store import Store

HERE = Path(__file__).resolve().parent
NOTICES = {
    "taken": "That case was no longer open to you (complete, already voted, or assigned to others). Here is the next one.",
    "skipped": "Skipped: the case went to the back of your queue.",
}


class Denied(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def uvicorn_config(app, host: str, port: int, **kwargs: Any):
    """How the app is served: without uvicorn's ``server`` header (it names
    the stack to whoever asks) and without trusting proxy headers for the
    client address (the app's own ``trust_proxy`` setting covers the origin)."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level="warning", server_header=False,
                          proxy_headers=False, **kwargs)


def create_app(workspace: Path, settings: Optional[AnnotateSettings] = None) -> FastAPI:
    """The app over one workspace. ``settings`` pins the project settings (tests);
    by default they are re-read from the workspace on each request, so that
    `qrelkit annotate settings` takes effect on a running server."""
    store = Store.open(workspace)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(HERE / "templates")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )

    @asynccontextmanager
    async def lifespan(app):
        yield
        store.close()

    app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store = store
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.add_middleware(Guard)

    def cur_settings() -> AnnotateSettings:
        return settings or load_settings(store)

    def render(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        ctx.setdefault("session", None)
        ctx.setdefault("title", "")
        ctx.setdefault("next_link", False)
        ctx.setdefault("notice", "")
        return HTMLResponse(env.get_template(name).render(**ctx), status_code=status)

    # ---- errors -------------------------------------------------------------------
    def _is_api(request: Request) -> bool:
        return request.url.path.startswith("/api/")

    @app.exception_handler(Denied)
    async def on_denied(request: Request, exc: Denied):
        if _is_api(request):
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        return render("error.html", status=exc.status, title="Error", message=exc.message)

    @app.exception_handler(VoteRejected)
    async def on_rejected(request: Request, exc: VoteRejected):
        if _is_api(request):
            return JSONResponse({"error": exc.reason}, status_code=exc.status)
        return render("error.html", status=exc.status, title="Vote not recorded", message=exc.reason, next_link=True)

    # ---- auth helpers -------------------------------------------------------------
    def _session(request: Request) -> auth.Session:
        s = auth.session_for(store, request.cookies.get(auth.SESSION_COOKIE))
        if s is None:
            raise Denied(401, "You are not signed in. Open the login link you were given (ask the project admin for a new one).")
        return s

    def _admin(session: auth.Session = Depends(_session)) -> auth.Session:
        if not session.user.is_admin:
            raise Denied(403, "This page is for project admins.")
        return session

    def _own_origin(request: Request) -> str:
        s = cur_settings()
        if s.public_url:
            return public_origin(s.public_url) or ""
        scheme, host = request.url.scheme, request.headers.get("host", "")
        if s.trust_proxy:
            scheme = request.headers.get("x-forwarded-proto", scheme).split(",")[0].strip()
            host = request.headers.get("x-forwarded-host", host).split(",")[0].strip()
        return f"{scheme}://{host}".lower()

    def _check_origin(request: Request) -> None:
        origin = request.headers.get("origin")
        if origin is not None and origin.lower() != _own_origin(request):
            raise Denied(403, "cross-origin request refused")
        if request.headers.get("sec-fetch-site") == "cross-site":
            raise Denied(403, "cross-site request refused")

    def _check_post(request: Request, session: auth.Session, token: Optional[str]) -> None:
        _check_origin(request)
        if not auth.csrf_ok(session, token):
            raise Denied(403, "missing or wrong CSRF token")

    async def _form(request: Request) -> dict[str, str]:
        form = await request.form()
        return {k: v for k, v in form.items() if isinstance(v, str)}

    async def _json(request: Request) -> dict:
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise Denied(415, "send JSON (Content-Type: application/json)")
        try:
            body = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError):
            raise Denied(400, "body is not valid JSON") from None
        except RecursionError:
            raise Denied(400, "body is not valid JSON: nested too deeply") from None
        if not isinstance(body, dict):
            raise Denied(400, "body must be a JSON object")
        try:  # "\ud800" is valid JSON Python decodes, and fails only when stored (a 500)
            check_surrogates("body", None, body)
        except InputError as e:
            raise Denied(400, f"body is not valid Unicode: {e.problem}") from None
        return body

    def _case_ids(d: dict) -> tuple[str, str]:
        qid, docid = d.get("qid"), d.get("docid")
        if not isinstance(qid, str) or not isinstance(docid, str) or not qid or not docid:
            raise Denied(400, "qid and docid must be non-empty strings")
        return qid, docid

    def _vote_fields(d: dict, from_form: bool) -> tuple[str, str, int, str, Optional[float]]:
        qid, docid = _case_ids(d)
        grade, comment, seconds = d.get("grade"), d.get("comment", ""), d.get("seconds")
        if from_form:
            try:
                grade = int(grade) if grade is not None else None
                seconds = float(seconds) if seconds not in (None, "") else None
            except ValueError:
                raise Denied(400, "grade must be an integer and seconds a number") from None
        if isinstance(grade, bool) or not isinstance(grade, int):
            raise Denied(400, "grade must be an integer")
        if comment is None:
            comment = ""
        if not isinstance(comment, str):
            raise Denied(400, "comment must be a string")
        if seconds is not None and (
            isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds)
        ):
            raise Denied(400, "seconds must be a number")
        return qid, docid, grade, comment, seconds

    def _set_cookie(resp: Response, sid: str, s: AnnotateSettings) -> None:
        resp.set_cookie(
            auth.SESSION_COOKIE, sid, max_age=int(s.session_hours * 3600), path="/",
            httponly=True, secure=s.secure_cookie, samesite="lax",
        )

    # ---- pages ----------------------------------------------------------------------
    bad_link = ("This login link is not valid: it was already used, revoked, expired or mistyped. "
                "Ask the project admin for a new one.")

    @app.get("/login")
    def login_page(token: str = ""):
        """Shows whose link it is and a button; opening the link spends nothing."""
        name = auth.link_owner(store, token, cur_settings().link_days)
        if name is None:
            raise Denied(403, bad_link)
        return render("login.html", title="Sign in", user=name, token=token)

    @app.post("/login")
    async def login_post(request: Request):
        _check_origin(request)
        s = cur_settings()
        token = (await _form(request)).get("token", "")
        got = await run_in_threadpool(auth.login, store, token, s.session_hours, None, s.link_days)
        if got is None:
            raise Denied(403, bad_link)
        resp = RedirectResponse("/", status_code=303)
        _set_cookie(resp, got[0], s)
        return resp

    @app.post("/logout")
    async def logout_page(request: Request, session: auth.Session = Depends(_session)):
        form = await _form(request)
        _check_post(request, session, form.get("csrf"))
        await run_in_threadpool(auth.logout, store, session)
        resp = render("error.html", title="Signed out", message="You are signed out.")
        resp.delete_cookie(auth.SESSION_COOKIE, path="/", httponly=True, secure=cur_settings().secure_cookie,
                           samesite="lax")
        return resp

    @app.get("/", response_class=HTMLResponse)
    def case_page(notice: str = "", session: auth.Session = Depends(_session)):
        s = cur_settings()
        for _ in range(50):  # bounded: skip tasks whose topic or doc vanished from the workspace
            a = tasks.next_assignment(store, s, session.user.id, session.id_hash)
            if a is None:
                break
            view = load_case(store, s, a.qid, a.docid, a.kind, session.user.id)
            if view is not None:
                return render(
                    "case.html", title=f"Query {view.qid}", session=session, case=view,
                    doc_html=view.document_html(), progress=tasks.progress(store, s, session.user.id),
                    notice=NOTICES.get(notice, ""),
                )
            tasks.skip(store, session.user.id, session.id_hash, a.qid, a.docid)
        return render("done.html", title="All done", session=session,
                      progress=tasks.progress(store, s, session.user.id))

    @app.post("/vote")
    async def vote_page(request: Request, session: auth.Session = Depends(_session)):
        form = await _form(request)
        _check_post(request, session, form.get("csrf"))
        qid, docid, grade, comment, seconds = _vote_fields(form, from_form=True)
        await run_in_threadpool(
            cast_vote, store, cur_settings(), session.user.id, qid, docid, grade, comment=comment, seconds=seconds
        )
        return RedirectResponse("/", status_code=303)

    @app.post("/skip")
    async def skip_page(request: Request, session: auth.Session = Depends(_session)):
        form = await _form(request)
        _check_post(request, session, form.get("csrf"))
        qid, docid = _case_ids(form)
        if not await run_in_threadpool(tasks.skip, store, session.user.id, session.id_hash, qid, docid):
            raise Denied(404, "no such case")
        return RedirectResponse("/?notice=skipped", status_code=303)

    @app.get("/admin", response_class=HTMLResponse)
    def admin_page(session: auth.Session = Depends(_admin)):
        s = cur_settings()
        return render(
            "admin.html", title="Admin", session=session, stats=project_stats(store, s), settings=s,
            users=auth.list_users(store),
        )

    # ---- JSON API -------------------------------------------------------------------
    @app.get("/api/session")
    def api_session(session: auth.Session = Depends(_session)):
        return {"user": session.user.name, "is_admin": session.user.is_admin, "csrf": session.csrf}

    @app.get("/api/next")
    def api_next(session: auth.Session = Depends(_session)):
        s = cur_settings()
        for _ in range(50):
            a = tasks.next_assignment(store, s, session.user.id, session.id_hash)
            if a is None:
                break
            view = load_case(store, s, a.qid, a.docid, a.kind, session.user.id)
            if view is not None:
                return {"done": False, **view.to_api(),
                        "progress": tasks.progress(store, s, session.user.id).to_json()}
            tasks.skip(store, session.user.id, session.id_hash, a.qid, a.docid)
        return {"done": True, "progress": tasks.progress(store, s, session.user.id).to_json()}

    @app.post("/api/vote")
    async def api_vote(request: Request, session: auth.Session = Depends(_session)):
        _check_post(request, session, request.headers.get("x-csrf-token"))
        qid, docid, grade, comment, seconds = _vote_fields(await _json(request), from_form=False)
        s = cur_settings()
        await run_in_threadpool(cast_vote, store, s, session.user.id, qid, docid, grade, comment=comment, seconds=seconds)
        prog = await run_in_threadpool(tasks.progress, store, s, session.user.id)
        return {"ok": True, "qid": qid, "docid": docid, "progress": prog.to_json()}

    @app.post("/api/skip")
    async def api_skip(request: Request, session: auth.Session = Depends(_session)):
        _check_post(request, session, request.headers.get("x-csrf-token"))
        qid, docid = _case_ids(await _json(request))
        if not await run_in_threadpool(tasks.skip, store, session.user.id, session.id_hash, qid, docid):
            raise Denied(404, "no such case")
        return {"ok": True}

    @app.get("/api/progress")
    def api_progress(session: auth.Session = Depends(_session)):
        return tasks.progress(store, cur_settings(), session.user.id).to_json()

    @app.get("/api/admin/stats")
    def api_admin_stats(session: auth.Session = Depends(_admin)):
        return project_stats(store, cur_settings()).to_json()

    return app
