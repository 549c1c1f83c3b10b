"""Load test of online play: many games, both seats on WebSockets, random legal moves.

Starts ``python -m poolcheckers.server`` on a loopback port (SQLite file in a temp
dir, or ``--database-url``), creates ``--games`` online games, joins each, connects
both seats of every game over WebSockets and plays random legal moves (from the
``legal_moves`` the server sends; no engine) in all games at once.  Each move's
round trip is timed from sending it to the opponent receiving the new state.
Prints throughput (moves/s) and latency percentiles, then stops the server.

    .venv/bin/python benchmarks/load_online.py                  # 200 games, ~1 s per move
    .venv/bin/python benchmarks/load_online.py --think 0        # no pauses: capacity
    .venv/bin/python benchmarks/load_online.py --database-url postgresql://…
    .venv/bin/python benchmarks/load_online.py --database-url postgresql://… --processes 2

Everything is bounded: ``--plies`` per game and a ``--timeout`` for the whole run.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import websockets
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serverproc import free_port, percentile


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    finished_games: int = 0


def start_server(
    port: int, url: str, log: Path, db_threads: int | None, deflate: bool
) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "poolcheckers.server",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--database-url",
        url,
        "--log-level",
        "warning",
        # every player of every game connects from 127.0.0.1
        "--connections-per-address",
        "0",
        "--games-per-minute",
        "1000000",
    ]
    if db_threads is not None:
        cmd += ["--db-threads", str(db_threads)]
    if deflate:
        cmd.append("--ws-deflate")
    return subprocess.Popen(cmd, stdout=log.open("w"), stderr=subprocess.STDOUT)


async def wait_ready(base: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    async with httpx2.AsyncClient() as client:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited with status {proc.returncode}")
            try:
                if (await client.get(base + "/api/health", timeout=1)).status_code == 200:
                    return
            except httpx2.HTTPError:
                pass
            await asyncio.sleep(0.1)
    raise TimeoutError("the server did not start")


async def create_games(base: str, n: int, bar: tqdm[Any]) -> list[tuple[str, str, str]]:
    """``n`` online games with both seats taken: (id, black token, white token)."""
    limits = httpx2.Limits(max_connections=20)
    async with httpx2.AsyncClient(base_url=base, limits=limits, timeout=30) as client:

        async def one() -> tuple[str, str, str]:
            r = await client.post("/api/games", json={"mode": "online", "color": "black"})
            r.raise_for_status()
            created = r.json()
            gid = created["game"]["id"]
            invite = created["invite"].split("invite=", 1)[1]
            r = await client.post(f"/api/games/{gid}/join", json={"invite": invite})
            r.raise_for_status()
            bar.update(1)
            return gid, created["token"], r.json()["token"]

        return list(await asyncio.gather(*(one() for _ in range(n))))


class Game:
    """Both seats of one game: each plays when it is its turn; the opponent's
    receipt of the new state ends the move's round trip."""

    def __init__(
        self,
        ws_bases: dict[str, str],
        game: tuple[str, str, str],
        plies: int,
        think: float,
        rng: random.Random,
        stats: Stats,
        bar: tqdm[Any],
    ) -> None:
        self.gid, black, white = game
        self.tokens = {"black": black, "white": white}
        self.ws_bases = ws_bases
        self.plies = plies
        self.think = think
        self.rng = rng
        self.stats = stats
        self.bar = bar
        self.sent_at: dict[int, float] = {}
        self.sockets: dict[str, Any] = {}
        self.first: dict[str, dict[str, Any]] = {}

    async def connect(self, limit: asyncio.Semaphore) -> None:
        """Open both seats' sockets and read each one's first state."""
        async with limit:
            for color in ("black", "white"):
                uri = f"{self.ws_bases[color]}/ws/games/{self.gid}"
                # the seat token as a sub-protocol: never in the URL (docs/CONTRACTS.md §3.1)
                seat: Any = ["poolcheckers", f"seat-token.{self.tokens[color]}"]
                ws = await websockets.connect(
                    uri, subprotocols=seat, max_size=2**22, open_timeout=60
                )
                self.sockets[color] = ws
                self.first[color] = json.loads(await ws.recv())["game"]

    async def play(self) -> None:
        await asyncio.gather(*(self.seat(color) for color in ("black", "white")))

    async def seat(self, color: str) -> None:
        ws = self.sockets[color]
        try:
            state = self.first[color]
            last_ply = -1
            while True:
                ply = state["ply"]
                if ply > last_ply:
                    last_ply = ply
                    if state["status"] != "running" or ply >= self.plies:
                        if state["status"] != "running" and color == "black":
                            self.stats.finished_games += 1
                        return
                    if state["turn"] == color:
                        await self.move(ws, state)
                raw = await ws.recv()
                now = time.perf_counter()
                msg = json.loads(raw)
                if msg["type"] == "error":
                    self.stats.errors += 1
                    continue
                state = msg["game"]
                sent = self.sent_at.pop(state["ply"] - 1, None)
                if sent is not None and state["turn"] == color:
                    # the opponent's move reached this seat: its round trip is over
                    self.stats.latencies.append(now - sent)
                    self.stats.moves += 1
                    self.bar.update(1)
                elif sent is not None:
                    self.sent_at[state["ply"] - 1] = sent  # the mover's own echo
        finally:
            await ws.close()

    async def move(self, ws: Any, state: dict[str, Any]) -> None:
        if self.think > 0:
            await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
        choice = self.rng.choice(state["legal_moves"])
        self.sent_at[state["ply"]] = time.perf_counter()
        msg = {"type": "move", "move": choice["notation"], "ply": state["ply"]}
        await ws.send(json.dumps(msg))


