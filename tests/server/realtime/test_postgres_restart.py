"""PostgreSQL restarted in the middle of a game, a lobby and a tournament round, with
two server processes: what the other process did while one process's LISTEN
connection was down reaches that process's sockets once it is back.

The servers run in threads (uvicorn, real sockets) over a cluster of this module's
own, since it is restarted.  Server A signs in to PostgreSQL as a role of its own;
while the restart lasts, pg_hba.conf refuses that role, so A's outage is sure to
cover the changes made through B (a slow reconnection, made certain), and ends when
the rule goes (``pg_ctl reload``).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx2
import pytest
import uvicorn
import websockets
from argon2.profiles import CHEAPEST
from websockets.asyncio.client import ClientConnection

from poolcheckers.server.accounts.service import SESSION_ENDED
from poolcheckers.server.accounts.sessions import COOKIE_NAME
from poolcheckers.server.app import Settings, create_app

from ..conftest import PgCluster, free_port, pg_bin
from ..helpers import ws_seat

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(180)]

#: the role server A signs in as (refused while the outage lasts)
ROLE_A = "server_a"
PASSWORD = "correct horse battery"
#: how long a socket may wait for what it missed: the bus's reconnection backoff
#: (at most 5 s) and the catch-up's reads
CATCH_UP_S = 20.0


class Restartable(PgCluster):
    """The module's cluster: restarted with server A's role refused until
    :meth:`outage` ends."""

    def hba(self) -> Any:
        return self.data / "pg_hba.conf"

    @contextmanager
    def outage(self) -> Iterator[None]:
        """PostgreSQL restarted (every session ended); A cannot sign in again until
        the block ends, B can."""
        original = self.hba().read_text()
        self.halt()
        refused = f"host all {ROLE_A} 127.0.0.1/32 reject\nhost all {ROLE_A} ::1/128 reject\n"
        self.hba().write_text(refused + original)
        self.serve()
        try:
            yield
        finally:
            self.hba().write_text(original)
            self.reload()


@pytest.fixture(scope="module")
def cluster() -> Iterator[Restartable]:
    bindir = pg_bin()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries (initdb/pg_ctl) on this machine")
    c = Restartable(bindir)
    c.start()
    import psycopg

    with psycopg.connect(c.url("postgres"), autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {ROLE_A} LOGIN SUPERUSER")
    try:
        yield c
    finally:
        c.stop()


class ThreadServer:
    """A server process's app served by uvicorn on a loopback port, in a thread."""

    def __init__(self, url: str) -> None:
        settings = Settings(
            database_url=url,
            password_parameters=CHEAPEST,
            signup_limit=(100, 3600.0),
            tournament_sweep_interval=60.0,
        )
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            create_app(settings), host="127.0.0.1", port=self.port, log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture
def servers(
    cluster: Restartable, request: pytest.FixtureRequest
) -> Iterator[tuple[ThreadServer, ThreadServer]]:
    name = "r_" + "".join(ch if ch.isalnum() else "_" for ch in request.node.name)[:40].lower()
    url_b = cluster.create_database(name)
    url_a = url_b.replace(f"{cluster.user}@", f"{ROLE_A}@", 1)
    a = ThreadServer(url_a)  # the first one migrates the database
    try:
        b = ThreadServer(url_b)
        try:
            yield a, b
        finally:
            b.stop()
    finally:
        a.stop()


async def until(ws: ClientConnection, done: Callable[[Any], bool], seconds: float) -> list[Any]:
    """The messages ``ws`` receives until one satisfies ``done`` (fails after
    ``seconds``)."""
    got: list[Any] = []
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        left = deadline - asyncio.get_running_loop().time()
        try:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(left, 0.01)))
        except TimeoutError:
            raise AssertionError(f"not received within {seconds} s; got {got}") from None
        got.append(message)
        if done(message):
            return got


async def sent(client: httpx2.AsyncClient, method: str, path: str, **kw: Any) -> Any:
    """A request answered 2xx; one that met a connection PostgreSQL had just ended is
    made again (a client's retry: nothing was stored)."""
    for _ in range(5):
        r = await client.request(method, path, **kw)
        if r.status_code < 500:
            assert r.is_success, r.text
            return r.json() if r.content else None
        await asyncio.sleep(0.5)
    raise AssertionError(f"{method} {path}: {r.status_code} {r.text}")


async def signed_up(client: httpx2.AsyncClient, name: str) -> None:
    body = {"username": name, "password": PASSWORD}
    token = (await sent(client, "POST", "/api/account/signup", json=body))["csrf_token"]
    client.headers["X-CSRF-Token"] = token


