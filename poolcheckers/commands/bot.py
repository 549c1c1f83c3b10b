"""``poolcheckers bot``: any Hub engine plays on a poolcheckers site as a bot account.

It follows the account's event stream (docs/BOTS.md), accepts the challenges its
options allow and declines the others with the reason, and plays every game that
starts in a thread of its own: the game stream gives each state, the engine
(started with ``--hub``, spoken to by :class:`~poolcheckers.tooling.hubclient.HubPlayer`)
chooses with the clock as it stands, the move goes by POST at its ply (a move sent
twice after a lost connection is played once).  A stream that breaks is opened
again after a pause that grows to 30 s; the game goes on from the state it gives.

The token is read from a file (``--token-file``), never from the command line,
where other users of the machine could read it.  HTTP is the standard library's:
the command needs no web extra.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from poolcheckers.board import Board
from poolcheckers.cli import UsageError, add_rules_argument
from poolcheckers.commands.common import help_description
from poolcheckers.errors import RuleSetError
from poolcheckers.rules import RuleSet

#: the longest pause between two attempts to open a stream again
MAX_BACKOFF_S = 30.0
#: seconds without a byte (the server sends an empty line every 6 s) before a
#: stream counts as broken
READ_TIMEOUT_S = 20.0


class Site:
    """The site's bot API over HTTP (the standard library's client)."""

    def __init__(self, url: str, token: str, log: Callable[[str], None]) -> None:
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        self.log = log

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = dict(self.headers)
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data, headers, method=method)
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read() or b"null")

    def get(self, path: str) -> Any:
        return self._request("GET", path)

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        return self._request("POST", path, body if body is not None else {})

    def stream(self, path: str, stop: threading.Event) -> Iterator[dict[str, Any]]:
        """The objects of an NDJSON stream, opened again (after a pause growing to
        30 s) whenever it ends or breaks: a server going away ends it as a finished
        game does, so the reader stops it (``stop``, or leaving the loop); a refusal
        (401, 403, 404) gives up."""
        pause = 1.0
        while not stop.is_set():
            request = urllib.request.Request(self.url + path, headers=self.headers)
            try:
                with urllib.request.urlopen(request, timeout=READ_TIMEOUT_S) as answer:
                    for raw in answer:
                        if stop.is_set():
                            return
                        pause = 1.0
                        if raw.strip():
                            yield json.loads(raw)
                self.log(f"{path}: the stream ended; again in {pause:.0f} s")
            except urllib.error.HTTPError as exc:
                if exc.code in (401, 403, 404):
                    self.log(f"{path}: {exc.code} {_message(exc)}; giving up")
                    return
                self.log(f"{path}: {exc.code}; again in {pause:.0f} s")
            except (OSError, ValueError) as exc:
                self.log(f"{path}: {exc}; again in {pause:.0f} s")
            if stop.wait(pause):
                return
            pause = min(MAX_BACKOFF_S, pause * 2)


def _message(exc: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(exc.read())["error"]["message"])
    except (ValueError, KeyError, TypeError, OSError):
        return exc.reason


class Policy:
    """Which challenges the bot takes, and when it offers or accepts a draw."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.rules = _rules(args.rules)
        self.min_initial, self.max_initial = args.min_initial, args.max_initial
        self.rated, self.casual = not args.casual_only, not args.rated_only
        self.correspondence = args.correspondence

    def decline_reason(self, challenge: dict[str, Any]) -> str | None:
        """None to accept, else the reason of the decline (the site's reasons)."""
        if RuleSet.from_dict(challenge.get("rules") or {}) != self.rules:
            return "rules"
        clock = challenge.get("clock") or {}
        if "days" in clock or challenge.get("category") == "correspondence":
            return None if self.correspondence else "time_control"
        initial = float(clock.get("initial", 0))
        if initial < self.min_initial:
            return "too_fast"
        if initial > self.max_initial:
            return "too_slow"
        if challenge.get("rated") and not self.rated:
            return "casual"
        if not challenge.get("rated") and not self.casual:
            return "rated"
        return None

    @staticmethod
    def wants_draw(board: Board) -> bool:
        """Offer or accept a draw: level material with at most three pieces a side, or
        the R18 count more than half run (a draw the engine cannot avoid either way
        is not worth playing out to the count)."""
        black, white = bin(board.black).count("1"), bin(board.white).count("1")
        level = black == white and black <= 3
        return level or board.halfmove_clock > board.rules.king_only_move_limit


