"""The production path of docs/DEPLOY.md, run for real: Caddy (Debian's package) with
a certificate of its own CA in front of two server processes on PostgreSQL, the
repository's deploy/Caddyfile as it is.  An online game is played through it over
HTTPS, watched over WSS, one process is restarted in the middle, and nothing is
lost; then the database is backed up and restored with PostgreSQL's tools."""

from __future__ import annotations

import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import create_engine, func, select
from websockets.sync.client import ClientConnection, connect

from poolcheckers.server.database.engine import normalize_url
from poolcheckers.server.database.tables import GAMES, MOVES, RATING_UPDATES

from .conftest import PgCluster, free_port
from .helpers import wait_health

ROOT = Path(__file__).resolve().parents[2]
CADDY = shutil.which("caddy")
PASSWORD = "correct horse battery"

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow,
    # a deployment that hangs (a socket or a process that never answers) fails the
    # test instead of holding CI: each test takes about 20 s
    pytest.mark.timeout(300),
    pytest.mark.skipif(CADDY is None, reason="needs Debian's caddy (make system-deps)"),
]


class Process:
    """``python -m poolcheckers.server`` on a port, as deploy/poolcheckers@.service
    starts it: behind the proxy of 127.0.0.1, for the site's name and origin."""

    def __init__(self, port: int, db_url: str, site: str, log: Path) -> None:
        self.port, self.db_url, self.site, self.log = port, db_url, site, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        args = [
            sys.executable, "-m", "poolcheckers.server", "--host", "127.0.0.1",
            "--port", str(self.port), "--database-url", self.db_url,
            "--forwarded-allow-ips", "127.0.0.1", "--allowed-host", "localhost",
            "--site-origin", self.site, "--access-log", "--log-level", "info",
            "--log-format", "json", "--drain", "3",
            # the rating of a short game and the sign-ups from one address
            "--min-rated-plies", "2", "--signup-limit", "100",
        ]  # fmt: skip
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        wait_health(f"http://127.0.0.1:{self.port}", self.proc)

    def stop(self) -> int:
        """SIGTERM, as systemd stops a unit: uvicorn finishes what it is answering."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


@pytest.fixture
def site(pg_url: str, tmp_path: Path) -> Iterator[dict[str, Any]]:
    https_port, http_port = free_port(), free_port()
    origin = f"https://localhost:{https_port}"
    processes = [
        Process(free_port(), pg_url, origin, tmp_path / f"server{i}.log") for i in range(2)
    ]
    for p in processes:
        p.start()
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),  # Caddy's CA and certificates
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "POOLCHECKERS_SITE": f"localhost:{https_port}",
        "POOLCHECKERS_HTTPS_PORT": str(https_port),
        "POOLCHECKERS_HTTP_PORT": str(http_port),
        "POOLCHECKERS_UPSTREAMS": " ".join(f"127.0.0.1:{p.port}" for p in processes),
        "POOLCHECKERS_TLS": "tls internal",
        "POOLCHECKERS_LOG_DIR": str(tmp_path),
        # no admin endpoint, and the CA is not installed into the system's trust store
        "POOLCHECKERS_CADDY_GLOBAL": "admin off\n\tskip_install_trust",
    }
    caddy_log = (tmp_path / "caddy.log").open("wb")
    assert CADDY is not None
    caddy = subprocess.Popen(
        [CADDY, "run", "--config", str(ROOT / "deploy" / "Caddyfile"), "--adapter", "caddyfile"],
        env=env,
        stdout=caddy_log,
        stderr=subprocess.STDOUT,
    )
    root_ca = tmp_path / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
    try:
        deadline = time.monotonic() + 60
        while not root_ca.exists():
            assert caddy.poll() is None, (tmp_path / "caddy.log").read_text()
            assert time.monotonic() < deadline, "Caddy made no CA"
            time.sleep(0.2)
        tls = ssl.create_default_context(cafile=str(root_ca))
        wait_health(origin, verify=tls)
        yield {"origin": origin, "tls": tls, "processes": processes, "tmp": tmp_path}
    finally:
        caddy.terminate()
        caddy.wait(timeout=30)
        caddy_log.close()
        for p in processes:
            if p.proc is not None and p.proc.poll() is None:
                p.stop()


def _player(origin: str, tls: ssl.SSLContext, name: str) -> httpx2.Client:
    client = httpx2.Client(base_url=origin, verify=tls, timeout=30, headers={"Origin": origin})
    r = client.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    # the server sees https (X-Forwarded-Proto from the trusted proxy): a Secure cookie
    assert "secure" in r.headers["set-cookie"].lower()
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


def _watch(
    sockets: ExitStack, origin: str, tls: ssl.SSLContext, client: httpx2.Client, gid: str
) -> ClientConnection:
    """The game page's socket (signed in as ``client``), closed with ``sockets``."""
    cookie = f"pc_session={client.cookies['pc_session']}"
    url = origin.replace("https", "wss") + f"/ws/games/{gid}"
    headers = {"Cookie": cookie, "Origin": origin}
    return sockets.enter_context(connect(url, ssl=tls, additional_headers=headers))


