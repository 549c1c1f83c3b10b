"""Stalled request bodies against a server with a low descriptor limit: does the
site keep answering another client?

Starts ``python -m poolcheckers.server`` on a loopback port with its descriptor
limit lowered (``--nofile``, 1024 by default, as ``ulimit -n`` would), then opens
``--connections`` connections from ``--sources`` loopback addresses (127.0.0.2,
127.0.0.3, …: all of 127/8 is this machine), each sending the headers of
``POST /api/games`` with ``Content-Length: 100`` and the body ``{``, and never the
rest.  Meanwhile another client (127.0.0.1) asks ``GET /api/health`` on a fresh
connection every ``--probe-interval`` seconds, each with a 2 s timeout; its
latencies (p50/p95/max) and success rate are the figures.  The flood is held for
``--hold`` seconds, then everything is closed and the server stopped.

Two runs: "before", the server with the connection guards switched off
(``--body-timeout 0 --connections-per-address 0 --descriptor-reserve 0
--max-header-bytes 0``), or another checkout's server (``--before-python
/path/to/other/.venv/bin/python``, run without those options); and "after", the
server with its defaults.

    .venv/bin/python benchmarks/flood_stalled_bodies.py                 # ~1 minute
    .venv/bin/python benchmarks/flood_stalled_bodies.py --only after --hold 5
    .venv/bin/python benchmarks/flood_stalled_bodies.py \
        --json benchmarks/results/flood_stalled_bodies.json

All traffic goes to 127.0.0.1; every run is bounded by ``--hold`` and timeouts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serverproc import first_health, free_port, percentile, stop_server

STALLED = (
    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 100\r\n\r\n{"
)
PROBE = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
GUARDS_OFF = [
    "--body-timeout", "0", "--connections-per-address", "0",
    "--descriptor-reserve", "0", "--max-header-bytes", "0",
]  # fmt: skip


@dataclass
class Run:
    """One server's figures."""

    name: str
    command: list[str]
    probes: int = 0
    answered: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    flood_opened: int = 0
    flood_failed_to_connect: int = 0
    flood_outcomes: dict[str, int] = field(default_factory=dict)
    server_rss_mb: float = 0.0
    server_descriptors: int = 0
    log_lines: int = 0
    log_tracebacks: int = 0
    log_descriptor_errors: int = 0

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies_ms)
        return {
            "success_rate": self.answered / self.probes if self.probes else float("nan"),
            "p50_ms": percentile(lat, 50),
            "p95_ms": percentile(lat, 95),
            "max_ms": lat[-1] if lat else float("nan"),
        }


def start_server(
    python: str, options: list[str], nofile: int, log: Path
) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    command = [python, "-m", "poolcheckers.server", "--port", str(port), "--log-level", "info"]
    command += ["--database-url", f"sqlite:///{log.parent / f'flood{port}.sqlite3'}", *options]

    def lower_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, preexec_fn=lower_limit
        )
    first_health(proc, f"http://127.0.0.1:{port}")
    return proc, port


async def stalled(
    port: int, source: str, outcomes: Counter[str], stop: asyncio.Event, opening: asyncio.Semaphore
) -> bool:
    """One stalled body, held until the server closes it or ``stop``; False if the
    connection could not be made (``opening`` bounds the connections being made)."""
    try:
        async with opening:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)), 5
            )
    except (OSError, TimeoutError):
        return False
    try:
        writer.write(STALLED)
        read = asyncio.ensure_future(reader.read(200))
        stopped = asyncio.ensure_future(stop.wait())
        await asyncio.wait([read, stopped], return_when=asyncio.FIRST_COMPLETED)
        if read.done() and not read.cancelled() and read.exception() is None:
            answer = read.result()
            outcomes[answer[9:12].decode() if answer.startswith(b"HTTP/1.1 ") else "closed"] += 1
        else:
            read.cancel()
            outcomes["held to the end"] += 1
        stopped.cancel()
    except OSError:
        outcomes["reset"] += 1
    finally:
        writer.close()
    return True


async def probe(port: int, run: Run) -> None:
    """A new visitor: a fresh connection, one request, at most 2 s."""
    run.probes += 1
    start = time.perf_counter()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 2)
        try:
            writer.write(PROBE)
            answer = await asyncio.wait_for(reader.read(4096), 2 - (time.perf_counter() - start))
        finally:
            writer.close()
    except (OSError, TimeoutError):
        return
    if answer.startswith(b"HTTP/1.1 200"):
        run.answered += 1
        run.latencies_ms.append((time.perf_counter() - start) * 1000)


