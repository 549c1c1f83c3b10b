"""The bot API against a real server process (its streams are long-lived HTTP
answers): two bot accounts find each other through a challenge, hear the game
start on their event streams, follow it on their game streams and play it out
with moves by POST; and what a bot may not do."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from .conftest import free_port
from .helpers import wait_health

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery"

pytestmark = pytest.mark.slow


class Server:
    """``python -m poolcheckers.server`` on one port and one SQLite file, which can be
    stopped and started again (a network fault, as a bot sees it)."""

    def __init__(self, tmp: Path, database_url: str | None = None) -> None:
        self.tmp, self.port = tmp, free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.database_url = database_url or f"sqlite:///{self.tmp / 'site.sqlite3'}"

    def start(self) -> None:
        args = [
            sys.executable, "-m", "poolcheckers.server", "--port", str(self.port),
            "--database-url", self.database_url, "--log-level",
            "warning", "--signup-limit", "100", "--min-rated-plies", "2",
            "--shutdown-timeout", "1",
        ]  # fmt: skip
        with (self.tmp / "server.log").open("ab") as log:
            self.proc = subprocess.Popen(args, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        wait_health(self.base, self.proc)

    def stop(self) -> None:
        assert self.proc is not None
        self.proc.terminate()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = Server(tmp_path_factory.mktemp("bots"))
    server.start()
    try:
        yield server.base
    finally:
        server.stop()


def account(base: str, name: str, *, bot: bool, scopes: tuple[str, ...] = ("bot:play",)) -> str:
    """A new account's API token (the account made a bot when ``bot``)."""
    with httpx2.Client(base_url=base, timeout=30) as web:
        r = web.post("/api/account/signup", json={"username": name, "password": PASSWORD})
        assert r.status_code == 200, r.text
        web.headers["X-CSRF-Token"] = r.json()["csrf_token"]
        made = web.post("/api/account/tokens", json={"label": "engine", "scopes": list(scopes)})
        token: str = made.json()["token"]
    if bot:
        r = httpx2.post(base + "/api/bot/account/upgrade", headers=auth(token), timeout=30)
        assert r.status_code == 200, r.text
    return token


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Stream:
    """An NDJSON stream read line by line (keep-alive empty lines skipped)."""

    def __init__(self, base: str, path: str, token: str) -> None:
        self.client = httpx2.Client(base_url=base, timeout=30, headers=auth(token))
        self.response = self.client.send(self.client.build_request("GET", path), stream=True)
        assert self.response.status_code == 200, self.response.read()
        assert self.response.headers["content-type"].startswith("application/x-ndjson")
        self.lines = self.response.iter_lines()

    def next(self) -> dict[str, Any]:
        for line in self.lines:
            if line.strip():
                event: dict[str, Any] = json.loads(line)
                return event
        raise AssertionError("the stream ended")

    def ended(self) -> bool:
        return all(not line.strip() for line in self.lines)

    def close(self) -> None:
        self.response.close()
        self.client.close()


def test_two_bots_meet_by_challenge_and_play_a_game_through_the_streams(site: str) -> None:
    alpha, beta = account(site, "AlphaBot", bot=True), account(site, "BetaBot", bot=True)
    beta_events = Stream(site, "/api/stream/event", beta)
    alpha_events = Stream(site, "/api/stream/event", alpha)
    r = httpx2.post(
        site + "/api/bot/challenge", headers=auth(alpha), timeout=30,
        json={"username": "BetaBot", "clock": {"initial": 300, "increment": 3},
              "rated": True, "color": "black"},
    )  # fmt: skip
    assert r.status_code == 200, r.text
    challenge = beta_events.next()
    assert challenge["type"] == "challenge"
    assert challenge["challenge"]["challenger"] == "AlphaBot"
    cid = challenge["challenge"]["id"]
    r = httpx2.post(f"{site}/api/bot/challenge/{cid}/accept", headers=auth(beta), timeout=30)
    assert r.status_code == 200, r.text
    gid = r.json()["game"]["id"]
    assert beta_events.next() == {"type": "gameStart", "game": {"id": gid}}
    assert alpha_events.next() == {"type": "gameStart", "game": {"id": gid}}

    games = {name: Stream(site, f"/api/bot/game/stream/{gid}", t)
             for name, t in (("alpha", alpha), ("beta", beta))}  # fmt: skip
    full = {name: s.next() for name, s in games.items()}
    assert full["alpha"]["type"] == "gameFull" and full["alpha"]["game"]["your_color"] == "black"
    assert full["beta"]["game"]["your_color"] == "white"
    # both marked BOT in the game's PDN tags, as lichess writes it (the game page shows it)
    tags = full["alpha"]["game"]["tags"]
    assert tags["BlackTitle"] == tags["WhiteTitle"] == "BOT"
    tokens = {"black": alpha, "white": beta}
    state = full["alpha"]["game"]
    for ply in range(6):
        move = state["legal_moves"][0]["notation"]
        r = httpx2.post(
            f"{site}/api/bot/game/{gid}/move/{move}", headers=auth(tokens[state["turn"]]),
            timeout=30,
        )  # fmt: skip
        assert r.status_code == 200, r.text
        state = r.json()
        for s in games.values():
            seen = s.next()
            assert seen["type"] == "gameState" and seen["game"]["ply"] == ply + 1
    r = httpx2.post(f"{site}/api/bot/game/{gid}/resign", headers=auth(beta), timeout=30)
    assert r.status_code == 200 and r.json()["status"] == "finished"
    for s in games.values():
        last = s.next()
        assert last["game"]["status"] == "finished" and last["game"]["outcome"]["winner"] == "black"
        assert s.ended()  # the stream closes after the finishing state
        s.close()
    alpha_events.close()
    beta_events.close()


