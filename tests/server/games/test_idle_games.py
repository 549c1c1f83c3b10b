"""Games that wait too long for a move are closed by the sweep: a lobby pairing whose
first move never comes is aborted after a minute (a correspondence game after its days
per move), and a game without a running clock after a month without a move; no result,
never rated, and a game still in play is left alone."""

from __future__ import annotations

from typing import Any

from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient

from poolcheckers.server.games.service import GameService
from poolcheckers.server.timesource import ManualTime

from ..conftest import AppFactory
from ..helpers import play_plies, server_context
from ..test_ratings_api import BLITZ, signed_in

DAY = 86_400


def paired(
    make_client: AppFactory, body: dict[str, Any] = BLITZ, names: tuple[str, str] = ("Ann", "Bob")
) -> tuple[TestClient, TestClient, str]:
    ann = signed_in(make_client(password_parameters=CHEAPEST), names[0])
    bob = signed_in(TestClient(ann.app), names[1])
    seek = ann.post("/api/seeks", json=body).json()
    answer = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert answer.status_code == 200, answer.text
    return ann, bob, str(answer.json()["game"]["id"])


def games(client: TestClient) -> GameService:
    return server_context(client).games


def state(client: TestClient, gid: str) -> dict[str, Any]:
    answer: dict[str, Any] = client.get(f"/api/games/{gid}").json()
    return answer


def test_a_pairing_whose_first_move_never_comes_is_aborted(
    make_client: AppFactory, clock: ManualTime
) -> None:
    ann, _bob, gid = paired(make_client)
    clock.advance(59)
    assert games(ann).sweep_idle() == 0 and state(ann, gid)["status"] == "running"
    clock.advance(1)
    assert games(ann).sweep_idle() == 1
    over = state(ann, gid)
    assert over["status"] == "aborted" and over["outcome"]["result"] == "*"
    assert "no first move within 1 minute" in over["outcome"]["reason"]
    assert ann.get("/api/users/Ann").json()["ratings"].get("blitz") is None  # never rated


def test_one_move_then_silence_is_aborted_too_but_a_game_in_play_is_not(
    make_client: AppFactory, clock: ManualTime
) -> None:
    ann, bob, gid = paired(make_client)
    play_plies(ann, bob, gid, 1)
    clock.advance(61)
    assert games(ann).sweep_idle() == 1 and state(ann, gid)["status"] == "aborted"
    ann2, bob2, played = paired(make_client, names=("Cy", "Di"))
    play_plies(ann2, bob2, played, 2)
    clock.advance(61)
    assert games(ann2).sweep_idle() == 0
    assert state(ann2, played)["status"] == "running"  # its clock runs: the flag decides


def test_a_correspondence_pairing_waits_its_days_per_move(
    make_client: AppFactory, clock: ManualTime
) -> None:
    body = {"clock": {"days": 3}, "rated": False, "color": "black"}
    ann, _bob, gid = paired(make_client, body)
    clock.advance(2 * DAY)
    assert games(ann).sweep_idle() == 0 and state(ann, gid)["status"] == "running"
    clock.advance(DAY)
    assert games(ann).sweep_idle() == 1
    assert "no first move within 3 days" in state(ann, gid)["outcome"]["reason"]


def test_a_game_without_a_running_clock_is_closed_after_a_month(
    make_client: AppFactory, clock: ManualTime
) -> None:
    client = make_client()
    engine = client.post("/api/games", json={"mode": "engine", "color": "black"}).json()
    local = client.post("/api/games", json={"mode": "local"}).json()
    token = local["token"]
    gid = local["game"]["id"]
    client.post(f"/api/games/{gid}/move", json={"move": "11-15", "ply": 0, "token": token})
    clock.advance(29 * DAY)
    assert games(client).sweep_idle() == 0
    client.post(f"/api/games/{gid}/move", json={"move": "23-19", "ply": 1, "token": token})
    clock.advance(DAY)
    # the engine game waited 30 days; the local game moved a day ago
    assert games(client).sweep_idle() == 1
    closed = state(client, engine["game"]["id"])
    assert closed["status"] == "aborted"
    assert closed["outcome"]["reason"] == "Abandoned: no move for 30 days; closed without a result"
    assert state(client, gid)["status"] == "running"


def test_the_limits_are_settings(make_client: AppFactory, clock: ManualTime) -> None:
    client = make_client(abandon_after_days=2.0, first_move_timeout=30.0)
    gid = client.post("/api/games", json={"mode": "local"}).json()["game"]["id"]
    clock.advance(2 * DAY)
    assert games(client).sweep_idle() == 1
    assert "no move for 2 days" in state(client, gid)["outcome"]["reason"]
