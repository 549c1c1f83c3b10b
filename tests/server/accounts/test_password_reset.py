"""A forgotten password: an administrator's command prints a one-time code
(``poolcheckers reset-password NAME``), the player sets a new password with it on the
account page; the code works once, for one hour, and every old session ends. Signed-out
visitors ask ``GET /api/session`` and get a null account, never a 401; the username
limits of the API say what the sign-up form says."""

from __future__ import annotations

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient

from poolcheckers.cli import main as poolcheckers_main
from poolcheckers.server.accounts.model import (
    RESET_CODE_SECONDS,
    Accounts,
    MemoryUserStore,
    Passwords,
)
from poolcheckers.server.domain_errors import CredentialsError

from ..conftest import AppFactory

PASSWORD = "correct horse battery"
NEW = "a brand new secret"


@pytest.fixture
def client(make_client: AppFactory) -> TestClient:
    return make_client(password_parameters=CHEAPEST)


def reset_code(db_url: str, name: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert poolcheckers_main(["reset-password", name, "--database-url", db_url]) == 0
    out = capsys.readouterr().out
    assert "Valid until" in out
    return out.split(": ", 1)[1].split()[0]


def test_a_code_from_the_command_sets_a_new_password_once(
    make_client: AppFactory, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ann = make_client(password_parameters=CHEAPEST)
    assert (
        ann.post("/api/account/signup", json={"username": "Ann", "password": PASSWORD}).status_code
        == 200
    )
    code = reset_code(db_url, "ann", capsys)
    assert len(code) == 14 and code.count("-") == 2
    other = make_client(password_parameters=CHEAPEST)
    answer = other.post(
        "/api/account/reset", json={"username": "Ann", "code": code.lower(), "password": NEW}
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["username"] == "Ann"  # and signed in on this device
    assert other.get("/api/account").status_code == 200
    # the old session ended with the old password; the new password signs in
    assert ann.get("/api/account").status_code == 401
    fresh = make_client(password_parameters=CHEAPEST)
    login = fresh.post("/api/account/login", json={"username": "Ann", "password": NEW})
    assert login.status_code == 200
    # the code worked once
    again = make_client(password_parameters=CHEAPEST).post(
        "/api/account/reset", json={"username": "Ann", "code": code, "password": PASSWORD}
    )
    assert again.status_code == 401 and "wrong or expired reset code" in again.text


def test_a_wrong_or_expired_code_changes_nothing(
    make_client: AppFactory, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ann = make_client(password_parameters=CHEAPEST)
    ann.post("/api/account/signup", json={"username": "Ann", "password": PASSWORD})
    code = reset_code(db_url, "Ann", capsys)
    visitor = make_client(password_parameters=CHEAPEST)  # a device signed out
    wrong = visitor.post(
        "/api/account/reset", json={"username": "Ann", "code": "AAAA-BBBB-CCCC", "password": NEW}
    )
    assert wrong.status_code == 401
    elsewhere = visitor.post(
        "/api/account/reset", json={"username": "Bob", "code": code, "password": NEW}
    )
    assert elsewhere.status_code == 401  # a code is for its own account only
    weak = visitor.post(
        "/api/account/reset", json={"username": "Ann", "code": code, "password": "x"}
    )
    assert weak.status_code == 400 and "at least 8" in weak.text
    assert ann.get("/api/account").status_code == 200  # still signed in: nothing changed
    login = visitor.post("/api/account/login", json={"username": "Ann", "password": PASSWORD})
    assert login.status_code == 200


def test_a_code_expires_after_an_hour() -> None:
    now = [1_000_000.0]
    accounts = Accounts(MemoryUserStore(), passwords=Passwords(CHEAPEST), clock=lambda: now[0])
    accounts.signup("Ann", PASSWORD, address="192.0.2.1")
    code, expires = accounts.issue_reset_code("Ann")
    assert expires == now[0] + RESET_CODE_SECONDS == now[0] + 3600
    now[0] = expires + 1
    with pytest.raises(CredentialsError, match="wrong or expired reset code"):
        accounts.reset_password("Ann", code, NEW, address="192.0.2.1")
    # a new code replaces the old one
    first, _ = accounts.issue_reset_code("Ann")
    second, _ = accounts.issue_reset_code("Ann")
    with pytest.raises(CredentialsError):
        accounts.reset_password("Ann", first, NEW, address="192.0.2.1")
    assert accounts.reset_password("Ann", second, NEW, address="192.0.2.1").user.username == "Ann"


def test_the_command_names_an_unknown_account(
    db_url: str, client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    assert poolcheckers_main(["reset-password", "nobody", "--database-url", db_url]) == 1
    assert "no account named 'nobody'" in capsys.readouterr().err


def test_a_signed_out_visitor_is_a_null_account_not_an_error(client: TestClient) -> None:
    answer = client.get("/api/session")
    assert answer.status_code == 200 and answer.json() == {"account": None}
    client.post("/api/account/signup", json={"username": "Ann", "password": PASSWORD})
    account = client.get("/api/session").json()["account"]
    assert account["username"] == "Ann" and account["csrf_token"]
    assert client.get("/api/session").headers["cache-control"] == "no-store"


@pytest.mark.parametrize("length", [1, 21, 25, 300])
def test_the_api_states_the_username_rule_whatever_the_length(
    client: TestClient, length: int
) -> None:
    answer = client.post(
        "/api/account/signup", json={"username": "a" * length, "password": PASSWORD}
    )
    assert answer.status_code == 400
    assert f"username must be 2 to 20 characters, not {length}" in answer.text