def _rules(options: list[str]) -> RuleSet:
    try:
        return RuleSet.from_options(options)
    except (RuleSetError, ValueError, TypeError) as exc:
        raise UsageError(f"--rules: {exc}") from None


def board_of(state: dict[str, Any]) -> Board:
    """The game's board with its whole history (the engine sees repetitions)."""
    board = Board(state["start_fen"], rules=RuleSet.from_dict(state["rules"]))
    for notation in state["moves"]:
        board.push(board.parse_move(notation))
    return board


class GamePlayer:
    """One game: its stream, the engine's moves, draws."""

    def __init__(
        self, site: Site, game_id: str, engine: Callable[[], Any], policy: Policy,
        stop: threading.Event,
    ) -> None:  # fmt: skip
        self.site, self.id, self.policy, self.stop = site, game_id, policy, stop
        self.engine_factory = engine

    def run(self) -> None:
        engine = self.engine_factory()
        try:
            engine.new_game()
            final: dict[str, Any] | None = None
            for event in self.site.stream(f"/api/bot/game/stream/{self.id}", self.stop):
                state = event.get("game")
                if isinstance(state, dict):
                    final = state
                    self.on_state(engine, state)
                    if state["status"] != "running":
                        break
            if final is not None and final["status"] != "running":
                outcome = final.get("outcome") or {}
                self.site.log(f"game {self.id}: {outcome.get('result')} {outcome.get('reason')}")
        finally:
            engine.close()

    def on_state(self, engine: Any, state: dict[str, Any]) -> None:
        from poolcheckers.tooling.games import ClockReading

        mine = state.get("your_color")
        if state["status"] != "running" or mine is None:
            return
        board = board_of(state)
        path = f"/api/bot/game/{self.id}"
        offer = state.get("draw_offer")
        if offer is not None and offer != mine:
            answer = "draw-accept" if self.policy.wants_draw(board) else "draw-decline"
            self._post(f"{path}/{answer}")
            if answer == "draw-accept":
                return
        if state["turn"] != mine:
            return
        clock = state.get("clock")
        reading = None
        if clock is not None:
            reading = ClockReading(float(clock[mine]), float(clock["increment"]))
        move = engine.choose(board, reading)
        quoted = urllib.parse.quote(str(move), safe="")
        self._post(f"{path}/move/{quoted}?ply={state['ply']}")
        if offer is None and state["ply"] >= 40 and self.policy.wants_draw(board):
            self._post(f"{path}/draw-offer")

    def _post(self, path: str) -> None:
        try:
            self.site.post(path)
        except urllib.error.HTTPError as exc:
            # the game moved on meanwhile (the stream brings the new state)
            self.site.log(f"{path}: {exc.code} {_message(exc)}")
        except OSError as exc:
            self.site.log(f"{path}: {exc}")


def run(args: argparse.Namespace) -> int:
    import shlex

    from poolcheckers.tooling.hubclient import HubPlayer

    token = _read_token(args.token_file)
    policy = Policy(args)
    params = [tuple(p.split("=", 1)) for p in args.hub_param]
    if any(len(p) != 2 for p in params):
        raise UsageError("--hub-param takes NAME=VALUE")
    command = shlex.split(args.hub)

    def log(text: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)

    site = Site(args.site, token, log)
    try:
        me = site.get("/api/bot/account")
    except urllib.error.HTTPError as exc:
        raise UsageError(f"{args.site}: {exc.code} {_message(exc)}") from None
    except OSError as exc:
        raise UsageError(f"{args.site}: {exc}") from None
    if not me.get("bot"):
        raise UsageError(
            f"{me.get('username')} is not a bot account: POST /api/bot/account/upgrade "
            "with a bot:play token first (docs/BOTS.md)"
        )
    log(f"{me['username']} on {args.site}, engine: {args.hub}")

    def engine() -> HubPlayer:
        return HubPlayer(command, args.hub, params=[(k, v) for k, v in params])

    stop = threading.Event()
    playing: dict[str, threading.Thread] = {}
    if args.challenge:
        body = {"username": args.challenge, "clock": _clock(args.challenge_clock),
                "rated": args.challenge_rated}  # fmt: skip
        sent = site.post("/api/bot/challenge", body)
        log(f"challenged {args.challenge}: {sent['id']}")
    games_left = args.games
    answered: set[str] = set()
    try:
        for event in site.stream("/api/stream/event", stop):
            kind = event.get("type")
            if kind == "challenge":
                _answer(site, policy, event["challenge"], log, answered)
            elif kind == "gameStart":
                gid = str(event["game"]["id"])
                if gid in playing and playing[gid].is_alive():
                    continue
                log(f"game {gid} starts")
                player = GamePlayer(site, gid, engine, policy, stop)
                playing[gid] = threading.Thread(target=player.run, name=gid, daemon=True)
                playing[gid].start()
                if games_left is not None:
                    games_left -= 1
                    if games_left <= 0:
                        break
    except KeyboardInterrupt:
        stop.set()
    for thread in playing.values():
        thread.join()
    return 0