async def test_a_game_watched_on_one_server_gets_every_move_made_on_the_other_meanwhile(
    cluster: Restartable, servers: tuple[ThreadServer, ThreadServer]
) -> None:
    a, b = servers
    async with httpx2.AsyncClient(base_url=b.base, timeout=30) as hb:
        created = await sent(hb, "POST", "/api/games", json={"mode": "online", "color": "black"})
        gid, black = created["game"]["id"], created["token"]
        invite = created["invite"].split("invite=", 1)[1]
        white = (await sent(hb, "POST", f"/api/games/{gid}/join", json={"invite": invite}))["token"]

        async def play(mv: str, ply: int, token: str) -> None:
            body = {"move": mv, "ply": ply, "token": token}
            await sent(hb, "POST", f"/api/games/{gid}/move", json=body)

        def plies(n: int) -> Callable[[Any], bool]:
            return lambda m: m["type"] == "state" and len(m["game"]["moves"]) >= n

        async with websockets.connect(f"{a.ws}/ws/games/{gid}", subprotocols=ws_seat(black)) as ws:
            await until(ws, plies(0), 10)
            await play("11-15", 0, black)
            await until(ws, plies(1), 10)
            with cluster.outage():
                await play("22-18", 1, white)
                await play("15x22", 2, black)
                await play("25x18", 3, white)
            got = await until(ws, plies(4), CATCH_UP_S)
            assert got[-1]["game"]["moves"] == ["11-15", "22-18", "15x22", "25x18"]
            # and A hears B's moves again as they are made
            await play("9-14", 4, black)
            got = await until(ws, plies(5), 10)
            assert got[-1]["game"]["moves"][-1] == "9-14"


async def test_a_lobby_on_one_server_shows_the_seeks_and_game_starts_of_the_other_meanwhile(
    cluster: Restartable, servers: tuple[ThreadServer, ThreadServer]
) -> None:
    """Ann's lobby socket is on A; Bob, on B, cancels a seek, posts another and takes
    Ann's while A cannot hear: Ann's lobby shows Bob's new seek only, and her game
    starts."""
    a, b = servers
    async with (
        httpx2.AsyncClient(base_url=b.base, timeout=30) as ann,
        httpx2.AsyncClient(base_url=b.base, timeout=30) as bob,
    ):
        await signed_up(ann, "Ann")
        await signed_up(bob, "Bob")
        cookie = {"Cookie": f"{COOKIE_NAME}={ann.cookies[COOKIE_NAME]}"}
        async with websockets.connect(f"{a.ws}/ws/lobby", additional_headers=cookie) as lobby:
            seeks: dict[str, Any] = {}
            games: list[str] = []

            def seen(message: Any) -> None:
                if message["type"] == "seeks":
                    seeks.clear()
                    seeks.update({s["id"]: s for s in message["seeks"]})
                elif message["type"] == "seek_added":
                    seeks[message["seek"]["id"]] = message["seek"]
                elif message["type"] == "seek_removed":
                    seeks.pop(message["id"], None)
                elif message["type"] == "game":
                    games.append(message["id"])

            def showing(*ids: str) -> Callable[[Any], bool]:
                def check(message: Any) -> bool:
                    seen(message)
                    return set(ids) <= set(seeks)

                return check

            await until(lobby, lambda m: m["type"] == "seeks", 10)
            bobs = await sent(bob, "POST", "/api/seeks", json={"clock": {"days": 2}})
            anns = await sent(ann, "POST", "/api/seeks", json={"clock": {"days": 5}})
            await until(lobby, showing(bobs["id"], anns["id"]), 10)
            with cluster.outage():
                await sent(bob, "DELETE", f"/api/seeks/{bobs['id']}")
                again = await sent(bob, "POST", "/api/seeks", json={"clock": {"days": 3}})
                taken = await sent(bob, "POST", f"/api/seeks/{anns['id']}/accept")
            await until(lobby, lambda m: showing(again["id"])(m) and bool(games), CATCH_UP_S)
            assert list(seeks) == [again["id"]]
            assert games == [taken["game"]["id"]]


async def test_a_tournament_page_on_one_server_hears_of_the_round_paired_on_the_other_meanwhile(
    cluster: Restartable, servers: tuple[ThreadServer, ThreadServer]
) -> None:
    a, b = servers
    async with (
        httpx2.AsyncClient(base_url=b.base, timeout=30) as ann,
        httpx2.AsyncClient(base_url=b.base, timeout=30) as bob,
        httpx2.AsyncClient(base_url=a.base, timeout=30) as page,
    ):
        await signed_up(ann, "Ann")
        await signed_up(bob, "Bob")
        body = {
            "name": "Club Swiss",
            "system": "swiss",
            "clock": {"initial": 600, "increment": 5},
            "rounds": 1,
        }
        tid = (await sent(ann, "POST", "/api/tournaments", json=body))["id"]
        for player in (ann, bob):
            await sent(player, "POST", f"/api/tournaments/{tid}/join", json={})
        assert (await sent(page, "GET", f"/api/tournaments/{tid}"))["pairings"] == []
        async with websockets.connect(f"{a.ws}/ws/tournaments/{tid}") as ws:
            with pytest.raises(TimeoutError):  # nothing pending before the restart
                await asyncio.wait_for(ws.recv(), timeout=1.0)
            with cluster.outage():
                await sent(ann, "POST", f"/api/tournaments/{tid}/start")
            await until(ws, lambda m: m == {"type": "update"}, CATCH_UP_S)
            pairings = (await sent(page, "GET", f"/api/tournaments/{tid}"))["pairings"]
            assert {pairings[0]["black"], pairings[0]["white"]} == {"Ann", "Bob"}