def test_a_refused_move_names_the_rule_and_changes_nothing(site: str) -> None:
    one, two = account(site, "OneBot", bot=True), account(site, "TwoBot", bot=True)
    r = httpx2.post(
        site + "/api/bot/challenge", headers=auth(one), timeout=30,
        json={"username": "TwoBot", "clock": {"initial": 300, "increment": 3},
              "rated": False, "color": "black"},
    )  # fmt: skip
    cid = r.json()["id"]
    gid = httpx2.post(f"{site}/api/bot/challenge/{cid}/accept", headers=auth(two), timeout=30)
    gid = gid.json()["game"]["id"]
    # 1-5 is no move at the start: square 5 holds a man (R6)
    r = httpx2.post(f"{site}/api/bot/game/{gid}/move/1-5", headers=auth(one), timeout=30)
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "1-5: square 5 is occupied (R6)"
    # White's bot may not move on Black's turn (R3: Black moves first)
    r = httpx2.post(f"{site}/api/bot/game/{gid}/move/22-18", headers=auth(two), timeout=30)
    assert r.status_code == 403
    assert r.json()["error"]["message"] == "it is black's turn; this seat plays white"
    stream = Stream(site, f"/api/bot/game/stream/{gid}", one)
    assert stream.next()["game"]["ply"] == 0
    stream.close()


def test_a_bot_stays_out_of_the_lobby_and_tournaments_even_signed_in(site: str) -> None:
    """With its password session too: the lobby and the site's events are for people;
    a bot plays the challenges sent to it."""
    with httpx2.Client(base_url=site, timeout=30) as web:
        r = web.post("/api/account/signup", json={"username": "SeekBot", "password": PASSWORD})
        web.headers["X-CSRF-Token"] = r.json()["csrf_token"]
        token = web.post("/api/account/tokens", json={"label": "e", "scopes": ["bot:play"]})
        upgraded = web.post("/api/bot/account/upgrade", headers=auth(token.json()["token"]))
        assert upgraded.status_code == 200
        seek = {"clock": {"initial": 300, "increment": 3}, "rated": False, "color": "random"}
        for path in ("/api/seeks", "/api/seeks/play-now"):
            refused = web.post(path, json=seek)
            assert refused.status_code == 403, (path, refused.text)
            assert "bot" in refused.json()["error"]["message"]
        taken = web.post("/api/seeks/no-such-seek/accept")
        assert taken.status_code == 403
        event = {"name": "Club night", "system": "swiss", "rounds": 3,
                 "clock": {"initial": 300, "increment": 3}}  # fmt: skip
        made = web.post("/api/tournaments", json=event)
        assert made.status_code == 200, made.text  # it may announce one, not play in it
        joined = web.post(f"/api/tournaments/{made.json()['id']}/join", json={})
        assert joined.status_code == 403, joined.text
        assert "bot" in joined.json()["error"]["message"]


