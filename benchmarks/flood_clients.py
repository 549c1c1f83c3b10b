"""One client floods the server; how does another client fare?

Each scenario starts ``python -m poolcheckers.server`` on a loopback port, lets a
*flood* run from other loopback addresses (127.0.0.2 and up: all of 127/8 is this
machine) for ``--hold`` seconds, and meanwhile has a *visitor* at 127.0.0.1 do one
ordinary thing again and again, each attempt bounded by a timeout.  The figures are
the visitor's: attempts, how many succeeded, how many were answered "busy" or "too
many", and the latencies (p50/p95/max) of the successful ones.

- engine: one address creates level-10 engine games (from a middle game, past the
  opening book, the engine to move) as fast as it is answered; the
  visitor plays a level-1 engine game, a move at a time, each to the engine's reply;
- sockets: one address opens 4,000 lobby and spectator sockets; the visitor opens a
  lobby socket (its first message) and reads a game's state;
- pdn: one address reads 256 KiB of PDN for the analysis board, four at a time, back
  to back; the visitor reads one short game;
- analysis: 20 addresses keep two 30 s analyses each; the visitor's 0.5 s analysis,
  to its end;
- signins: 50 addresses sign in with wrong passwords at once, again and again; the
  visitor signs in, from another address at each attempt (players signing in);
- headers: one address sends 8 requests at a time with an 8 MiB header; the visitor
  asks ``GET /api/health``;
- trf: four accounts, each from an address of its own, post a 350 KB TRF file of
  3,400 players (none of them an account) to the event import, back to back; the
  visitor asks ``GET /api/health``.  The import has no guard to switch off: its
  "before" is another checkout's server (``--before-python``), else it is skipped.

Each scenario runs three times: "quiet", the visitor alone on a server with its
defaults; "before", with the flood, the server with that scenario's guards switched
off (the options in ``GUARDS_OFF``) or another checkout's server with its own
defaults (``--before-python ../old/.venv/bin/python``); and "after", with the flood,
the server with its defaults.

    .venv/bin/python benchmarks/flood_clients.py                      # ~4 minutes
    .venv/bin/python benchmarks/flood_clients.py --only engine --hold 10
    .venv/bin/python benchmarks/flood_clients.py \
        --json benchmarks/results/flood_clients.json --plot benchmarks/results/flood_clients.png
    .venv/bin/python benchmarks/flood_clients.py --replot benchmarks/results/flood_clients.json \
        --plot benchmarks/results/flood_clients.png

All traffic goes to 127.0.0.1..127.0.0.255; every run is bounded by ``--hold`` and
timeouts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import websockets
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serverproc import first_health, free_port, percentile, stop_server

VISITOR = "127.0.0.1"
#: a middle game, black (the engine) to move: past the opening book, so that each of the
#: flood's games costs a full search
OUT_OF_BOOK = "B:W12,18,22,24,26,27,29,30,31,32:B2,3,4,7,8,9,10,11,13,17"
PASSWORD = "a long visitor passphrase"
#: each scenario's guards, switched off for the "before" run
GUARDS_OFF: dict[str, list[str]] = {
    "engine": [
        "--games-per-minute", "1000000", "--engine-games-per-minute", "1000000",
        "--engine-games-at-once", "1000000",
    ],
    "sockets": [
        "--lobby-sockets-per-client", "1000000", "--spectators-per-game-per-address", "1000000",
        "--connections-per-address", "0",
    ],
    "pdn": ["--pdn-analyses-per-minute", "1000000", "--pdn-analyses-at-once", "1000"],
    "analysis": ["--analysis-queue", "1000000"],
    "signins": [
        "--hash-queue", "1000000", "--signin-limit", "1000000",
        "--signin-burst-limit", "1000000",
    ],
    "headers": ["--max-header-bytes", "0"],
    "trf": [],
}  # fmt: skip
#: the visitor alone, then with the flood and the guards off, then with the defaults
RUNS = ["quiet", "before", "after"]
#: options of every run: the visitor's one sign-up is not what is measured
COMMON = ["--signup-limit", "1000000", "--log-level", "warning"]


@dataclass
class Visitor:
    """The visitor's attempts in one run."""

    attempts: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        lat = sorted(self.latencies_ms)
        ok = self.outcomes.get("ok", 0)
        return {
            "success_rate": ok / self.attempts if self.attempts else float("nan"),
            "p50_ms": percentile(lat, 50),
            "p95_ms": percentile(lat, 95),
            "max_ms": lat[-1] if lat else float("nan"),
        }