def _last_state(ws: ClientConnection, ply: int) -> dict[str, Any]:
    """The socket's states until the one at ``ply``."""
    while True:
        message = json.loads(ws.recv(timeout=30))
        state = message.get("game", message)
        if isinstance(state, dict) and state.get("ply") == ply:
            return state


def test_online_game_through_caddy_survives_a_process_restart_then_backup_restores_it(
    site: dict[str, Any], pg_url: str, pg_cluster: PgCluster
) -> None:
    origin, tls = site["origin"], site["tls"]
    ann, bob = _player(origin, tls, "Ann"), _player(origin, tls, "Bob")
    seek = ann.post(
        "/api/seeks", json={"clock": {"initial": 600, "increment": 5}, "rated": True,
                            "color": "black"},
    )  # fmt: skip
    assert seek.status_code == 200, seek.text
    started = bob.post(f"/api/seeks/{seek.json()['id']}/accept")
    assert started.status_code == 200, started.text
    state = started.json()["game"]
    gid = state["id"]
    sockets = ExitStack()
    watcher = _watch(sockets, origin, tls, ann, gid)
    played: list[str] = []
    for ply in range(12):
        if ply == 5:  # mid-game: one process stops and starts again
            first = site["processes"][0]
            # uvicorn finishes its requests, shuts the app down, then ends by the
            # signal it caught (what systemd expects of a stopped unit)
            assert first.stop() in (0, -signal.SIGTERM)
            assert "Application shutdown complete" in first.log.read_text()
            # while it is down, Caddy sends everything to the other process
            mover = ann if state["turn"] == "black" else bob
            assert mover.get(f"/api/games/{gid}").json()["ply"] == ply
            first.start()
            # Caddy's health checks put it back in the rotation
            deadline = time.monotonic() + 20
            while (
                f"GET /api/games/{gid} "
                not in first.log.read_text().split("Application startup complete")[-1]
            ):
                assert time.monotonic() < deadline, "Caddy never used the restarted process"
                mover.get(f"/api/games/{gid}")
                time.sleep(0.1)
        mover = ann if state["turn"] == "black" else bob
        move = state["legal_moves"][0]["notation"]
        r = mover.post(f"/api/games/{gid}/move", json={"move": move, "ply": state["ply"]})
        assert r.status_code == 200, r.text
        state = r.json()
        played.append(move)
        try:
            seen = _last_state(watcher, len(played))
        except Exception:
            # the watcher's process was the one restarted: the page reconnects
            watcher = _watch(sockets, origin, tls, ann, gid)
            seen = _last_state(watcher, len(played))
        assert seen["ply"] == len(played)
    assert bob.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    sockets.close()
    final = ann.get(f"/api/games/{gid}").json()
    assert final["status"] == "finished" and final["ply"] == 12
    assert final["moves"] == played
    # Caddy shared the game's moves between both processes
    for p in site["processes"]:
        assert f"/api/games/{gid}/move" in p.log.read_text()
        # the unit's --log-format json: every log line one JSON object
        logged = [json.loads(line) for line in p.log.read_text().splitlines() if line[:1] == "{"]
        assert any(line["logger"] == "uvicorn.access" for line in logged)

    # every move stored once, the rated result applied (once: its game is the key of
    # rating_updates); the rating is committed after the game's end, by the process
    # that ended it, so wait for it
    engine = create_engine(normalize_url(pg_url))

    def counts() -> tuple[int, int]:
        with engine.connect() as conn:
            moves = conn.execute(select(func.count()).where(MOVES.c.game_id == gid)).scalar_one()
            rated = conn.execute(
                select(func.count()).where(RATING_UPDATES.c.game_id == gid)
            ).scalar_one()
        return int(moves), int(rated)

    deadline = time.monotonic() + 30
    while counts()[1] == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert counts() == (12, 1)
    engine.dispose()

    # PostgreSQL's own tools through the command, while the site runs
    backup = site["tmp"] / "site.dump"
    done = subprocess.run(
        [sys.executable, "-m", "poolcheckers.cli", "db", "backup", str(backup),
         "--database-url", pg_url], capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    copy = pg_cluster.create_database(f"restored_{int(time.time() * 1000) % 100000}")
    done = subprocess.run(
        [sys.executable, "-m", "poolcheckers.cli", "db", "restore", str(backup),
         "--database-url", copy], capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    engine = create_engine(normalize_url(copy))
    with engine.connect() as conn:
        row = conn.execute(select(GAMES.c.status, GAMES.c.ply).where(GAMES.c.id == gid)).one()
        notations = conn.execute(
            select(MOVES.c.notation).where(MOVES.c.game_id == gid).order_by(MOVES.c.ply)
        ).scalars()
        assert (row.status, row.ply, list(notations)) == ("finished", 12, played)
    engine.dispose()
    # the access log is Caddy's JSON lines, one per request through the proxy
    lines = (site["tmp"] / "poolcheckers-access.log").read_text().splitlines()
    assert any(json.loads(line)["request"]["uri"] == f"/api/games/{gid}" for line in lines)


#: the game page's waits before it sends a move again after no answer or a proxy's
#: 502/503/504 (static/api.js, MOVE_RETRY_WAITS), in seconds
PAGE_RETRY_WAITS = (0.25, 0.5, 1.0, 2.0, 3.5)


class MovesInPlay:
    """Two players' seats in online games through the proxy, posting one move after
    another (a new game when one ends) as the pages do, sending a move again with its
    ply after a proxy's failure as the page does; counting the moves that failed even
    so, and the proxy's answers that a resend covered.  ``sending`` is set just before
    each move goes out."""

    def __init__(self, origin: str, tls: ssl.SSLContext) -> None:
        self.client = httpx2.Client(
            base_url=origin, verify=tls, timeout=60, headers={"Origin": origin}
        )
        self.sending, self.done = threading.Event(), threading.Event()
        self.attempts, self.failures, self.resent = 0, list[str](), list[str]()
        self.thread = threading.Thread(target=self._play, daemon=True)

    def _new_game(self) -> tuple[str, dict[str, str], dict[str, Any]]:
        created = self.client.post("/api/games", json={"mode": "online", "color": "black"})
        assert created.status_code == 200, created.text
        gid = created.json()["game"]["id"]
        invite = created.json()["invite"].split("invite=", 1)[1]
        joined = self.client.post(f"/api/games/{gid}/join", json={"invite": invite})
        assert joined.status_code == 200, joined.text
        tokens = {"black": created.json()["token"], "white": joined.json()["token"]}
        return gid, tokens, joined.json()["game"]

    def _play(self) -> None:
        gid, tokens, state = self._new_game()
        while not self.done.is_set():
            if state["status"] != "running":
                gid, tokens, state = self._new_game()
            move = {"move": state["legal_moves"][0]["notation"], "ply": state["ply"]}
            headers = {"X-Seat-Token": tokens[state["turn"]]}
            self.attempts += 1
            self.sending.set()
            r = self._send(f"/api/games/{gid}/move", move, headers)
            if r.status_code == 200:
                state = r.json()
            else:
                self.failures.append(f"{r.status_code} {r.text[:200]}")
                state = self.client.get(f"/api/games/{gid}").json()
            time.sleep(0.05)  # a player's pace: a few games a minute

    def _send(self, url: str, move: dict[str, Any], headers: dict[str, str]) -> httpx2.Response:
        for wait in (*PAGE_RETRY_WAITS, None):
            try:
                r = self.client.post(url, json=move, headers=headers)
            except httpx2.TransportError as error:
                if wait is None:
                    raise
                self.resent.append(type(error).__name__)
            else:
                if r.status_code not in (502, 503, 504) or wait is None:
                    return r
                self.resent.append(str(r.status_code))
            time.sleep(wait)
        raise AssertionError("unreachable")

    def at_next_move(self) -> None:
        """Return the instant the next move is sent."""
        self.sending.clear()
        assert self.sending.wait(timeout=30), "no move was sent"


def test_no_move_fails_while_the_processes_are_restarted_one_after_the_other(
    site: dict[str, Any],
) -> None:
    """docs/DEPLOY.md §5's rolling restart under play: each process gets its SIGTERM
    the instant a move is sent, then starts again and answers its health check
    before the next one stops.  Caddy sends the move elsewhere (or again: a move
    carries its ply, so a repeat is answered, not played twice); none fails.  The
    mover sends a move again after a proxy's failure as the page does: on a loaded
    machine Caddy's health check can see the stopping process's 503 later than its
    port closes, and one in about 200 moves then needs its resend."""
    play = MovesInPlay(site["origin"], site["tls"])
    play.thread.start()
    try:
        for process in site["processes"]:
            for _ in range(5):  # moves go through both processes first
                play.at_next_move()
            play.at_next_move()
            assert process.stop() in (0, -signal.SIGTERM)
            process.start()  # waits for its /api/health, as §5's loop does
        for _ in range(10):  # and after both restarts
            play.at_next_move()
    finally:
        play.done.set()
        play.thread.join(timeout=60)
    assert play.failures == [], f"{len(play.failures)} of {play.attempts} moves failed"
    # a resend is the exception, not the way moves get through
    assert len(play.resent) <= 2, f"{len(play.resent)} resends: {play.resent}"
    assert play.attempts >= 20
