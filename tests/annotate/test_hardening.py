"""The web app's remaining hardening (issue 17, item 5): bad bodies are 400s,
every error carries the security headers, login links expire and need a click,
revoked annotators can be restored, no server banner, and the Origin check
works behind a TLS-terminating proxy."""
from __future__ import annotations

import json
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from qrelkit.annotate import create_app, load_settings, save_settings
from qrelkit.annotate.auth import add_user, hash_secret, login, new_link, revoke_user
from qrelkit.store import Store
from tests.integrity.cli import qk as qrelkit

from .helpers import ServerThread, add_login

HEADERS = ["content-security-policy", "x-content-type-options", "x-frame-options", "referrer-policy",
           "cross-origin-opener-policy"]
DEEP = "[" * 30_000 + "]" * 30_000  # under the 64 KiB body cap, far over the decoder's recursion limit


def _settings(store, **changes):
    save_settings(store, load_settings(store).updated(**changes))


def test_a_deeply_nested_vote_body_is_a_400(annotator):
    ann = annotator("ann")
    r = ann.client.post("/api/vote", content=DEEP, headers={"X-CSRF-Token": ann.csrf, "Content-Type": "application/json"})
    assert r.status_code == 400


def _error_responses(app, store, annotator):
    ann = annotator("ann")
    json_headers = {"X-CSRF-Token": ann.csrf, "Content-Type": "application/json"}
    anon = TestClient(app, base_url="https://testserver")
    yield "400 nested", ann.client.post("/api/vote", content=DEEP, headers=json_headers)
    yield "401", anon.get("/api/next")
    yield "403 csrf", ann.client.post("/api/vote", json={"qid": "q1", "docid": "d1", "grade": 1})
    yield "403 link", anon.get("/login", params={"token": "nope"})
    yield "404", ann.client.get("/no/such/page")
    yield "413", ann.client.post("/api/vote", content=b"0" * 70_000, headers=json_headers)
    store_of_app = app.state.store
    store_of_app.close()  # the database is gone under a running app: a 500 of our own making
    yield "500", ann.client.get("/api/next")


@pytest.fixture
def error_responses(app, store, annotator):
    return dict(_error_responses(app, store, annotator))


@pytest.mark.parametrize("header", HEADERS)
def test_security_headers_are_on_every_error_response(error_responses, header):
    missing = [case for case, r in error_responses.items() if header not in r.headers]
    assert missing == []


def test_the_error_responses_have_the_expected_status(error_responses):
    got = {case: r.status_code for case, r in error_responses.items()}
    assert got == {"400 nested": 400, "401": 401, "403 csrf": 403, "403 link": 403, "404": 404, "413": 413,
                   "500": 500}


def test_no_server_banner_from_the_served_app(ws):
    server = ServerThread(create_app(ws)).start()
    try:
        with httpx.Client(base_url=server.url, timeout=60) as c:
            responses = [c.get("/login", params={"token": "x"}), c.get("/static/annotate.css"), c.get("/api/next")]
    finally:
        server.stop()
    assert [r.headers.get("server") for r in responses] == [None, None, None]


# ---- login links -------------------------------------------------------------------------------
def test_opening_a_link_shows_a_button_and_spends_nothing(app, store):
    token = add_login(store, "ann")
    page = TestClient(app, base_url="https://testserver").get("/login", params={"token": token})
    assert (page.status_code, "set-cookie" in page.headers, 'id="sign-in"' in page.text) == (200, False, True)
    assert store.query("SELECT token_hash FROM annot_users WHERE name='ann'")[0][0] == hash_secret(token)


def test_the_click_spends_the_link(app, store):
    token = add_login(store, "ann")
    c = TestClient(app, base_url="https://testserver")
    c.get("/login", params={"token": token})
    assert c.post("/login", data={"token": token}, follow_redirects=False).status_code == 303
    assert c.post("/login", data={"token": token}, follow_redirects=False).status_code == 403


def test_a_cross_origin_login_post_is_refused(app, store):
    token = add_login(store, "ann")
    r = TestClient(app, base_url="https://testserver").post(
        "/login", data={"token": token}, headers={"Origin": "https://evil.test"}, follow_redirects=False)
    assert r.status_code == 403


@pytest.mark.parametrize("age_days,link_days,works", [(0, 3, True), (2.9, 3, True), (3.1, 3, False),
                                                      (3.1, 7, True), (400, 3, False)])