@dataclass
class Run:
    scenario: str
    name: str
    options: list[str]
    visitor: Visitor = field(default_factory=Visitor)
    flood: Counter[str] = field(default_factory=Counter)


class Outcome(Exception):
    """An attempt that ended without success, named by how."""


def client(base: str, source: str, timeout: float = 30.0) -> httpx2.AsyncClient:
    transport = httpx2.AsyncHTTPTransport(local_address=source)
    return httpx2.AsyncClient(base_url=base, transport=transport, timeout=timeout)


def status_outcome(r: httpx2.Response) -> str:
    return {429: "too many", 503: "busy"}.get(r.status_code, f"HTTP {r.status_code}")


async def ws_open(base: str, path: str, source: str, **kw: Any) -> Any:
    url = base.replace("http://", "ws://") + path
    return await websockets.connect(
        url, local_addr=(source, 0), open_timeout=10, compression=None, **kw
    )


# ---------------------------------------------------------------- scenarios
class Scenario:
    """A flood and a visitor's attempt, over one server at ``base``."""

    #: seconds between the visitor's attempts: a person's pace, within the site's own
    #: limits for one address when nobody floods
    pause = 0.2

    def __init__(self, base: str, flood: Counter[str]) -> None:
        self.base = base
        self.flood = flood
        self.stop = asyncio.Event()

    async def setup(self) -> None:
        """Anything the visitor needs before the flood starts."""

    async def flood_task(self) -> None:
        raise NotImplementedError

    async def attempt(self) -> None:
        """One visitor's attempt; returns on success, raises :class:`Outcome` otherwise."""
        raise NotImplementedError

    async def loop(self, source: str, step: Callable[[httpx2.AsyncClient], Awaitable[str]]) -> None:
        """Run ``step`` from ``source`` until stopped, counting its outcomes."""
        async with client(self.base, source) as http:
            while not self.stop.is_set():
                try:
                    self.flood[await step(http)] += 1
                except (httpx2.HTTPError, OSError) as exc:
                    self.flood[type(exc).__name__] += 1
                    await asyncio.sleep(0.05)


class EngineFlood(Scenario):
    async def flood_task(self) -> None:
        async def create(http: httpx2.AsyncClient) -> str:
            body = {"mode": "engine", "level": 10, "color": "white", "fen": OUT_OF_BOOK}
            r = await http.post("/api/games", json=body)
            if r.status_code == 429:
                await asyncio.sleep(0.2)  # a script that is told to wait, waits a little
            return "created" if r.status_code == 200 else status_outcome(r)

        await self.loop("127.0.0.2", create)

    async def setup(self) -> None:
        self.game: tuple[str, str] | None = None

    async def attempt(self) -> None:
        """One move in the visitor's level-1 engine game, to the engine's reply (a new
        game when the last one has ended)."""
        async with client(self.base, VISITOR) as http:
            if self.game is None:
                body = {"mode": "engine", "level": 1, "color": "black"}  # black moves first
                r = await http.post("/api/games", json=body)
                if r.status_code != 200:
                    raise Outcome(status_outcome(r))
                self.game = (r.json()["game"]["id"], r.json()["token"])
            gid, token = self.game
            state = (await http.get(f"/api/games/{gid}")).json()
            if state["status"] != "running" or not state["legal_moves"]:
                self.game = None
                raise Outcome("game over: a new one")
            mv = state["legal_moves"][0]["notation"]
            body = {"move": mv, "ply": state["ply"], "token": token}
            r = await http.post(f"/api/games/{gid}/move", json=body)
            if r.status_code != 200:
                raise Outcome(status_outcome(r))
            while (state := (await http.get(f"/api/games/{gid}")).json())["turn"] != "black":
                if state["status"] != "running":
                    self.game = None
                    return
                await asyncio.sleep(0.01)