def test_what_a_bot_token_may_not_do(site: str) -> None:
    person = account(site, "Person", bot=False)
    r = httpx2.get(site + "/api/stream/event", headers=auth(person), timeout=30)
    assert r.status_code == 403 and "not a bot account" in r.json()["error"]["message"]
    reader = account(site, "Reader", bot=False, scopes=("challenge:read",))
    r = httpx2.get(site + "/api/stream/event", headers=auth(reader), timeout=30)
    assert r.status_code == 403 and "bot:play" in r.json()["error"]["message"]
    r = httpx2.get(site + "/api/stream/event", timeout=30)
    assert r.status_code == 401
    # a bot cannot follow a game it does not play
    one, two = account(site, "SeatBot", bot=True), account(site, "OtherBot", bot=True)
    outsider = account(site, "OutBot", bot=True)
    cid = httpx2.post(
        site + "/api/bot/challenge", headers=auth(one), timeout=30,
        json={"username": "OtherBot", "clock": {"initial": 300, "increment": 3}},
    ).json()["id"]  # fmt: skip
    gid = httpx2.post(f"{site}/api/bot/challenge/{cid}/accept", headers=auth(two), timeout=30)
    r = httpx2.get(
        f"{site}/api/bot/game/stream/{gid.json()['game']['id']}", headers=auth(outsider),
        timeout=30,
    )  # fmt: skip
    assert r.status_code == 403


def test_two_engines_play_a_game_through_the_bot_command(site: str, tmp_path: Path) -> None:
    """The project's engine at two levels, each behind ``poolcheckers bot``: one
    challenges, the other accepts by its rules and clock, and they play to the end."""
    tokens = {name: account(site, name, bot=True) for name in ("LevelOne", "LevelFour")}
    for name, token in tokens.items():
        (tmp_path / name).write_text(token + "\n", encoding="utf-8")
    hub = f"{sys.executable} -m poolcheckers.cli hub"

    def bot(name: str, level: int, *extra: str) -> subprocess.Popen[str]:
        args = [
            sys.executable, "-m", "poolcheckers.cli", "bot", "--site", site,
            "--token-file", str(tmp_path / name), "--hub", hub,
            "--hub-param", f"level={level}", "--games", "1", *extra,
        ]  # fmt: skip
        return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)

    accepting = bot("LevelOne", 1)
    time.sleep(1.0)  # its event stream is open before the challenge comes
    # 30 s each: the game ends within a minute and a half whatever the engines do
    challenging = bot("LevelFour", 4, "--challenge", "LevelOne", "--challenge-clock", "0.5+0")
    outputs = {}
    for name, proc in (("LevelOne", accepting), ("LevelFour", challenging)):
        out, _ = proc.communicate(timeout=240)
        assert proc.returncode == 0, out
        outputs[name] = out
    assert "accepted LevelFour's challenge" in outputs["LevelOne"]
    started = [line for line in outputs["LevelOne"].splitlines() if "starts" in line]
    gid = started[0].split("game ", 1)[1].split()[0]
    final = httpx2.get(f"{site}/api/games/{gid}", timeout=30).json()
    assert final["status"] == "finished" and final["outcome"]["result"] in ("2-0", "0-2", "1-1")
    assert len(final["moves"]) >= 2
    for out in outputs.values():
        assert f"game {gid}: {final['outcome']['result']}" in out


def test_the_bot_command_reconnects_after_the_site_went_away(tmp_path: Path) -> None:
    """The site stops and starts again while the bot waits: its event stream comes
    back by itself, and the challenge sent afterwards is accepted and played out."""
    server = Server(tmp_path)
    server.start()
    try:
        waiting = account(server.base, "Patient", bot=True)
        sender = account(server.base, "Sender", bot=True)
        (tmp_path / "token").write_text(waiting, encoding="utf-8")
        args = [
            sys.executable, "-m", "poolcheckers.cli", "bot", "--site", server.base,
            "--token-file", str(tmp_path / "token"), "--hub",
            f"{sys.executable} -m poolcheckers.cli hub", "--hub-param", "level=1",
            "--games", "1",
        ]  # fmt: skip
        bot = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        time.sleep(1.5)  # its event stream is open
        server.stop()
        time.sleep(2.0)  # the bot finds the stream broken and waits to try again
        server.start()
        # sent while the bot is still away: its event stream, once back, starts with
        # the open challenges
        r = httpx2.post(
            server.base + "/api/bot/challenge", headers=auth(sender), timeout=30,
            json={"username": "Patient", "clock": {"initial": 60, "increment": 1}},
        )  # fmt: skip
        assert r.status_code == 200, r.text
        deadline = time.monotonic() + 60
        started: list[dict[str, Any]] = []
        while not started and time.monotonic() < deadline:
            time.sleep(0.5)
            page = httpx2.get(f"{server.base}/api/users/Patient", timeout=30).json()
            started = page["current"]
        assert started, "the bot never took a challenge after the restart"
        gid = started[0]["id"]
        # the sender resigns: the bot's game ends and so does the command
        r = httpx2.post(f"{server.base}/api/bot/game/{gid}/resign", headers=auth(sender))
        assert r.status_code == 200, r.text
        out, _ = bot.communicate(timeout=120)
        assert bot.returncode == 0, out
        assert "again in" in out  # it saw the fault and retried
        assert f"game {gid} starts" in out
    finally:
        server.stop()


