"""``poolcheckers serve``: default database under the user data dir, migrations at
start, bad options."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx2
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
                r = httpx2.get(f"http://127.0.0.1:{port}/api/health", timeout=1)
                break
            except httpx2.HTTPError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.1)
        assert r.json() == {
            "ok": True,
            "engine": r.json()["engine"],
            "database": "sqlite",
            "database_reachable": True,
        }
        created = httpx2.post(f"http://127.0.0.1:{port}/api/games", json={"mode": "local"})
        assert created.status_code == 200
        assert db.is_file()
    finally:
        proc.terminate()
        proc.wait(20)


def test_serve_on_a_port_in_use_says_so_first_and_exits_with_status_2(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
        done = subprocess.run(
            [sys.executable, "-m", "poolcheckers.cli", "serve", "--port", str(port)],
            env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"poolcheckers serve: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    )
    # said before anything starts: no database opened, no app started
    assert done.stdout == "" and "startup" not in done.stderr
    assert not (tmp_path / "poolcheckers").exists()


def test_bad_options_exit_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert serve_main(["--port", "0"]) == 2
    assert serve_main(["--port", "99999"]) == 2
    assert "--port must be 1..65535" in capsys.readouterr().err
    assert serve_main(["--database-url", "nosuchdb://x/y"]) == 2
    assert "cannot open the database" in capsys.readouterr().err


def test_serve_options_set_the_capacity_and_abuse_limits() -> None:
    from poolcheckers.server.cli import build_parser, log_config, settings_from

    args = build_parser().parse_args(
        [
            "--engine-threads", "3", "--analysis-threads", "1", "--analysis-max-time", "5",
            "--analyses-per-address", "4", "--imported-games-per-hour", "7",
            "--import-max-games", "9", "--db-threads", "0", "--games-per-minute", "11",
            "--engine-games-per-minute", "5", "--engine-games-at-once", "2",
        ]
    )  # fmt: skip
    s = settings_from(args, "sqlite:///x.sqlite3")
    assert (s.engine_threads, s.analysis_threads, s.analysis_max_time) == (3, 1, 5.0)
    assert (s.analyses_per_address, s.imported_games_per_hour, s.import_max_games) == (4, 7, 9)
    assert (s.games_per_minute, s.engine_games_per_minute, s.engine_games_at_once) == (11, 5, 2)
    assert s.inline_db is True
    defaults = settings_from(build_parser().parse_args([]), "sqlite:///x.sqlite3")
    assert defaults.analyses_per_address == 2 and defaults.inline_db is None
    config = log_config()
    assert all("redact" in h["filters"] for h in config["handlers"].values())


def test_json_logs_are_one_object_per_line_with_secrets_hidden() -> None:
    """serve --log-format json: a log shipper reads each line as JSON; a token in a
    URL is hidden as in the text lines."""
    import io
    import json
    import logging.config

    from poolcheckers.server.cli import build_parser, log_config

    assert build_parser().parse_args(["--log-format", "json"]).log_format == "json"
    config = log_config("json")
    out = io.StringIO()
    config["handlers"]["access"]["stream"] = out
    logging.config.dictConfig(config)
    try:
        logging.getLogger("uvicorn.access").info(
            '%s - "%s %s HTTP/%s" %d', "10.0.0.1", "GET", "/play/g?invite=abc", "1.1", 200
        )
    finally:
        logging.config.dictConfig(log_config("text"))
    line = json.loads(out.getvalue().strip())
    assert line["level"] == "INFO" and line["logger"] == "uvicorn.access"
    assert "invite=***" in line["message"] and "abc" not in line["message"]
    assert {"time", "process"} <= set(line)


def test_access_lines_of_urls_with_a_token_are_logged_with_the_token_hidden(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """serve --access-log: a request to a URL holding a token or an invitation logs its
    access line (address, method, path, status) with the value hidden, not an error."""
    import io
    import logging.config

    from poolcheckers.server.cli import log_config

    config = log_config("text")
    config["handlers"]["access"]["stream"] = out = io.StringIO()
    logging.config.dictConfig(config)
    try:
        access = logging.getLogger("uvicorn.access")
        for path in ("/api/stream?token=pc_secret1&x=1", "/play/g?invite=secret2"):
            access.info('%s - "%s %s HTTP/%s" %d', "10.0.0.1:5000", "GET", path, "1.1", 200)
    finally:
        logging.config.dictConfig(log_config("text"))
    lines = out.getvalue().splitlines()
    assert [line.split(" - ", 1)[1] for line in lines] == [
        '"GET /api/stream?token=***&x=1 HTTP/1.1" 200 OK',
        '"GET /play/g?invite=*** HTTP/1.1" 200 OK',
    ]
    assert "secret" not in out.getvalue()
    assert "Traceback" not in capsys.readouterr().err


def test_json_log_lines_carry_no_terminal_colour_codes() -> None:
    """uvicorn adds a coloured copy of its messages (``color_message``): a JSON line
    is for a log shipper, and has neither the key nor an escape code."""
    import io
    import json
    import logging.config

    from poolcheckers.server.cli import log_config

    config = log_config("json")
    out = io.StringIO()
    config["handlers"]["default"]["stream"] = out
    logging.config.dictConfig(config)
    try:
        logging.getLogger("uvicorn.error").info(
            "Started server process [%d]", 42, extra={"color_message": "[\x1b[36m%d\x1b[0m]"}
        )
    finally:
        logging.config.dictConfig(log_config("text"))
    text = out.getvalue().strip()
    line = json.loads(text)
    assert line["message"] == "Started server process [42]"
    assert "color_message" not in line and "\x1b" not in text and "\\u001b" not in text
