"""What a game request may say: the seat token in a header on every POST, and clocks in
whole or tenths of seconds with a minimum."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from poolcheckers.server.api.schemas import MIN_CLOCK_S

from ..helpers import online_game, seat_header


def test_a_move_with_the_seat_token_in_the_header_alone_is_played(client: TestClient) -> None:
    gid, black, _white = online_game(client)
    r = client.post(
        f"/api/games/{gid}/move", json={"move": "11-15", "ply": 0}, headers=seat_header(black)
    )
    assert r.status_code == 200, r.text
    assert r.json()["ply"] == 1


@pytest.mark.parametrize("action", ["draw-offer", "resign", "abort"])
def test_a_game_action_with_the_seat_token_in_the_header_alone_is_taken(
    client: TestClient, action: str
) -> None:
    gid, black, white = online_game(client)
    assert client.post(f"/api/games/{gid}/move", json={"move": "11-15", "ply": 0, "token": black})
    r = client.post(f"/api/games/{gid}/{action}", json={}, headers=seat_header(white))
    assert r.status_code == 200, r.text


def test_two_different_seat_tokens_are_refused_naming_both_places(client: TestClient) -> None:
    gid, black, white = online_game(client)
    r = client.post(
        f"/api/games/{gid}/move",
        json={"move": "11-15", "ply": 0, "token": black},
        headers=seat_header(white),
    )
    assert r.status_code == 400
    assert "X-Seat-Token" in r.json()["error"]["message"]
    assert "body" in r.json()["error"]["message"]
    assert client.get(f"/api/games/{gid}").json()["ply"] == 0  # nothing played


def test_the_same_seat_token_in_both_places_is_accepted(client: TestClient) -> None:
    gid, black, _white = online_game(client)
    r = client.post(
        f"/api/games/{gid}/move",
        json={"move": "11-15", "ply": 0, "token": black},
        headers=seat_header(black),
    )
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("initial", [1e-300, 0.05, 0.5, 1.25, 60.01])
def test_a_clock_finer_than_tenths_or_under_the_minimum_is_refused(
    client: TestClient, initial: float
) -> None:
    r = client.post("/api/games", json={"mode": "online", "clock": {"initial": initial}})
    assert r.status_code == 400, (initial, r.text)
    assert "clock" in r.text


@pytest.mark.parametrize("increment", [1e-300, 0.01, 2.55])
def test_an_increment_finer_than_tenths_is_refused(client: TestClient, increment: float) -> None:
    clock = {"initial": 60, "increment": increment}
    r = client.post("/api/games", json={"mode": "online", "clock": clock})
    assert r.status_code == 400, (increment, r.text)


@pytest.mark.parametrize(("initial", "increment"), [(MIN_CLOCK_S, 0), (1.5, 0.1), (300, 2.5)])
def test_clocks_in_whole_or_tenths_of_seconds_are_accepted(
    client: TestClient, initial: float, increment: float
) -> None:
    clock = {"initial": initial, "increment": increment}
    r = client.post("/api/games", json={"mode": "online", "clock": clock})
    assert r.status_code == 200, r.text
    assert r.json()["game"]["clock"]["initial"] == initial


@pytest.mark.parametrize(
    ("fen", "why"),
    [
        ("B:W:B1", "White has no pieces"),  # black to move, but white can never answer
        ("W:W:B1", "White has no pieces left"),
        ("W:WK5:B", "Black has no pieces"),
        ("W:W32:B27,28,23", "White has no legal move"),
    ],
)
@pytest.mark.parametrize("mode", ["local", "engine", "online"])
def test_a_start_position_already_over_is_refused_naming_the_side_and_rule(
    client: TestClient, fen: str, why: str, mode: str
) -> None:
    r = client.post("/api/games", json={"mode": mode, "fen": fen, "color": "black"})
    assert r.status_code == 400, r.text
    message = r.json()["error"]["message"]
    assert why in message and "(R16)" in message
    assert client.get("/api/games").json()["games"] == []  # nothing stored
