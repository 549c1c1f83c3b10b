"""Games against the engine (thinking off the event loop), takeback, draw offers,
resuming the engine's turn after a restart, and the analysis socket."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from poolcheckers.engine import native_available
from poolcheckers.server.app import Settings, create_app
from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.games.model import NewGame
from poolcheckers.server.games.service import GameService
from poolcheckers.server.timesource import ManualTime

from .conftest import AppFactory
from .helpers import error_code, move, new_game, ws_seat

pytestmark = [
    pytest.mark.skipif(
        not native_available(), reason="the engine's native core (poolcheckers._core) is not built"
    ),
    pytest.mark.timeout(60),
]


def wait_for_ply(ws: WebSocketTestSession, ply: int) -> dict[str, Any]:
    while True:
        msg = ws.receive_json()
        assert msg["type"] == "state", msg
        if msg["game"]["ply"] >= ply:
            game: dict[str, Any] = msg["game"]
            return game


def test_engine_replies_to_the_human_move(client: TestClient) -> None:
    created = new_game(client, mode="engine", level=3, color="black")
    game, token = created["game"], created["token"]
    assert game["engine_color"] == "white" and game["level"] == 3
    assert game["seats"] == {"black": True, "white": True}
    gid = game["id"]
    with client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(token)) as ws:
        wait_for_ply(ws, 0)
        r = move(client, gid, token, "11-15", 0)
        assert r.status_code == 200 and r.json()["ply"] == 1  # answered before the reply
        state = wait_for_ply(ws, 2)
    assert state["moves"][0] == "11-15" and state["turn"] == "black"
    assert state["last_move"]["path"][0] in range(21, 33)  # a white piece moved
    # the human cannot move for the engine
    r = move(client, gid, token, state["legal_moves"][0]["notation"], 2)
    assert r.status_code == 200


def test_engine_moves_first_when_the_human_takes_white(client: TestClient) -> None:
    created = new_game(client, mode="engine", level=1, color="white")
    gid, token = created["game"]["id"], created["token"]
    with client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(token)) as ws:
        state = wait_for_ply(ws, 1)
    assert state["your_color"] == "white" and state["turn"] == "white"
    r = move(client, gid, token, "11-15", 1)
    assert r.status_code == 400  # that is a black piece's move


def test_takeback_undoes_the_human_move_and_the_engine_reply(client: TestClient) -> None:
    created = new_game(client, mode="engine", level=2, color="black")
    gid, token = created["game"]["id"], created["token"]
    r = client.post(f"/api/games/{gid}/takeback", json={"token": token})
    assert r.status_code == 409 and error_code(r) == "conflict"  # nothing to take back
    with client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(token)) as ws:
        move(client, gid, token, "11-15", 0)
        wait_for_ply(ws, 2)
        r = client.post(f"/api/games/{gid}/takeback", json={"token": token})
        assert r.status_code == 200
        state = r.json()
        assert state["ply"] == 0 and state["moves"] == [] and state["turn"] == "black"
        move(client, gid, token, "9-13", 0)
        state = wait_for_ply(ws, 2)
        assert state["moves"][0] == "9-13"


def test_takeback_while_the_engine_thinks_stops_it(make_client: AppFactory) -> None:
    client = make_client(engine_move_time=3.0)
    created = new_game(client, mode="engine", level=10, color="black")
    gid, token = created["game"]["id"], created["token"]
    move(client, gid, token, "11-15", 0)
    time.sleep(0.2)  # the engine is thinking (3 s per move)
    r = client.post(f"/api/games/{gid}/takeback", json={"token": token})
    assert r.status_code == 200 and r.json()["ply"] == 0
    time.sleep(0.5)
    state = client.get(f"/api/games/{gid}").json()
    assert state["ply"] == 0 and state["moves"] == []  # its stale reply was not stored


def test_draw_offer_to_the_engine_is_answered_at_once(client: TestClient) -> None:
    created = new_game(client, mode="engine", level=5, color="black")
    gid, token = created["game"]["id"], created["token"]
    r = client.post(f"/api/games/{gid}/draw-offer", json={"token": token})
    assert r.status_code == 200
    state = r.json()
    assert state["draw_offer"] is None
    if state["status"] == "finished":
        assert state["outcome"]["termination"] == "agreement"
    else:
        assert state["status"] == "running"


def test_a_restarted_server_lets_the_engine_move(db_url: str) -> None:
    engine = make_engine(db_url)
    run_migrations(engine)
    service = GameService(engine, engine_available=lambda: True)
    committed, token, _ = service.creator.open(NewGame(mode="engine", level=1, color="white"))
    gid = committed.loaded.game.id
    engine.dispose()  # the "old server" stopped before the engine moved
    settings = Settings(
        allowed_hosts=("testserver",),
        database_url=db_url,
        clock=ManualTime(),
        engine_move_time=0.05,
    )
    with (
        TestClient(create_app(settings)) as client,
        client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(token)) as ws,
    ):
        state = wait_for_ply(ws, 1)
        assert state["turn"] == "white"


def test_analysis_socket_streams_depths_and_stops(client: TestClient) -> None:
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "fen": "B:W14:B9", "time": 0.3})
        infos = []
        while True:
            msg = ws.receive_json()
            if msg["type"] == "done":
                break
            assert msg["type"] == "info", msg
            infos.append(msg)
        assert infos and infos[0]["depth"] >= 1
        assert msg["best"] == "9x18" and msg["pv"][0] == "9x18"
        assert msg["mate_in"] is not None and msg["nps"] >= 0
        ws.send_json({"type": "analyse", "moves": ["11-15"], "time": 30})
        time.sleep(0.3)
        start = time.monotonic()
        ws.send_json({"type": "stop"})
        while True:
            msg = ws.receive_json()
            if msg["type"] == "done":
                break
        assert time.monotonic() - start < 5
        ws.send_json({"type": "analyse", "fen": "bad fen"})
        assert ws.receive_json()["error"]["code"] == "malformed"
        ws.send_json({"type": "analyse", "fen": "W:W:B1"})
        assert ws.receive_json()["error"]["code"] == "bad_request"