def _answer(
    site: Site,
    policy: Policy,
    challenge: dict[str, Any],
    log: Callable[[str], None],
    answered: set[str],
) -> None:
    """Accept or decline ``challenge``, once: the stream tells a challenge again when
    it opens again, or when the site missed notices and reads the open ones again
    (``answered``: the challenges already answered, or refused for good; one the site
    failed to answer, 5xx, is tried again when told again)."""
    cid = str(challenge["id"])
    if cid in answered:
        return
    reason = policy.decline_reason(challenge)
    try:
        if reason is None:
            site.post(f"/api/bot/challenge/{cid}/accept")
            log(f"accepted {challenge['challenger']}'s challenge {cid}")
        else:
            site.post(f"/api/bot/challenge/{cid}/decline", {"reason": reason})
            log(f"declined {challenge['challenger']}'s challenge {cid}: {reason}")
        answered.add(cid)
    except urllib.error.HTTPError as exc:
        log(f"challenge {cid}: {exc.code} {_message(exc)}")
        if exc.code < 500:
            answered.add(cid)


def _clock(text: str) -> dict[str, float]:
    initial, _plus, increment = text.partition("+")
    try:
        return {"initial": float(initial) * 60, "increment": float(increment or 0)}
    except ValueError:
        raise UsageError(f"--challenge-clock takes MINUTES+SECONDS (3+2), not {text!r}") from None


def _read_token(path: Path) -> str:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise UsageError(f"--token-file {path}: {exc.strerror}") from None
    if not token.startswith("pct_"):
        raise UsageError(f"--token-file {path}: no API token there (pct_…, docs/BOTS.md)")
    return token


def register(subparsers: Any) -> None:
    """Add the ``bot`` sub-command."""
    p = subparsers.add_parser(
        "bot",
        help="play on a poolcheckers site as a bot account, with any Hub engine",
        description=help_description(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--site", default="http://127.0.0.1:8000", help="the site's address")
    p.add_argument("--token-file", type=Path, required=True, help="a file holding the API token")
    p.add_argument("--hub", default="poolcheckers hub", help="the Hub engine's command line")
    p.add_argument(
        "--hub-param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a Hub set-param for the engine (repeatable): level=6, hash=64",
    )
    add_rules_argument(p, "the rules it accepts (docs/RULES.md §9; default the APCA rules)")
    p.add_argument("--min-initial", type=float, default=30.0, help="fastest clock, seconds (30)")
    p.add_argument("--max-initial", type=float, default=3600.0, help="slowest clock (3600)")
    p.add_argument("--rated-only", action="store_true", help="decline casual challenges")
    p.add_argument("--casual-only", action="store_true", help="decline rated challenges")
    p.add_argument("--correspondence", action="store_true", help="accept correspondence")
    p.add_argument("--challenge", metavar="USERNAME", help="send this player a challenge first")
    p.add_argument("--challenge-clock", default="3+2", metavar="MIN+SEC", help="its clock (3+2)")
    p.add_argument("--challenge-rated", action="store_true", help="make the challenge rated")
    p.add_argument("--games", type=int, default=None,
                   help="stop after this many games have started and ended")  # fmt: skip
    p.set_defaults(func=run, command="bot")