class SocketFlood(Scenario):
    async def setup(self) -> None:
        async with client(self.base, VISITOR) as http:
            r = await http.post("/api/games", json={"mode": "online", "color": "black"})
            self.gid = r.json()["game"]["id"]

    async def flood_task(self) -> None:
        paths = ["/ws/lobby", f"/ws/games/{self.gid}"]
        held: list[Any] = []
        opening = asyncio.Semaphore(50)

        async def one(path: str) -> None:
            async with opening:
                try:
                    ws = await ws_open(self.base, path, "127.0.0.2")
                    await asyncio.wait_for(ws.recv(), 10)
                    held.append(ws)
                    self.flood["held"] += 1
                except Exception as exc:  # refused, closed with 1008, timed out
                    self.flood[type(exc).__name__] += 1

        await asyncio.gather(*(one(paths[i % 2]) for i in range(4000)))
        await self.stop.wait()
        await asyncio.gather(*(ws.close() for ws in held), return_exceptions=True)

    async def attempt(self) -> None:
        ws = await ws_open(self.base, "/ws/lobby", VISITOR)
        try:
            await ws.recv()
        finally:
            await ws.close()
        async with client(self.base, VISITOR) as http:
            r = await http.get(f"/api/games/{self.gid}")
            if r.status_code != 200:
                raise Outcome(status_outcome(r))


def big_pdn(size: int) -> str:
    game = (
        '[Event "Flood"]\n\n1. 9-13 21-17 2. 5-9 17-14 3. 9x18 23x14 4. 10x17 24-19 '
        "5. 1-5 28-24 6. 12-16 19x12 7. 5-9 22-18 8. 6-10 25-22 *\n\n"
    )
    return game * (size // len(game))


class PdnFlood(Scenario):
    pause = 2.5  # within 30 readings a minute

    async def flood_task(self) -> None:
        text = big_pdn(250 * 1024)

        async def read(http: httpx2.AsyncClient) -> str:
            r = await http.post("/api/analysis/pdn", content=text.encode())
            if r.status_code in (429, 503):
                await asyncio.sleep(0.2)
            return "read" if r.status_code == 200 else status_outcome(r)

        await asyncio.gather(*(self.loop("127.0.0.2", read) for _ in range(4)))

    async def attempt(self) -> None:
        async with client(self.base, VISITOR) as http:
            r = await http.post("/api/analysis/pdn", content=b"1. 11-15 23-19 *\n")
            if r.status_code != 200:
                raise Outcome(status_outcome(r))


async def analyse(base: str, source: str, seconds: float) -> str:
    """One analysis on a new socket from ``source``: "ok" at its end, else the error code."""
    ws = await ws_open(base, "/ws/analysis", source)
    try:
        await ws.send(json.dumps({"type": "analyse", "id": 1, "time": seconds}))
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] == "done":
                return "ok"
            if msg["type"] == "error":
                return str(msg["error"]["code"])
    finally:
        await ws.close()


class AnalysisFlood(Scenario):
    async def flood_task(self) -> None:
        async def analyst(source: str) -> None:
            while not self.stop.is_set():
                try:
                    outcome = await analyse(self.base, source, 30)
                except Exception as exc:
                    outcome = type(exc).__name__
                self.flood[outcome] += 1
                if outcome != "ok":
                    await asyncio.sleep(1)

        sources = [f"127.0.0.{10 + i}" for i in range(20)]
        tasks = [asyncio.ensure_future(analyst(s)) for s in sources for _ in range(2)]
        await self.stop.wait()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def attempt(self) -> None:
        outcome = await analyse(self.base, VISITOR, 0.5)
        if outcome != "ok":
            raise Outcome(outcome)


