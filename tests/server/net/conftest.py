"""A real ``python -m poolcheckers.server`` on a free loopback port, for the tests of
what happens on the wire (connections, deadlines, headers, logs)."""

from __future__ import annotations

import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2
import pytest

from ..conftest import free_port


class LiveServer:
    """A started server: its port, base URL and output (stdout and stderr together)."""

    def __init__(self, tmp: Path, options: list[str], nofile: int | None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = tmp / f"server-{self.port}.log"
        self.log = self.log_path.open("w")
        database = f"sqlite:///{tmp / f'g{self.port}.sqlite3'}"
        command = [sys.executable, "-m", "poolcheckers.server", "--port", str(self.port)]
        command += ["--database-url", database, *options]

        def lower_descriptor_limit() -> None:
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.proc = subprocess.Popen(
            command, stdout=self.log, stderr=subprocess.STDOUT, preexec_fn=lower_descriptor_limit
        )
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None, self.output()
            try:
                httpx2.get(self.base + "/api/health", timeout=1)
                return
            except httpx2.HTTPError:
                assert time.monotonic() < deadline, self.output()
                time.sleep(0.1)

    def connect(self, source: str = "127.0.0.1", timeout: float = 10.0) -> socket.socket:
        """A raw TCP connection from ``source`` (any 127.x.y.z is this machine)."""
        s = socket.create_connection(
            ("127.0.0.1", self.port), timeout=timeout, source_address=(source, 0)
        )
        return s

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log.close()


ServerFactory = Callable[..., LiveServer]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[ServerFactory]:
    """Start servers with ``serve("--option", "value", …, nofile=N)`` (N lowers the
    server's descriptor limit); all are stopped at the end of the test."""
    servers: list[LiveServer] = []

    def start(*options: str, nofile: int | None = None) -> LiveServer:
        server = LiveServer(tmp_path, list(options), nofile)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def read_answer(s: socket.socket, limit: float = 10.0) -> tuple[bytes, bool]:
    """What the server sends within ``limit`` seconds, and whether it closed the
    connection (end of stream or reset) by then."""
    data = b""
    deadline = time.monotonic() + limit
    try:
        while (left := deadline - time.monotonic()) > 0:
            s.settimeout(left)
            chunk = s.recv(65536)
            if not chunk:
                return data, True
            data += chunk
    except TimeoutError:
        return data, False
    except ConnectionResetError:
        return data, True
    return data, False
