"""Engine-game reply times while the analysis board is busy.

Starts ``python -m poolcheckers.server`` on a throwaway SQLite database, then plays
engine games move by move and measures, for every human move, the time from
sending it to receiving the engine's reply over the game's WebSocket.  It does so
twice: on a quiet server (the baseline) and while ``--analyses`` analysis sockets
each keep a long search asked for (the load: as many searches as there are
analysis threads run, the others wait for one).  The goal: the p99 reply time under
load stays within the level's own time plus 0.5 s.

    .venv/bin/python benchmarks/bench_engine_capacity.py                # 20 analyses
    .venv/bin/python benchmarks/bench_engine_capacity.py --moves 40 --level 5 \\
        --json /tmp/capacity.json --plot benchmarks/results/engine_capacity.png

The server is started with ``--analyses-per-address`` equal to ``--analyses`` (the
benchmark is one address standing in for many clients).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
from tqdm import tqdm

from poolcheckers.engine import level_move_time

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serverproc import first_health, free_port

GOAL_SLACK_S = 0.5


def start_server(tmp: Path, analyses: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    args = [
        sys.executable, "-m", "poolcheckers.server", "--port", str(port),
        "--database-url", f"sqlite:///{tmp / 'bench.sqlite3'}", "--log-level", "warning",
        "--analyses-per-address", str(max(1, analyses)), "--analysis-max-time", "300",
        "--connections-per-address", "0",  # every client connects from 127.0.0.1
        "--games-per-minute", "1000000", "--engine-games-per-minute", "1000000",
        "--engine-games-at-once", "1000000",
    ]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    if not first_health(proc, base).json().get("engine"):
        raise SystemExit("the server has no engine (build the native core: make setup)")
    return proc, base


async def keep_analysing(base: str, index: int, stop: asyncio.Event) -> int:
    """One analysis socket that always has a long search asked for (running or
    waiting for an analysis thread), on a new position every 3-8 s; every message
    is read as it comes.  Returns how many searches were asked for."""
    url = base.replace("http", "ws") + "/ws/analysis"
    rng = random.Random(index)
    started = 0

    async with websockets.connect(url) as ws:

        async def read() -> None:
            async for raw in ws:
                msg = json.loads(raw)
                if msg["type"] == "error":
                    raise SystemExit(f"analysis {index} refused: {msg['error']}")

        reader = asyncio.create_task(read())
        while not stop.is_set():
            moves = ["11-15", "23-19", "8-11", "22-17", "9-13", "17x10"][: rng.randint(0, 4)]
            started += 1
            request = {"type": "analyse", "id": started, "moves": moves, "time": 300}
            await ws.send(json.dumps(request))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=rng.uniform(3, 8))
        await ws.send(json.dumps({"type": "stop"}))
        reader.cancel()
    return started


async def engine_game_times(
    base: str, level: int, moves: int, seed: int, bar: tqdm[Any]
) -> list[float]:
    """Play ``moves`` human moves in engine games (new game when one ends): the time
    from sending each move to the engine's reply."""
    rng = random.Random(seed)
    times: list[float] = []
    async with httpx2.AsyncClient(base_url=base, timeout=60) as http:
        while len(times) < moves:
            created = (
                await http.post("/api/games", json={"mode": "engine", "level": level})
            ).json()
            gid, token = created["game"]["id"], created["token"]
            url = base.replace("http", "ws") + f"/ws/games/{gid}"
            protocols: Any = ["poolcheckers", f"seat-token.{token}"]
            async with websockets.connect(url, subprotocols=protocols) as ws:
                state = json.loads(await ws.recv())["game"]
                while state["status"] == "running" and len(times) < moves:
                    mv = rng.choice(state["legal_moves"])["notation"]
                    ply = state["ply"]
                    start = time.perf_counter()
                    r = await http.post(
                        f"/api/games/{gid}/move", json={"move": mv, "ply": ply, "token": token}
                    )
                    state = r.json()
                    while state["status"] == "running" and state["ply"] < ply + 2:
                        state = json.loads(await ws.recv())["game"]
                    if state["ply"] >= ply + 2:
                        times.append(time.perf_counter() - start)
                        bar.update(1)
    return times


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]

    return {
        "n": len(ordered),
        "mean": statistics.fmean(ordered),
        "p50": pct(50),
        "p95": pct(95),
        "p99": pct(99),
        "max": ordered[-1],
    }


async def measure(base: str, args: argparse.Namespace) -> dict[str, Any]:
    with tqdm(total=args.moves, desc="quiet server", unit="reply") as bar:
        quiet = await engine_game_times(base, args.level, args.moves, 1, bar)
    stop = asyncio.Event()
    load = [asyncio.create_task(keep_analysing(base, i, stop)) for i in range(args.analyses)]
    await asyncio.sleep(2.0)  # every analysis running
    with tqdm(total=args.moves, desc=f"{args.analyses} analyses", unit="reply") as bar:
        loaded = await engine_game_times(base, args.level, args.moves, 2, bar)
    stop.set()
    started = await asyncio.gather(*load)
    return {"quiet": quiet, "loaded": loaded, "analyses_started": sum(started)}


def plot(result: dict[str, Any], path: Path, goal: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in (("quiet", "quiet server"), ("loaded", f"{result['analyses']} analyses")):
        ordered = sorted(result[key])
        ax.plot(ordered, [(i + 1) / len(ordered) for i in range(len(ordered))], label=label)
    ax.axvline(goal, color="red", linestyle="--", label=f"goal: level time + {GOAL_SLACK_S} s")
    ax.set_xlabel("engine reply time (s)")
    ax.set_ylabel("fraction of replies")
    ax.set_title(f"Engine-game replies at level {result['level']}")
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--analyses", type=int, default=20, help="analysis sockets (20)")
    p.add_argument("--moves", type=int, default=30, help="engine replies measured per phase")
    p.add_argument("--level", type=int, default=5, help="engine level of the games (5)")
    p.add_argument("--json", type=Path, help="write the figures here")
    p.add_argument("--plot", type=Path, help="write a plot of the reply times here")
    args = p.parse_args()
    goal = level_move_time(args.level) + GOAL_SLACK_S
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start_server(Path(tmp), args.analyses)
        try:
            result = asyncio.run(measure(base, args))
        finally:
            proc.terminate()
            proc.wait(30)
    result.update(level=args.level, analyses=args.analyses, goal_s=goal)
    quiet, loaded = summary(result["quiet"]), summary(result["loaded"])
    print(
        f"level {args.level}: level time {level_move_time(args.level):.2f} s, "
        f"goal p99 <= {goal:.2f} s"
    )
    for name, s in (("quiet", quiet), (f"{args.analyses} analyses", loaded)):
        print(
            f"  {name:>14}: n={s['n']} mean {s['mean']:.3f} s  p50 {s['p50']:.3f}  "
            f"p95 {s['p95']:.3f}  p99 {s['p99']:.3f}  max {s['max']:.3f}"
        )
    print(f"  p99 ratio loaded/quiet: {loaded['p99'] / quiet['p99']:.2f}")
    print(f"  goal {'met' if loaded['p99'] <= goal else 'MISSED'}")
    if args.json:
        args.json.write_text(
            json.dumps({**result, "quiet_summary": quiet, "loaded_summary": loaded})
        )
    if args.plot:
        plot(result, args.plot, goal)
    return 0 if loaded["p99"] <= goal else 1


if __name__ == "__main__":
    raise SystemExit(main())
