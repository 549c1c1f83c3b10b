"""The analysis board is shared fairly: a bounded queue per process that answers
"busy" at once beyond it, addresses served in turn, a few analyses and sockets per
address counted across server processes, and a rate on PDN readings."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from poolcheckers import Board
from poolcheckers.engine import native_available
from poolcheckers.server.analysis.runner import EngineRunner
from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.errors import ApiError
from poolcheckers.server.games import pdn as stored_pdn
from poolcheckers.server.games.service import GameService

from ..conftest import AppFactory
from ..helpers import error_code

engine_only = pytest.mark.skipif(not native_available(), reason="needs the native core")
GAME = '[Event "x"]\n[Result "*"]\n\n1. 11-15 23-19 *\n'


def until_done(ws: WebSocketTestSession) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = ws.receive_json()
        if msg["type"] != "info":
            return msg


@engine_only
@pytest.mark.timeout(60)
def test_beyond_the_analysis_queue_a_request_is_told_busy_at_once(
    make_client: AppFactory,
) -> None:
    # one thread, three places: this address gets two (the last is kept for newcomers)
    client = make_client(
        analysis_threads=1,
        analysis_queue=3,
        analyses_per_address=9,
        analysis_max_time=60,
        analysis_turn=60,
    )
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(client.websocket_connect("/ws/analysis")) for _ in range(3)]
        for i, ws in enumerate(sockets[:2]):
            ws.send_json({"type": "analyse", "id": i, "time": 60})
        assert sockets[0].receive_json()["type"] == "info"  # one runs, one waits
        sockets[2].send_json({"type": "analyse", "id": "late", "time": 60})
        refused = sockets[2].receive_json()
        assert refused["type"] == "error" and refused["id"] == "late"
        assert refused["error"]["code"] == "busy"
        assert "try again" in refused["error"]["message"]
        for ws in sockets[:2]:
            ws.send_json({"type": "stop"})
            assert until_done(ws)["type"] == "done"
        # the queue has room again
        sockets[2].send_json({"type": "analyse", "id": "now", "time": 0.1})
        assert until_done(sockets[2])["id"] == "now"


@engine_only
@pytest.mark.timeout(60)
def test_analyses_are_served_address_by_address(db_url: str) -> None:
    """One address's three queued analyses do not hold back another's one."""
    engine = make_engine(db_url)
    run_migrations(engine)
    runner = EngineRunner(GameService(engine), analysis_threads=1, analysis_max_time=5)
    finished: list[str] = []

    async def one(client: str, n: int) -> None:
        await runner.analyse(f"{client}{n}", client, Board(), 0.3)
        finished.append(f"{client}{n}")

    async def main() -> None:
        tasks = [asyncio.create_task(one("a", n)) for n in range(3)]
        await asyncio.sleep(0.05)  # a0 runs; a1 and a2 wait
        tasks.append(asyncio.create_task(one("b", 0)))
        await asyncio.gather(*tasks)

    try:
        asyncio.run(main())
    finally:
        runner.close()
        engine.dispose()
    assert finished.index("b0") <= 2  # after a0 and at most a1, never behind both


def test_the_last_places_of_the_queue_are_kept_for_newcomers(db_url: str) -> None:
    engine = make_engine(db_url)
    run_migrations(engine)
    runner = EngineRunner(GameService(engine), analysis_threads=2, analysis_queue=6)
    try:
        for client in ("a", "a", "b", "b"):
            runner.admit_analysis(client)
        with pytest.raises(ApiError) as busy:
            runner.admit_analysis("a")  # four of six taken: the last two are for newcomers
        assert busy.value.code == "busy" and busy.value.retry_after
        runner.admit_analysis("c")
        runner.admit_analysis("d")
        with pytest.raises(ApiError):
            runner.admit_analysis("e")  # full
        runner.analysis_done("c")
        runner.admit_analysis("e")
        assert runner.analyses_in_flight == 6
    finally:
        runner.close()
        engine.dispose()


@engine_only
@pytest.mark.timeout(60)
def test_a_waiting_analysis_gets_its_turn_in_seconds(make_client: AppFactory) -> None:
    client = make_client(analysis_threads=1, analysis_max_time=60, analysis_turn=0.5)
    with (
        client.websocket_connect("/ws/analysis") as long,
        client.websocket_connect("/ws/analysis") as short,
    ):
        long.send_json({"type": "analyse", "id": "long", "time": 60})
        assert long.receive_json()["type"] == "info"  # the only thread is taken
        began = time.monotonic()
        short.send_json({"type": "analyse", "id": "short", "time": 0.2})
        assert until_done(short)["id"] == "short"
        assert time.monotonic() - began < 20
        ended = until_done(long)  # its turn ended: its best line so far
        assert ended["type"] == "done" and ended["best"]


@engine_only
@pytest.mark.timeout(60)
def test_two_server_processes_share_the_analyses_of_an_address(make_client: AppFactory) -> None:
    first = make_client(analyses_per_address=1, analysis_max_time=60)
    second = make_client(analyses_per_address=1, analysis_max_time=60)
    with (
        first.websocket_connect("/ws/analysis") as one,
        second.websocket_connect("/ws/analysis") as other,
    ):
        one.send_json({"type": "analyse", "id": "a", "time": 60})
        assert one.receive_json()["type"] == "info"
        other.send_json({"type": "analyse", "id": "b", "time": 60})
        refused = other.receive_json()
        assert refused["type"] == "error" and refused["error"]["code"] == "rate_limited"
        one.send_json({"type": "stop"})
        assert until_done(one)["id"] == "a"
        other.send_json({"type": "analyse", "id": "c", "time": 0.1})
        assert until_done(other)["id"] == "c"  # the place was given back across processes


def test_one_address_gets_a_few_analysis_sockets_not_thousands(make_client: AppFactory) -> None:
    first = make_client(analysis_sockets_per_address=2)
    second = make_client(analysis_sockets_per_address=2)
    with first.websocket_connect("/ws/analysis"), second.websocket_connect("/ws/analysis"):
        with (
            first.websocket_connect("/ws/analysis") as extra,
            pytest.raises(WebSocketDisconnect) as closed,
        ):
            extra.receive_json()
        assert closed.value.code == 1008
        assert "analysis sockets" in (closed.value.reason or "")


def read_pdn(client: TestClient) -> Any:
    return client.post(
        "/api/analysis/pdn", content=GAME, headers={"content-type": "application/x-pdn"}
    )


def test_pdn_readings_are_limited_per_address_across_processes(
    make_client: AppFactory,
) -> None:
    first = make_client(pdn_analyses_per_minute=3)
    second = make_client(pdn_analyses_per_minute=3)
    for client in (first, second, first):
        assert read_pdn(client).status_code == 200
    refused = read_pdn(second)
    assert refused.status_code == 429 and error_code(refused) == "rate_limited"
    assert "3 PDN readings a minute" in refused.json()["error"]["message"]
    assert 0 < int(refused.headers["retry-after"]) <= 60


def test_one_address_reads_one_pdn_at_a_time_so_others_find_a_place(
    make_client: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_client(pdn_analyses_at_once=2)
    entered, release = threading.Event(), threading.Event()
    real = stored_pdn.read_for_analysis

    def slow(*args: Any) -> Any:
        entered.set()
        release.wait(10)
        return real(*args)

    monkeypatch.setattr(stored_pdn, "read_for_analysis", slow)
    first = threading.Thread(target=read_pdn, args=(client,))
    first.start()
    try:
        assert entered.wait(10)
        second = read_pdn(client)  # the same address, while its first is read
        assert second.status_code == 429 and error_code(second) == "rate_limited"
        assert "one PDN reading at a time" in second.json()["error"]["message"]
    finally:
        release.set()
        first.join(10)
    assert read_pdn(client).status_code == 200