class SignInFlood(Scenario):
    pause = 1.0

    async def setup(self) -> None:
        #: each attempt is another player signing in, from an address of their own
        self.players = iter(range(1, 255))
        async with client(self.base, VISITOR) as http:
            r = await http.post(
                "/api/account/signup", json={"username": "Visitor", "password": PASSWORD}
            )
            if r.status_code != 200:
                raise SystemExit(f"the visitor could not sign up: {r.text}")

    async def flood_task(self) -> None:
        names = iter(range(10**9))

        async def guess(http: httpx2.AsyncClient) -> str:
            # other names each time: the hashing queue is measured, not the visitor's
            # own account locked by failures counted against its name
            body = {"username": f"guess{next(names)}", "password": "not the password at all"}
            r = await http.post("/api/account/login", json=body)
            if r.status_code in (429, 503):
                await asyncio.sleep(0.5)
            return "refused" if r.status_code == 401 else status_outcome(r)

        await asyncio.gather(*(self.loop(f"127.0.0.{10 + i}", guess) for i in range(50)))

    async def attempt(self) -> None:
        async with client(self.base, f"127.0.1.{next(self.players)}") as http:
            body = {"username": "Visitor", "password": PASSWORD}
            r = await http.post("/api/account/login", json=body)
            if r.status_code != 200:
                raise Outcome(status_outcome(r))


class HeaderFlood(Scenario):
    async def flood_task(self) -> None:
        port = int(self.base.rsplit(":", 1)[1])
        request = (
            b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: "
            + b"a" * (8 << 20)
            + b"\r\nConnection: close\r\n\r\n"
        )

        async def send() -> None:
            while not self.stop.is_set():
                try:
                    reader, writer = await asyncio.open_connection(
                        "127.0.0.1", port, local_addr=("127.0.0.2", 0)
                    )
                    try:
                        writer.write(request)
                        await writer.drain()
                        answer = await asyncio.wait_for(reader.read(64), 30)
                    finally:
                        writer.close()
                    self.flood[answer[9:12].decode() if answer else "closed"] += 1
                except (OSError, TimeoutError) as exc:
                    self.flood[type(exc).__name__] += 1

        await asyncio.gather(*(send() for _ in range(8)))

    async def attempt(self) -> None:
        async with client(self.base, VISITOR) as http:
            r = await http.get("/api/health")
            if r.status_code != 200:
                raise Outcome(status_outcome(r))


def big_trf(players: int) -> str:
    """A TRF16 file of ``players`` (paired in one round, none of them an account)."""
    from caissify_pairings.trf import write_trf

    entries = [
        {
            "starting_number": i,
            "name": f"player{i:05d}",
            "rating": 1500,
            "score": 0.0,
            "results": {
                1: {
                    "opponent": i + 1 if i % 2 else i - 1,
                    "color": "w" if i % 2 else "b",
                    "result": "1" if i % 2 else "0",
                }
            },
        }
        for i in range(1, players + 1)
    ]
    text: str = write_trf({"name": "Flood"}, entries, 1)
    return text


class TrfFlood(Scenario):
    async def flood_task(self) -> None:
        body = {"trf": big_trf(3400), "clock": {"initial": 600, "increment": 5}}

        async def importer(n: int) -> None:
            source = f"127.0.0.{2 + n}"
            async with client(self.base, source) as http:
                http.headers["Origin"] = self.base
                account = {"username": f"importer{n}", "password": PASSWORD}
                await http.post("/api/account/signup", json=account)
                while not self.stop.is_set():
                    try:
                        r = await http.post("/api/tournaments/import", json=body)
                        self.flood[status_outcome(r) if r.status_code >= 300 else "imported"] += 1
                    except (httpx2.HTTPError, OSError) as exc:
                        self.flood[type(exc).__name__] += 1
                        await asyncio.sleep(0.05)

        await asyncio.gather(*(importer(n) for n in range(4)))

    async def attempt(self) -> None:
        async with client(self.base, VISITOR) as http:
            r = await http.get("/api/health")
            if r.status_code != 200:
                raise Outcome(status_outcome(r))


