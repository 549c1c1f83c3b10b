"""Sign-in limits over HTTP: an attacker cannot lock a player out, the counts are one
for every server process (PostgreSQL), and a flood of sign-ins is answered 503 at once
instead of queueing without end."""

from __future__ import annotations

import asyncio
import time

import httpx2
import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient

from poolcheckers.server.accounts.model import SignedIn
from poolcheckers.server.timesource import ManualTime

from ..conftest import AppFactory
from ..helpers import error_code, server_context

PASSWORD = "correct horse battery"
ATTACKER = "203.0.113.7"
OWNER = "198.51.100.2"


def device(app: TestClient, address: str) -> TestClient:
    """Another browser on the server of ``app``, at ``address``."""
    return TestClient(app.app, client=(address, 50000))


def login(client: TestClient, password: str, name: str = "ann") -> httpx2.Response:
    return client.post("/api/account/login", json={"username": name, "password": password})


def signed_up(client: TestClient, name: str = "Ann") -> None:
    r = client.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    client.cookies.clear()


@pytest.fixture
def app(make_client: AppFactory) -> TestClient:
    # many attempts in one (frozen) minute: the per-minute limit is tested apart
    client = make_client(password_parameters=CHEAPEST, signin_burst_limit=(99, 60.0))
    signed_up(client)
    return client


def test_ten_wrong_passwords_from_elsewhere_do_not_lock_the_owner_out(app: TestClient) -> None:
    attacker = device(app, ATTACKER)
    for _ in range(10):
        assert login(attacker, "not the password").status_code == 401
    r = login(device(app, OWNER), PASSWORD)
    assert r.status_code == 200, r.text


def test_the_attackers_eleventh_attempt_is_refused_with_retry_after(app: TestClient) -> None:
    attacker = device(app, ATTACKER)
    for _ in range(10):
        assert login(attacker, "not the password").status_code == 401
    r = login(attacker, PASSWORD)
    assert r.status_code == 429 and error_code(r) == "rate_limited"
    assert int(r.headers["retry-after"]) > 0


def test_signing_in_clears_the_failures_of_that_address(app: TestClient) -> None:
    owner = device(app, OWNER)
    for _ in range(9):
        assert login(owner, "not the password").status_code == 401
    assert login(owner, PASSWORD).status_code == 200
    owner.cookies.clear()
    for _ in range(9):
        assert login(owner, "not the password").status_code == 401
    assert login(owner, PASSWORD).status_code == 200


def test_a_guesser_spread_over_many_addresses_meets_the_ceiling(
    make_client: AppFactory,
) -> None:
    client = make_client(password_parameters=CHEAPEST, signin_user_failure_limit=(30, 3600.0))
    signed_up(client)
    for i in range(30):
        assert login(device(client, f"192.0.2.{i + 1}"), "not the password").status_code == 401
    r = login(device(client, "192.0.2.200"), "not the password")
    assert r.status_code == 429 and error_code(r) == "rate_limited"


def alternate_attempts(one: TestClient, two: TestClient, limit: int) -> list[int]:
    """Sign-in attempts from one address, alternately on each server."""
    apps = [device(one, ATTACKER), device(two, ATTACKER)]
    return [login(apps[i % 2], "not the password").status_code for i in range(limit + 4)]


def test_two_servers_over_one_database_share_the_limit(make_client: AppFactory) -> None:
    one = make_client(
        password_parameters=CHEAPEST, signin_limit=(6, 600.0), signin_burst_limit=(99, 60.0)
    )
    two = make_client(
        password_parameters=CHEAPEST, signin_limit=(6, 600.0), signin_burst_limit=(99, 60.0)
    )
    signed_up(one)
    assert alternate_attempts(one, two, 6) == [401] * 6 + [429] * 4


@pytest.mark.postgres
def test_two_servers_over_postgres_share_the_limit(pg_app: AppFactory) -> None:
    def app() -> TestClient:
        return pg_app(
            password_parameters=CHEAPEST, signin_limit=(6, 600.0), signin_burst_limit=(99, 60.0)
        )

    with app() as one, app() as two:
        signed_up(one)
        assert alternate_attempts(one, two, 6) == [401] * 6 + [429] * 4


def test_a_flood_of_sign_ins_past_the_queue_is_answered_503_at_once(
    make_client: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_client(
        password_parameters=CHEAPEST,
        hash_concurrency=1,
        hash_queue=2,
        signin_limit=(999, 600.0),
        signin_burst_limit=(999, 60.0),
    )
    signed_up(client)
    accounts = server_context(client).accounts.accounts
    real_login = accounts.login

    def slow_login(username: object, password: object, *, address: str) -> SignedIn:
        time.sleep(0.3)  # stands in for a slow Argon2 hash
        return real_login(username, password, address=address)

    monkeypatch.setattr(accounts, "login", slow_login)

    async def flood() -> list[tuple[int, float, str | None]]:
        transport = httpx2.ASGITransport(app=client.app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as c:

            async def one() -> tuple[int, float, str | None]:
                start = time.monotonic()
                r = await c.post(
                    "/api/account/login", json={"username": "ann", "password": PASSWORD}
                )
                return r.status_code, time.monotonic() - start, r.headers.get("retry-after")

            return await asyncio.gather(*(one() for _ in range(8)))

    answers = asyncio.run(flood())
    admitted = [a for a in answers if a[0] == 200]
    refused = [a for a in answers if a[0] == 503]
    assert len(admitted) == 3 and len(refused) == 5, answers
    assert all(seconds < 0.25 and retry is not None and int(retry) >= 1
               for _status, seconds, retry in refused)  # fmt: skip


def test_serve_options_set_the_per_username_ceiling_and_the_hash_queue() -> None:
    from poolcheckers.server.cli import build_parser, settings_from

    args = build_parser().parse_args(["--signin-user-limit", "300", "--hash-queue", "3"])
    s = settings_from(args, "sqlite:///x.sqlite3")
    assert s.signin_user_failure_limit == (300, 3600.0) and s.hash_queue == 3
    d = settings_from(build_parser().parse_args([]), "sqlite:///x.sqlite3")
    assert d.signin_user_failure_limit == (100, 3600.0) and d.hash_queue == 8
    assert "(100)" in build_parser().format_help()


def test_an_address_gets_a_few_sign_ins_a_minute_before_any_password_is_checked(
    make_client: AppFactory, clock: ManualTime
) -> None:
    client = make_client(password_parameters=CHEAPEST, signin_burst_limit=(3, 60.0))
    signed_up(client)
    attacker = device(client, ATTACKER)
    for _ in range(3):
        assert login(attacker, "not the password").status_code == 401
    r = login(attacker, PASSWORD)
    assert r.status_code == 429 and error_code(r) == "rate_limited"
    assert 0 < int(r.headers["retry-after"]) <= 60
    assert login(device(client, OWNER), PASSWORD).status_code == 200
    clock.advance(121)
    assert login(attacker, PASSWORD).status_code == 200
