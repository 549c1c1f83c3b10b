"""Game flow as on lichess: abort before both sides have moved,
rematch with the colours swapped, the list of games being played now; and what
the API adds to it (move counts, readable clock limits)."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from poolcheckers import Board
from poolcheckers.engine import native_available
from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.errors import ApiError
from poolcheckers.server.games.model import NewGame
from poolcheckers.server.games.service import GameService
from poolcheckers.server.games.view import full_moves
from poolcheckers.server.timesource import ManualTime

from .helpers import error_code, move, new_game, online_game, seat_header, ws_seat

STANDARD = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def act(client: TestClient, gid: str, action: str, token: str) -> httpx2.Response:
    return client.post(f"/api/games/{gid}/{action}", json={"token": token})


# ---------------------------------------------------------------- abort
def test_abort_before_both_sides_moved_ends_without_a_result(client: TestClient) -> None:
    gid, black, white = online_game(client, clock={"initial": 60, "increment": 0})
    assert client.get(f"/api/games/{gid}").json()["can_abort"] is True
    assert move(client, gid, black, "11-15", 0).json()["can_abort"] is True
    r = act(client, gid, "abort", white)  # White has not moved yet
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["status"] == "aborted"
    assert state["outcome"]["termination"] == "aborted"
    assert state["outcome"]["winner"] is None and state["outcome"]["result"] == "*"
    assert "Aborted by White" in state["outcome"]["reason"]
    assert state["legal_moves"] == [] and state["clock"]["running"] is None
    # over: no more moves, no second abort, not listed as running
    r = move(client, gid, white, "22-18", 1)
    assert r.status_code == 409 and error_code(r) == "game_over"
    assert error_code(act(client, gid, "abort", black)) == "game_over"
    running = client.get("/api/games?status=running").json()["games"]
    assert gid not in [g["id"] for g in running]
    aborted = client.get("/api/games?status=aborted").json()["games"]
    assert [g["id"] for g in aborted] == [gid]
    assert client.get(f"/api/games/{gid}/pdn").text.count('[Result "*"]') == 1


def test_abort_is_refused_once_both_sides_moved(client: TestClient) -> None:
    gid, black, white = online_game(client)
    move(client, gid, black, "11-15", 0)
    assert move(client, gid, white, "22-18", 1).json()["can_abort"] is False
    r = act(client, gid, "abort", black)
    assert r.status_code == 409 and error_code(r) == "conflict"
    assert "resign instead" in r.json()["error"]["message"]
    assert client.get(f"/api/games/{gid}").json()["status"] == "running"


def test_abort_cancels_a_game_nobody_joined(client: TestClient) -> None:
    created = new_game(client, mode="online", color="white")
    gid, token = created["game"]["id"], created["token"]
    invite = created["invite"].split("invite=", 1)[1]
    state = act(client, gid, "abort", token).json()
    assert state["status"] == "aborted" and "nobody joined" in state["outcome"]["reason"]
    r = client.post(f"/api/games/{gid}/join", json={"invite": invite})
    assert r.status_code == 409  # the invitation is gone with the game


def test_abort_needs_a_seat_and_works_over_the_socket(client: TestClient) -> None:
    gid, black, _white = online_game(client)
    assert error_code(act(client, gid, "abort", "not-a-token")) == "forbidden"
    with client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(black)) as ws:
        assert ws.receive_json()["game"]["status"] == "running"
        ws.send_json({"type": "abort"})
        msg = ws.receive_json()
    assert msg["type"] == "state" and msg["game"]["status"] == "aborted"


# ---------------------------------------------------------------- rematch
def test_online_rematch_offer_accept_swaps_the_colours(client: TestClient) -> None:
    gid, black, white = online_game(client, clock={"initial": 300, "increment": 3})
    assert error_code(act(client, gid, "rematch", black)) == "conflict"  # still running
    act(client, gid, "resign", white)
    with (
        client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(white)) as ww,
        client.websocket_connect(f"/ws/games/{gid}") as spectator,
    ):
        assert ww.receive_json()["game"]["rematch_offer"] is None
        spectator.receive_json()
        offered = act(client, gid, "rematch", black).json()
        assert offered["rematch_offer"] == "black" and offered["rematch_game"] is None
        assert ww.receive_json()["game"]["rematch_offer"] == "black"  # White hears of it
        # asking again changes nothing
        assert act(client, gid, "rematch", black).json()["version"] == offered["version"]
        accepted = act(client, gid, "rematch", white).json()
        new_id = accepted["rematch_game"]
        assert new_id and new_id != gid and accepted["rematch_offer"] is None
        # both players (and the spectator) land in it over the game's socket
        assert ww.receive_json()["game"]["rematch_game"] == new_id
        seen = [spectator.receive_json()["game"] for _ in range(2)]
        assert [g["rematch_offer"] for g in seen] == ["black", None]
        assert seen[-1]["rematch_game"] == new_id
    new = client.get(f"/api/games/{new_id}", headers=seat_header(black)).json()
    assert new["your_color"] == "white"  # the colours are swapped, the tokens kept
    assert (
        client.get(f"/api/games/{new_id}", headers=seat_header(white)).json()["your_color"]
        == "black"
    )
    assert new["mode"] == "online" and new["status"] == "running" and new["ply"] == 0
    assert new["clock"] == {
        "black": 300.0,
        "white": 300.0,
        "initial": 300.0,
        "increment": 3.0,
        "running": None,
    }
    assert new["seats"] == {"black": True, "white": True}
    assert move(client, new_id, white, "11-15", 0).status_code == 200  # now Black
    # a second acceptance (both at once) answers the same rematch
    assert act(client, gid, "rematch", black).json()["rematch_game"] == new_id


def test_rematch_decline_and_rules_kept(client: TestClient) -> None:
    rules = {"crown_during_capture": "stop"}
    gid, black, white = online_game(client, rules=rules)
    act(client, gid, "abort", black)
    act(client, gid, "rematch", white)
    declined = act(client, gid, "rematch-decline", black).json()
    assert declined["rematch_offer"] is None and declined["rematch_game"] is None
    assert error_code(act(client, gid, "rematch-decline", black)) == "conflict"
    act(client, gid, "rematch", black)
    new_id = act(client, gid, "rematch", white).json()["rematch_game"]
    new = client.get(f"/api/games/{new_id}").json()
    assert new["rules"]["crown_during_capture"] == "stop"


def test_local_rematch_starts_at_once_and_a_waiting_game_has_none(client: TestClient) -> None:
    created = new_game(client, mode="local")
    gid, token = created["game"]["id"], created["token"]
    act(client, gid, "resign", token)
    new_id = act(client, gid, "rematch", token).json()["rematch_game"]
    assert (
        client.get(f"/api/games/{new_id}", headers=seat_header(token)).json()["your_color"]
        == "both"
    )
    waiting = new_game(client, mode="online")
    wid, wtoken = waiting["game"]["id"], waiting["token"]
    act(client, wid, "abort", wtoken)
    r = act(client, wid, "rematch", wtoken)
    assert r.status_code == 409 and "nobody joined" in r.json()["error"]["message"]


@pytest.mark.skipif(not native_available(), reason="the engine's native core is not built")
@pytest.mark.timeout(60)
def test_engine_rematch_is_one_click_with_colours_swapped(client: TestClient) -> None:
    created = new_game(client, mode="engine", level=1, color="black")
    gid, token = created["game"]["id"], created["token"]
    act(client, gid, "resign", token)
    new_id = act(client, gid, "rematch", token).json()["rematch_game"]
    with client.websocket_connect(f"/ws/games/{new_id}", subprotocols=ws_seat(token)) as ws:
        state = ws.receive_json()["game"]
        assert state["your_color"] == "white" and state["engine_color"] == "black"
        assert state["level"] == 1
        while state["ply"] < 1:  # the engine, now Black, moves first
            state = ws.receive_json()["game"]
    assert state["turn"] == "white"


# ---------------------------------------------------------------- watching
def test_games_being_played_now_by_mode_with_their_seats(client: TestClient) -> None:
    playing, black, _white = online_game(client, clock={"initial": 300, "increment": 3})
    move(client, playing, black, "11-15", 0)
    waiting = new_game(client, mode="online")["game"]["id"]
    new_game(client, mode="local")
    games = client.get("/api/games?status=running&mode=online").json()["games"]
    by_id = {g["id"]: g for g in games}
    assert set(by_id) == {playing, waiting}
    assert by_id[playing]["seats"] == {"black": True, "white": True}
    assert by_id[waiting]["seats"] == {"black": True, "white": False}
    assert by_id[playing]["moves_count"] == 1
    assert by_id[playing]["clock"] == {"initial": 300.0, "increment": 3.0}
    assert by_id[waiting]["clock"] is None
    r = client.get("/api/games?mode=chess")
    assert r.status_code == 400 and error_code(r) == "bad_request"


# ---------------------------------------------------------------- move counts in the API
@settings(max_examples=60, deadline=None)
@given(white_first=st.booleans(), choices=st.lists(st.integers(0, 50), max_size=40))
def test_moves_count_is_the_pdn_move_number_of_the_last_move(
    white_first: bool, choices: list[int]
) -> None:
    fen = STANDARD.replace("B:", "W:", 1) if white_first else STANDARD
    board = Board(fen)
    numbers = set()
    for pick in choices:
        moves = board.legal_moves
        if not moves:
            break
        numbers.add(board.move_number)  # the number this ply is written under
        board.push(moves[pick % len(moves)])
    assert full_moves(fen, board.ply) == len(numbers)


def test_summaries_count_full_moves(client: TestClient) -> None:
    created = new_game(client, mode="local")
    gid, token = created["game"]["id"], created["token"]
    for ply, mv in enumerate(["11-15", "23-19", "8-11"]):
        move(client, gid, token, mv, ply)
    (summary,) = client.get("/api/games?status=running").json()["games"]
    assert summary["ply"] == 3 and summary["moves_count"] == 2  # 1. 11-15 23-19 2. 8-11


def test_a_too_long_clock_is_refused_in_words(client: TestClient) -> None:
    r = client.post("/api/games", json={"mode": "local", "clock": {"initial": 9999 * 60}})
    assert r.status_code == 400 and error_code(r) == "bad_request"
    message = r.json()["error"]["message"]
    assert message.startswith("clock.initial:")
    assert "at most 86400 s (1440 minutes, 24 hours)" in message
    assert "9999 minutes" in message
    r = client.post("/api/games", json={"mode": "local", "clock": {"initial": 0}})
    assert "at least 1 s" in r.json()["error"]["message"]
    r = client.post("/api/games", json={"mode": "local", "clock": {"initial": 60, "increment": -1}})
    assert "increment" in r.json()["error"]["message"] and error_code(r) == "bad_request"
    r = client.post("/api/games", json={"mode": "local", "clock": {"initial": "60"}})
    assert error_code(r) == "malformed"  # a mistyped field stays malformed


def test_clock_limits_stay_in_the_openapi_description(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()["components"]["schemas"]["ClockSpec"]
    assert spec["properties"]["initial"]["maximum"] == 86400


def test_clock_time_for_a_spectator_too(client: TestClient, clock: ManualTime) -> None:
    gid, black, white = online_game(client, clock={"initial": 10, "increment": 0})
    move(client, gid, black, "11-15", 0)
    move(client, gid, white, "22-18", 1)
    clock.advance(4)
    state = client.get(f"/api/games/{gid}").json()
    assert state["clock"]["black"] == 6.0 and state["clock"]["running"] == "black"


def test_no_engine_rematch_without_the_engine(tmp_path: Path) -> None:
    db = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    run_migrations(db)
    with_engine = GameService(db, ManualTime(), engine_available=lambda: True)
    created, token, _ = with_engine.creator.open(NewGame(mode="engine", level=2))
    gid = created.loaded.game.id
    with_engine.act(gid, "resign", token)
    without = GameService(db, ManualTime())  # a server started without the native core
    with pytest.raises(ApiError) as exc:
        without.act(gid, "rematch", token)
    assert exc.value.code == "engine_unavailable"
    assert without.view(gid).loaded.game.rematch_id is None
