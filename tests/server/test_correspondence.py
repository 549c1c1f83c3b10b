"""Correspondence games (R20): each side has the seek's days for each move,
the deadline set again after every move and not running before each side's first
move (as the clocks, R20); a side past its deadline loses on time, on a request or
by the background sweep.  Time comes from the injectable manual clock."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from poolcheckers.server.timesource import ManualTime

from .conftest import AppFactory
from .helpers import server_context
from .test_lobby_api import post, signed_in

DAY = 86_400
TWO_DAYS = {"clock": {"days": 2}, "rated": True, "color": "black"}


def started(make_client: AppFactory) -> tuple[TestClient, TestClient, dict[str, Any]]:
    """Ann (Black) and Bob (White) in a game of two days a move from Ann's seek."""
    ann = signed_in(make_client, "Ann")
    bob = signed_in(make_client, "Bob", same=ann)
    seek = post(ann, TWO_DAYS)
    assert seek["category"] == "correspondence"
    r = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 200, r.text
    game: dict[str, Any] = r.json()["game"]
    return ann, bob, game


def play(client: TestClient, gid: str, mv: str, ply: int) -> dict[str, Any]:
    r = client.post(f"/api/games/{gid}/move", json={"move": mv, "ply": ply})
    assert r.status_code == 200, r.text
    state: dict[str, Any] = r.json()
    return state


def test_deadline_waits_for_both_first_moves_then_resets_after_every_move(
    make_client: AppFactory, clock: ManualTime
) -> None:
    ann, bob, game = started(make_client)
    gid = game["id"]
    assert game["clock"] is None
    assert game["correspondence"] == {"days": 2, "deadline": None, "left": None, "running": None}
    clock.advance(10 * DAY)  # no deadline before each side has moved (R20)
    state = play(ann, gid, "11-15", 0)
    assert state["status"] == "running" and state["correspondence"]["running"] is None
    clock.advance(10 * DAY)
    state = play(bob, gid, "22-18", 1)  # White's first move: Black's deadline starts
    now = clock.now_ms() / 1000
    assert state["correspondence"] == {
        "days": 2,
        "deadline": now + 2 * DAY,
        "left": 2 * DAY,
        "running": "black",
    }
    clock.advance(DAY + 0.5)
    assert ann.get(f"/api/games/{gid}").json()["correspondence"]["left"] == DAY - 0.5
    state = play(ann, gid, "15x22", 2)  # the deadline is per move: White gets 2 full days
    assert state["correspondence"]["running"] == "white"
    assert state["correspondence"]["deadline"] == clock.now_ms() / 1000 + 2 * DAY
    clock.advance(2 * DAY - 1)
    state = play(bob, gid, "25x18", 3)  # one second to spare
    assert state["status"] == "running" and state["correspondence"]["running"] == "black"


def test_side_past_its_deadline_loses_on_time_on_a_request(
    make_client: AppFactory, clock: ManualTime
) -> None:
    ann, bob, game = started(make_client)
    gid = game["id"]
    play(ann, gid, "11-15", 0)
    play(bob, gid, "22-18", 1)
    clock.advance(2 * DAY)  # Black's deadline reached
    r = ann.post(f"/api/games/{gid}/move", json={"move": "15x22", "ply": 2})
    assert r.status_code == 409, r.text  # too late: the game is over (R20)
    state = bob.get(f"/api/games/{gid}").json()
    assert state["status"] == "finished"
    assert state["outcome"]["termination"] == "time" and state["outcome"]["winner"] == "white"
    assert state["correspondence"] == {"days": 2, "deadline": None, "left": None, "running": None}
    assert state["moves"] == ["11-15", "22-18"]


def test_background_sweep_ends_a_game_past_its_deadline(
    make_client: AppFactory, clock: ManualTime
) -> None:
    ann, bob, game = started(make_client)
    gid = game["id"]
    play(ann, gid, "11-15", 0)
    play(bob, gid, "22-18", 1)
    play(ann, gid, "15x22", 2)
    service = server_context(ann).games
    clock.advance(2 * DAY - 1)
    assert service.sweep_flags() == 0  # the indexed deadline query finds nothing yet
    clock.advance(1)
    assert service.sweep_flags() == 1
    state = ann.get(f"/api/games/{gid}").json()
    assert state["outcome"]["termination"] == "time" and state["outcome"]["winner"] == "black"


def test_rematch_of_a_correspondence_game_keeps_the_days(
    make_client: AppFactory, clock: ManualTime
) -> None:
    ann, bob, game = started(make_client)
    gid = game["id"]
    assert ann.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    assert ann.post(f"/api/games/{gid}/rematch", json={}).status_code == 200
    r = bob.post(f"/api/games/{gid}/rematch", json={})
    assert r.status_code == 200, r.text
    new = bob.get(f"/api/games/{r.json()['rematch_game']}").json()
    assert new["correspondence"] == {"days": 2, "deadline": None, "left": None, "running": None}
