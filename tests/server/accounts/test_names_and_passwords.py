"""New accounts: guessable passwords are refused with the reason; names that read as
the site, a role or one of its pages are reserved however they are spelled; a name
that looks like an existing account's is refused, in every server process (a unique
column).  Existing accounts keep working."""

from __future__ import annotations

import httpx2
import pytest
from argon2.profiles import CHEAPEST
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import insert

from poolcheckers.server.accounts.model import check_password, fold
from poolcheckers.server.database.tables import USERS
from poolcheckers.server.domain_errors import PasswordError

from ..conftest import AppFactory
from ..helpers import error_code, server_context

PASSWORD = "correct horse battery"


@pytest.fixture
def client(make_client: AppFactory) -> TestClient:
    return make_client(password_parameters=CHEAPEST, signup_limit=(1000, 3600.0))


def signup(client: TestClient, name: str, password: str = PASSWORD) -> httpx2.Response:
    client.cookies.clear()
    return client.post("/api/account/signup", json={"username": name, "password": password})


@pytest.mark.parametrize("password", ["12345678", "password1", "AnnAnnAnn", "annann12"])
def test_common_and_guessable_passwords_are_refused_with_the_reason(
    client: TestClient, password: str
) -> None:
    r = signup(client, "Ann", password)
    assert r.status_code == 400, r.text
    assert "too easy to guess" in r.json()["error"]["message"]


def test_the_username_typed_twice_is_refused() -> None:
    with pytest.raises(PasswordError, match="too easy to guess"):
        check_password("Marjolaine" * 2, "Marjolaine")


def test_a_good_passphrase_is_accepted(client: TestClient) -> None:
    assert signup(client, "Ann").status_code == 200


@pytest.mark.parametrize(
    "name",
    ["admin_", "Engine-", "Anonymous1", "ADM1N", "r00t", "Moderator99", "poolcheckers_",
     "System", "support", "null", "undefined", "api", "static"],
)  # fmt: skip
def test_reserved_names_are_refused_however_spelled(client: TestClient, name: str) -> None:
    r = signup(client, name)
    assert r.status_code == 400 and "reserved" in r.json()["error"]["message"], r.text


def route_segments(client: TestClient) -> set[str]:
    app = client.app
    assert isinstance(app, FastAPI)
    paths = [path for path, _name in app.openapi()["paths"].items()]
    paths += [str(getattr(r, "path", "")) for r in app.routes]
    for route in app.routes:
        inner = getattr(route, "original_router", None)
        paths += [str(getattr(r, "path", "")) for r in getattr(inner, "routes", [])]
    firsts = {path.strip("/").split("/", 1)[0] for path in paths}
    return {first for first in firsts if first and "{" not in first}


def test_every_first_segment_of_a_route_is_refused_as_a_name(client: TestClient) -> None:
    segments = route_segments(client)
    assert {"lobby", "players", "account", "ws", "api"} <= segments
    for segment in sorted(segments):
        if 2 <= len(segment) <= 20 and segment.replace("-", "").replace("_", "").isalnum():
            r = signup(client, segment)
            assert r.status_code == 400, (segment, r.text)
            assert "reserved" in r.json()["error"]["message"], (segment, r.text)


@pytest.mark.parametrize(("first", "second"), [("I1l", "Il1"), ("Ann0", "annO"), ("burn", "bum")])
def test_a_name_like_an_existing_one_is_refused(
    client: TestClient, first: str, second: str
) -> None:
    assert signup(client, first).status_code == 200
    r = signup(client, second)
    assert r.status_code == 409 and error_code(r) == "conflict", r.text


def test_lookalike_names_registered_before_keep_working(client: TestClient) -> None:
    """Accounts made before the rule (same folded name, or a reserved spelling) sign in."""
    assert signup(client, "Il1").status_code == 200
    db = server_context(client).db
    with db.begin() as conn:  # as an older server stored it: no folded name
        conn.execute(
            insert(USERS).values(
                id="old-admin", username="admin_", username_key="admin_",
                password_hash=server_context(client).accounts.accounts.passwords.hash("12345678"),
                created_ms=0,
            )
        )  # fmt: skip
    client.cookies.clear()
    r = client.post("/api/account/login", json={"username": "admin_", "password": "12345678"})
    assert r.status_code == 200, r.text


@given(st.text(alphabet="abcIl1iO0o5sSrnm_-", min_size=2, max_size=20))
def test_folding_is_idempotent_and_ignores_case(name: str) -> None:
    assert fold(fold(name)) == fold(name)
    assert fold(name.upper()) == fold(name.lower())
