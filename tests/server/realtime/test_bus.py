"""The real-time bus over a fake LISTEN connection: every channel on one connection,
each notice to its channel's handler, and after a lost connection a reconnection
with backoff, LISTEN again, then every handler's catch-up before the next notices;
one log line per outage."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from poolcheckers.server.realtime import bus as buses
from poolcheckers.server.realtime.bus import Handler, Listening, Notice, PgBus


@dataclass(frozen=True)
class Note:
    channel: str
    payload: str


class FakeConnection:
    """LISTENs recorded; notices fed by the test; :meth:`drop` ends it as a lost
    connection does (psycopg raises ``OperationalError``)."""

    def __init__(self, log: list[str]) -> None:
        self.log = log
        self.queue: asyncio.Queue[Note | None] = asyncio.Queue()
        self.closed = False

    async def execute(self, query: str) -> object:
        self.log.append(query)
        return None

    async def notifies(self) -> AsyncIterator[Notice]:
        while (note := await self.queue.get()) is not None:
            yield note
        raise OSError("server closed the connection unexpectedly")

    async def close(self) -> None:
        self.closed = True

    def send(self, channel: str, payload: str) -> None:
        self.queue.put_nowait(Note(channel, payload))

    def drop(self) -> None:
        self.queue.put_nowait(None)


class FakeServer:
    """Hands out connections; refuses ``refusals`` attempts (PostgreSQL down)."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.connections: list[FakeConnection] = []
        self.refusals = 0
        self.attempts = 0

    async def connect(self) -> Listening:
        self.attempts += 1
        if self.refusals > 0:
            self.refusals -= 1
            raise OSError("connection refused")
        conn = FakeConnection(self.log)
        self.connections.append(conn)
        return conn


def recording(name: str, log: list[str]) -> Handler:
    async def catch_up() -> None:
        log.append(f"{name}: catch up")

    return Handler(lambda payload: log.append(f"{name}: {payload}"), catch_up)


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(buses, "RECONNECT_FIRST_S", 0.001)
    monkeypatch.setattr(buses, "RECONNECT_MOST_S", 0.004)


async def test_one_connection_listens_on_every_channel_and_hands_each_notice_to_its_handler(
    fast: None,
) -> None:
    server = FakeServer()
    heard: list[str] = []
    bus = PgBus(server.connect)
    bus.register("games", recording("games", heard))
    bus.register("lobby", recording("lobby", heard))
    await bus.start()
    try:
        assert bus.ready.is_set()
        assert server.log == ["LISTEN games", "LISTEN lobby"]
        conn = server.connections[0]
        conn.send("lobby", "seek")
        conn.send("games", "g1:3")
        conn.send("elsewhere", "nobody's")
        await settle()
        assert heard == ["lobby: seek", "games: g1:3"]  # no catch-up at the first start
        assert len(server.connections) == 1
    finally:
        await bus.stop()


async def test_a_lost_connection_is_listened_again_and_every_handler_catches_up_first(
    fast: None, caplog: pytest.LogCaptureFixture
) -> None:
    server = FakeServer()
    heard: list[str] = []
    bus = PgBus(server.connect)
    bus.register("games", recording("games", heard))
    bus.register("topics", recording("topics", heard))
    await bus.start()
    try:
        first = server.connections[0]
        server.refusals = 5  # PostgreSQL restarting: five attempts refused
        with caplog.at_level(logging.WARNING, logger="poolcheckers.server.notify"):
            first.drop()
            await asyncio.wait_for(_reconnected(server, 2), timeout=5)
            second = server.connections[1]
            second.send("games", "g1:4")  # sent after LISTEN: comes after the catch-up
            await asyncio.wait_for(_heard(heard, 3), timeout=5)
        assert first.closed
        assert server.attempts == 1 + 5 + 1
        assert server.log == ["LISTEN games", "LISTEN topics"] * 2
        assert heard == ["games: catch up", "topics: catch up", "games: g1:4"]
        assert bus.catch_ups == 1 and bus.ready.is_set()
        lost = [r for r in caplog.records if "lost" in r.getMessage()]
        back = [r for r in caplog.records if "back after" in r.getMessage()]
        assert len(lost) == 1 and len(back) == 1  # once per outage, not per attempt
    finally:
        await bus.stop()


async def test_a_handler_that_fails_keeps_neither_the_others_nor_the_notices_from_going(
    fast: None,
) -> None:
    server = FakeServer()
    heard: list[str] = []

    def broken(payload: str) -> None:
        raise ValueError(payload)

    async def broken_catch_up() -> None:
        raise OSError("the database is down again")

    bus = PgBus(server.connect)
    bus.register("broken", Handler(broken, broken_catch_up))
    bus.register("games", recording("games", heard))
    await bus.start()
    try:
        server.connections[0].send("broken", "x")
        server.connections[0].send("games", "g1:1")
        server.connections[0].drop()
        await asyncio.wait_for(_reconnected(server, 2), timeout=5)
        server.connections[1].send("games", "g1:2")
        await asyncio.wait_for(_heard(heard, 3), timeout=5)
        assert heard == ["games: g1:1", "games: catch up", "games: g1:2"]
    finally:
        await bus.stop()


def test_a_channel_is_registered_once_and_must_be_a_plain_name() -> None:
    bus = PgBus(FakeServer().connect)
    bus.register("games", recording("games", []))
    with pytest.raises(ValueError, match="already"):
        bus.register("games", recording("games", []))
    with pytest.raises(ValueError, match="not a channel"):
        bus.register("games; DROP TABLE games", recording("games", []))


async def _reconnected(server: FakeServer, n: int) -> None:
    while len(server.connections) < n:
        await asyncio.sleep(0.001)


async def _heard(heard: list[str], n: int) -> None:
    while len(heard) < n:
        await asyncio.sleep(0.001)


async def test_a_handler_hears_of_each_outage_once_and_not_of_a_failed_start(fast: None) -> None:
    server = FakeServer()
    server.refusals = 2  # PostgreSQL not up yet when the server starts
    losses: list[str] = []

    async def nothing() -> None:
        return None

    bus = PgBus(server.connect)
    bus.register("lobby", Handler(lambda _p: None, nothing, lambda: losses.append("lost")))
    await bus.start()
    try:
        assert losses == []
        server.refusals = 3
        server.connections[0].drop()
        await asyncio.wait_for(_reconnected(server, 2), timeout=5)
        assert losses == ["lost"]
    finally:
        await bus.stop()
