"""PostgreSQL: the store on a real server, and two server processes sharing it.

A move made through one process reaches WebSocket clients of the other through
LISTEN/NOTIFY, and moves racing for one ply through both processes have exactly
one winner.  The cluster is a throwaway one started by the ``pg_cluster`` fixture;
these tests are skipped only when no PostgreSQL server binaries exist.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import websockets
from fastapi.testclient import TestClient
from websockets.asyncio.client import ClientConnection

from poolcheckers import Board
from poolcheckers.server.app import Settings, create_app
from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.database.executor import DbExecutor
from poolcheckers.server.games.model import NewGame
from poolcheckers.server.games.service import GameService
from poolcheckers.server.timesource import ManualTime

from .conftest import AppFactory, free_port
from .helpers import move, online_game, state_of, ws_seat
from .test_store import race

pytestmark = pytest.mark.postgres


def test_api_on_postgres(pg_url: str) -> None:
    clock = ManualTime()
    settings = Settings(
        allowed_hosts=("testserver",), database_url=pg_url, clock=clock, sweep_interval=0.05
    )
    with TestClient(create_app(settings)) as client:
        assert client.get("/api/health").json()["database"] == "postgresql"
        gid, black, white = online_game(client, clock={"initial": 30, "increment": 1})
        assert move(client, gid, black, "11-15", 0).status_code == 200
        assert move(client, gid, black, "11-15", 0).status_code == 200  # retry
        assert move(client, gid, white, "11-15", 0).status_code == 409
        clock.advance(2)
        state = move(client, gid, white, "22-18", 1).json()
        assert state["moves"] == ["11-15", "22-18"]
        assert state["clock"]["white"] == 30.0  # a side's first move is free
        assert state["clock"]["running"] == "black"
        finished = client.post(f"/api/games/{gid}/resign", json={"token": black}).json()
        assert finished["outcome"]["termination"] == "resignation"
        listed = client.get("/api/games", params={"status": "finished"}).json()["games"]
        assert [g["id"] for g in listed] == [gid]


def test_a_pooled_connection_the_database_dropped_is_replaced_before_use(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database restart while the site is quiet leaves dead connections in the
    pool: the first request after it gets a live one, not an error."""
    import psycopg

    from poolcheckers.server.database import engine as engines

    monkeypatch.setattr(engines, "PING_AFTER_IDLE_S", 0.0)  # every checkout checks
    db = make_engine(pg_url)
    try:
        with db.connect() as conn:
            dropped = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        with psycopg.connect(engines.libpq_conninfo(pg_url), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (dropped,))
        with db.connect() as conn:
            assert conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one() != dropped
    finally:
        db.dispose()


