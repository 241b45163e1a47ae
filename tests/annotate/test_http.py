"""Every route of the annotation app over HTTP (TestClient), allowed and denied."""
from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient

from qrelkit.annotate import create_app, save_settings, sync_tasks
from qrelkit.annotate.auth import SESSION_COOKIE, hash_secret, revoke_user
from qrelkit.annotate.settings import AnnotateSettings

from .helpers import add_login

GET_ROUTES = ["/", "/admin", "/api/session", "/api/next", "/api/progress", "/api/admin/stats"]
POST_ROUTES = ["/vote", "/skip", "/logout", "/api/vote", "/api/skip"]
ORDER = [("q1", "d1"), ("q2", "d2"), ("q1", "d3"), ("q1", "d4"), ("q2", "d5"), ("q2", "d6")]


def votes(store, qid=None, docid=None):
    sql = "SELECT u.name, v.qid, v.docid, v.grade FROM annot_votes v JOIN annot_users u ON u.id=v.user_id"
    rows = store.query(sql + " ORDER BY v.id")
    return [r for r in rows if (qid is None or r[1] == qid) and (docid is None or r[2] == docid)]


def people_judgment(store, qid, docid):
    rows = store.query(
        "SELECT label, grade, status, source, provenance FROM judgments WHERE qid=? AND docid=? AND method='people'",
        (qid, docid),
    )
    return rows[0] if rows else None


# ---- sessions and roles ----------------------------------------------------------------
def test_every_route_needs_a_session(app):
    c = TestClient(app, base_url="https://testserver")
    for forged in (None, "forged-session-id"):
        if forged:
            c.cookies.set(SESSION_COOKIE, forged)
        for path in GET_ROUTES:
            r = c.get(path)
            assert r.status_code == 401, path
        for path in POST_ROUTES:
            r = c.post(path, json={"qid": "q1", "docid": "d1", "grade": 1})
            assert r.status_code == 401, path
    assert set(c.get("/api/next").json()) == {"error"}
    assert "not signed in" in c.get("/").text