async def main_async(args: argparse.Namespace) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="poolcheckers-load-"))
    url = args.database_url or f"sqlite:///{tmp / 'load.sqlite3'}"
    ports = [args.port or free_port()] + [free_port() for _ in range(args.processes - 1)]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    procs: list[subprocess.Popen[bytes]] = []
    rng = random.Random(args.seed)
    stats = Stats()
    try:
        for i, port in enumerate(ports):
            log = tmp / f"server{i}.log"
            procs.append(start_server(port, url, log, args.db_threads, args.ws_deflate))
            await wait_ready(bases[i], procs[i])  # one at a time: the first one migrates
        with tqdm(total=args.games, desc="create+join", unit="game", file=sys.stderr) as bar:
            games = await create_games(bases[0], args.games, bar)
        ws_bases = [base.replace("http://", "ws://") for base in bases]
        total = args.games * args.plies
        with tqdm(total=total, desc="moves", unit="move", file=sys.stderr) as bar:
            players = []
            for i, g in enumerate(games):
                # with several processes, the two seats of a game use different ones
                seats = {
                    "black": ws_bases[i % len(ws_bases)],
                    "white": ws_bases[(i + 1) % len(ws_bases)],
                }
                seed = random.Random(rng.random())
                players.append(Game(seats, g, args.plies, args.think, seed, stats, bar))
            limit = asyncio.Semaphore(20)
            await asyncio.gather(*(p.connect(limit) for p in players))
            bar.set_description("moves (all sockets open)")
            # the measuring client must not pause for its own garbage collection
            gc.collect()
            gc.freeze()
            gc.disable()
            start = time.perf_counter()
            try:
                await asyncio.wait_for(
                    asyncio.gather(*(p.play() for p in players)), timeout=args.timeout
                )
            finally:
                gc.enable()
            elapsed = time.perf_counter() - start
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if stats.errors == 0:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"server logs kept in {tmp}", file=sys.stderr)
    lat_ms = [x * 1000 for x in stats.latencies]
    db = "postgresql" if args.database_url else "sqlite"
    print(
        f"load_online: {args.games} games x {args.plies} plies, think {args.think} s, "
        f"database {db}, {args.processes} server process(es)"
    )
    print(f"  moves played      {stats.moves} in {elapsed:.2f} s")
    print(f"  throughput        {stats.moves / elapsed:.1f} moves/s")
    print(
        f"  round trip (ms)   p50 {percentile(lat_ms, 50):.1f}  p90 {percentile(lat_ms, 90):.1f}"
        f"  p99 {percentile(lat_ms, 99):.1f}  max {max(lat_ms, default=float('nan')):.1f}"
        f"  mean {statistics.fmean(lat_ms) if lat_ms else float('nan'):.1f}"
    )
    print(f"  games finished by the rules  {stats.finished_games}, errors {stats.errors}")
    p99 = percentile(lat_ms, 99)
    if args.think > 0:
        print(f"  goal p99 < 50 ms: {'met' if p99 < 50 else 'NOT met'} ({p99:.1f} ms)")
    else:
        print(
            "  (capacity run: every game always has a move in flight, so the round trip "
            "is mostly queueing: about games / throughput)"
        )
    return 0 if stats.errors == 0 else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--plies", type=int, default=40, help="plies per game at most (40)")
    p.add_argument(
        "--think",
        type=float,
        default=1.0,
        help="mean pause before each move, seconds (1.0; 0 = as fast as possible, which "
        "measures capacity: then every game always has a move in flight)",
    )
    p.add_argument("--database-url", default=None, help="default: SQLite file in a temp dir")
    p.add_argument("--port", type=int, default=0, help="default: a free loopback port")
    p.add_argument(
        "--db-threads", type=int, default=None, help="passed to the server (default: its own)"
    )
    p.add_argument("--ws-deflate", action="store_true", help="server compresses messages")
    p.add_argument(
        "--processes",
        type=int,
        default=1,
        help="server processes (needs PostgreSQL when > 1): the seats of a game use "
        "different processes, so every move crosses them by LISTEN/NOTIFY",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=600, help="stop after this many seconds")
    args = p.parse_args(argv)
    if args.games < 1 or args.plies < 1 or args.processes < 1:
        p.error("--games, --plies and --processes must be positive")
    if args.processes > 1 and not (args.database_url or "").startswith(("postgres", "postgresql")):
        p.error("--processes > 1 needs --database-url postgresql://… (LISTEN/NOTIFY)")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
