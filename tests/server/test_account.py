"""Accounts over HTTP: sign-up, sign-in, sign-out, the
session cookie, password change, sign-in limits, and the cross-site request rule."""

from __future__ import annotations

import httpx2
import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select

from poolcheckers.server.accounts.sessions import COOKIE_NAME, csrf_token
from poolcheckers.server.database.tables import SESSIONS, USERS

from .conftest import AppFactory
from .helpers import error_code, server_context

PASSWORD = "correct horse battery"


@pytest.fixture
def client(make_client: AppFactory) -> TestClient:
    return make_client(password_parameters=CHEAPEST)


def signup(client: TestClient, name: str = "Ann", password: str = PASSWORD) -> httpx2.Response:
    return client.post("/api/account/signup", json={"username": name, "password": password})


def csrf(client: TestClient) -> dict[str, str]:
    r = client.get("/api/account")
    assert r.status_code == 200, r.text
    return {"X-CSRF-Token": r.json()["csrf_token"]}


def test_signup_signs_in_with_an_httponly_lax_cookie(client: TestClient) -> None:
    r = signup(client)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["username"] == "Ann"
    token = client.cookies[COOKIE_NAME]
    assert body["csrf_token"] == csrf_token(token)
    assert token not in r.text  # the session token only travels in the cookie
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
    me = client.get("/api/account")
    assert me.status_code == 200 and me.json()["username"] == "Ann"
    assert me.headers["cache-control"] == "no-store"


def test_cookie_is_secure_behind_https(make_client: AppFactory) -> None:
    client = make_client(password_parameters=CHEAPEST)
    client.base_url = client.base_url.copy_with(scheme="https")
    r = signup(client)
    assert r.status_code == 200, r.text
    assert "secure" in r.headers["set-cookie"].lower()


def test_no_session_is_401_unauthorized(client: TestClient) -> None:
    r = client.get("/api/account")
    assert r.status_code == 401 and error_code(r) == "unauthorized"
    client.cookies.set(COOKIE_NAME, "not-a-session")
    r = client.get("/api/account")
    assert r.status_code == 401 and error_code(r) == "unauthorized"


def test_usernames_are_validated_and_unique_without_case(client: TestClient) -> None:
    for bad, words in [("a", "2 to 20"), ("<b>x</b>", "may only use"), ("admin", "reserved")]:
        r = signup(client, bad)
        assert r.status_code == 400 and error_code(r) == "bad_request"
        assert words in r.json()["error"]["message"]
    assert signup(client, "Ann").status_code == 200
    client.cookies.clear()
    r = signup(client, "aNN")
    assert r.status_code == 409 and error_code(r) == "conflict"
    r = signup(client, "Bob", "short")
    assert r.status_code == 400 and "at least 8" in r.json()["error"]["message"]


def test_login_by_any_case_and_the_same_answer_for_unknown_or_wrong(
    client: TestClient,
) -> None:
    signup(client)
    client.cookies.clear()
    wrong = client.post("/api/account/login", json={"username": "ann", "password": "x" * 9})
    unknown = client.post("/api/account/login", json={"username": "nobody", "password": PASSWORD})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    r = client.post("/api/account/login", json={"username": "ANN", "password": PASSWORD})
    assert r.status_code == 200 and r.json()["username"] == "Ann"
    assert client.get("/api/account").status_code == 200


def test_logout_ends_the_session(client: TestClient) -> None:
    signup(client)
    token = client.cookies[COOKIE_NAME]
    r = client.post("/api/account/logout", headers=csrf(client))
    assert r.status_code == 204
    assert COOKIE_NAME not in client.cookies
    client.cookies.set(COOKIE_NAME, token)  # a stolen copy of the cookie no longer works
    assert client.get("/api/account").status_code == 401


def test_password_change_ends_every_other_session(make_client: AppFactory) -> None:
    phone = make_client(password_parameters=CHEAPEST)
    laptop = make_client(password_parameters=CHEAPEST)
    signup(phone)
    r = laptop.post("/api/account/login", json={"username": "Ann", "password": PASSWORD})
    assert r.status_code == 200
    old_phone = phone.cookies[COOKIE_NAME]
    new = "another good password"
    r = phone.post("/api/account/password", json={"old": PASSWORD, "new": new}, headers=csrf(phone))
    assert r.status_code == 200, r.text
    assert phone.cookies[COOKIE_NAME] != old_phone
    assert phone.get("/api/account").status_code == 200  # this device: signed in again
    assert laptop.get("/api/account").status_code == 401  # every other session ended
    laptop.cookies.clear()
    old = laptop.post("/api/account/login", json={"username": "Ann", "password": PASSWORD})
    assert old.status_code == 401
    assert (
        laptop.post("/api/account/login", json={"username": "Ann", "password": new}).status_code
        == 200
    )


def test_password_change_needs_the_old_password(client: TestClient) -> None:
    signup(client)
    r = client.post(
        "/api/account/password",
        json={"old": "not the password", "new": "another good password"},
        headers=csrf(client),
    )
    assert r.status_code == 401 and error_code(r) == "unauthorized"
    assert client.get("/api/account").status_code == 200