def test_login_link_works_once_and_sets_a_safe_cookie(app, store):
    token = add_login(store, "ann")
    # only the hash is stored
    assert store.query("SELECT token_hash FROM annot_users WHERE name='ann'")[0][0] == hash_secret(token) != token
    c = TestClient(app, base_url="https://testserver")
    r = c.post("/login", data={"token": token}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    cookie = r.headers["set-cookie"].lower()
    assert cookie.startswith(SESSION_COOKIE + "=")
    for flag in ("httponly", "secure", "samesite=lax", "path=/"):
        assert flag in cookie
    assert c.get("/api/session").json()["user"] == "ann"
    assert store.query("SELECT token_hash FROM annot_users WHERE name='ann'")[0][0] is None
    # replayed link: denied, no new session
    other = TestClient(app, base_url="https://testserver")
    r = other.post("/login", data={"token": token}, follow_redirects=False)
    assert r.status_code == 403 and "set-cookie" not in r.headers
    assert other.get("/api/session").status_code == 401
    assert store.query("SELECT COUNT(*) FROM annot_sessions")[0][0] == 1
    for bad in ("", "x" * 300, token[:-1]):
        assert other.post("/login", data={"token": bad}).status_code == 403
    # the raw session id is not stored either
    sid = c.cookies.get(SESSION_COOKIE)
    assert store.query("SELECT COUNT(*) FROM annot_sessions WHERE id_hash=?", (sid,))[0][0] == 0


def test_revoked_user_is_locked_out(app, store, annotator):
    bob = annotator("bob")
    assert bob.client.get("/api/session").status_code == 200
    revoke_user(store, "bob")
    assert bob.client.get("/api/session").status_code == 401
    assert bob.vote("q1", "d1", 2).status_code == 401
    token = add_login(store, "carl")
    revoke_user(store, "carl")
    assert TestClient(app, base_url="https://testserver").post("/login", data={"token": token}).status_code == 403


def test_annotators_cannot_open_admin_pages(annotator):
    ann = annotator("ann")
    assert ann.client.get("/admin").status_code == 403
    assert ann.client.get("/api/admin/stats").status_code == 403
    assert 'href="/admin"' not in ann.client.get("/").text
    boss = annotator("boss", admin=True)
    assert boss.client.get("/admin").status_code == 200
    assert boss.client.get("/api/admin/stats").status_code == 200
    assert boss.client.get("/api/session").json()["is_admin"] is True
    assert ann.client.get("/api/session").json()["is_admin"] is False


# ---- CSRF, origin, body limits -------------------------------------------------------------
def test_posts_need_the_csrf_token_and_same_origin(annotator, store):
    ann, eve = annotator("ann"), annotator("eve")
    ann.next()
    body = {"qid": "q1", "docid": "d1", "grade": 2}
    c = ann.client
    assert c.post("/api/vote", json=body).status_code == 403
    assert c.post("/api/vote", json=body, headers={"X-CSRF-Token": "wrong"}).status_code == 403
    assert c.post("/api/vote", json=body, headers={"X-CSRF-Token": eve.csrf}).status_code == 403
    h = {"X-CSRF-Token": ann.csrf}
    assert c.post("/api/vote", json=body, headers={**h, "Origin": "https://evil.example"}).status_code == 403
    assert c.post("/api/vote", json=body, headers={**h, "Origin": "null"}).status_code == 403
    assert c.post("/api/vote", json=body, headers={**h, "Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert c.post("/api/vote", content=json.dumps(body), headers={**h, "Content-Type": "text/plain"}).status_code == 415
    form = {"qid": "q1", "docid": "d1", "grade": "2"}
    assert c.post("/vote", data=form).status_code == 403
    assert c.post("/vote", data={**form, "csrf": eve.csrf}).status_code == 403
    assert c.post("/skip", data={"qid": "q1", "docid": "d1"}).status_code == 403
    assert c.post("/logout", data={}).status_code == 403
    assert votes(store) == []
    r = c.post("/api/vote", json=body, headers={**h, "Origin": "https://testserver"})
    assert r.status_code == 200, r.text
    assert votes(store) == [("ann", "q1", "d1", 2)]


def test_request_bodies_are_size_limited(annotator, store):
    ann = annotator("ann")
    ann.next()
    big = {"qid": "q1", "docid": "d1", "grade": 2, "comment": "x" * 70_000}
    r = ann.client.post("/api/vote", json=big, headers={"X-CSRF-Token": ann.csrf})
    assert r.status_code == 413
    # without a Content-Length header (chunked): counted while reading
    def chunks():
        for _ in range(20):
            yield b"x" * 8192

    r = ann.client.post("/api/vote", content=chunks(),
                        headers={"X-CSRF-Token": ann.csrf, "Content-Type": "application/json"})
    assert r.status_code == 413
    r = ann.client.post("/vote", data={"csrf": ann.csrf, "qid": "q1", "docid": "d1", "grade": "2",
                                       "comment": "y" * 70_000})
    assert r.status_code == 413
    assert votes(store) == []


def test_invalid_votes_are_rejected(annotator, store):
    ann = annotator("ann")
    assert (ann.next()["qid"], ann.next()["docid"]) == ("q1", "d1")
    assert ann.vote("q1", "nope", 2).status_code == 404  # no such case
    assert ann.vote("q1", "d8", 2).status_code == 404  # the LLM's share: not a task
    assert ann.vote("q1", "d7", 2).status_code == 404  # already judged: not a task
    assert ann.vote("q1", "d1", 7).status_code == 400
    assert ann.vote("q1", "d1", "2").status_code == 400
    assert ann.vote("q1", "d1", True).status_code == 400
    assert ann.vote("q1", "d1", 2, seconds="fast").status_code == 400
    assert ann.vote("q1", "d1", 2, comment=["x"]).status_code == 400
    assert ann.vote("q2", "d2", 2).status_code == 400  # answer task: 0/1 only
    h = {"X-CSRF-Token": ann.csrf, "Content-Type": "application/json"}
    assert ann.client.post("/api/vote", content=b"{not json", headers=h).status_code == 400
    assert ann.client.post("/api/vote", content=b"[1, 2]", headers=h).status_code == 400
    assert ann.client.post("/api/vote", json={"qid": 1, "docid": "d1", "grade": 1},
                           headers={"X-CSRF-Token": ann.csrf}).status_code == 400
    assert votes(store) == []
    assert ann.vote("q1", "d1", 2).status_code == 200
    r = ann.vote("q1", "d1", 3)  # replayed case id
    assert r.status_code == 409 and "already voted" in r.json()["error"]
    assert votes(store) == [("ann", "q1", "d1", 2)]


# ---- assignment ----------------------------------------------------------------------------
def test_one_annotator_walks_the_queue_in_priority_order(annotator, store):
    ann = annotator("ann")
    seen = []
    for _ in range(20):
        case = ann.next()
        if case["done"]:
            break
        seen.append((case["qid"], case["docid"]))
        grade = 1 if case["task"] == "answer" else 2
        assert ann.vote(case["qid"], case["docid"], grade).status_code == 200
    real = [x for x in seen if x != ("q1", "d9")]  # d9 is the attention item
    assert real == ORDER  # escalations first, then the people's share, stable
    assert ("q1", "d9") in seen  # the attention item was mixed in
    assert len(seen) == len(set(seen))  # never the same case twice
    assert ann.next()["done"] is True
    assert ann.client.get("/api/progress").json() == {"voted": 7, "remaining": 0, "decided": 0, "total": 6}


def test_a_complete_case_is_no_longer_served(annotator, store):
    a, b, c, d = (annotator(n) for n in "abcd")
    for x in (a, b, c):
        case = x.next()
        assert (case["qid"], case["docid"]) == ("q1", "d1")  # three leases for three votes
    case = d.next()
    assert (case["qid"], case["docid"]) == ("q2", "d2")  # q1/d1 is fully assigned
    assert d.vote("q1", "d1", 1).status_code == 409  # not assigned to d
    for x, g in ((a, 2), (b, 2), (c, 3)):
        assert x.vote("q1", "d1", g).status_code == 200
    assert d.vote("q1", "d1", 1).status_code == 409  # complete
    e = annotator("e")
    assert (e.next()["qid"], e.next()["docid"]) == ("q2", "d2")
    assert len(votes(store, "q1", "d1")) == 3


def test_leases_spread_annotators_and_a_reload_shows_the_same_case(store, annotator):
    sync_tasks(store, votes_needed=1)
    a, b, c = annotator("a"), annotator("b"), annotator("c")
    got = [(x.next()["qid"], x.next()["docid"]) for x in (a, b, c)]
    assert got == ORDER[:3]
    assert (a.next()["qid"], a.next()["docid"]) == ORDER[0]  # stable on reload
    assert b.vote(*ORDER[0], 2).status_code == 409  # leased to a


def test_skipped_cases_go_to_the_back_of_the_session_queue(annotator, app, store):
    ann = annotator("ann")
    assert (ann.next()["qid"], ann.next()["docid"]) == ("q1", "d1")
    assert ann.skip("q1", "d1").json() == {"ok": True}
    assert ann.skip("q1", "nope").status_code == 404
    assert (ann.next()["qid"], ann.next()["docid"]) == ("q2", "d2")
    assert ann.skip("q2", "d2").status_code == 200
    seen = []
    for _ in range(20):
        case = ann.next()
        if case["done"]:
            break
        seen.append((case["qid"], case["docid"]))
        ann.vote(case["qid"], case["docid"], 1 if case["task"] == "answer" else 0)
    assert [x for x in seen if x != ("q1", "d9")][-2:] == [("q1", "d1"), ("q2", "d2")]  # skipped ones last, in skip order
    # skips belong to the session: a new session of another user starts at the front
    assert (annotator("bob").next()["docid"]) == "d1"


# ---- what a case shows --------------------------------------------------------------------
def test_next_case_payload_with_debate_history(annotator):
    case = annotator("ann").next()
    assert case["done"] is False
    assert {k: case[k] for k in ("qid", "docid", "query", "kind", "task", "answers", "narrative")} == {
        "qid": "q1", "docid": "d1", "query": "what causes ocean tides", "kind": "escalation", "task": "graded",
        "answers": [], "narrative": "Relevant documents name the cause of tides.",
    }
    assert case["document"].startswith("Tides are caused")
    assert [g["grade"] for g in case["grades"]] == [0, 1, 2, 3]
    hist = case["history"]
    assert [r["round"] for r in hist] == [1, 2]
    assert [a["stance"] for a in hist[0]["agents"]] == ["relevant", "not_relevant"]
    assert hist[0]["agents"][0]["evidence"] == [{"quote": "gravitational pull of the Moon", "found": True}]
    assert set(case["progress"]) == {"voted", "remaining", "decided", "total"}


def test_answer_task_and_people_cases(annotator, store):
    sync_tasks(store, votes_needed=1)
    a, b, c = annotator("a"), annotator("b"), annotator("c")
    a.next()
    answer_case = b.next()
    case = c.next()
    assert (case["qid"], case["docid"], case["kind"], case["history"]) == ("q1", "d3", "people", None)
    case = answer_case
    assert (case["qid"], case["docid"]) == ("q2", "d2")
    assert case["task"] == "answer" and case["answers"] == ["William Shakespeare", "Shakespeare"]
    assert [(g["grade"], g["key"]) for g in case["grades"]] == [(1, "r"), (0, "n")]


def test_setting_hides_the_history(ws, store):
    save_settings(store, AnnotateSettings(hide_history=True))
    app = create_app(ws)
    try:
        from .conftest import Annotator

        a, b, c = (Annotator(app, store, n) for n in "abc")
        case = a.next()
        assert (case["kind"], case["history"]) == ("escalation", None)
        page = a.client.get("/").text
        assert 'id="history"' not in page and "<mark" not in page and "AI debate" not in page
        for x, g in ((a, 2), (b, 2), (c, 1)):
            x.next()
            assert x.vote("q1", "d1", g).status_code == 200
        prov = json.loads(people_judgment(store, "q1", "d1")[4])
        assert prov["history_shown"] is False
        assert [v["history_shown"] for v in prov["votes"]] == [False] * 3
    finally:
        app.state.store.close()


def _attention_case(annotator) -> dict:
    ann = annotator("ann")
    for _ in range(10):
        case = ann.next()
        if case["docid"] == "d9":
            return case
        ann.vote(case["qid"], case["docid"], 1 if case["task"] == "answer" else 2)
    raise AssertionError("the attention item d9 was never served")


def test_attention_items_carry_the_escalation_badge(annotator):
    assert _attention_case(annotator)["kind"] == "escalation"


def test_attention_items_show_two_conflicting_arguments(annotator):
    (last,) = _attention_case(annotator)["history"]
    assert sorted(a["label"] for a in last["agents"]) == [0, 1]


def test_attention_items_do_not_reveal_the_expected_answer(annotator):
    assert "expected" not in json.dumps(_attention_case(annotator))


# ---- decisions -------------------------------------------------------------------------------
def test_majority_decides_the_answer_task(annotator, store):
    a, b, c = annotator("a"), annotator("b"), annotator("c")
    for x in (a, b, c):
        x.next()
        x.vote("q1", "d1", 2)
    for x, g, secs in ((a, 1, 12.5), (b, 0, 30), (c, 1, 9)):
        assert (x.next()["qid"], x.next()["docid"]) == ("q2", "d2")
        r = x.vote("q2", "d2", g, seconds=secs, comment=f"from {x.name}")
        assert r.status_code == 200
        assert set(r.json()) == {"ok", "qid", "docid", "progress"}  # nothing about others' votes
    label, grade, status, source, prov = people_judgment(store, "q2", "d2")
    assert (label, grade, status, source) == (1, 1, "human", "human")
    prov = json.loads(prov)
    assert prov["rule"] == "majority"
    assert [(v["annotator"], v["grade"], v["seconds"]) for v in prov["votes"]] == [
        ("a", 1, 12.5), ("b", 0, 30.0), ("c", 1, 9.0)]
    assert prov["history_shown"] is True and prov["excluded_annotators"] == []
    assert prov["seconds_total"] == 51.5
    assert store.query("SELECT decided FROM annot_tasks WHERE qid='q2' AND docid='d2'")[0][0] == 1


@pytest.mark.parametrize("grades,expected", [((3, 1, 2), (2, 1)), ((0, 1, 3), (1, 0)), ((2, 2, 0), (2, 1))])
def test_median_decides_grades(annotator, store, grades, expected):
    for name, g in zip("abc", grades):
        x = annotator(name)
        x.next()
        assert x.vote("q1", "d1", g).status_code == 200
    label, grade = people_judgment(store, "q1", "d1")[:2]
    assert (grade, label) == expected
    assert json.loads(people_judgment(store, "q1", "d1")[4])["rule"] == "median"


def test_an_even_tie_needs_one_more_vote(store, annotator):
    sync_tasks(store, votes_needed=2)
    a, b, c = annotator("a"), annotator("b"), annotator("c")
    a.next(), b.next()
    assert a.vote("q1", "d1", 1).status_code == 200
    assert b.vote("q1", "d1", 2).status_code == 200
    assert people_judgment(store, "q1", "d1") is None
    assert store.query("SELECT votes_needed, decided FROM annot_tasks WHERE docid='d1'")[0] == (3, 0)
    assert (c.next()["qid"], c.next()["docid"]) == ("q1", "d1")  # served again for the tie-break
    assert c.vote("q1", "d1", 2).status_code == 200
    assert people_judgment(store, "q1", "d1")[:2] == (1, 2)
    # binary: 1 vs 0 is a tie too
    for x, g in ((a, 1), (b, 0)):
        x.next()
        assert x.vote("q2", "d2", g).status_code == 200
    assert people_judgment(store, "q2", "d2") is None
    assert store.query("SELECT votes_needed FROM annot_tasks WHERE docid='d2'")[0][0] == 3


def _wrong(task: str, expected: int) -> int:
    relevant = expected >= 2
    return (0 if relevant else 1) if task == "answer" else (0 if relevant else 3)


def test_failed_attention_checks_exclude_votes_and_reopen_cases(store, annotator, app):
    sync_tasks(store, votes_needed=1, attention_share=0.5)
    checks = store.query("SELECT qid, docid, expected_grade FROM annot_tasks WHERE kind='attention' ORDER BY priority")
    assert len(checks) >= 2
    bad, good, boss = annotator("bad"), annotator("good"), annotator("boss", admin=True)
    bad.next()
    assert bad.vote("q1", "d1", 3).status_code == 200
    assert people_judgment(store, "q1", "d1")[1] == 3  # decided by one vote
    for qid, docid, expected in checks[:2]:
        assert bad.vote(qid, docid, _wrong("answer" if qid == "q2" else "graded", expected)).status_code == 200
    # bad failed (0/2 < 0.7): the vote is excluded and the case re-opens
    assert people_judgment(store, "q1", "d1") is None
    assert (good.next()["qid"], good.next()["docid"]) == ("q1", "d1")
    assert good.vote("q1", "d1", 1).status_code == 200
    label, grade, *_, prov = people_judgment(store, "q1", "d1")
    assert (label, grade) == (0, 1)
    prov = json.loads(prov)
    assert prov["excluded_annotators"] == ["bad"] and [v["annotator"] for v in prov["votes"]] == ["good"]
    stats = boss.client.get("/api/admin/stats").json()
    by_name = {a["name"]: a for a in stats["annotators"]}
    assert (by_name["bad"]["checks"], by_name["bad"]["pass_rate"], by_name["bad"]["excluded"]) == (2, 0.0, True)
    assert by_name["good"]["failed"] is False
    page = boss.client.get("/admin").text
    assert "0/2" in page and "failed – votes excluded" in page
    # keep the failed annotators' votes: 3 vs 1 is an even tie -> one more vote needed
    save_settings(store, AnnotateSettings(exclude_failed=False))
    sync_tasks(store, votes_needed=1, attention_share=0.5)
    assert people_judgment(store, "q1", "d1") is None
    assert store.query("SELECT votes_needed FROM annot_tasks WHERE docid='d1'")[0][0] == 3


def _fail_one_check(store, annotator) -> None:
    sync_tasks(store, votes_needed=1, attention_share=0.5)
    qid, docid, expected = store.query(
        "SELECT qid, docid, expected_grade FROM annot_tasks WHERE kind='attention' ORDER BY priority")[0]
    x = annotator("x")
    x.next()
    x.vote("q1", "d1", 3)
    x.vote(qid, docid, _wrong("answer" if qid == "q2" else "graded", expected))


def test_one_failed_check_is_not_enough_to_fail_under_a_lenient_rule(store, annotator):
    save_settings(store, AnnotateSettings(min_pass_rate=0.7, min_checks=2))
    _fail_one_check(store, annotator)
    assert people_judgment(store, "q1", "d1")[1] == 3


def test_one_failed_check_fails_under_the_default_pass_all_rule(store, annotator):
    _fail_one_check(store, annotator)
    assert people_judgment(store, "q1", "d1") is None


def test_attention_items_are_not_served_alone(store, annotator):
    ann = annotator("ann")
    for qid, docid in ORDER:
        ann.client.get("/api/next")
        assert ann.vote(qid, docid, 1).status_code == 200
    assert ann.next()["done"] is True  # the unseen attention item does not keep them busy


# ---- pages ------------------------------------------------------------------------------------
def test_case_page_escapes_everything_and_has_a_strict_csp(annotator, store):
    ann = annotator("ann")
    r = ann.client.get("/")
    assert r.status_code == 200
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe-inline" not in csp
    assert r.headers["x-content-type-options"] == "nosniff" and r.headers["cache-control"] == "no-store"
    page = r.text
    assert re.findall(r"<script[^>]*>", page) == ['<script src="/static/annotate.js" defer>']
    assert '<mark class="pro">gravitational pull of the Moon</mark>' in page
    assert '<mark class="con">sailing schedules</mark>' in page
    assert "not found in the document" in page
    assert "&lt;b&gt;sailing&lt;/b&gt;" in page  # reasoning escaped
    assert 'name="csrf" value="%s"' % ann.csrf in page
    # vote with the form (the browser path), then the hostile escalation
    r = ann.client.post("/vote", data={"csrf": ann.csrf, "qid": "q1", "docid": "d1", "grade": "2", "seconds": "4.5",
                                       "comment": "ok"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert votes(store) == [("ann", "q1", "d1", 2)]
    assert store.query("SELECT seconds, comment FROM annot_votes")[0] == (4.5, "ok")
    page = ann.client.get("/").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page and "&lt;/textarea&gt;" in page
    assert '<mark class="pro">&lt;script&gt;alert(1)&lt;/script&gt;</mark>' in page
    assert '<mark class="con">&amp; an ampersand</mark>' in page
    assert "<script>alert" not in page and "<img src=x" not in page and "A &lt;b&gt;hostile" in page
    assert page.count("</textarea>") == 1  # only the comment box's own
    # replayed form vote: a 4xx page, nothing recorded
    r = ann.client.post("/vote", data={"csrf": ann.csrf, "qid": "q1", "docid": "d1", "grade": "3"})
    assert r.status_code == 409 and "already voted" in r.text
    r = ann.client.post("/vote", data={"csrf": ann.csrf, "qid": "q1", "docid": "d1", "grade": "x"})
    assert r.status_code == 400
    assert len(votes(store)) == 1


def test_skip_form_notice_and_logout(annotator, store):
    ann = annotator("ann")
    r = ann.client.post("/skip", data={"csrf": ann.csrf, "qid": "q1", "docid": "d1"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/?notice=skipped"
    page = ann.client.get("/?notice=skipped").text
    assert "Skipped" in page and "who wrote hamlet" in page
    assert "<b>evil</b>" not in ann.client.get("/?notice=<b>evil</b>").text  # notices are not reflected
    assert ann.client.post("/skip", data={"csrf": ann.csrf, "qid": "zz", "docid": "d1"}).status_code == 404
    r = ann.client.post("/logout", data={"csrf": ann.csrf})
    assert r.status_code == 200 and "signed out" in r.text
    assert SESSION_COOKIE in r.headers["set-cookie"]
    assert ann.client.get("/api/session").status_code == 401
    assert store.query("SELECT COUNT(*) FROM annot_sessions")[0][0] == 0


def test_done_page_and_static_files(store, annotator, app):
    ann = annotator("ann")
    for qid, docid in ORDER:
        ann.client.get("/api/next")
        ann.vote(qid, docid, 1)
    page = ann.client.get("/").text
    assert 'id="done"' in page and "Nothing left" in page
    r = TestClient(app, base_url="https://testserver").get("/static/annotate.js")
    assert r.status_code == 200 and "javascript" in r.headers["content-type"]
    assert "keydown" in r.text
    assert TestClient(app).get("/docs").status_code == 404 and TestClient(app).get("/openapi.json").status_code == 404


def test_admin_page_shows_progress_agreement_and_labels(annotator, store):
    users = [annotator(n) for n in ("a", "b", "c")]
    plan = {("q1", "d1"): (2, 2, 3), ("q2", "d2"): (1, 1, 0), ("q1", "d3"): (0, 0, 0), ("q1", "d4"): (3, 3, 2),
            ("q2", "d5"): (0, 0, 1), ("q2", "d6"): (1, 1, 1)}
    for (qid, docid), grades in plan.items():
        for x, g in zip(users, grades):
            x.client.get("/api/next")
            r = x.vote(qid, docid, g, seconds=10.0 + g)
            assert r.status_code == 200, r.text
    boss = annotator("boss", admin=True)
    stats = boss.client.get("/api/admin/stats").json()
    assert (stats["total"], stats["decided"], stats["votes"]) == (6, 6, 18)
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    binary = [[int(g >= (1 if q == "q2" else 2)) for g in gs] for (q, _), gs in plan.items()]
    assert stats["fleiss_kappa"] == pytest.approx(fleiss_kappa(aggregate_raters(binary)[0]))
    graded = [list(gs) for (q, _), gs in plan.items() if q == "q1"]
    assert stats["fleiss_kappa_graded"] == pytest.approx(fleiss_kappa(aggregate_raters(graded)[0]))
    a = {x["name"]: x for x in stats["annotators"]}["c"]
    assert a["votes"] == 6 and a["median_seconds"] == pytest.approx(11.0)
    assert {(d["qid"], d["docid"]): d["grade"] for d in stats["decided_labels"]} == {
        ("q1", "d1"): 2, ("q2", "d2"): 1, ("q1", "d3"): 0, ("q1", "d4"): 3, ("q2", "d5"): 0, ("q2", "d6"): 1}
    page = boss.client.get("/admin").text
    assert "Fleiss" in page and "%.3f" % stats["fleiss_kappa"] in page
    assert "<b>6</b> of <b>6</b> cases decided" in page
    assert page.count("<tr><td>q") == 6
