"""A socket signed in by a session speaks for the account only while that session
lives: after signing out, or after the password changed on another device, it can no
longer move or resign, in this server process or another one."""

from __future__ import annotations

import time
from typing import Any

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from poolcheckers.server.accounts.sessions import COOKIE_NAME

from ..conftest import AppFactory

PASSWORD = "correct horse battery"


def device(app: TestClient, name: str, *, new: bool = False) -> TestClient:
    """A browser signed in as ``name`` on the server of ``app``; it sends the CSRF
    header as the site does."""
    client = TestClient(app.app)
    path = "/api/account/signup" if new else "/api/account/login"
    r = client.post(path, json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


def cookie(client: TestClient) -> dict[str, str]:
    return {"cookie": f"{COOKIE_NAME}={client.cookies[COOKIE_NAME]}"}


@pytest.fixture
def game(make_client: AppFactory) -> tuple[TestClient, str]:
    """Ann (black) and Bob (white) in an online game on one server; Ann's client, the id."""
    server = make_client(password_parameters=CHEAPEST)
    ann = device(server, "Ann", new=True)
    bob = device(server, "Bob", new=True)
    r = ann.post("/api/games", json={"mode": "online", "color": "black", "clock": {"initial": 300}})
    assert r.status_code == 200, r.text
    gid = r.json()["game"]["id"]
    invite = r.json()["invite"].split("invite=", 1)[1]
    assert bob.post(f"/api/games/{gid}/join", json={"invite": invite}).status_code == 200
    return ann, gid


def resign_is_refused(ws: Any, ann: TestClient, gid: str) -> None:
    """A resign sent over ``ws`` does not end the game."""
    try:
        ws.send_json({"type": "resign"})
        answer = ws.receive_json()
        assert answer.get("error", {}).get("code") == "unauthorized", answer
    except WebSocketDisconnect:
        pass  # closed at once: nothing to resign with
    assert ann.get(f"/api/games/{gid}").json()["status"] == "running"


def test_a_game_socket_cannot_resign_after_signing_out(game: tuple[TestClient, str]) -> None:
    ann, gid = game
    phone = device(ann, "Ann")
    with phone.websocket_connect(f"/ws/games/{gid}", headers=cookie(phone)) as ws:
        assert ws.receive_json()["game"]["your_color"] == "black"
        assert phone.post("/api/account/logout").status_code == 204
        resign_is_refused(ws, ann, gid)


def test_a_game_socket_cannot_resign_after_the_password_changed_elsewhere(
    game: tuple[TestClient, str],
) -> None:
    ann, gid = game
    phone = device(ann, "Ann")
    with phone.websocket_connect(f"/ws/games/{gid}", headers=cookie(phone)) as ws:
        assert ws.receive_json()["game"]["your_color"] == "black"
        r = ann.post("/api/account/password", json={"old": PASSWORD, "new": "a new good pass 42"})
        assert r.status_code == 200, r.text
        resign_is_refused(ws, ann, gid)


def test_a_socket_of_another_process_cannot_resign_after_signing_out(
    game: tuple[TestClient, str], make_client: AppFactory
) -> None:
    ann, gid = game
    other_server = make_client(password_parameters=CHEAPEST)  # same database
    phone = device(other_server, "Ann")
    with phone.websocket_connect(f"/ws/games/{gid}", headers=cookie(phone)) as ws:
        assert ws.receive_json()["game"]["your_color"] == "black"
        laptop = TestClient(ann.app, cookies=phone.cookies, headers=dict(phone.headers))
        assert laptop.post("/api/account/logout").status_code == 204
        ws.send_json({"type": "resign"})
        assert ws.receive_json()["error"]["code"] == "unauthorized"
    assert ann.get(f"/api/games/{gid}").json()["status"] == "running"


def test_a_lobby_socket_closes_when_its_session_ends(game: tuple[TestClient, str]) -> None:
    ann, _gid = game
    phone = device(ann, "Ann")
    with phone.websocket_connect("/ws/lobby", headers=cookie(phone)) as ws:
        assert ws.receive_json()["type"] == "seeks"
        assert phone.post("/api/account/logout").status_code == 204
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.send_json({"type": "ping"})
            ws.receive_json()
        assert closed.value.code == 4401


@pytest.mark.postgres
def test_a_socket_of_another_process_closes_when_every_session_ends(
    pg_app: AppFactory,
) -> None:
    """The password changes on one server process: Ann's game socket on another is
    closed (4401) as this one's are, not left open to answer its next action."""
    with pg_app(password_parameters=CHEAPEST) as one, pg_app(password_parameters=CHEAPEST) as two:
        ann, bob = device(one, "Ann", new=True), device(one, "Bob", new=True)
        body = {"mode": "online", "color": "black", "clock": {"initial": 300, "increment": 3}}
        r = ann.post("/api/games", json=body)
        gid = r.json()["game"]["id"]
        invite = r.json()["invite"].split("invite=", 1)[1]
        assert bob.post(f"/api/games/{gid}/join", json={"invite": invite}).status_code == 200
        phone = device(two, "Ann")
        with phone.websocket_connect(f"/ws/games/{gid}", headers=cookie(phone)) as ws:
            assert ws.receive_json()["game"]["your_color"] == "black"
            new = {"old": PASSWORD, "new": "a new good pass 42"}
            assert ann.post("/api/account/password", json=new).status_code == 200
            time.sleep(0.5)  # the notice reaches the other process
            # a ping (the test client's socket runs its own loop: this wakes it)
            # meets a closed socket, not a pong
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.send_json({"type": "ping"})
                ws.receive_json()
            assert closed.value.code == 4401