SCENARIOS: dict[str, type[Scenario]] = {
    "engine": EngineFlood,
    "sockets": SocketFlood,
    "pdn": PdnFlood,
    "analysis": AnalysisFlood,
    "signins": SignInFlood,
    "headers": HeaderFlood,
    "trf": TrfFlood,
}


# ---------------------------------------------------------------- running
def start_server(
    options: list[str], tmp: Path, python: str | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """A server of this checkout, or of the checkout whose virtual environment holds
    ``python`` (run from that checkout, so that it imports its own package)."""
    port = free_port()
    command = [python or sys.executable, "-m", "poolcheckers.server", "--port", str(port)]
    command += [*COMMON, "--database-url", f"sqlite:///{tmp / f'flood{port}.sqlite3'}"]
    command += options
    cwd = Path(python).absolute().parents[2] if python else None
    log = (tmp / f"server{port}.log").open("wb")
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=cwd)
    base = f"http://127.0.0.1:{port}"
    first_health(proc, base)
    return proc, base


async def measure(scenario: Scenario, run: Run, hold: float, timeout: float) -> None:
    await scenario.setup()
    quiet = run.name == "quiet"  # the visitor alone: what the others are compared with
    flood = asyncio.ensure_future(scenario.stop.wait() if quiet else scenario.flood_task())
    await asyncio.sleep(min(2.0, hold / 4))  # the flood builds up first
    deadline = time.monotonic() + hold
    total = round(hold)
    bar = tqdm(total=total, desc=f"{run.scenario} {run.name}", unit="s", leave=False)
    began = time.monotonic()
    while time.monotonic() < deadline:
        run.visitor.attempts += 1
        start = time.perf_counter()
        try:
            await asyncio.wait_for(scenario.attempt(), timeout)
        except Outcome as exc:
            run.visitor.outcomes[str(exc)] += 1
        except TimeoutError:
            run.visitor.outcomes["timed out"] += 1
        except Exception as exc:  # a refused or reset connection
            run.visitor.outcomes[type(exc).__name__] += 1
        else:
            run.visitor.outcomes["ok"] += 1
            run.visitor.latencies_ms.append((time.perf_counter() - start) * 1000)
        bar.update(min(total, round(time.monotonic() - began)) - bar.n)
        await asyncio.sleep(scenario.pause)
    bar.close()
    scenario.stop.set()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(flood, 60)
    run.flood = scenario.flood


def one_run(
    name: str, scenario: str, options: list[str], args: argparse.Namespace, python: str | None
) -> Run:
    tmp = Path(tempfile.mkdtemp(prefix="flood-clients-"))
    proc, base = start_server(options, tmp, python)
    run = Run(scenario, name, options)
    try:
        asyncio.run(measure(SCENARIOS[scenario](base, Counter()), run, args.hold, args.timeout))
    finally:
        stop_server(proc)
    return run


