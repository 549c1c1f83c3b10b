"""What the server benchmarks share: a free local port, waiting for a started
``python -m poolcheckers.server`` to answer, stopping it, and percentiles."""

from __future__ import annotations

import socket
import subprocess
import time

import httpx2


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def first_health(
    proc: subprocess.Popen[bytes], base: str, timeout: float = 60.0
) -> httpx2.Response:
    """The first answer of ``base``'s ``/api/health``, polled every 0.1 s; exits
    (``SystemExit``) if ``proc`` ends first or nothing answers within ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise SystemExit("the server did not start")
        try:
            return httpx2.get(base + "/api/health", timeout=1)
        except httpx2.HTTPError:
            if time.monotonic() > deadline:
                raise SystemExit(f"the server did not answer within {timeout:g} s") from None
            time.sleep(0.1)


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """Terminate a started server, killed if it has not ended within 20 s."""
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values`` by nearest rank; NaN when empty."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]
