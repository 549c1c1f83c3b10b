"""Game flow for games between accounts (a taken seek: seats on the accounts, no
seat tokens): the watch list shows them, abort and rematch work by the session."""

from __future__ import annotations

from typing import Any

from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient

from .conftest import AppFactory

PASSWORD = "correct horse battery"
CASUAL = {"clock": {"initial": 180, "increment": 2}, "rated": False, "color": "black"}


def signed_in(client: TestClient, name: str) -> TestClient:
    r = client.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


def seek_game(make_client: AppFactory) -> tuple[TestClient, TestClient, dict[str, Any]]:
    ann = signed_in(make_client(password_parameters=CHEAPEST), "Ann")
    bob = signed_in(TestClient(ann.app), "Bob")
    seek = ann.post("/api/seeks", json=CASUAL).json()
    r = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 200, r.text
    game: dict[str, Any] = r.json()["game"]
    return ann, bob, game


def test_a_game_between_accounts_is_listed_to_watch(make_client: AppFactory) -> None:
    ann, _bob, game = seek_game(make_client)
    assert game["clock"]["running"] is None  # each side's clock starts with its first move
    listed = ann.get("/api/games?status=running&mode=online").json()["games"]
    (summary,) = [g for g in listed if g["id"] == game["id"]]
    assert summary["seats"] == {"black": True, "white": True}


def test_abort_and_rematch_by_the_session(make_client: AppFactory) -> None:
    ann, bob, game = seek_game(make_client)
    gid = game["id"]
    r = ann.post(f"/api/games/{gid}/abort", json={})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "aborted"
    offered = ann.post(f"/api/games/{gid}/rematch", json={}).json()
    assert offered["rematch_offer"] == "black"
    new_id = bob.post(f"/api/games/{gid}/rematch", json={}).json()["rematch_game"]
    assert new_id
    # the accounts take their seats in the rematch, colours swapped
    assert ann.get(f"/api/games/{new_id}").json()["your_color"] == "white"
    assert bob.get(f"/api/games/{new_id}").json()["your_color"] == "black"
    r = bob.post(f"/api/games/{new_id}/move", json={"move": "11-15", "ply": 0})
    assert r.status_code == 200, r.text


def test_a_rated_games_rematch_is_rated_and_a_casual_ones_casual(make_client: AppFactory) -> None:
    from .test_ratings_api import rated_game

    ann, bob, gid = rated_game(make_client)
    assert bob.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    ann.post(f"/api/games/{gid}/rematch", json={})
    rematch = bob.post(f"/api/games/{gid}/rematch", json={}).json()["rematch_game"]
    state = ann.get(f"/api/games/{rematch}").json()
    assert state["rated"] is True and state["category"] == "blitz"
    assert state["your_color"] == "white"  # colours swapped
    casual = ann.post(
        "/api/seeks", json={"clock": {"initial": 180, "increment": 2}, "rated": False}
    )
    game = bob.post(f"/api/seeks/{casual.json()['id']}/accept").json()["game"]["id"]
    ann.post(f"/api/games/{game}/abort", json={})
    ann.post(f"/api/games/{game}/rematch", json={})
    again = bob.post(f"/api/games/{game}/rematch", json={}).json()["rematch_game"]
    assert ann.get(f"/api/games/{again}").json()["rated"] is False
