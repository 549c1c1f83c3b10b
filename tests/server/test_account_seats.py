"""Seats follow the player: a signed-in player's seat is bound to
the account and is theirs on any device by the session, without the token;
anonymous seats work as before."""

from __future__ import annotations

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient

from poolcheckers.server.accounts.sessions import COOKIE_NAME

from .conftest import AppFactory
from .helpers import error_code, ws_seat

PASSWORD = "correct horse battery"


def signed_in(make_client: AppFactory, name: str, *, new: bool = True) -> TestClient:
    """A device (client) signed in as ``name``; it sends the CSRF header as the site does."""
    client = make_client(password_parameters=CHEAPEST)
    path = "/api/account/signup" if new else "/api/account/login"
    r = client.post(path, json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


@pytest.fixture
def players(make_client: AppFactory) -> tuple[TestClient, TestClient, str]:
    """Ann (black) and Bob (white) in an online game with a clock; its id."""
    ann = signed_in(make_client, "Ann")
    bob = signed_in(make_client, "Bob")
    r = ann.post("/api/games", json={"mode": "online", "color": "black", "clock": {"initial": 300}})
    assert r.status_code == 200, r.text
    gid = r.json()["game"]["id"]
    invite = r.json()["invite"].split("invite=", 1)[1]
    r = bob.post(f"/api/games/{gid}/join", json={"invite": invite})
    assert r.status_code == 200, r.text
    assert r.json()["game"]["your_color"] == "white"
    return ann, bob, gid


def test_account_seats_need_no_token(players: tuple[TestClient, TestClient, str]) -> None:
    ann, bob, gid = players
    assert ann.get(f"/api/games/{gid}").json()["your_color"] == "black"
    r = ann.post(f"/api/games/{gid}/move", json={"move": "11-15", "ply": 0})
    assert r.status_code == 200, r.text
    r = bob.post(f"/api/games/{gid}/move", json={"move": "23-19", "ply": 1})
    assert r.status_code == 200, r.text
    assert ann.post(f"/api/games/{gid}/move", json={"move": "8-11", "ply": 2}).status_code == 200
    r = ann.post(f"/api/games/{gid}/move", json={"move": "22-18", "ply": 3})
    assert r.status_code == 403  # Ann plays black: White's move is not hers
    r = bob.post(f"/api/games/{gid}/draw-offer", json={})
    assert r.status_code == 200 and r.json()["draw_offer"] == "white"


def test_sign_in_on_another_device_and_play_on(
    players: tuple[TestClient, TestClient, str], make_client: AppFactory
) -> None:
    ann, _bob, gid = players
    phone = signed_in(make_client, "Ann", new=False)
    assert phone.get(f"/api/games/{gid}").json()["your_color"] == "black"
    r = phone.post(f"/api/games/{gid}/move", json={"move": "11-15", "ply": 0})
    assert r.status_code == 200, r.text
    assert ann.get(f"/api/games/{gid}").json()["ply"] == 1


def test_play_over_the_websocket_by_session(
    players: tuple[TestClient, TestClient, str], make_client: AppFactory
) -> None:
    _ann, _bob, gid = players
    phone = signed_in(make_client, "Ann", new=False)
    cookie = {"cookie": f"{COOKIE_NAME}={phone.cookies[COOKIE_NAME]}"}
    with phone.websocket_connect(f"/ws/games/{gid}", headers=cookie) as ws:
        first = ws.receive_json()
        assert first["game"]["your_color"] == "black"
        ws.send_json({"type": "move", "move": "11-15", "ply": 0})
        assert ws.receive_json()["game"]["ply"] == 1
    # from another site, the cookie does not seat the socket
    foreign = {**cookie, "origin": "https://evil.example"}
    with phone.websocket_connect(f"/ws/games/{gid}", headers=foreign) as ws:
        assert ws.receive_json()["game"]["your_color"] is None


def test_others_and_visitors_hold_no_seat(
    players: tuple[TestClient, TestClient, str], make_client: AppFactory
) -> None:
    _ann, _bob, gid = players
    cid = signed_in(make_client, "Cid")
    assert cid.get(f"/api/games/{gid}").json()["your_color"] is None
    r = cid.post(f"/api/games/{gid}/move", json={"move": "11-15", "ply": 0})
    assert r.status_code == 403 and error_code(r) == "forbidden"
    visitor = make_client()
    r = visitor.post(f"/api/games/{gid}/resign", json={})
    assert r.status_code == 403 and error_code(r) == "forbidden"


def test_a_player_cannot_take_both_seats_by_the_invite(make_client: AppFactory) -> None:
    ann = signed_in(make_client, "Ann")
    r = ann.post("/api/games", json={"mode": "online", "color": "white"})
    gid = r.json()["game"]["id"]
    invite = r.json()["invite"].split("invite=", 1)[1]
    r = ann.post(f"/api/games/{gid}/join", json={"invite": invite})
    assert r.status_code == 409 and error_code(r) == "conflict"


def test_tokens_still_work_for_signed_in_and_anonymous_seats(
    make_client: AppFactory,
) -> None:
    ann = signed_in(make_client, "Ann")
    r = ann.post("/api/games", json={"mode": "local"})
    gid, token = r.json()["game"]["id"], r.json()["token"]
    device = make_client()  # not signed in: the token is the seat
    r = device.post(f"/api/games/{gid}/move", json={"move": "11-15", "ply": 0, "token": token})
    assert r.status_code == 200
    r = ann.post(f"/api/games/{gid}/move", json={"move": "23-19", "ply": 1})
    assert r.status_code == 200  # a local game: the account plays both sides
    anon = make_client()
    r = anon.post("/api/games", json={"mode": "local"})
    gid, token = r.json()["game"]["id"], r.json()["token"]
    with anon.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(token)) as ws:
        assert ws.receive_json()["game"]["your_color"] == "both"


def test_account_names_are_the_games_player_tags(
    players: tuple[TestClient, TestClient, str], make_client: AppFactory
) -> None:
    ann, bob, gid = players
    assert ann.get(f"/api/games/{gid}").json()["tags"] == {"Black": "Ann", "White": "Bob"}
    r = ann.post("/api/games", json={"mode": "online", "color": "white"})
    other = r.json()["game"]["id"]
    assert r.json()["game"]["tags"] == {"White": "Ann"}  # Black: waiting for a player
    invite = r.json()["invite"].split("invite=", 1)[1]
    r = make_client().post(f"/api/games/{other}/join", json={"invite": invite})
    assert r.json()["game"]["tags"] == {"White": "Ann", "Black": "Anonymous"}
    local = ann.post("/api/games", json={"mode": "local"}).json()["game"]
    assert local["tags"] == {}  # one screen: no names
    # a rematch swaps the colours, and the names with them
    assert bob.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    assert ann.post(f"/api/games/{gid}/rematch", json={}).status_code == 200
    r = bob.post(f"/api/games/{gid}/rematch", json={})
    assert r.status_code == 200, r.text
    again = r.json()["rematch_game"]
    state = bob.get(f"/api/games/{again}").json()
    assert state["tags"] == {"Black": "Bob", "White": "Ann"} and state["your_color"] == "black"
