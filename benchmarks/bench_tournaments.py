"""Tournaments at scale: a 500-player arena on two server processes, and the time to
pair a 200-player Swiss round.

Arena: ``--players`` simulated players sign up (over both processes), join an arena
and keep its page open (they read the event every 10 s, which is how an arena knows
who is present); the creator starts it and both processes pair the players.  Once
the first pairings are made, half of the games (``--players / 4``) are played two
plies and resigned all at once, so that half the players become free at the same
moment.  Measured from the database, per freed player: the time from the end of
their game to the start of their next (the pairing latency: p50, p99, max), and
games started per second over that burst.

Swiss: ``--swiss-players`` players, ``--swiss-rounds`` rounds of the FIDE Dutch system
(``poolcheckers.server.tournaments.systems.swiss_round``), results drawn at random
with checkers' many draws (a quarter won by each side, half drawn); the time to pair
each round.

    .venv/bin/python benchmarks/bench_tournaments.py --database-url postgresql://… \\
        --json benchmarks/results/tournaments.json
    .venv/bin/python benchmarks/bench_tournaments.py --skip-arena --swiss-rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2
from sqlalchemy import create_engine, text
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serverproc import first_health, free_port, percentile, stop_server

from poolcheckers.server.tournaments.systems import PairResult, swiss_round

PASSWORD = "benchmark password"
ARENA = {"name": "Benchmark Arena", "system": "arena", "clock": {"initial": 180, "increment": 2},
         "duration_minutes": 120}  # fmt: skip


def start_server(url: str, players: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    args = [
        sys.executable, "-m", "poolcheckers.server", "--port", str(port),
        "--database-url", url, "--log-level", "warning",
        "--signin-limit", str(10 * players), "--signup-limit", str(2 * players),
        "--signin-burst-limit", str(10 * players),
        "--header-timeout", "600", "--connections-per-address", "0",
    ]  # fmt: skip
    log = open(Path(tempfile.gettempdir()) / f"bench_tournaments_{port}.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    first_health(proc, base)
    return proc, base


class Player:
    def __init__(self, base: str, name: str) -> None:
        self.name = name
        self.http = httpx2.AsyncClient(base_url=base, timeout=120)

    async def sign_up(self) -> None:
        r = await self.http.post(
            "/api/account/signup", json={"username": self.name, "password": PASSWORD}
        )
        r.raise_for_status()
        self.http.headers["X-CSRF-Token"] = r.json()["csrf_token"]

    async def post(self, path: str, body: Any = None) -> Any:
        try:
            r = await self.http.post(path, json=body if body is not None else {})
        except (httpx2.ReadError, httpx2.RemoteProtocolError):
            # a kept-alive connection the server closed as the request left: once more
            r = await self.http.post(path, json=body if body is not None else {})
        if r.status_code != 200:
            raise RuntimeError(f"{self.name} {path}: {r.status_code} {r.text[:200]}")
        return r.json()


async def gather(jobs: list[Any], what: str, limit: int = 50) -> list[Any]:
    """Run coroutines ``limit`` at a time with a progress bar."""
    gate = asyncio.Semaphore(limit)
    bar = tqdm(total=len(jobs), desc=what, unit="req", leave=False)

    async def one(job: Any) -> Any:
        async with gate:
            try:
                return await job
            finally:
                bar.update()

    try:
        return await asyncio.gather(*(one(j) for j in jobs))
    finally:
        bar.close()


def busy_pairs(db: Any, tid: str) -> list[dict[str, Any]]:
    query = text(
        "SELECT tg.game_id, tg.black_id, tg.white_id, g.status, g.updated_ms, tg.created_ms "
        "FROM tournament_games tg JOIN games g ON g.id = tg.game_id WHERE tg.tournament_id = :t"
    )
    with db.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(query, {"t": tid})]


async def arena(bases: list[str], url: str, players: int) -> dict[str, Any]:
    db = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    crowd = [Player(bases[i % len(bases)], f"bench{i:04d}") for i in range(players)]
    by_name = {p.name: p for p in crowd}
    await gather([p.sign_up() for p in crowd], "sign up", limit=8)
    ids = {}
    with db.connect() as conn:
        for name, uid in conn.execute(text("SELECT username, id FROM users")):
            ids[uid] = name
    event = await crowd[0].post("/api/tournaments", ARENA)
    tid = event["id"]
    await gather([p.post(f"/api/tournaments/{tid}/join") for p in crowd], "join")

    stop = asyncio.Event()

    async def present(p: Player) -> None:  # the event page open: read every 10 s
        while not stop.is_set():
            with contextlib.suppress(httpx2.ReadError, httpx2.RemoteProtocolError):
                await p.http.get(f"/api/tournaments/{tid}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 10 + random.random())

    keepers = [asyncio.create_task(present(p)) for p in crowd]
    await asyncio.sleep(2)
    started = time.monotonic()
    await crowd[0].post(f"/api/tournaments/{tid}/start")
    while len(busy_pairs(db, tid)) < players // 2 and time.monotonic() - started < 120:
        await asyncio.sleep(0.2)
    first = busy_pairs(db, tid)
    first_spread = (
        max(r["created_ms"] for r in first) - min(r["created_ms"] for r in first)
    ) / 1000
    ending = first[: players // 4]

    async def two_plies(g: dict[str, Any]) -> None:
        black, white = by_name[ids[g["black_id"]]], by_name[ids[g["white_id"]]]
        await black.post(f"/api/games/{g['game_id']}/move", {"move": "11-15", "ply": 0})
        await white.post(f"/api/games/{g['game_id']}/move", {"move": "23-19", "ply": 1})

    await gather([two_plies(g) for g in ending], "play 2 plies")
    freed = {p for g in ending for p in (g["black_id"], g["white_id"])}
    await asyncio.gather(
        *(by_name[ids[g["white_id"]]].post(f"/api/games/{g['game_id']}/resign") for g in ending)
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        rows = busy_pairs(db, tid)
        again = {
            p for r in rows if r["status"] == "running" for p in (r["black_id"], r["white_id"])
        }
        if freed <= again:
            break
        await asyncio.sleep(0.2)
    rows = busy_pairs(db, tid)
    ended = {r["game_id"]: r["updated_ms"] for r in rows if r["status"] != "running"}
    end_of = {p: ended[g["game_id"]] for g in ending for p in (g["black_id"], g["white_id"])}
    new_rows = [r for r in rows if r["game_id"] not in {g["game_id"] for g in first}]
    latency = []
    for p in freed:
        mine = [r["created_ms"] for r in new_rows if p in (r["black_id"], r["white_id"])]
        if mine:
            latency.append((min(mine) - end_of[p]) / 1000)
    stop.set()
    await asyncio.gather(*keepers)
    for p in crowd:
        await p.http.aclose()
    spread = (
        (max(r["created_ms"] for r in new_rows) - min(end_of.values())) / 1000 if new_rows else 0
    )
    return {
        "players": players,
        "processes": len(bases),
        "first_pairings": len(first),
        "first_pairings_seconds": first_spread,
        "freed_at_once": len(freed),
        "repaired": len(latency),
        "pairing_latency_s": {
            "p50": percentile(latency, 50),
            "p99": percentile(latency, 99),
            "max": max(latency, default=float("nan")),
        },
        "games_started": len(new_rows),
        "games_per_second": len(new_rows) / spread if spread else float("nan"),
    }


def swiss(players: int, rounds: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    names = [f"p{i:04d}" for i in range(players)]
    ratings = {p: 2200 - 3 * i for i, p in enumerate(names)}
    history: list[PairResult] = []
    times = []
    for number in tqdm(range(1, rounds + 1), desc="Swiss rounds", leave=False):
        t0 = time.perf_counter()
        pairs = swiss_round(names, ratings, history, round_number=number, total_rounds=rounds)
        times.append(time.perf_counter() - t0)
        for p in pairs:
            if p.second is None:
                history.append(PairResult(number, p.first, None, 1.0, 0.0))
            else:
                a = rng.choice((0.0, 0.5, 0.5, 1.0))
                history.append(PairResult(number, p.first, p.second, a, 1.0 - a))
    return {"players": players, "rounds": rounds, "seconds_per_round": times}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="postgresql://… (two processes need it)")
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--swiss-players", type=int, default=200)
    parser.add_argument("--swiss-rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-arena", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    out: dict[str, Any] = {}
    if not args.skip_arena:
        if not (args.database_url or "").startswith("postgresql"):
            parser.error("the arena needs --database-url postgresql://… (two server processes)")
        procs = [start_server(args.database_url, args.players) for _ in range(args.servers)]
        try:
            out["arena"] = asyncio.run(
                arena([b for _p, b in procs], args.database_url, args.players)
            )
        finally:
            for proc, _base in procs:
                stop_server(proc)
        a = out["arena"]
        print(
            f"arena: {a['players']} players on {a['processes']} processes; first "
            f"{a['first_pairings']} pairings in {a['first_pairings_seconds']:.2f} s; "
            f"{a['freed_at_once']} freed at once, {a['repaired']} paired again: latency "
            f"p50 {a['pairing_latency_s']['p50']:.2f} s, p99 {a['pairing_latency_s']['p99']:.2f} "
            f"s, max {a['pairing_latency_s']['max']:.2f} s; {a['games_per_second']:.1f} games/s"
        )
    out["swiss"] = swiss(args.swiss_players, args.swiss_rounds, args.seed)
    s = out["swiss"]
    rounds = ", ".join(f"{t:.2f}" for t in s["seconds_per_round"])
    print(f"swiss: {s['players']} players, time to pair each round (s): {rounds}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