async def test_a_socket_on_one_server_closes_when_its_session_ended_on_the_other_meanwhile(
    cluster: Restartable, servers: tuple[ThreadServer, ThreadServer]
) -> None:
    """Ann's lobby socket on A is signed in by a session that "sign out everywhere",
    on B while A cannot hear, ends: the socket closes once A hears again, not at its
    next ping."""
    a, b = servers
    async with (
        httpx2.AsyncClient(base_url=b.base, timeout=30) as ann,
        httpx2.AsyncClient(base_url=b.base, timeout=30) as laptop,
    ):
        await signed_up(ann, "Ann")
        body = {"username": "Ann", "password": PASSWORD}
        await sent(laptop, "POST", "/api/account/login", json=body)
        cookie = {"Cookie": f"{COOKIE_NAME}={laptop.cookies[COOKIE_NAME]}"}
        async with websockets.connect(f"{a.ws}/ws/lobby", additional_headers=cookie) as lobby:
            await until(lobby, lambda m: m["type"] == "seeks", 10)
            with cluster.outage():
                await sent(ann, "POST", "/api/account/logout-everywhere")
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await until(lobby, lambda _m: False, CATCH_UP_S)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == SESSION_ENDED


CHALLENGE = {"clock": {"initial": 600, "increment": 5}, "rated": False}


async def test_a_lobby_on_one_server_rereads_the_challenges_sent_on_the_other_meanwhile(
    cluster: Restartable, servers: tuple[ThreadServer, ThreadServer]
) -> None:
    """Ann's lobby socket is on A; Bob, on B, challenges her while A cannot hear: the
    notice is lost, so once A hears again her socket is told that her challenges
    changed, and her list (read again over HTTP) shows Bob's."""
    a, b = servers
    async with (
        httpx2.AsyncClient(base_url=a.base, timeout=30) as ann,
        httpx2.AsyncClient(base_url=b.base, timeout=30) as bob,
    ):
        await signed_up(ann, "Ann")
        await signed_up(bob, "Bob")
        cookie = {"Cookie": f"{COOKIE_NAME}={ann.cookies[COOKIE_NAME]}"}
        async with websockets.connect(f"{a.ws}/ws/lobby", additional_headers=cookie) as lobby:
            await until(lobby, lambda m: m["type"] == "seeks", 10)
            with cluster.outage():
                sent_meanwhile = await sent(
                    bob, "POST", "/api/challenges", json={"username": "Ann", **CHALLENGE}
                )
            got = await until(lobby, lambda m: m["type"].startswith("challenge"), CATCH_UP_S)
            assert got[-1] == {"type": "challenges_changed"}
            listed = await sent(ann, "GET", "/api/challenges")
            assert [c["id"] for c in listed["in"]] == [sent_meanwhile["id"]]
            assert listed["in"][0]["status"] == "open"


async def test_a_bots_event_stream_on_one_server_gets_the_challenge_sent_on_the_other_meanwhile(
    cluster: Restartable, servers: tuple[ThreadServer, ThreadServer]
) -> None:
    """A bot's event stream is open on A; Bob, on B, challenges it while A cannot
    hear: once A hears again the stream gives that challenge (and only that one:
    the challenge it gave before is not given again)."""
    a, b = servers
    async with (
        httpx2.AsyncClient(base_url=b.base, timeout=30) as owner,
        httpx2.AsyncClient(base_url=b.base, timeout=30) as bob,
        httpx2.AsyncClient(base_url=a.base, timeout=30) as program,
    ):
        await signed_up(owner, "Robo")
        await signed_up(bob, "Bob")
        body = {"label": "engine", "scopes": ["bot:play"]}
        token = (await sent(owner, "POST", "/api/account/tokens", json=body))["token"]
        program.headers["Authorization"] = f"Bearer {token}"
        await sent(program, "POST", "/api/bot/account/upgrade")
        challenge = {"username": "Robo", **CHALLENGE}
        async with program.stream("GET", "/api/stream/event") as answer:
            assert answer.status_code == 200
            events = (json.loads(line) async for line in answer.aiter_lines() if line.strip())

            async def next_event(seconds: float) -> Any:
                return await asyncio.wait_for(anext(events), timeout=seconds)

            before = await sent(bob, "POST", "/api/challenges", json=challenge)
            told = await next_event(10)  # the stream runs: a challenge comes live
            assert (told["type"], told["challenge"]["id"]) == ("challenge", before["id"])
            with cluster.outage():
                meanwhile = await sent(bob, "POST", "/api/challenges", json=challenge)
            told = await next_event(CATCH_UP_S)
            assert (told["type"], told["challenge"]["id"]) == ("challenge", meanwhile["id"])
            with pytest.raises(TimeoutError):  # the first one is not told again
                await next_event(1.0)
