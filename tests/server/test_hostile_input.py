"""Hostile input is refused or survived, never a crash or a leak:

Bad text (lone surrogates), JSON nested too deeply, out-of-range numbers (a ply or a
FEN square of thousands of digits, digits ``int`` refuses), empty choices, a bad
token on draw answers, a database that went away, seat tokens in log lines, and
connections that never finish their headers.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
import websockets
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, text

from poolcheckers.server.app import Settings, create_app
from poolcheckers.server.timesource import ManualTime

from .conftest import AppFactory, free_port
from .helpers import error_code, move, online_game, ws_seat
from .tournaments.test_tournament_api import PASSWORD

LONE_SURROGATE_PDN = '{"pdn": "[Event \\"\\ud800\\"]\\n1. 11-15 *"}'
DEEP = "[" * 5000


def post_raw(client: TestClient, path: str, body: str) -> httpx2.Response:
    return client.post(path, content=body.encode(), headers={"Content-Type": "application/json"})


def test_pdn_with_a_lone_surrogate_is_refused(client: TestClient) -> None:
    r = post_raw(client, "/api/import", LONE_SURROGATE_PDN)
    assert r.status_code == 400, r.text
    assert error_code(r) == "malformed" and "UTF-8" in r.json()["error"]["message"]
    assert client.get("/api/games").json()["games"] == []
    r = post_raw(client, "/api/analysis/pdn", LONE_SURROGATE_PDN)
    assert r.status_code == 400 and error_code(r) == "malformed"


def test_a_stored_lone_surrogate_is_still_read(db_url: str, clock: ManualTime) -> None:
    """A row stored before such text was refused: list, export, the game, its PDN."""
    settings = Settings(allowed_hosts=("testserver",), database_url=db_url, clock=clock)
    with TestClient(create_app(settings)) as client:
        r = client.post("/api/import", content=b'[Event "x"]\n1. 11-15 *\n')
        (gid,) = r.json()["imported"]
    engine = create_engine(db_url)
    with engine.begin() as conn:  # what json.dumps stored for the surrogate
        conn.execute(text("UPDATE games SET tags = :t"), {"t": '{"Event": "\\ud800"}'})
    engine.dispose()
    with TestClient(create_app(settings)) as client:
        listed = client.get("/api/games")
        assert listed.status_code == 200 and listed.json()["games"][0]["tags"]["Event"] == "\ufffd"
        assert client.get(f"/api/games/{gid}").status_code == 200
        pdn = client.get(f"/api/games/{gid}/pdn")
        assert pdn.status_code == 200 and '[Event "\ufffd"]' in pdn.text
        assert client.get("/api/export.pdn").status_code == 200


def json_endpoints(client: TestClient) -> list[str]:
    gid, _, _ = online_game(client)
    paths = [
        "/api/games",
        f"/api/games/{gid}/join",
        f"/api/games/{gid}/move",
        "/api/analysis/position",
        "/api/analysis/pdn",
        "/api/import",
    ]
    for action in ("resign", "draw-offer", "draw-accept", "draw-decline", "takeback"):
        paths.append(f"/api/games/{gid}/{action}")
    return paths


def test_deeply_nested_json_is_malformed_on_every_json_endpoint(client: TestClient) -> None:
    for path in json_endpoints(client):
        r = post_raw(client, path, DEEP)
        assert r.status_code == 400, (path, r.status_code)
        assert error_code(r) == "malformed", path
        r = post_raw(client, path, '{"a": ' + DEEP + "]" * 5000 + "}")
        assert r.status_code == 400, (path, r.status_code)


def test_deeply_nested_json_on_websockets_is_malformed(client: TestClient) -> None:
    gid, _, _ = online_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_text(DEEP)
        assert ws.receive_json()["error"]["code"] == "malformed"
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}  # still usable
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_text('{"type": "analyse", "moves": ' + DEEP + "}")
        assert ws.receive_json()["error"]["code"] == "malformed"
        ws.send_text(DEEP)
        assert ws.receive_json()["error"]["code"] == "malformed"


def test_lone_surrogates_in_token_or_invite_are_refused(client: TestClient) -> None:
    gid, _, _ = online_game(client)
    bad = '"\\udc80"'
    for path, body in [
        (f"/api/games/{gid}/resign", '{"token": ' + bad + "}"),
        (f"/api/games/{gid}/draw-offer", '{"token": ' + bad + "}"),
        (f"/api/games/{gid}/move", '{"move": "11-15", "ply": 0, "token": ' + bad + "}"),
        (f"/api/games/{gid}/join", '{"invite": ' + bad + "}"),
        ("/api/games", '{"mode": "local", "fen": ' + bad + "}"),
    ]:
        r = post_raw(client, path, body)
        assert r.status_code in (400, 403), (path, r.status_code)
        assert error_code(r) in ("malformed", "forbidden")
    assert client.get(f"/api/games/{gid}").json()["ply"] == 0


@pytest.mark.parametrize("offset", ["9223372036854775808", "-1", "99999999999999999999999"])
def test_an_offset_out_of_range_is_refused(client: TestClient, offset: str) -> None:
    r = client.get(f"/api/games?offset={offset}")
    assert r.status_code == 400 and "offset" in r.json()["error"]["message"]


@pytest.mark.parametrize(
    "body", [{"mode": ""}, {"mode": "local", "color": ""}, {"mode": "online", "color": ""}]
)
def test_empty_mode_or_color_is_refused(client: TestClient, body: dict[str, str]) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == 400, r.text
    assert client.get("/api/games").json()["games"] == []


@pytest.mark.parametrize("action", ["draw-accept", "draw-decline"])
def test_a_bad_token_on_a_draw_answer_is_forbidden_first(client: TestClient, action: str) -> None:
    gid, black, _ = online_game(client)
    # no offer stands (that would be 409), but the token is checked first
    r = client.post(f"/api/games/{gid}/{action}", json={"token": "not-a-seat"})
    assert r.status_code == 403 and error_code(r) == "forbidden"
    client.post(f"/api/games/{gid}/resign", json={"token": black})
    r = client.post(f"/api/games/{gid}/{action}", json={"token": "not-a-seat"})
    assert r.status_code == 403  # also on a finished game


def test_database_down_answers_503_in_the_error_shape(tmp_path: Path, clock: ManualTime) -> None:
    folder = tmp_path / "db"
    settings = Settings(
        allowed_hosts=("testserver",),
        database_url=f"sqlite:///{folder / 'games.sqlite3'}",
        clock=clock,
    )
    app = create_app(settings)
    with TestClient(app, raise_server_exceptions=False) as client:
        gid, black, _ = online_game(client)
        assert client.get("/api/health").json()["ok"] is True
        app.state.ctx.db.dispose()
        shutil.rmtree(folder)
        folder.write_text("not a directory")  # the database file cannot be opened now
        answers = [
            client.get(f"/api/games/{gid}"),
            move(client, gid, black, "11-15", 0),
            client.post(f"/api/games/{gid}/resign", json={"token": black}),
            client.post("/api/games", json={"mode": "local"}),
            client.get("/api/games"),
            client.get(f"/api/games/{gid}/pdn"),
            client.get("/api/export.pdn"),
            client.post("/api/import", content=b"1. 11-15 *"),
        ]
        for r in answers:
            assert r.status_code == 503, (r.request.url, r.status_code, r.text)
            assert error_code(r) == "database_unavailable"
        health = client.get("/api/health")
        assert health.status_code == 503
        assert health.json()["ok"] is False and health.json()["database_reachable"] is False
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            assert ws.receive_json()["error"]["code"] == "database_unavailable"


# ---------------------------------------------------------------- odd numbers
HUGE = "5" * 5000  # more digits than Python's int() reads (4,300)
#: FENs whose squares are numbers no int() should ever be asked to read
HUGE_FENS = [
    f"B:W{HUGE}:B1",
    f"B:W21:BK{HUGE}",
    f"B:W21-{HUGE}:B1",
    f"W:W21:B1:H{HUGE}",
    "B:W21:B" + "0" * 5000 + "100",
]


def bot_token(client: TestClient, name: str = "hostilebot") -> dict[str, str]:
    """The Authorization header of a new bot account."""
    r = client.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    csrf = {"X-CSRF-Token": r.json()["csrf_token"]}
    made = client.post(
        "/api/account/tokens", json={"label": "e", "scopes": ["bot:play"]}, headers=csrf
    )
    header = {"Authorization": f"Bearer {made.json()['token']}"}
    client.cookies.clear()
    assert client.post("/api/bot/account/upgrade", headers=header).status_code == 200
    return header


@pytest.mark.parametrize("ply", ["²", "١٢", HUGE, "0" * 5000 + "1", "-1", "1e3", " 1", ""])
def test_a_bot_move_with_a_ply_that_is_no_number_is_refused_naming_ply(
    make_client: AppFactory, ply: str
) -> None:
    client = make_client(password_parameters=CHEAPEST)
    r = client.post(
        "/api/bot/game/nosuchgame/move/11-15", params={"ply": ply}, headers=bot_token(client)
    )
    assert r.status_code == 400, (ply[:10], r.status_code, r.text[:200])
    assert error_code(r) == "malformed" and "ply must be a whole number" in r.text
    assert len(r.text) < 300


@pytest.mark.parametrize("fen", HUGE_FENS)
def test_a_fen_with_a_square_of_thousands_of_digits_is_refused_everywhere_r5(
    client: TestClient, fen: str
) -> None:
    """Every game mode, the analysis board, its export and its socket: a clear 400
    naming the token and R5, and no game made."""
    for mode in ("local", "online", "engine"):
        r = client.post("/api/games", json={"mode": mode, "fen": fen})
        assert r.status_code == 400, (mode, r.status_code, r.text[:200])
        assert "R5" in r.text and len(r.text) < 400
    r = client.post("/api/analysis/position", json={"fen": fen})
    assert r.status_code == 400 and "R5" in r.text, (r.status_code, r.text[:200])
    r = client.post("/api/analysis/export", json={"fen": fen, "tree": {"moves": []}})
    assert r.status_code == 400 and "R5" in r.text, (r.status_code, r.text[:200])
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "id": 1, "fen": fen})
        assert "R5" in ws.receive_json()["error"]["message"]
    assert client.get("/api/games").json()["games"] == []


def test_a_ply_of_thousands_of_digits_in_a_move_is_refused(client: TestClient) -> None:
    gid, black, _ = online_game(client)
    for ply in (HUGE, "9" * 30):
        body = '{"move": "11-15", "ply": ' + ply + ', "token": "' + black + '"}'
        r = post_raw(client, f"/api/games/{gid}/move", body)
        assert 400 <= r.status_code < 500, (r.status_code, r.text[:200])
    with client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(black)) as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_text('{"type": "move", "move": "11-15", "ply": ' + HUGE + "}")
        assert ws.receive_json()["type"] == "error"
    assert client.get(f"/api/games/{gid}").json()["ply"] == 0


#: text that looks like a FEN or a number, with numbers of any length
NUMBERS = st.one_of(
    # digits, up to thousands of them (more than int() reads)
    st.builds(
        lambda head, digit, count: head + digit * count,
        st.text(alphabet="0123456789-", max_size=3),
        st.sampled_from("0129"),
        # a few digits, or about as many as int() reads (4,300) and more
        st.one_of(st.integers(0, 40), st.integers(4290, 6000)),
    ),
    st.text(alphabet="0123456789²³¹١٢٣٤٥٦٧٨٩߀０１-", max_size=50),
    st.text(max_size=30),
)
FEN_LIKE = st.one_of(
    st.text(max_size=60),
    st.builds(
        "{}:W{}:B{}{}".format,
        st.sampled_from(["B", "W", "X", ""]),
        NUMBERS,
        NUMBERS,
        st.sampled_from(["", ":H", ":C"]).flatmap(
            lambda head: st.just("") if not head else NUMBERS.map(lambda n: head + n)
        ),
    ),
)
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(fen=FEN_LIKE, mode=st.sampled_from(["local", "online", "engine", "position"]))
def test_any_fen_text_is_answered_2xx_or_4xx_never_5xx(
    client: TestClient, fen: str, mode: str
) -> None:
    if mode == "position":
        r = client.post("/api/analysis/position", json={"fen": fen})
    else:
        r = client.post("/api/games", json={"mode": mode, "fen": fen})
    assert r.status_code < 500, (fen[:60], r.status_code, r.text[:200])


@FUZZ
@given(ply=NUMBERS)
def test_any_ply_text_of_a_bot_move_is_answered_4xx_never_5xx(
    bot_site: tuple[TestClient, dict[str, str]], ply: str
) -> None:
    client, header = bot_site
    r = client.post("/api/bot/game/nosuchgame/move/11-15", params={"ply": ply}, headers=header)
    assert 400 <= r.status_code < 500, (ply[:20], r.status_code, r.text[:200])


@pytest.fixture
def bot_site(make_client: AppFactory) -> tuple[TestClient, dict[str, str]]:
    client = make_client(password_parameters=CHEAPEST)
    return client, bot_token(client)


# ---------------------------------------------------------------- a real server
class LiveServer:
    """``python -m poolcheckers.server`` with default settings (plus a short header
    timeout), its output captured."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = tmp / "server.log"
        self.log = self.log_path.open("w")
        args = ["--port", str(self.port), "--database-url", f"sqlite:///{tmp / 'g.sqlite3'}"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "poolcheckers.server", *args, "--header-timeout", "1"],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None, self.log_path.read_text()
            try:
                httpx2.get(self.base + "/api/health", timeout=1)
                return
            except httpx2.HTTPError:
                assert time.monotonic() < deadline
                time.sleep(0.1)

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(20)
        self.log.close()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path)
    try:
        yield server
    finally:
        server.stop()


