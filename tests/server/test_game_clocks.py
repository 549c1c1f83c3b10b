"""Server-side clocks with increment (R20), driven by an injectable manual clock."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from poolcheckers.server.timesource import ManualTime

from .conftest import AppFactory
from .helpers import error_code, move, new_game, online_game


def test_clock_runs_for_the_side_to_move_with_increment(
    client: TestClient, clock: ManualTime
) -> None:
    gid, black, white = online_game(client, clock={"initial": 60, "increment": 2})
    state = client.get(f"/api/games/{gid}").json()
    assert state["clock"] == {
        "black": 60.0,
        "white": 60.0,
        "initial": 60.0,
        "increment": 2.0,
        "running": None,  # each side's clock starts with its first move
    }
    clock.advance(5.5)
    state = move(client, gid, black, "11-15", 0).json()
    assert state["clock"]["black"] == 60.0  # Black's first move: free, no increment
    assert state["clock"]["running"] is None  # White has not moved yet
    clock.advance(7)
    state = move(client, gid, white, "22-18", 1).json()
    assert state["clock"]["white"] == 60.0  # White's first move starts the clocks
    assert state["clock"]["running"] == "black"
    clock.advance(5.5)
    assert client.get(f"/api/games/{gid}").json()["clock"]["black"] == 54.5
    state = move(client, gid, black, "15x22", 2).json()
    assert state["clock"]["black"] == 56.5  # 60 - 5.5 + 2
    assert state["clock"]["white"] == 60.0 and state["clock"]["running"] == "white"
    clock.advance(10)
    state = move(client, gid, white, "25x18", 3).json()
    assert state["clock"]["white"] == 52.0 and state["clock"]["running"] == "black"
    assert state["clock"]["black"] == 56.5


def test_online_clock_waits_for_the_join_and_the_first_moves(
    client: TestClient, clock: ManualTime
) -> None:
    created = new_game(client, mode="online", clock={"initial": 30, "increment": 0})
    assert created["game"]["clock"]["running"] is None
    clock.advance(100)  # waiting for the opponent costs nothing
    gid = created["game"]["id"]
    invite = created["invite"].split("invite=", 1)[1]
    joined = client.post(f"/api/games/{gid}/join", json={"invite": invite}).json()["game"]
    assert joined["status"] == "running"
    assert joined["clock"]["black"] == 30.0 and joined["clock"]["running"] is None
    # nor does Black's thinking over its first move (under the 60 s after which the
    # idle sweep aborts a game whose first move never comes: past it the sweep,
    # running on its own timer, could abort this one before the next request)
    clock.advance(50)
    state = client.get(f"/api/games/{gid}").json()
    assert state["status"] == "running" and state["clock"]["black"] == 30.0


@pytest.mark.timeout(30)
def test_background_timer_ends_the_game_on_flag(client: TestClient, clock: ManualTime) -> None:
    gid, black, white = online_game(client, clock={"initial": 10, "increment": 0})
    move(client, gid, black, "11-15", 0)
    move(client, gid, white, "22-18", 1)
    move(client, gid, black, "15x22", 2)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["game"]["clock"]["running"] == "white"
        clock.advance(10.001)
        # no request is made: the timer alone ends the game and tells the sockets
        state = ws.receive_json()["game"]
    assert state["status"] == "finished"
    assert state["outcome"]["termination"] == "time"
    assert state["outcome"]["winner"] == "black"
    assert state["outcome"]["result"] == "2-0"
    assert state["outcome"]["reason"] == "White ran out of time: Black wins (R20)"
    assert state["clock"] == {
        "black": 10.0,  # its free first move and an instant second one
        "white": 0.0,
        "initial": 10.0,
        "increment": 0.0,
        "running": None,
    }


def test_flag_is_checked_on_every_request(make_client: AppFactory, clock: ManualTime) -> None:
    client = make_client(sweep_interval=3600)  # the timer never fires in this test
    gid, black, white = online_game(client, clock={"initial": 5, "increment": 1})
    assert move(client, gid, black, "11-15", 0).status_code == 200
    assert move(client, gid, white, "22-18", 1).status_code == 200
    assert move(client, gid, black, "15x22", 2).status_code == 200
    clock.advance(6.0)  # 5 s and the increment of White's first timed move
    # White's flag has fallen: the move is refused and the game is lost on time
    r = move(client, gid, white, "25x18", 3)
    assert r.status_code == 409 and error_code(r) == "game_over"
    assert "R20" in r.json()["error"]["message"]
    state = client.get(f"/api/games/{gid}").json()
    assert state["status"] == "finished" and state["outcome"]["termination"] == "time"
    assert state["moves"] == ["11-15", "22-18", "15x22"]


def test_moving_in_time_keeps_the_game_going(make_client: AppFactory, clock: ManualTime) -> None:
    client = make_client(sweep_interval=3600)
    gid, black, white = online_game(client, clock={"initial": 5, "increment": 0})
    move(client, gid, black, "11-15", 0)
    move(client, gid, white, "22-18", 1)
    clock.advance(4.999)
    r = move(client, gid, black, "15x22", 2)
    assert r.status_code == 200 and r.json()["clock"]["black"] == 0.001
    assert r.json()["status"] == "running"


def test_local_game_clock_starts_with_the_second_sides_first_move(
    client: TestClient, clock: ManualTime
) -> None:
    created = new_game(client, mode="local", clock={"initial": 3, "increment": 0})
    gid, token = created["game"]["id"], created["token"]
    assert created["game"]["clock"]["running"] is None
    clock.advance(30)  # no clock runs before ply 1 ...
    assert move(client, gid, token, "11-15", 0).json()["clock"]["running"] is None
    clock.advance(30)  # ... nor before White's first move
    state = move(client, gid, token, "22-18", 1).json()
    assert state["clock"] == {
        "black": 3.0,
        "white": 3.0,
        "initial": 3.0,
        "increment": 0.0,
        "running": "black",
    }
    clock.advance(3)
    state = client.get(f"/api/games/{gid}").json()
    assert state["status"] == "finished"
    assert state["outcome"]["reason"] == "Black ran out of time: White wins (R20)"
