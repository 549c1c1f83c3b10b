"""The lobby under load: simulated players sign up, post and accept seeks and
play rated games; the time from accepting a seek to the game having started for
both players, and a check that every rated result changed the ratings exactly
once.

Starts ``python -m poolcheckers.server`` on a throwaway SQLite database (or
``--database-url``) with the sign-in limits raised (every player comes from
127.0.0.1).  Half the players are authors: each opens a lobby socket and posts a
rated 3+2 seek.  When every seek is up, the other half take them, all at once
(one event releases the hundred accepts of the default run together).  The game
has started for both when the taker has the accept's answer and the author has
the ``{"type": "game"}`` message on its lobby socket: that moment minus the
moment the accept was sent is the measured time.  The games are then played with random
legal moves (as the server lists them) for ``--plies`` plies and ended by both
players resigning at once while one of them also moves (racing finishes: one of
them ends the game).  Rounds repeat with colours swapped.  At the end, every
player's rating shows as many games as they finished, and the database holds one
rating update per finished game (a game counts from ``MIN_RATED_PLIES`` plies: with
``--plies`` below it, none is rated).

The same workload runs first against the server of ``--baseline`` (a commit built
from this repository's history into a temporary folder, as benchmarks/baseline.py
does for the engine), then against this checkout, each on a fresh database: the
old and new figures come from one run, on one machine state.  ``--plot`` draws
both distributions.

With ``--servers 2`` (PostgreSQL only) two server processes share the database:
each pair's author uses one and its taker the other, alternating, so both answer
accepts and every game start crosses processes (the author hears of it through
LISTEN/NOTIFY).

    .venv/bin/python benchmarks/bench_lobby.py --plot lobby.png  # 200 players, 2 rounds
    .venv/bin/python benchmarks/bench_lobby.py --players 50 --rounds 1 --json /tmp/l.json
    .venv/bin/python benchmarks/bench_lobby.py --servers 2 --database-url postgresql://...
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import h11
import httpx2
import uvloop
import websockets
from sqlalchemy import create_engine, func, select
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

import baseline
from serverproc import first_health, free_port, percentile, stop_server

from poolcheckers.server.ratings.service import MIN_RATED_PLIES

PASSWORD = "benchmark password"
#: the server before the lobby's speed-up: the old side of the comparison
BASELINE_COMMIT = "3b89296"
SEEK = {"clock": {"initial": 180, "increment": 2}, "rated": True, "color": "black"}


def start_server(
    url: str, players: int, code: Path | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """A server process on ``url``: this checkout's, or the built tree ``code``'s
    (started in that folder with it first on the path, so its package is the one
    imported)."""
    port = free_port()
    args = [
        sys.executable, "-m", "poolcheckers.server", "--port", str(port),
        "--database-url", url, "--log-level", "warning",
        "--signin-limit", str(10 * players), "--signup-limit", str(2 * players),
        "--signin-burst-limit", str(10 * players), "--hash-queue", str(2 * players),
        "--games-per-minute", str(10 * players),
        # a player's keep-alive connection may idle while the others' games run
        "--header-timeout", "600",
        # every player connects from 127.0.0.1
        "--connections-per-address", "0",
    ]  # fmt: skip
    log = open(Path(tempfile.gettempdir()) / f"bench_lobby_server_{port}.log", "wb")  # noqa: SIM115
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    proc = subprocess.Popen(
        args, stdout=log, stderr=subprocess.STDOUT, cwd=code or Path.cwd(), env=env
    )
    base = f"http://127.0.0.1:{port}"
    first_health(proc, base)
    return proc, base


class Player:
    def __init__(self, base: str, name: str, other: str) -> None:
        self.name = name
        # uvicorn closes a keep-alive connection idle for 5 s: never reuse one that old
        # (a request sent as the server closes it fails with ReadError)
        limits = httpx2.Limits(keepalive_expiry=3.0)
        self.http = httpx2.AsyncClient(base_url=base, timeout=120, limits=limits)
        self.base = base
        #: the server this player uses when taking a seek (another process, if any)
        self.other = other
        self.finished = 0

    async def sign_up(self) -> None:
        r = await self.http.post(
            "/api/account/signup", json={"username": self.name, "password": PASSWORD}
        )
        r.raise_for_status()
        self.http.headers["X-CSRF-Token"] = r.json()["csrf_token"]

    def cookie(self) -> str:
        return f"pc_session={self.http.cookies['pc_session']}"


async def play(black: Player, white: Player, game: dict[str, Any], plies: int, seed: int) -> bool:
    """Random legal moves, then racing finishes; True if the game ended long enough
    to be rated."""
    rng = random.Random(seed)
    gid = game["id"]
    state = game
    for _ in range(plies):
        if state["status"] != "running" or not state["legal_moves"]:
            break
        mover = black if state["turn"] == "black" else white
        choice = rng.choice(state["legal_moves"])["notation"]
        r = await mover.http.post(
            f"/api/games/{gid}/move", json={"move": choice, "ply": state["ply"]}
        )
        r.raise_for_status()
        state = r.json()
    if state["status"] == "running":
        mover = black if state["turn"] == "black" else white
        move = rng.choice(state["legal_moves"])["notation"] if state["legal_moves"] else "1-5"
        await asyncio.gather(
            black.http.post(f"/api/games/{gid}/resign", json={}),
            white.http.post(f"/api/games/{gid}/resign", json={}),
            mover.http.post(f"/api/games/{gid}/move", json={"move": move, "ply": state["ply"]}),
        )
    final = (await black.http.get(f"/api/games/{gid}")).json()
    return bool(final["status"] == "finished" and final["ply"] >= MIN_RATED_PLIES)


class Connection:
    """One kept-alive HTTP/1.1 connection of a player, framed by h11: the measured
    accept goes through it, so that the measuring client spends little of the
    measured time in its own HTTP stack (httpx costs about a millisecond of CPU per
    request, and a hundred accepts share the client's one core)."""

    def __init__(self, base: str, headers: dict[str, str]) -> None:
        url = httpx2.URL(base)
        self.host, self.port = url.host, url.port or 80
        self.headers = [("Host", f"{self.host}:{self.port}"), *headers.items()]
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def post(self, path: str) -> tuple[int, bytes]:
        """POST ``path`` with an empty body: (status, body)."""
        assert self.reader is not None and self.writer is not None
        conn = h11.Connection(h11.CLIENT)
        request = h11.Request(
            method="POST", target=path, headers=[*self.headers, ("Content-Length", "0")]
        )
        self.writer.write(conn.send(request) + conn.send(h11.EndOfMessage()))
        status, body = 0, bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await self.reader.read(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                return status, bytes(body)
            elif isinstance(event, h11.ConnectionClosed):
                raise ConnectionError("the server closed the connection")

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()


class Table:
    """One seek of ``author`` for ``taker``: the author's lobby socket, its seek."""

    def __init__(self, author: Player, taker: Player) -> None:
        self.author = author
        self.taker = taker
        self.ws: Any = None
        self.seek_id = ""

    async def open(self) -> None:
        """Connect the author's lobby socket and post the seek."""
        # batch=1 as the site's lobby page asks: changes arriving together in one frame
        url = self.author.base.replace("http", "ws") + "/ws/lobby?batch=1"
        self.ws = await websockets.connect(
            url, additional_headers={"Cookie": self.author.cookie()}, max_queue=None
        )
        json.loads(await self.ws.recv())  # the list
        r = await self.author.http.post("/api/seeks", json=SEEK)
        r.raise_for_status()
        self.seek_id = r.json()["id"]

    async def accept(self, go: asyncio.Event) -> tuple[float, dict[str, Any]]:
        """At ``go``, take the seek: (seconds until both players have the game, game)."""
        ws = self.ws

        async def author_learns() -> str:
            while True:
                frame = json.loads(await ws.recv())
                for message in frame if isinstance(frame, list) else [frame]:
                    if message["type"] == "game":
                        return str(message["id"])

        waiting = asyncio.create_task(author_learns())
        # on the process other than the author's (with two), on a connection already open
        taker = self.taker
        headers = {"Cookie": taker.cookie(), "X-CSRF-Token": taker.http.headers["X-CSRF-Token"]}
        connection = Connection(self.author.other, headers)
        await connection.open()
        await go.wait()
        start = time.perf_counter()
        status, body = await connection.post(f"/api/seeks/{self.seek_id}/accept")
        if status != 200:
            raise RuntimeError(f"accept answered {status}: {body[:200]!r}")
        game: dict[str, Any] = json.loads(body)["game"]
        gid = await asyncio.wait_for(waiting, timeout=60)
        started = time.perf_counter() - start
        await connection.close()
        assert gid == game["id"], (gid, game["id"])
        return started, game

    async def close(self) -> None:
        await self.ws.close()


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def database_cpu_seconds() -> float:
    """CPU time used so far by this machine's PostgreSQL processes (0 with SQLite,
    whose work is the server's own): with PostgreSQL on the same two cores as the
    servers and the client, its share is part of where a burst's time goes.  A
    backend that exits during the burst takes its time with it: the servers keep
    their pooled connections open, so none should."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            head, rest = stat.read_text().rsplit(")", 1)
            if head.endswith("(postgres"):
                fields = rest.split()
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


async def round_of(
    tables: list[Table], plies: int, seed: int, desc: str, pids: list[int]
) -> tuple[list[float], int, dict[str, float]]:
    """Every author's socket and seek first; then every taker accepts at once (one
    event releases them all); then the games are played.  (times to start, games
    ended, the burst's wall and CPU times: where the time went)"""
    with tqdm(total=len(tables), desc=f"{desc}: seeks", unit="seek") as bar:

        async def opened(t: Table) -> None:
            await t.open()
            bar.update(1)

        await asyncio.gather(*(opened(t) for t in tables))
    go = asyncio.Event()
    accepts = [asyncio.create_task(t.accept(go)) for t in tables]
    await asyncio.sleep(0.5)  # every task is waiting on the event
    # the measuring client's own garbage collector stays out of the measured burst (a
    # full pass over two hundred clients' objects pauses the client's loop for tens
    # of milliseconds); the server keeps its collector as configured
    gc.collect()
    gc.disable()
    server0, client0, wall0 = sum(map(cpu_seconds, pids)), time.process_time(), time.perf_counter()
    database0 = database_cpu_seconds()
    try:
        go.set()
        results = await asyncio.gather(*accepts)
    finally:
        gc.enable()
    burst = {
        "wall_ms": 1000 * (time.perf_counter() - wall0),
        "server_cpu_ms": 1000 * (sum(map(cpu_seconds, pids)) - server0),
        "client_cpu_ms": 1000 * (time.process_time() - client0),
        "database_cpu_ms": 1000 * (database_cpu_seconds() - database0),
    }
    # the lobby pages leave after every game has started (not inside the measured time)
    await asyncio.gather(*(t.close() for t in tables))
    with tqdm(total=len(tables), desc=f"{desc}: games", unit="game") as bar:

        async def played(i: int, t: Table, game: dict[str, Any]) -> bool:
            black, white = (t.author, t.taker) if SEEK["color"] == "black" else (t.taker, t.author)
            done = await play(black, white, game, plies, seed + i)
            if done:
                t.author.finished += 1
                t.taker.finished += 1
            bar.update(1)
            return done

        games = [game for _, game in results]
        ended = await asyncio.gather(
            *(played(i, t, g) for i, (t, g) in enumerate(zip(tables, games, strict=True)))
        )
    return [started for started, _ in results], sum(ended), burst


async def run(
    bases: list[str], pids: list[int], args: argparse.Namespace, label: str
) -> dict[str, Any]:
    # with two processes, pair i's author posts on one and its taker accepts on the
    # other, the pairs alternating: both processes answer accepts, and every game
    # start crosses processes (the author hears of it through LISTEN/NOTIFY)
    n = len(bases)
    players = [
        Player(bases[i % n], f"p{i:04d}_{args.seed}", bases[(i + 1) % n])
        for i in range(args.players)
    ]
    with tqdm(total=len(players), desc=f"{label}: sign-ups", unit="player") as bar:

        async def up(p: Player) -> None:
            await p.sign_up()
            bar.update(1)

        await asyncio.gather(*(up(p) for p in players))
    half = len(players) // 2
    times: list[float] = []
    bursts: list[dict[str, float]] = []
    games = 0
    for rnd in range(args.rounds):
        authors, takers = players[:half], players[half : 2 * half]
        if rnd % 2:
            authors, takers = takers, authors
        tables = [Table(a, t) for a, t in zip(authors, takers, strict=True)]
        started, ended, burst = await round_of(
            tables, args.plies, args.seed * 1000 + rnd * half, f"{label} round {rnd + 1}", pids
        )
        times += started
        bursts.append(burst)
        p50, p99 = 1000 * statistics.median(started), 1000 * percentile(started, 99)
        tqdm.write(
            f"{label} round {rnd + 1}: p50 {p50:.0f} ms, p99 {p99:.0f} ms; burst "
            f"{burst['wall_ms']:.0f} ms, server CPU {burst['server_cpu_ms']:.0f} ms, "
            f"client CPU {burst['client_cpu_ms']:.0f} ms, "
            f"database CPU {burst['database_cpu_ms']:.0f} ms"
        )
        games += ended
    wrong = []
    for p in tqdm(players, desc=f"{label}: ratings", unit="player"):
        for _attempt in range(100):  # a rating is applied just after the finishing commit
            page = (await p.http.get(f"/api/users/{p.name}")).json()
            rated = page["ratings"].get("blitz", {}).get("games", 0)
            if rated == p.finished:
                break
            await asyncio.sleep(0.1)
        else:
            wrong.append((p.name, rated, p.finished))
    for p in players:
        await p.http.aclose()
    return {
        "servers": len(bases),
        "players": len(players),
        "rounds": args.rounds,
        "games_finished": games,
        "accept_to_start_s": {
            "p50": statistics.median(times),
            "p95": percentile(times, 95),
            "p99": percentile(times, 99),
            "max": max(times),
        },
        "accept_to_start_all_s": sorted(times),
        # per accept, over every round's burst: the servers' CPU and the client's
        "server_cpu_ms_per_accept": sum(b["server_cpu_ms"] for b in bursts) / len(times),
        "client_cpu_ms_per_accept": sum(b["client_cpu_ms"] for b in bursts) / len(times),
        "database_cpu_ms_per_accept": sum(b["database_cpu_ms"] for b in bursts) / len(times),
        "players_with_wrong_rating_count": wrong,
    }


def count_updates(url: str) -> int:
    from poolcheckers.server.database.engine import normalize_url

    engine = create_engine(normalize_url(url))
    with engine.connect() as conn:
        from poolcheckers.server.database.tables import RATING_UPDATES

        n = int(conn.execute(select(func.count()).select_from(RATING_UPDATES)).scalar_one())
    engine.dispose()
    return n


def side(code: Path | None, url: str, args: argparse.Namespace, label: str) -> dict[str, Any]:
    """The whole workload against server processes running ``code`` (a built tree of
    an older commit; None: this checkout) on the database ``url``."""
    servers = [start_server(url, args.players, code) for _ in range(max(1, args.servers))]
    try:
        # the client's own loop on uvloop (uvicorn[standard] brings it): the simulated
        # players share one process, and their overhead is part of every measured time
        bases, pids = [base for _, base in servers], [proc.pid for proc, _ in servers]
        figures = uvloop.run(run(bases, pids, args, label))
    finally:
        for proc, _ in servers:
            stop_server(proc)
    figures["rating_updates"] = count_updates(url)
    figures["exactly_once"] = (
        not figures["players_with_wrong_rating_count"]
        and figures["rating_updates"] == figures["games_finished"]
    )
    return figures


@contextlib.contextmanager
def databases(args: argparse.Namespace, names: list[str]) -> Iterator[dict[str, str]]:
    """A fresh database per side: SQLite files in a temporary folder, or PostgreSQL
    databases created beside ``--database-url``'s (each side migrates its own schema)
    and dropped at the end."""
    with tempfile.TemporaryDirectory() as tmp:
        if not args.database_url:
            yield {n: f"sqlite:///{Path(tmp) / f'lobby_{n}.sqlite3'}" for n in names}
            return
        from sqlalchemy.engine import make_url

        from poolcheckers.server.database.engine import normalize_url

        admin_url = make_url(normalize_url(args.database_url))
        admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        made = {n: f"{admin_url.database}_lobby_{n}" for n in names}
        try:
            with admin.connect() as conn:
                for db in made.values():
                    conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{db}"')
                    conn.exec_driver_sql(f'CREATE DATABASE "{db}"')
            yield {
                n: admin_url.set(database=db).render_as_string(hide_password=False)
                for n, db in made.items()
            }
        finally:
            with admin.connect() as conn:
                for db in made.values():
                    conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
            admin.dispose()


def plot(results: dict[str, dict[str, Any]], path: Path) -> None:
    """The distribution of the times to start, one curve per side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, figures in results.items():
        times = [1000 * t for t in figures["accept_to_start_all_s"]]
        share = [(i + 1) / len(times) for i in range(len(times))]
        p99 = 1000 * figures["accept_to_start_s"]["p99"]
        ax.step(times, share, where="post", label=f"{name}: p99 {p99:.0f} ms")
    ax.axvline(250, color="grey", linestyle=":", label="goal: 250 ms")
    ax.set_xlabel("accept to game start (ms)")
    ax.set_ylabel("share of accepts")
    servers = next(iter(results.values()))["servers"]
    per_round = figures["players"] // 2
    rounds = figures["rounds"]
    ax.set_title(
        f"{per_round} seek accepts released at once ({rounds} rounds), "
        f"{servers} server process{'es' if servers > 1 else ''}"
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--plies", type=int, default=12, help="random moves before the finish")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--database-url", help="default: a throwaway SQLite file")
    ap.add_argument(
        "--servers", type=int, default=1, help="server processes on the database (2: PostgreSQL)"
    )
    ap.add_argument(
        "--baseline",
        default=BASELINE_COMMIT,
        help=f"also run the commit's server first, built from git ({BASELINE_COMMIT}; "
        "'none': only this checkout)",
    )
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--plot", type=Path, help="draw the distributions (PNG)")
    args = ap.parse_args()
    if args.servers > 1 and not (args.database_url or "").startswith("postgres"):
        raise SystemExit("--servers 2 needs a PostgreSQL --database-url")
    sides: dict[str, Path | None] = {}
    if args.baseline != "none":
        sides[f"baseline {args.baseline}"] = baseline.build(args.baseline)
    sides["this checkout"] = None
    results: dict[str, dict[str, Any]] = {}
    with databases(args, [f"s{i}" for i in range(len(sides))]) as urls:
        for (name, code), url in zip(sides.items(), urls.values(), strict=True):
            results[name] = side(code, url, args, name)
    shown = {
        name: {k: v for k, v in figures.items() if k != "accept_to_start_all_s"}
        for name, figures in results.items()
    }
    print(json.dumps(shown, indent=2))
    if args.json:
        args.json.write_text(json.dumps(shown, indent=2) + "\n")
    if args.plot:
        plot(results, args.plot)
    return 0 if all(f["exactly_once"] for f in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