def table(runs: list[Run]) -> str:
    rows = [
        "| scenario | run | visitor's attempts | succeeded | other answers | p50 ms | p95 ms"
        " | max ms | the flood's outcomes |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in runs:
        s = r.visitor.summary()
        ok = r.visitor.outcomes.get("ok", 0)
        other = ", ".join(f"{k}: {v}" for k, v in sorted(r.visitor.outcomes.items()) if k != "ok")
        flood = ", ".join(f"{k}: {v}" for k, v in sorted(r.flood.items()))
        rows.append(
            f"| {r.scenario} | {r.name} | {r.visitor.attempts} | {ok} ({s['success_rate']:.0%})"
            f" | {other or '-'} | {s['p50_ms']:.0f} | {s['p95_ms']:.0f} | {s['max_ms']:.0f}"
            f" | {flood} |"
        )
    return "\n".join(rows)


def plot(records: list[dict[str, Any]], path: Path, timeout: float, before: str) -> None:
    """Bars of the visitor's p95 latency and success rate per scenario and run, from the
    JSON ``runs`` records; a run without one success is drawn hatched at the timeout."""
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scenarios = list(dict.fromkeys(r["scenario"] for r in records))
    fig, (lat, ok) = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.27
    labels = {"quiet": "no flood", "before": f"flood, {before}", "after": "flood, defaults"}
    for i, name in enumerate(RUNS):
        xs = [k + (i - 1) * width for k in range(len(scenarios))]
        mine = {r["scenario"]: r["summary"] for r in records if r["name"] == name}
        figures = [mine.get(s, {}) for s in scenarios]
        p95 = [f.get("p95_ms", math.nan) for f in figures]
        none = [math.isnan(v) and bool(f) for v, f in zip(p95, figures, strict=True)]
        heights = [
            timeout * 1000 if n else (0.0 if math.isnan(v) else v)
            for v, n in zip(p95, none, strict=True)
        ]
        bars = lat.bar(xs, heights, width, label=labels[name], color=f"C{i}")
        for bar, n in zip(bars, none, strict=True):
            if n:
                bar.set_hatch("//")
                bar.set_alpha(0.5)
        ok.bar(xs, [100 * f.get("success_rate", 0.0) for f in figures], width, color=f"C{i}")
    lat.set_title(f"visitor's p95 latency, ms (log; hatched: none within {timeout:g} s)")
    ok.set_title("visitor's attempts that succeeded, %")
    for ax in (lat, ok):
        ax.set_xticks(range(len(scenarios)), scenarios)
    lat.set_yscale("log")
    fig.legend(loc="lower center", ncol=3)
    fig.suptitle("Another client during one client's flood")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--only", choices=list(SCENARIOS), action="append", help="one scenario")
    p.add_argument("--runs", choices=RUNS, action="append", help="one run (all three)")
    p.add_argument("--hold", type=float, default=20.0, help="seconds the visitor measures (20)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per visitor attempt (30)")
    p.add_argument(
        "--before-python",
        default=None,
        help="for 'before', another checkout's virtual environment's python, run with its "
        "own defaults (e.g. a checkout from before the guards)",
    )
    p.add_argument("--json", type=Path, default=None, help="write the figures here (and .md)")
    p.add_argument("--plot", type=Path, default=None, help="write a bar chart here (PNG)")
    p.add_argument("--replot", type=Path, default=None, help="only draw --plot from this JSON")
    args = p.parse_args(argv)
    before = "another checkout" if args.before_python else "guards off"
    if args.replot is not None:
        saved = json.loads(args.replot.read_text())
        if args.plot is None:
            p.error("--replot needs --plot")
        settings = saved["settings"]
        label = "another checkout" if settings.get("before_python") != "None" else "guards off"
        plot(saved["runs"], args.plot, float(settings["timeout"]), label)
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < min(hard, 20000):
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 20000), hard))
    runs: list[Run] = []
    for scenario in args.only or list(SCENARIOS):
        for name in args.runs or RUNS:
            python = args.before_python if name == "before" else None
            if name == "before" and python is None and scenario == "trf":
                print("trf before: skipped (no guard to switch off; give --before-python)")
                continue
            options = GUARDS_OFF[scenario] if name == "before" and python is None else []
            runs.append(one_run(name, scenario, options, args, python))
            print(table(runs[-1:]).splitlines()[-1], flush=True)
    print(table(runs))
    records = [
        {**asdict(r), "summary": r.visitor.summary(), "visitor": None,
         "visitor_outcomes": dict(r.visitor.outcomes), "flood": dict(r.flood)}
        for r in runs
    ]  # fmt: skip
    if args.json is not None:
        record = {
            "command": " ".join(sys.argv),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, "
            f"{platform.python_implementation()} {platform.python_version()}",
            "load_average": os.getloadavg(),
            "settings": {k: str(v) for k, v in vars(args).items()},
            "runs": records,
        }
        args.json.write_text(json.dumps(record, indent=2) + "\n")
        args.json.with_suffix(".md").write_text(table(runs) + "\n")
    if args.plot is not None:
        plot(records, args.plot, args.timeout, before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
