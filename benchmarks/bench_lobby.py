"""The lobby under load: simulated players sign up, post and accept seeks and
play rated games; the time from accepting a seek to the game having started for
both players, and a check that every rated result changed the ratings exactly
once.

Starts ``python -m poolcheckers.server`` on a throwaway SQLite database (or
``--database-url``) with the sign-in limits raised (every player comes from
127.0.0.1).  Half the players are authors: each keeps a lobby socket open and
posts a rated 3+2 seek; the other half take them, all at once.  The game has
started for both when the taker has the accept's answer and the author has the
``{"type": "game"}`` message on its lobby socket: that moment minus the moment
the accept was sent is the measured time.  Each game is then played with random
legal moves (as the server lists them) for ``--plies`` plies and ended by both
players resigning at once while one of them also moves (racing finishes: one of
them ends the game).  Rounds repeat with colours swapped.  At the end, every
player's rating shows as many games as they finished, and the database holds one
rating update per finished game.

With ``--servers 2`` (PostgreSQL only) two server processes share the database:
authors use one, takers the other, so every game start crosses processes (the
author hears of it through LISTEN/NOTIFY).

    .venv/bin/python benchmarks/bench_lobby.py                   # 200 players, 2 rounds
    .venv/bin/python benchmarks/bench_lobby.py --players 50 --rounds 1 --json /tmp/l.json
    .venv/bin/python benchmarks/bench_lobby.py --servers 2 --database-url postgresql://...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2
import websockets
from sqlalchemy import create_engine, func, select
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serverproc import first_health, free_port

PASSWORD = "benchmark password"
SEEK = {"clock": {"initial": 180, "increment": 2}, "rated": True, "color": "black"}


def start_server(url: str, players: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    args = [
        sys.executable, "-m", "poolcheckers.server", "--port", str(port),
        "--database-url", url, "--log-level", "warning",
        "--signin-limit", str(10 * players), "--signup-limit", str(2 * players),
        "--signin-burst-limit", str(10 * players),
        # a player's keep-alive connection may idle while the others' games run
        "--header-timeout", "600",
        # every player connects from 127.0.0.1
        "--connections-per-address", "0",
    ]  # fmt: skip
    log = open(Path(tempfile.gettempdir()) / f"bench_lobby_server_{port}.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
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
    """Random legal moves, then racing finishes; True if the game ended."""
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
    return bool(final["status"] == "finished")


async def pair(
    author: Player, taker: Player, plies: int, seed: int, bar: tqdm[Any]
) -> tuple[float, bool]:
    """One seek from ``author`` taken by ``taker``: (seconds to game start, finished)."""
    url = author.base.replace("http", "ws") + "/ws/lobby"
    async with websockets.connect(url, additional_headers={"Cookie": author.cookie()}) as ws:
        json.loads(await ws.recv())  # the list
        r = await author.http.post("/api/seeks", json=SEEK)
        r.raise_for_status()
        seek_id = r.json()["id"]
        start = time.perf_counter()

        async def author_learns() -> str:
            while True:
                message = json.loads(await ws.recv())
                if message["type"] == "game":
                    return str(message["id"])

        waiting = asyncio.create_task(author_learns())
        r = await taker.http.post(f"{taker.other}/api/seeks/{seek_id}/accept")
        r.raise_for_status()
        game = r.json()["game"]
        gid = await asyncio.wait_for(waiting, timeout=60)
        started = time.perf_counter() - start
    assert gid == game["id"], (gid, game["id"])
    black, white = (author, taker) if SEEK["color"] == "black" else (taker, author)
    done = await play(black, white, game, plies, seed)
    if done:
        author.finished += 1
        taker.finished += 1
    bar.update(1)
    return started, done


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def run(bases: list[str], args: argparse.Namespace) -> dict[str, Any]:
    players = [Player(bases[0], f"p{i:04d}_{args.seed}", bases[-1]) for i in range(args.players)]
    with tqdm(total=len(players), desc="sign-ups", unit="player") as bar:

        async def up(p: Player) -> None:
            await p.sign_up()
            bar.update(1)

        await asyncio.gather(*(up(p) for p in players))
    half = len(players) // 2
    times: list[float] = []
    games = 0
    for rnd in range(args.rounds):
        authors, takers = players[:half], players[half : 2 * half]
        if rnd % 2:
            authors, takers = takers, authors
        with tqdm(total=half, desc=f"round {rnd + 1}", unit="game") as bar:
            results = await asyncio.gather(
                *(
                    pair(a, t, args.plies, args.seed * 1000 + rnd * half + i, bar)
                    for i, (a, t) in enumerate(zip(authors, takers, strict=True))
                )
            )
        times += [t for t, _ in results]
        games += sum(done for _, done in results)
    wrong = []
    for p in tqdm(players, desc="ratings", unit="player"):
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
            "p95": percentile(times, 0.95),
            "p99": percentile(times, 0.99),
            "max": max(times),
        },
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
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'lobby.sqlite3'}"
        if args.servers > 1 and not url.startswith("postgres"):
            raise SystemExit("--servers 2 needs a PostgreSQL --database-url")
        servers = [start_server(url, args.players) for _ in range(max(1, args.servers))]
        try:
            figures = asyncio.run(run([base for _, base in servers], args))
        finally:
            for proc, _ in servers:
                proc.terminate()
                proc.wait(timeout=30)
        figures["rating_updates"] = count_updates(url)
    figures["exactly_once"] = (
        not figures["players_with_wrong_rating_count"]
        and figures["rating_updates"] == figures["games_finished"]
    )
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if figures["exactly_once"] else 1


if __name__ == "__main__":
    sys.exit(main())