def test_keep_alive_survives_deeply_nested_json(live: LiveServer) -> None:
    with httpx2.Client(base_url=live.base) as http:
        r = http.post("/api/games", content=DEEP, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "malformed"
        assert r.headers.get("connection") != "close"
        assert http.get("/api/health").status_code == 200  # the same connection


async def test_seat_tokens_appear_in_no_log_line(live: LiveServer) -> None:
    async with httpx2.AsyncClient(base_url=live.base) as http:
        created = (await http.post("/api/games", json={"mode": "online"})).json()
        gid, token = created["game"]["id"], created["token"]
        invite = created["invite"].split("invite=", 1)[1]
        await http.get(created["invite"])
        joined = (await http.post(f"/api/games/{gid}/join", json={"invite": invite})).json()
        r = await http.get(f"/api/games/{gid}", headers={"X-Seat-Token": token})
        assert r.json()["your_color"] == "black"
        url = f"{live.base.replace('http', 'ws')}/ws/games/{gid}"
        async with websockets.connect(url, subprotocols=ws_seat(joined["token"])) as ws:
            assert json.loads(await ws.recv())["game"]["your_color"] == "white"
        # a token in the URL is refused (and hidden in the log line of the attempt)
        r = await http.get(f"/api/games/{gid}?token={token}")
        assert r.status_code == 400
        async with websockets.connect(f"{url}?token={token}") as ws:
            assert json.loads(await ws.recv())["error"]["code"] == "bad_request"
    out = live.output()
    assert f"/ws/games/{gid}" in out  # the log does mention the connections
    for secret in (token, joined["token"], invite):
        assert secret not in out


def test_unfinished_headers_are_timed_out(live: LiveServer) -> None:
    with socket.create_connection(("127.0.0.1", live.port), timeout=30) as s:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no blank line: unfinished
        start = time.monotonic()
        assert s.recv(1024) == b""  # closed by the server
        assert time.monotonic() - start < 25
    with socket.create_connection(("127.0.0.1", live.port), timeout=30) as s:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert s.recv(1024).startswith(b"HTTP/1.1 200")  # a whole request is answered
        s.sendall(b"GET /api/hea")  # the next one never finishes
        data = b""
        while chunk := s.recv(4096):
            data += chunk
        assert b"HTTP/1.1 200" not in data  # closed without a second answer