async def flood(port: int, args: argparse.Namespace, run: Run) -> None:
    stop = asyncio.Event()
    outcomes: Counter[str] = Counter()
    sources = [f"127.0.0.{2 + i}" for i in range(args.sources)]
    opening = asyncio.Semaphore(200)

    tasks = [
        asyncio.ensure_future(stalled(port, sources[i % len(sources)], outcomes, stop, opening))
        for i in range(args.connections)
    ]
    probes: list[asyncio.Task[None]] = []
    ticks = round(args.hold / args.probe_interval)
    bar = tqdm(
        range(ticks), desc=f"{run.name}: flood held", unit="probe", leave=False, disable=None
    )
    for _ in bar:
        probes.append(asyncio.ensure_future(probe(port, run)))
        await asyncio.sleep(args.probe_interval)
    await asyncio.gather(*probes)
    stop.set()
    opened = await asyncio.gather(*tasks)
    run.flood_opened = sum(opened)
    run.flood_failed_to_connect = len(opened) - run.flood_opened
    run.flood_outcomes = dict(outcomes)


def server_figures(proc: subprocess.Popen[bytes], run: Run) -> None:
    status = Path(f"/proc/{proc.pid}/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                run.server_rss_mb = int(line.split()[1]) / 1024
        run.server_descriptors = len(list(Path(f"/proc/{proc.pid}/fd").iterdir()))


def one_run(name: str, python: str, options: list[str], args: argparse.Namespace) -> Run:
    tmp = Path(tempfile.mkdtemp(prefix="flood-"))
    log = tmp / "server.log"
    proc, port = start_server(python, options, args.nofile, log)
    run = Run(name, [os.path.relpath(python), "-m", "poolcheckers.server", *options])
    try:

        async def measure() -> None:
            task = asyncio.ensure_future(flood(port, args, run))
            await asyncio.sleep(args.hold * 0.9)
            server_figures(proc, run)  # while the flood is held
            await task

        asyncio.run(measure())
    finally:
        stop_server(proc)
    text = log.read_text(errors="replace")
    run.log_lines = text.count("\n")
    run.log_tracebacks = text.count("Traceback")
    run.log_descriptor_errors = text.count("Too many open files")
    return run


def table(runs: list[Run]) -> str:
    rows = [
        "| run | success | p50 ms | p95 ms | max ms | flood opened | flood answers"
        " | server RSS MB | descriptors | log lines | tracebacks |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in runs:
        s = r.summary()
        outcomes = ", ".join(f"{k}: {v}" for k, v in sorted(r.flood_outcomes.items()))
        rows.append(
            f"| {r.name} | {r.answered}/{r.probes} ({s['success_rate']:.0%}) | {s['p50_ms']:.1f}"
            f" | {s['p95_ms']:.1f} | {s['max_ms']:.1f} | {r.flood_opened} | {outcomes}"
            f" | {r.server_rss_mb:.0f} | {r.server_descriptors} | {r.log_lines}"
            f" | {r.log_tracebacks} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--connections", type=int, default=3000, help="stalled bodies (3000)")
    p.add_argument("--sources", type=int, default=2, help="loopback addresses they come from (2)")
    p.add_argument("--nofile", type=int, default=1024, help="the server's descriptor limit (1024)")
    p.add_argument("--hold", type=float, default=20.0, help="seconds the flood is held (20)")
    p.add_argument("--probe-interval", type=float, default=0.1, help="seconds between probes")
    p.add_argument("--before-python", default=None, help="another checkout's python for 'before'")
    p.add_argument("--only", choices=["before", "after"], default=None)
    p.add_argument("--json", type=Path, default=None, help="write the figures here (and .md)")
    args = p.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, args.connections + 1000)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    plan = [
        ("before", args.before_python or sys.executable, [] if args.before_python else GUARDS_OFF),
        ("after", sys.executable, []),
    ]
    runs = [one_run(name, py, opts, args) for name, py, opts in plan if args.only in (None, name)]
    print(table(runs))
    if args.json is not None:
        record = {
            "command": " ".join(sys.argv),
            "machine": f"{platform.machine()}, {platform.python_implementation()} "
            f"{platform.python_version()}",
            "load_average": os.getloadavg(),
            "settings": {k: str(v) for k, v in vars(args).items()},
            "runs": [{**asdict(r), "summary": r.summary(), "latencies_ms": None} for r in runs],
            "median_latency_ms": {
                r.name: statistics.median(r.latencies_ms) if r.latencies_ms else None for r in runs
            },
        }
        args.json.write_text(json.dumps(record, indent=2) + "\n")
        args.json.with_suffix(".md").write_text(table(runs) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
