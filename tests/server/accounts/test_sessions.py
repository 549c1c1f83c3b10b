"""Sessions (hashed tokens, expiry, sign-out, password change) and cross-site request checks."""

from __future__ import annotations

import pytest

from poolcheckers.server.accounts.sessions import (
    IDLE_TIMEOUT,
    MAX_LIFETIME,
    TOUCH_INTERVAL,
    MemorySessionStore,
    Sessions,
    csrf_token,
    csrf_valid,
    new_token,
    normalise_origin,
    request_allowed,
    session_cookie,
    token_digest,
)

SITE = {"https://checkers.example", "http://localhost:8000"}


@pytest.fixture
def sessions() -> Sessions:
    return Sessions(MemorySessionStore())


def test_tokens_are_long_random_and_stored_only_as_digests(sessions: Sessions) -> None:
    tokens = {new_token() for _ in range(100)}
    assert len(tokens) == 100
    assert all(len(t) == 43 for t in tokens)
    token, session = sessions.start("u1", at=0.0)
    assert session.digest == token_digest(token) and session.user_id == "u1"
    store = sessions.store
    assert isinstance(store, MemorySessionStore)
    assert list(store.sessions) == [token_digest(token)]
    assert token not in repr(store.sessions)


def test_sign_out_ends_only_that_device(sessions: Sessions) -> None:
    phone, _ = sessions.start("u1", at=0.0)
    laptop, _ = sessions.start("u1", at=0.0)
    assert sessions.end(phone)
    assert sessions.authenticate(phone, at=1.0) is None
    assert sessions.authenticate(laptop, at=1.0) is not None
    assert not sessions.end(phone)  # already ended


def test_password_change_ends_every_session_of_the_user(sessions: Sessions) -> None:
    phone, _ = sessions.start("u1", at=0.0)
    laptop, _ = sessions.start("u1", at=0.0)
    other, _ = sessions.start("u2", at=0.0)
    fresh = sessions.end_all("u1", at=5.0)
    assert fresh is not None
    assert sessions.authenticate(phone, at=6.0) is None
    assert sessions.authenticate(laptop, at=6.0) is None
    assert sessions.authenticate(fresh, at=6.0) is not None
    assert sessions.authenticate(other, at=6.0) is not None
    assert sessions.end_all("u2", at=7.0, keep_signed_in=False) is None
    assert sessions.authenticate(other, at=8.0) is None


def test_idle_and_old_sessions_expire(sessions: Sessions) -> None:
    idle, _ = sessions.start("u1", at=0.0)
    assert sessions.authenticate(idle, at=IDLE_TIMEOUT + 1) is None
    kept, _ = sessions.start("u1", at=0.0)
    t = 0.0
    while t < MAX_LIFETIME - IDLE_TIMEOUT / 2:
        t += IDLE_TIMEOUT / 2
        assert sessions.authenticate(kept, at=t) is not None
    assert sessions.authenticate(kept, at=MAX_LIFETIME + 1) is None


def test_last_seen_is_written_at_most_once_a_minute(sessions: Sessions) -> None:
    token, _ = sessions.start("u1", at=0.0)
    digest = token_digest(token)
    sessions.authenticate(token, at=TOUCH_INTERVAL / 2)
    got = sessions.store.get(digest)
    assert got is not None and got.last_seen == 0.0
    sessions.authenticate(token, at=TOUCH_INTERVAL)
    got = sessions.store.get(digest)
    assert got is not None and got.last_seen == TOUCH_INTERVAL


def test_unknown_and_missing_tokens(sessions: Sessions) -> None:
    assert sessions.authenticate(None, at=0.0) is None
    assert sessions.authenticate("", at=0.0) is None
    assert sessions.authenticate(new_token(), at=0.0) is None


def test_csrf_token_is_per_session() -> None:
    a, b = new_token(), new_token()
    assert csrf_valid(a, csrf_token(a))
    assert not csrf_valid(a, csrf_token(b))
    assert not csrf_valid(a, None) and not csrf_valid(a, "")
    assert a not in csrf_token(a)


@pytest.mark.parametrize(
    ("method", "origin", "with_csrf", "cookie", "allowed"),
    [
        ("GET", "https://evil.example", False, True, True),  # safe method
        ("POST", None, False, False, True),  # no cookie: nothing to forge
        ("POST", "https://checkers.example", False, True, True),
        ("POST", "https://CHECKERS.example:443", False, True, True),
        ("POST", "http://localhost:8000", False, True, True),
        ("POST", "https://evil.example", False, True, False),
        ("POST", "null", False, True, False),
        ("POST", None, False, True, False),
        ("DELETE", "http://checkers.example", False, True, False),  # scheme differs
        ("POST", "https://checkers.example.evil.example", False, True, False),
        ("POST", "https://evil.example", True, True, True),  # the header proves it
        ("POST", None, True, True, True),
    ],
)
def test_state_changing_requests_need_the_site_origin_or_the_csrf_token(
    method: str, origin: str | None, with_csrf: bool, cookie: bool, allowed: bool
) -> None:
    token = new_token()
    assert (
        request_allowed(
            method,
            origin=origin,
            csrf=csrf_token(token) if with_csrf else None,
            session_token=token if cookie else None,
            site_origins=SITE,
        )
        is allowed
    )


def test_origins_normalise() -> None:
    assert normalise_origin("http://[::1]:8000") == "http://[::1]:8000"
    assert normalise_origin("http://localhost:80") == "http://localhost"
    assert normalise_origin("ftp://x") is None
    assert normalise_origin("http://x:99999") is None


def test_cookie_attributes() -> None:
    cookie = session_cookie("tok", secure=False)
    assert cookie["key"] == "pc_session" and cookie["value"] == "tok"
    assert cookie["httponly"] is True and cookie["samesite"] == "lax"
    assert cookie["secure"] is False
    assert session_cookie("tok", secure=True)["secure"] is True