def test_a_link_expires_after_the_projects_link_days(store, age_days, link_days, works):
    token = add_user(store, "ann").token
    got = login(store, token, 1.0, now=time.time() + age_days * 86400, link_days=link_days)
    assert (got is not None) == works


def test_an_expired_link_is_refused_over_http_and_users_link_issues_a_fresh_one(app, store):
    token = add_login(store, "ann")
    _settings(store, link_days=1e-9)  # every link is older than that
    time.sleep(0.01)
    c = TestClient(app, base_url="https://testserver")
    assert c.post("/login", data={"token": token}, follow_redirects=False).status_code == 403
    _settings(store, link_days=3)
    fresh = new_link(store, "ann").token
    assert c.post("/login", data={"token": fresh}, follow_redirects=False).status_code == 303


def test_a_link_refused_as_expired_does_not_work_after_link_days_is_raised(app, store, ws):
    token = add_login(store, "ann")
    _settings(store, link_days=1e-9)
    time.sleep(0.01)
    c = TestClient(app, base_url="https://testserver")
    assert c.post("/login", data={"token": token}, follow_redirects=False).status_code == 403
    assert qrelkit("annotate", "settings", "--link-days", "30", "-w", str(ws)).returncode == 0
    assert c.post("/login", data={"token": token}, follow_redirects=False).status_code == 403


def test_a_link_from_before_timed_tokens_counts_from_the_users_creation(app, store):
    add_login(store, "old")
    store.execute("UPDATE annot_users SET token_hash=?, created_at=0 WHERE name='old'", (hash_secret("legacy"),))
    r = TestClient(app, base_url="https://testserver").post("/login", data={"token": "legacy"}, follow_redirects=False)
    assert r.status_code == 403


# ---- revoked annotators ------------------------------------------------------------------------
def _cli(ws, *args):
    return qrelkit("annotate", "users", *args, "-w", str(ws), "--json")


@pytest.fixture
def revoked(ws):
    with Store.open(ws) as s:
        add_user(s, "ann")
        revoke_user(s, "ann")
    return ws


def test_users_link_for_a_revoked_user_says_to_restore(revoked):
    r = _cli(revoked, "link", "ann")
    assert (r.returncode, "users restore ann" in r.stderr) == (2, True)


def test_users_restore_reinstates_with_a_working_link(revoked):
    out = json.loads(_cli(revoked, "restore", "ann").stdout)
    app = create_app(revoked)
    try:
        r = TestClient(app, base_url="https://testserver").post("/login", data={"token": out["token"]},
                                                                follow_redirects=False)
    finally:
        app.state.store.close()
    assert r.status_code == 303


def test_users_restore_of_an_active_user_is_refused(ws):
    with Store.open(ws) as s:
        add_user(s, "bob")
    r = _cli(ws, "restore", "bob")
    assert (r.returncode, "users link bob" in r.stderr) == (2, True)


def test_login_links_point_to_the_public_url(ws):
    qrelkit("annotate", "settings", "-w", str(ws), "--public-url", "https://annotate.example.org")
    out = json.loads(_cli(ws, "add", "ann").stdout)
    assert out["login_url"] == f"https://annotate.example.org/login?token={out['token']}"


# ---- the Origin check behind a proxy --------------------------------------------------------------
@pytest.mark.parametrize("settings,origin,extra,status", [
    ({}, "https://testserver", {}, 200),
    ({}, "https://annotate.example.org", {}, 403),
    ({"public_url": "https://annotate.example.org"}, "https://annotate.example.org", {}, 200),
    ({"public_url": "https://annotate.example.org"}, "https://testserver", {}, 403),
    ({"trust_proxy": True}, "https://annotate.example.org",
     {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "annotate.example.org"}, 200),
    ({}, "https://annotate.example.org",
     {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "annotate.example.org"}, 403),
])
def test_origin_check_honours_the_public_url_and_trusted_proxy_headers(store, annotator, settings, origin, extra,
                                                                       status):
    ann = annotator("ann")
    _settings(store, **settings)
    r = ann.client.post("/api/vote", json={"qid": "q1", "docid": "d1", "grade": 1},
                        headers={"X-CSRF-Token": ann.csrf, "Origin": origin, **extra})
    assert r.status_code == status, r.text
