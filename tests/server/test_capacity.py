"""Engine capacity and abuse limits: engine games never
wait behind analyses, one address cannot hold more than its share of the analysis
threads, analyses are capped in time, PDN imports are rate-limited and capped."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from poolcheckers.engine import native_available
from poolcheckers.server.api.routers.ws import MAX_PENDING, Outbox
from poolcheckers.server.wiring import Services

from .conftest import AppFactory
from .helpers import error_code, move, new_game, server_context, ws_seat

engine_only = pytest.mark.skipif(
    not native_available(), reason="the engine's native core (poolcheckers._core) is not built"
)


def until_done(ws: WebSocketTestSession) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = ws.receive_json()
        if msg["type"] in ("done", "error"):
            return msg


def ctx_of(client: TestClient) -> Services:
    ctx: Services = server_context(client)
    return ctx


@engine_only
@pytest.mark.timeout(60)
def test_an_engine_reply_does_not_wait_behind_analyses(make_client: AppFactory) -> None:
    """Every analysis thread busy and more analyses waiting: the engine still replies
    to a move, while the analyses are still running and waiting."""
    client = make_client(
        analysis_threads=1, analyses_per_address=4, analysis_max_time=60, analysis_turn=60
    )
    ctx = ctx_of(client)
    created = new_game(client, mode="engine", level=2, color="black")
    gid, token = created["game"]["id"], created["token"]
    with (
        client.websocket_connect("/ws/analysis") as a1,
        client.websocket_connect("/ws/analysis") as a2,
        client.websocket_connect("/ws/analysis") as a3,
        client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(token)) as game,
    ):
        analyses = (a1, a2, a3)
        for i, ws in enumerate(analyses):
            ws.send_json({"type": "analyse", "id": i, "time": 60})
        assert a1.receive_json()["type"] == "info"  # the one analysis thread is busy
        assert game.receive_json()["game"]["ply"] == 0
        assert move(client, gid, token, "11-15", 0).status_code == 200
        while (state := game.receive_json()["game"])["ply"] < 2:
            pass
        assert state["turn"] == "black"  # the engine replied ...
        assert ctx.runner.searching("analysis:") == 1  # ... while the analysis thinks
        assert ctx.runner.analyses_in_flight == 3  # and two more wait their turn
        for ws in analyses:
            ws.send_json({"type": "stop"})
            assert until_done(ws)["type"] == "done"


@engine_only
@pytest.mark.timeout(60)
def test_analyses_per_address_are_limited(make_client: AppFactory) -> None:
    client = make_client(analyses_per_address=1, analysis_max_time=60)
    with (
        client.websocket_connect("/ws/analysis") as first,
        client.websocket_connect("/ws/analysis") as second,
    ):
        first.send_json({"type": "analyse", "id": "a", "time": 60})
        assert first.receive_json()["type"] == "info"
        second.send_json({"type": "analyse", "id": "b", "time": 60})
        refused = second.receive_json()
        assert refused["type"] == "error" and refused["id"] == "b"
        assert refused["error"]["code"] == "rate_limited"
        # a new request on the same socket replaces its search (it does not add one)
        first.send_json({"type": "analyse", "id": "c", "time": 60})
        assert until_done(first)["id"] == "a"
        first.send_json({"type": "stop"})
        assert until_done(first)["id"] == "c"
        second.send_json({"type": "analyse", "id": "d", "time": 0.1})  # its turn now
        done = until_done(second)
        assert done["type"] == "done" and done["id"] == "d"


@engine_only
@pytest.mark.timeout(60)
def test_an_analysis_is_capped_in_time(make_client: AppFactory) -> None:
    client = make_client(analysis_max_time=0.2)
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "id": 1, "time": 300})
        done = until_done(ws)  # no stop sent: the cap ends it
        assert done["type"] == "done" and done["id"] == 1 and done["best"]
        assert ctx_of(client).runner.analyses_in_flight == 0


def test_a_pdn_import_has_a_cap_on_games(make_client: AppFactory) -> None:
    client = make_client(import_max_games=3)
    three = b"1. 11-15 *\n\n1. 10-14 *\n\n1. 10-15 *\n\n"  # three games (no duplicate)
    assert len(client.post("/api/import", content=three).json()["imported"]) == 3
    r = client.post("/api/import", content=three + b"1. 9-13 *\n")
    assert r.status_code == 413 and error_code(r) == "too_large"
    assert "3 games" in r.json()["error"]["message"]
    assert len(client.get("/api/games").json()["games"]) == 3  # nothing of it stored


def test_an_analysis_client_that_does_not_read_is_not_buffered_without_end() -> None:
    box = Outbox(MAX_PENDING)
    for i in range(MAX_PENDING * 3):
        box.put_progress(f"info {i}")
    assert box.queue.qsize() == MAX_PENDING
    box.put("done")  # the end of a search is always queued
    assert box.queue.qsize() == MAX_PENDING + 1