def test_a_bot_holds_at_most_four_event_streams(site: str) -> None:
    token = account(site, "GreedyBot", bot=True)
    held = [Stream(site, "/api/stream/event", token) for _ in range(4)]
    r = httpx2.get(site + "/api/stream/event", headers=auth(token), timeout=30)
    assert r.status_code == 429 and "at most 4 event streams" in r.json()["error"]["message"]
    held.pop().close()
    deadline = time.monotonic() + 30  # the closed stream's place comes back
    while True:
        again = httpx2.Client(base_url=site, timeout=30, headers=auth(token))
        answer = again.send(again.build_request("GET", "/api/stream/event"), stream=True)
        if answer.status_code == 200 or time.monotonic() > deadline:
            break
        answer.close()
        again.close()
        time.sleep(0.5)
    assert answer.status_code == 200
    answer.close()
    again.close()
    for s in held:
        s.close()


def read_to_the_end(stream: Stream) -> threading.Event:
    """An event set when ``stream`` ends (read in a thread, its lines dropped)."""
    ended = threading.Event()

    def read() -> None:
        with contextlib.suppress(httpx2.HTTPError):
            for _line in stream.lines:
                pass
        ended.set()

    threading.Thread(target=read, daemon=True).start()
    return ended


@pytest.mark.postgres
def test_a_revoked_tokens_streams_end_within_a_second_in_every_process(
    pg_url: str, tmp_path: Path
) -> None:
    """The token's event stream and game stream are open on one server process; the
    owner revokes the token on another: both streams end within a second."""
    one, two = Server(tmp_path / "one", pg_url), Server(tmp_path / "two", pg_url)
    for server in (one, two):
        server.tmp.mkdir()
        server.start()
    try:
        with httpx2.Client(base_url=two.base, timeout=30) as owner:
            r = owner.post("/api/account/signup", json={"username": "Gone", "password": PASSWORD})
            owner.headers["X-CSRF-Token"] = r.json()["csrf_token"]
            made = owner.post("/api/account/tokens", json={"label": "e", "scopes": ["bot:play"]})
            token, token_id = made.json()["token"], made.json()["id"]
            assert httpx2.post(
                one.base + "/api/bot/account/upgrade", headers=auth(token)
            ).is_success
            other = account(two.base, "Stays", bot=True)
            cid = httpx2.post(
                one.base + "/api/bot/challenge", headers=auth(token), timeout=30,
                json={"username": "Stays", "clock": {"initial": 300, "increment": 3}},
            ).json()["id"]  # fmt: skip
            accepted = httpx2.post(
                f"{two.base}/api/bot/challenge/{cid}/accept", headers=auth(other)
            )
            gid = accepted.json()["game"]["id"]
            events = Stream(one.base, "/api/stream/event", token)
            game = Stream(one.base, f"/api/bot/game/stream/{gid}", token)
            assert events.next() == {"type": "gameStart", "game": {"id": gid}}
            assert game.next()["type"] == "gameFull"
            kept = Stream(one.base, "/api/stream/event", other)  # another bot's: stays open
            assert kept.next()["type"] == "gameStart"
            ended = [read_to_the_end(s) for s in (events, game, kept)]
            assert owner.delete(f"/api/account/tokens/{token_id}").status_code == 204
            revoked = time.monotonic()
            assert ended[0].wait(1.0) and ended[1].wait(1.0), "a stream outlived its token"
            assert time.monotonic() - revoked < 1.0
            assert not ended[2].wait(0.2)
            for s in (events, game, kept):
                s.close()
    finally:
        one.stop()
        two.stop()
