"""Fixtures of the server tests: apps over throwaway SQLite files, a manual clock,
and a throwaway PostgreSQL cluster (for the multi-process tests)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from poolcheckers.server.app import Settings, create_app
from poolcheckers.server.timesource import ManualTime

AppFactory = Callable[..., TestClient]


@pytest.fixture
def clock() -> ManualTime:
    return ManualTime()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'games.sqlite3'}"


@pytest.fixture
def make_client(db_url: str, clock: ManualTime) -> Iterator[AppFactory]:
    """Start apps (TestClient with lifespan) over the test's database; closed at the end."""
    clients: list[TestClient] = []

    def make(**overrides: Any) -> TestClient:
        kwargs: dict[str, Any] = {
            "database_url": db_url,
            "clock": clock,
            "sweep_interval": 0.05,
            "engine_move_time": 0.05,
            # the test client's Host
            "allowed_hosts": ("testserver",),
        }
        kwargs.update(overrides)
        client = TestClient(create_app(Settings(**kwargs)))
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for c in reversed(clients):
        c.__exit__(None, None, None)


@pytest.fixture
def client(make_client: AppFactory) -> TestClient:
    return make_client()


# ---------------------------------------------------------------- PostgreSQL
PG_BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def pg_bin() -> Path | None:
    for d in PG_BIN_DIRS:
        if (d / "pg_ctl").exists():
            return d
    found = shutil.which("pg_ctl")
    return Path(found).parent if found else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PgCluster:
    """A throwaway PostgreSQL cluster in a temp dir on a loopback port."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="poolcheckers-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            # PostgreSQL refuses to run as root: run it as the "postgres" user
            shutil.chown(self.dir, "postgres", "postgres")
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.user = "postgres" if os.geteuid() == 0 else os.environ.get("USER", "postgres")

    def run(self, *args: str) -> None:
        subprocess.run(
            [*self.prefix, *args], check=True, capture_output=True, timeout=120, cwd=self.dir
        )

    def start(self) -> None:
        self.run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            self.user,
            "--no-sync",
            "-E",
            "UTF8",
        )
        self.serve()

    def serve(self) -> None:
        """Start the server of the initialised cluster (and wait until it accepts)."""
        opts = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} -c fsync=off "
            "-c max_connections=200"
        )
        self.run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            opts,
            "-l",
            str(self.dir / "log"),
            "-w",
            "start",
        )

    def halt(self) -> None:
        """Stop the server as an administrator's restart does (``-m fast``: every
        session is ended), keeping the cluster for :meth:`serve`."""
        self.run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def reload(self) -> None:
        """Read the configuration files again (pg_hba.conf) without a restart."""
        self.run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "reload")

    def stop(self) -> None:
        try:
            self.run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def url(self, dbname: str) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{dbname}"


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    bindir = pg_bin()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries (initdb/pg_ctl) on this machine")
    cluster = PgCluster(bindir)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: PgCluster, request: pytest.FixtureRequest) -> str:
    name = "t_" + "".join(ch if ch.isalnum() else "_" for ch in request.node.name)[:50].lower()
    name += f"_{int(time.time() * 1000) % 100000}"
    return pg_cluster.create_database(name)


@pytest.fixture
def pg_app(pg_url: str) -> AppFactory:
    """Apps over the test's PostgreSQL database, not started (enter them as context
    managers: two of them stand for two server processes of one site); keyword
    arguments are :class:`Settings` fields."""

    def make(**overrides: Any) -> TestClient:
        kwargs: dict[str, Any] = {
            "allowed_hosts": ("testserver",),
            "database_url": pg_url,
            "clock": ManualTime(),
        }
        kwargs.update(overrides)
        return TestClient(create_app(Settings(**kwargs)))

    return make
