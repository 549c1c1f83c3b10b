"""``poolcheckers serve``: default database under the user data dir, migrations at
start, bad options."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from poolcheckers.server.cli import serve_main

from .conftest import free_port


def test_serve_uses_the_user_data_dir_and_migrates(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "poolcheckers.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        db = tmp_path / "poolcheckers" / "games.sqlite3"
        assert first == f"poolcheckers: database sqlite:///{db}"
        deadline = time.monotonic() + 60
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.1)
        assert r.json() == {
            "ok": True,
            "engine": r.json()["engine"],
            "database": "sqlite",
            "database_reachable": True,
        }
        created = httpx.post(f"http://127.0.0.1:{port}/api/games", json={"mode": "local"})
        assert created.status_code == 200
        assert db.is_file()
    finally:
        proc.terminate()
        proc.wait(20)


def test_bad_options_exit_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert serve_main(["--port", "0"]) == 2
    assert serve_main(["--port", "99999"]) == 2
    assert "--port must be 1..65535" in capsys.readouterr().err
    assert serve_main(["--database-url", "nosuchdb://x/y"]) == 2
    assert "cannot open the database" in capsys.readouterr().err