def test_a_connection_used_a_moment_ago_is_lent_without_a_round_trip(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check before lending costs a round trip: a connection just given back is
    lent again unchecked (``PING_AFTER_IDLE_S``)."""
    db = make_engine(pg_url)
    pings: list[Any] = []
    real_ping = db.dialect.do_ping

    def counted_ping(dbapi_conn: Any) -> bool:
        pings.append(dbapi_conn)
        return real_ping(dbapi_conn)

    monkeypatch.setattr(db.dialect, "do_ping", counted_ping)
    try:
        for _ in range(5):
            with db.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
        assert pings == []
    finally:
        db.dispose()


def test_a_statement_is_prepared_at_its_second_run_on_a_connection(pg_url: str) -> None:
    """PostgreSQL parses a statement run again on a pooled connection once (psycopg's
    ``prepare_threshold``), not at each run: the first run is plain."""
    from poolcheckers.server.database.engine import single_reads

    db = single_reads(make_engine(pg_url))
    listed = "SELECT statement FROM pg_prepared_statements"
    try:
        with db.connect() as conn:  # autocommit: a ROLLBACK would deallocate them all
            conn.exec_driver_sql("SELECT 41 + 1")
            assert "SELECT 41 + 1" not in conn.exec_driver_sql(listed).scalars().all()
            assert conn.exec_driver_sql("SELECT 41 + 1").scalar_one() == 42
            assert "SELECT 41 + 1" in conn.exec_driver_sql(listed).scalars().all()
    finally:
        db.engine.dispose()


@pytest.mark.parametrize(
    ("url", "inline"),
    [
        ("sqlite://", True),
        ("postgresql://user@localhost/games", True),
        ("postgresql://user@127.0.0.1:5433/games", True),
        ("postgresql://user@[::1]/games", True),
        ("postgresql:///games", True),  # libpq's default: the Unix socket
        ("postgresql://user@/games?host=/run/postgresql", True),
        ("postgresql://user@db.example.org/games", False),
        ("postgresql://user@10.0.0.7/games", False),
    ],
)
def test_database_work_runs_on_the_event_loop_when_the_database_is_on_this_machine(
    url: str, inline: bool
) -> None:
    """A local statement's round trip is shorter than a hand-off to a thread and back:
    the executor runs the work inline for SQLite and a local PostgreSQL, in its
    threads for a remote one, and ``--db-threads`` decides when given."""
    db = make_engine(url)  # no connection yet
    try:
        assert DbExecutor(db, threads=8).inline is inline
        assert DbExecutor(db, threads=8, inline=False).inline is False
        assert DbExecutor(db, threads=8, inline=True).inline is True
    finally:
        db.dispose()


def test_the_reads_of_one_piece_of_work_share_one_connection_outside_transactions(
    pg_url: str,
) -> None:
    """A lobby accept reads who asks and the seek, then stores its game: one
    connection for all of them (a checkout each cost more than the statement), none
    left open after, and no transaction around them (no BEGIN/ROLLBACK round trips)."""
    from psycopg.pq import TransactionStatus

    from poolcheckers.server.database.engine import single_reads
    from poolcheckers.server.database.executor import read, shared_reads

    db = make_engine(pg_url)
    reads = single_reads(db)
    pool: Any = db.pool  # a QueuePool
    try:
        with shared_reads():
            with read(reads) as conn:
                first = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
                driver: Any = conn.connection.dbapi_connection
                assert driver.info.transaction_status == TransactionStatus.IDLE
            with read(reads) as conn:
                again = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
            assert pool.checkedout() == 1
        assert first == again
        assert pool.checkedout() == 0
    finally:
        db.dispose()


def test_taking_a_seek_costs_three_statements_on_postgres(pg_app: AppFactory) -> None:
    """Ann's seek on one server, taken by Bob on the other: who Bob is, the seek with
    what taking it needs (the players' other seeks, whether they are bots, their
    rated games today, their ratings), then the seek's delete, the game's insert and
    the NOTIFY to Ann's server in one statement, no BEGIN or COMMIT round trips
    (autocommit), all on one connection."""
    from argon2.profiles import CHEAPEST

    from .test_lobby_api import NO_SWEEPS, accept_counted, signed_in

    quiet = {"password_parameters": CHEAPEST, **NO_SWEEPS}
    with pg_app(**quiet) as one, pg_app(**quiet) as two:
        ann = signed_in(lambda **_kw: TestClient(one.app), "Ann")
        bob = signed_in(lambda **_kw: TestClient(two.app), "Bob")
        transactions: list[str] = []
        statements, checkouts = accept_counted(ann, bob, transactions)
    assert len(statements) == 3, statements
    claim = " ".join(statements[-1].split())
    assert claim.startswith("WITH claimed AS (DELETE FROM seeks")
    assert "INSERT INTO games" in claim and "pg_notify" in claim
    assert transactions == []  # no transaction: no BEGIN or COMMIT round trips
    assert checkouts == 1  # who asks, the seek and the claim on one connection


def test_race_between_two_processes_on_postgres(pg_url: str) -> None:
    engines = [make_engine(pg_url) for _ in range(2)]
    run_migrations(engines[0])
    services = [GameService(e) for e in engines]
    legal = [m.full_notation() for m in Board().legal_moves]
    for _ in range(5):
        committed, token, _ = services[0].creator.open(NewGame(mode="local"))
        gid = committed.loaded.game.id
        wins, losses = race(services, gid, token, legal)
        assert len(wins) == 1 and losses == ["stale_ply"] * (len(legal) - 1)
        assert state_of(services[1], gid)["moves"] == wins
    for e in engines:
        e.dispose()


class Server:
    """``python -m poolcheckers.server`` in a subprocess on a loopback port."""

    def __init__(self, url: str, log: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log.open("w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "poolcheckers.server",
                "--port",
                str(self.port),
                "--database-url",
                url,
                "--log-level",
                "warning",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                if httpx2.get(self.base + "/api/health", timeout=1).status_code == 200:
                    return
            except httpx2.HTTPError:
                pass
            time.sleep(0.1)
        raise TimeoutError("server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.log.close()


@pytest.fixture
def two_servers(pg_url: str, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    a = Server(pg_url, tmp_path / "a.log")
    try:
        a.wait_ready()  # the first one migrates the database
        b = Server(pg_url, tmp_path / "b.log")
        try:
            b.wait_ready()
            yield a, b
        finally:
            b.stop()
    finally:
        a.stop()


async def next_state(ws: ClientConnection) -> dict[str, Any]:
    msg = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
    assert msg["type"] == "state", msg
    game: dict[str, Any] = msg["game"]
    return game


@pytest.mark.timeout(120)
async def test_two_processes_share_games_through_listen_notify(
    two_servers: tuple[Server, Server],
) -> None:
    a, b = two_servers
    async with httpx2.AsyncClient(base_url=a.base) as ha, httpx2.AsyncClient(base_url=b.base) as hb:
        created = (await ha.post("/api/games", json={"mode": "online"})).json()
        gid = created["game"]["id"]
        black = created["token"]
        invite = created["invite"].split("invite=", 1)[1]
        # the invited player joins through the other process
        joined = (await hb.post(f"/api/games/{gid}/join", json={"invite": invite})).json()
        white = joined["token"]
        ws_base_a = a.base.replace("http", "ws")
        ws_base_b = b.base.replace("http", "ws")
        async with (
            websockets.connect(
                f"{ws_base_b}/ws/games/{gid}", subprotocols=ws_seat(white)
            ) as ws_white,
            websockets.connect(
                f"{ws_base_a}/ws/games/{gid}", subprotocols=ws_seat(black)
            ) as ws_black,
            websockets.connect(f"{ws_base_b}/ws/games/{gid}") as spectator_b,
        ):
            for ws in (ws_white, ws_black, spectator_b):
                assert (await next_state(ws))["seats"] == {"black": True, "white": True}
            # a move through process A reaches the clients of process B
            r = await ha.post(
                f"/api/games/{gid}/move", json={"move": "11-15", "ply": 0, "token": black}
            )
            assert r.status_code == 200
            for ws in (ws_white, spectator_b, ws_black):
                state = await next_state(ws)
                assert state["moves"] == ["11-15"] and state["turn"] == "white"
            # a move over a socket of process B reaches the client of process A
            await ws_white.send(json.dumps({"type": "move", "move": "22-18", "ply": 1}))
            for ws in (ws_black, ws_white, spectator_b):
                assert (await next_state(ws))["moves"] == ["11-15", "22-18"]
            # racing the same ply through both processes: exactly one wins
            results = await asyncio.gather(
                ha.post(f"/api/games/{gid}/move", json={"move": "15x22", "ply": 2, "token": black}),
                hb.post(f"/api/games/{gid}/move", json={"move": "15x22", "ply": 2, "token": black}),
            )
            # both are the same move: one plays it, the other is answered as its retry
            assert [r.status_code for r in results] == [200, 200]
            assert results[0].json() == results[1].json()
            for ws in (ws_black, ws_white, spectator_b):
                state = await next_state(ws)
                assert state["moves"] == ["11-15", "22-18", "15x22"]
            s_a = (await ha.get(f"/api/games/{gid}")).json()
            s_b = (await hb.get(f"/api/games/{gid}")).json()
            assert s_a == s_b and s_a["ply"] == 3
            # two different moves for one ply through the two processes: one wins
            results = await asyncio.gather(
                ha.post(f"/api/games/{gid}/move", json={"move": "25x18", "ply": 3, "token": white}),
                hb.post(f"/api/games/{gid}/move", json={"move": "26x17", "ply": 3, "token": white}),
            )
            codes = sorted(r.status_code for r in results)
            assert codes == [200, 409]
            loser = next(r for r in results if r.status_code == 409)
            assert loser.json()["error"]["code"] == "stale_ply"
            winner = next(r for r in results if r.status_code == 200).json()
            for ws in (ws_black, ws_white, spectator_b):
                assert (await next_state(ws))["moves"] == winner["moves"]
            assert len(winner["moves"]) == 4
            # white resigns through process A: every socket hears it once
            await ha.post(f"/api/games/{gid}/resign", json={"token": white})
            for ws in (ws_black, ws_white, spectator_b):
                state = await next_state(ws)
                assert state["status"] == "finished" and state["outcome"]["winner"] == "black"
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(spectator_b.recv(), timeout=0.5)