def test_sign_in_attempts_are_rate_limited(make_client: AppFactory) -> None:
    client = make_client(password_parameters=CHEAPEST, signin_limit=(3, 600.0))
    signup(client)
    client.cookies.clear()
    for _ in range(3):
        r = client.post("/api/account/login", json={"username": "Ann", "password": "x" * 9})
        assert r.status_code == 401
    r = client.post("/api/account/login", json={"username": "Ann", "password": PASSWORD})
    assert r.status_code == 429 and error_code(r) == "rate_limited"
    assert int(r.headers["retry-after"]) > 0


def test_sign_ups_are_rate_limited(make_client: AppFactory) -> None:
    client = make_client(password_parameters=CHEAPEST, signup_limit=(2, 3600.0))
    for name in ("Ann", "Bob"):
        assert signup(client, name).status_code == 200
        client.cookies.clear()
    r = signup(client, "Cid")
    assert r.status_code == 429 and error_code(r) == "rate_limited"


# ---------------------------------------------------------------- cross-site requests
def test_cookie_authenticated_change_needs_origin_or_csrf_token(client: TestClient) -> None:
    signup(client)
    # no Origin and no X-CSRF-Token: refused, and the session lives on
    r = client.post("/api/account/logout")
    assert r.status_code == 403 and error_code(r) == "forbidden"
    r = client.post("/api/account/logout", headers={"Origin": "https://evil.example"})
    assert r.status_code == 403
    r = client.post("/api/account/logout", headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    assert client.get("/api/account").status_code == 200
    # the site's own origin is enough
    r = client.post("/api/account/logout", headers={"Origin": "http://testserver"})
    assert r.status_code == 204


def test_configured_site_origin_is_accepted(make_client: AppFactory) -> None:
    client = make_client(password_parameters=CHEAPEST, site_origins=("https://checkers.example",))
    signup(client)
    r = client.post("/api/account/logout", headers={"Origin": "https://checkers.example"})
    assert r.status_code == 204


def test_login_from_another_site_is_refused(client: TestClient) -> None:
    signup(client)
    client.cookies.clear()
    r = client.post(
        "/api/account/login",
        json={"username": "Ann", "password": PASSWORD},
        headers={"Origin": "https://evil.example"},
    )
    assert r.status_code == 403 and COOKIE_NAME not in client.cookies


def test_anonymous_play_needs_no_csrf_token(client: TestClient) -> None:
    """Seat tokens are not cookies: games without an account work as before."""
    r = client.post("/api/games", json={"mode": "local"})
    assert r.status_code == 200
    gid, token = r.json()["game"]["id"], r.json()["token"]
    r = client.post(f"/api/games/{gid}/move", json={"move": "11-15", "ply": 0, "token": token})
    assert r.status_code == 200


def test_a_signed_in_player_changes_games_only_from_the_site(client: TestClient) -> None:
    signup(client)
    r = client.post("/api/games", json={"mode": "local"})
    assert r.status_code == 403 and error_code(r) == "forbidden"
    r = client.post("/api/games", json={"mode": "local"}, headers=csrf(client))
    assert r.status_code == 200


def test_the_database_keeps_no_secret_in_the_clear(client: TestClient, db_url: str) -> None:
    signup(client)
    token = client.cookies[COOKIE_NAME]
    engine = create_engine(db_url)
    with engine.connect() as conn:
        user = conn.execute(select(USERS)).mappings().one()
        digests = [r[0] for r in conn.execute(select(SESSIONS.c.digest))]
    engine.dispose()
    assert user["password_hash"].startswith("$argon2id$") and PASSWORD not in str(dict(user))
    assert token not in digests and len(digests) == 1


def test_password_hashes_run_in_threads_at_most_n_at_once(make_client: AppFactory) -> None:
    """A flood of sign-ins queues for the hash slots instead of taking every core."""
    import asyncio
    import threading
    import time

    from poolcheckers.server.accounts.service import AccountService
    from poolcheckers.server.settings import Settings

    client = make_client(password_parameters=CHEAPEST, hash_concurrency=2)
    accounts = server_context(client).accounts
    assert isinstance(accounts, AccountService) and isinstance(accounts.settings, Settings)
    lock = threading.Lock()
    running, most, threads = [0], [0], set()

    def fake_hash() -> None:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.02)  # stands in for the Argon2 work (no timing is asserted)
        with lock:
            running[0] -= 1
            threads.add(threading.get_ident())

    async def flood() -> None:
        await asyncio.gather(*(accounts.hashing(fake_hash) for _ in range(8)))

    main = threading.get_ident()
    asyncio.run(flood())
    assert most[0] == 2
    assert threads and main not in threads  # never on the event loop's thread


def test_serve_options_set_the_account_limits() -> None:
    """A benchmark signing everyone up from 127.0.0.1 raises the limits by option."""
    from poolcheckers.server.cli import build_parser, settings_from

    args = build_parser().parse_args(
        ["--signin-limit", "5000", "--signup-limit", "400", "--hash-concurrency", "1",
         "--site-origin", "https://checkers.example", "--site-origin", "https://b.example"]
    )  # fmt: skip
    s = settings_from(args, "sqlite:///x.sqlite3")
    assert s.signin_limit == (5000, 600.0) and s.signup_limit == (400, 3600.0)
    assert s.hash_concurrency == 1
    assert s.site_origins == ("https://checkers.example", "https://b.example")
    d = settings_from(build_parser().parse_args([]), "sqlite:///x.sqlite3")
    assert (d.signin_limit, d.signup_limit, d.site_origins) == ((20, 600.0), (5, 3600.0), ())
