"""The community half of the server (issue 8): accounts and sessions over the
database stores, the password-hash slots, who a request is, the cross-site
request check, the mapping of community errors to API errors, the lobby (its
live sockets, and the game a taken seek starts) and the rating of finished games.

Argon2id hashes are slow and big on purpose (64 MiB, ~80 ms): they run in worker
threads, at most ``Settings.hash_concurrency`` at once, so a flood of sign-ins
queues instead of taking the cores from the games.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import ParamSpec, TypeVar

import anyio.to_thread
from argon2.profiles import RFC_9106_LOW_MEMORY
from sqlalchemy import Engine, text
from starlette.requests import HTTPConnection, Request, cookie_parser
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from poolcheckers import Outcome, Termination
from poolcheckers.server.accounts.model import Accounts, Passwords, User
from poolcheckers.server.accounts.sessions import (
    COOKIE_NAME,
    SAFE_METHODS,
    Sessions,
    normalise_origin,
    request_allowed,
    session_cookie,
)
from poolcheckers.server.community_store import (
    RATING_UPDATES,
    DbLobbyStore,
    DbRatingStore,
    DbSessionStore,
    DbUserStore,
)
from poolcheckers.server.database.engine import GAMES, is_postgres, libpq_conninfo
from poolcheckers.server.domain_errors import CommunityError, RateLimitedError
from poolcheckers.server.errors import ApiError
from poolcheckers.server.games import model
from poolcheckers.server.games.flow import Seat, player_tags, rated_result
from poolcheckers.server.games.model import Change, GameRec, Loaded, NewGame, color_of
from poolcheckers.server.games.repository import Committed, GameStore
from poolcheckers.server.games.seats import new_game_id
from poolcheckers.server.games.timecontrol import Category, Clock, Correspondence
from poolcheckers.server.lobby.model import Lobby, LobbyEvent, Pairing, Player, Seek, SeekSpec
from poolcheckers.server.ratings.model import Perf, RatingUpdate, apply_result
from poolcheckers.server.settings import Settings
from poolcheckers.server.throttle import SignInLimiter, SlidingWindow

log = logging.getLogger("poolcheckers.server")
#: runs blocking database work off the event loop (``ServerContext.run``)
Runner = Callable[..., Awaitable[object]]
#: the PostgreSQL channel of lobby changes and game starts between server processes
LOBBY_CHANNEL = "poolcheckers_lobby"
#: a clock seek whose author no process has seen in the lobby for this long goes
SEEK_UNSEEN_S = 30.0
#: how often each process marks its lobby authors as seen and sweeps unseen seeks
LOBBY_SWEEP_S = 10.0

P = ParamSpec("P")
R = TypeVar("R")

#: HTTP status of each community error code (docs/COMMUNITY.md, "error codes")
STATUS = {
    "bad_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "conflict": 409,
    "rate_limited": 429,
}


class Community:
    """Accounts, sessions and their limits, shared by the routes (``ctx.community``)."""

    def __init__(self, settings: Settings, db: Engine) -> None:
        self.settings = settings
        self.users = DbUserStore(db)
        clock = settings.clock
        self.accounts = Accounts(
            self.users,
            sessions=Sessions(DbSessionStore(db)),
            passwords=Passwords(settings.password_parameters or RFC_9106_LOW_MEMORY),
            limiter=SignInLimiter(
                address_limit=settings.signin_limit,
                username_failure_limit=settings.signin_failure_limit,
            ),
            signup_limit=SlidingWindow(*settings.signup_limit),
            clock=lambda: clock.now_ms() / 1000,
        )
        self._hash_slots: asyncio.Semaphore | None = None
        self.ratings = DbRatingStore(db)
        self.lobby_store = DbLobbyStore(db)
        self.lobby = Lobby(self.lobby_store, clock=lambda: clock.now_ms() / 1000)
        self.lobby.subscribe(self._lobby_event)
        #: this process's lobby sockets: their outgoing queues, by account id
        self.lobby_sockets: dict[str, set[asyncio.Queue[str]]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self.db = db
        #: this process, in the lobby notifications (its own are already delivered)
        self.node = secrets.token_hex(8)
        self.postgres = is_postgres(settings.database_url)
        self._listener: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._games: GameStore | None = None
        self._names: dict[str, str] = {}
        self.listening = asyncio.Event()

    async def start(self, run: Runner, games: GameStore | None = None) -> None:
        """Sweep the lobby; with PostgreSQL, hear the lobby changes of the other
        server processes.  ``games``: where the rating changes are written into the
        rated games' PDN tags."""
        self.loop = asyncio.get_running_loop()
        self._games = games
        self._sweeper = self.loop.create_task(self._sweep_lobby_forever(run))
        if self.postgres:
            self._listener = self.loop.create_task(self._listen())
            await asyncio.wait_for(self.listening.wait(), timeout=30)

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener

    async def _listen(self) -> None:
        import psycopg

        while True:
            try:
                conninfo = libpq_conninfo(self.settings.database_url)
                conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {LOBBY_CHANNEL}")
                    self.listening.set()
                    async for note in conn.notifies():
                        self._remote(note.payload)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("lobby LISTEN connection lost; reconnecting in 1 s")
                self.listening.clear()
                await asyncio.sleep(1.0)

    def sweep_lobby(self, present: list[str]) -> int:
        """Mark the authors with a lobby socket here (``present``) as seen, then remove
        the clock seeks of authors no process has seen for :data:`SEEK_UNSEEN_S`
        (their process died with its sockets); how many authors left."""
        now = self.settings.clock.now_ms() / 1000
        for author in present:
            self.lobby_store.touch_author(author, now)
        gone = self.lobby_store.stale_authors(now - SEEK_UNSEEN_S)
        for author in gone:
            self.lobby.leave(author)
        return len(gone)

    async def _sweep_lobby_forever(self, run: Runner) -> None:
        failing = False
        while True:
            await asyncio.sleep(LOBBY_SWEEP_S)
            try:
                await run(self.sweep_lobby, list(self.lobby_sockets))
                failing = False
            except Exception:
                if not failing:
                    log.exception("lobby sweep failed")
                failing = True

    def _remote(self, payload: str) -> None:
        try:
            note = json.loads(payload)
            if note["from"] == self.node:
                return
            to = None if note["to"] is None else set(note["to"])
            self._send(str(note["msg"]), to)
        except (ValueError, KeyError, TypeError):
            log.warning("ignored lobby notification %r", payload[:200])

    async def hashing(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run ``fn`` (which hashes or verifies a password) in a worker thread, with at
        most ``hash_concurrency`` of them at once."""
        if self._hash_slots is None:
            self._hash_slots = asyncio.Semaphore(self.settings.hash_concurrency)
        async with self._hash_slots:
            return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))

    async def user_of(self, conn: HTTPConnection) -> User | None:
        """The account signed in by the request's session cookie, or None."""
        token = conn.cookies.get(COOKIE_NAME)
        if not token:
            return None
        return await anyio.to_thread.run_sync(self.accounts.authenticate, token)

    async def require_user(self, conn: HTTPConnection) -> tuple[User, str]:
        """The signed-in account and its session token; 401 ``unauthorized`` if none."""
        token = conn.cookies.get(COOKIE_NAME)
        user = await self.user_of(conn)
        if user is None or token is None:
            raise ApiError(401, "unauthorized", "sign in first (no valid session cookie)")
        return user, token

    # ------------------------------------------------------------ lobby
    def _lobby_event(self, event: LobbyEvent) -> None:
        """Called in the thread that changed the lobby: forward to every socket."""
        self.announce(json.dumps(event.to_dict(), separators=(",", ":")))

    def announce(self, message: str, to: set[str] | None = None) -> None:
        """Send ``message`` to the lobby sockets (of the accounts ``to``, or all) of
        this process and, with PostgreSQL, of the others (NOTIFY; blocks: call it
        in a database thread)."""
        loop = self.loop
        if loop is not None:
            loop.call_soon_threadsafe(self._send, message, to)
        if self.postgres:
            note = {"from": self.node, "to": None if to is None else sorted(to), "msg": message}
            with self.db.begin() as conn:
                conn.execute(
                    text("SELECT pg_notify(:channel, :payload)"),
                    {"channel": LOBBY_CHANNEL, "payload": json.dumps(note)},
                )

    def _send(self, message: str, to: set[str] | None) -> None:
        for user_id, queues in list(self.lobby_sockets.items()):
            if to is None or user_id in to:
                for q in queues:
                    q.put_nowait(message)

    def join_lobby(self, user_id: str) -> asyncio.Queue[str]:
        self.loop = asyncio.get_running_loop()
        q: asyncio.Queue[str] = asyncio.Queue()
        self.lobby_sockets.setdefault(user_id, set()).add(q)
        return q

    def leave_lobby(self, user_id: str, q: asyncio.Queue[str]) -> bool:
        """Forget a socket; True when it was the account's last one (its seeks go)."""
        queues = self.lobby_sockets.get(user_id, set())
        queues.discard(q)
        if queues:
            return False
        self.lobby_sockets.pop(user_id, None)
        return True

    def username(self, user_id: str) -> str | None:
        """An account's username (names never change: kept once read)."""
        name = self._names.get(user_id)
        if name is None:
            user = self.users.by_id(user_id)
            if user is None:
                return None
            name = self._names[user_id] = user.username
        return name

    def perf(self, user_id: str, category: Category | None) -> Perf | None:
        return None if category is None else self.ratings.perf(user_id, category)

    def _taker(self, store: GameStore, started: list[Committed]) -> Callable[[Pairing], bool]:
        """The ``take`` of :meth:`Lobby.accept`: the seek's removal and its game's
        insert in one transaction, so a crash between them cannot lose the seek
        without a game; the one process whose delete removed the row wins."""

        def take(pairing: Pairing) -> bool:
            committed = self.start_game(store, pairing)
            seek_id = pairing.seek.id
            if not store.insert_claimed(
                committed.loaded, lambda conn: self.lobby_store.claim(conn, seek_id)
            ):
                return False
            started.append(committed)
            return True

        return take

    def accept(
        self, store: GameStore, seek_id: str, taker: Player, perf: Perf | None
    ) -> tuple[Pairing, Committed]:
        """Take a seek and start its game (one transaction)."""
        started: list[Committed] = []
        pairing = self.lobby.accept(seek_id, taker, perf, take=self._taker(store, started))
        return pairing, started[0]

    def play_now(
        self, store: GameStore, player: Player, spec: SeekSpec, perf: Perf | None
    ) -> tuple[Pairing, Committed] | Seek:
        """:meth:`Lobby.play_now`, the game of a pairing stored with the seek's removal."""
        started: list[Committed] = []
        got = self.lobby.play_now(player, spec, perf, take=self._taker(store, started))
        return (got, started[0]) if isinstance(got, Pairing) else got

    def start_game(self, store: GameStore, pairing: Pairing) -> Committed:
        """The game of a pairing (not stored yet: :meth:`accept`), both seats on the
        players' accounts, its clock running from now: it starts for both at once."""
        spec = pairing.spec
        tc = spec.time_control
        clock = tc if isinstance(tc, Clock) else None
        new = NewGame(
            "online",
            spec.rules.to_dict(),
            None,
            None,
            "black",
            None if clock is None else float(clock.initial),
            0.0 if clock is None else float(clock.increment),
        )
        now = store.clock.now_ms()
        game = model.new_game(new, new_game_id(), now)
        game.black_user_id, game.white_user_id = pairing.black.id, pairing.white.id
        game.rated = spec.rated
        game.category = None if spec.category is None else spec.category.value
        if isinstance(tc, Correspondence):
            game.days_per_move = tc.days
        for player, side in ((pairing.black, "black"), (pairing.white, "white")):
            perf = self.perf(player.id, spec.category)
            if perf is not None:
                setattr(game, f"{side}_rating", int(perf.glicko.rating))
        game.tags = player_tags(
            Seat(pairing.black.name, game.black_rating),
            Seat(pairing.white.name, game.white_rating),
            tc,
        )
        model.start_clock(game, "black", now)
        loaded = Loaded(game, [], model.replay(game, []))
        return Committed(loaded, now, False)

    # ------------------------------------------------------------ ratings
    def rate(self, game: GameRec) -> RatingUpdate | None:
        """Apply a finished rated game's result to both ratings, exactly once (the
        ``rating_updates`` primary key): any number of calls, in any process, end
        at the one stored update.  None for a game that does not count."""
        if not game.rated or game.status != "finished" or game.termination is None:
            return None
        outcome = Outcome(
            Termination(game.termination),
            None if game.winner is None else color_of(game.winner),
        )
        category = None if game.category is None else Category(game.category)
        result = rated_result(
            game.id,
            category,
            game.black_user_id,
            game.white_user_id,
            outcome,
            game.updated_ms / 1000,
        )
        if result is None:
            return None
        update = apply_result(self.ratings, result)
        if self._games is not None:
            self._games.run(game.id, lambda g, _now: rating_diff_tags(g, update), lambda *_: None)
        return update

    def unrated_finished(self, store: GameStore) -> list[GameRec]:
        """Finished rated games without their rating update (a crash between the two
        commits): the start-up sweep rates them."""
        from sqlalchemy import select

        query = (
            select(GAMES)
            .outerjoin(RATING_UPDATES, RATING_UPDATES.c.game_id == GAMES.c.id)
            .where(
                GAMES.c.rated.is_(True),
                GAMES.c.status == "finished",
                RATING_UPDATES.c.game_id.is_(None),
            )
        )
        with store.db.connect() as conn:
            return [GameRec.from_row(r) for r in conn.execute(query).mappings()]

    def game_changed(self, c: Committed, run: Runner) -> None:
        """On the event loop after every stored change: a rated game that has just
        finished is rated (in the database threads)."""
        g = c.loaded.game
        if g.rated and g.status == "finished":
            task = asyncio.get_running_loop().create_task(self._rate_soon(run, g))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    async def _rate_soon(self, run: Runner, game: GameRec) -> None:
        try:
            await run(self.rate, game)
        except Exception:  # the sweep tries again
            log.exception("rating game %s failed", game.id)

    async def rating_sweeper(self, run: Runner, store: GameStore, interval: float = 60.0) -> None:
        """At start-up and every ``interval`` seconds: rate the finished rated games
        that have no update yet (after a crash between the two commits)."""
        failing = False
        while True:
            try:
                await run(self.sweep_ratings, store)
                failing = False
            except Exception:
                if not failing:
                    log.exception("rating sweep failed")
                failing = True
            await asyncio.sleep(interval)

    def sweep_ratings(self, store: GameStore) -> int:
        """Rate every finished rated game not rated yet; how many were rated."""
        done = 0
        for game in self.unrated_finished(store):
            try:
                if self.rate(game) is not None:
                    done += 1
            except CommunityError:
                log.exception("game %s cannot be rated", game.id)
        return done


async def account_id(conn: HTTPConnection) -> str | None:
    """The id of the account the session cookie signs in, or None (a dependency)."""
    community: Community = conn.app.state.ctx.community
    user = await community.user_of(conn)
    return None if user is None else user.id


def rating_diff_tags(loaded: Loaded, update: RatingUpdate) -> Change | None:
    """The change that writes a rated game's rating changes into its PDN tags
    (``BlackRatingDiff``, ``WhiteRatingDiff``, as lichess); None once written."""
    g = loaded.game
    diffs = {
        "BlackRatingDiff": f"{update.black_diff:+d}",
        "WhiteRatingDiff": f"{update.white_diff:+d}",
    }
    if g.tags is not None and all(g.tags.get(k) == v for k, v in diffs.items()):
        return None
    game = g.copy()
    game.tags = {**(g.tags or {}), **diffs}
    return Change(game, loaded.board, loaded.moves)


def player_of(user: User) -> Player:
    return Player(user.id, user.username)


def set_session_cookie(response: Response, token: str, request: Request) -> None:
    """The session cookie: HttpOnly, SameSite=Lax, Secure behind HTTPS."""
    attrs = session_cookie(token, secure=request.url.scheme == "https")
    response.set_cookie(**attrs)  # type: ignore[arg-type]


def clear_session_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(
        COOKIE_NAME,
        path="/",
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="lax",
    )


def api_error(error: CommunityError) -> ApiError:
    return ApiError(STATUS.get(error.code, 400), error.code, str(error))


async def on_community_error(_request: Request, exc: Exception) -> Response:
    """A community error as ``{"error": {"code", "message"}}``; 429 with the real
    ``Retry-After``."""
    assert isinstance(exc, CommunityError)
    err = api_error(exc)
    headers = None
    if isinstance(exc, RateLimitedError):
        headers = {"Retry-After": str(max(1, math.ceil(exc.retry_after)))}
    return JSONResponse(err.body(), status_code=err.status, headers=headers)


# ---------------------------------------------------------------- cross-site requests
def _own_origin(scope: Scope, headers: Mapping[str, str]) -> str | None:
    host = headers.get("host")
    if not host:
        return None
    scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme", "http"), scope.get("scheme"))
    return normalise_origin(f"{scheme}://{host}")


class SameSiteGuard:
    """Refuses (403 ``forbidden``) a state-changing request authenticated by the session
    cookie unless its ``Origin`` is the site's or it carries the session's
    ``X-CSRF-Token`` (security point 8).  Sign-up and sign-in from a foreign
    ``Origin`` are refused too, so no other site can sign a visitor into its account.
    Requests without the cookie (anonymous seats use tokens) pass untouched.
    """

    def __init__(self, app: ASGIApp, site_origins: tuple[str, ...] = ()) -> None:
        self.app = app
        self.site_origins = site_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        token = cookie_parser(headers.get("cookie", "")).get(COOKIE_NAME) or None
        origin = headers.get("origin")
        sites = {*self.site_origins, *filter(None, [_own_origin(scope, headers)])}
        refused = False
        if token is not None:
            refused = not request_allowed(
                scope["method"],
                origin=origin,
                csrf=headers.get("x-csrf-token"),
                session_token=token,
                site_origins=sites,
            )
        elif origin is not None and str(scope.get("path", "")).startswith("/api/account/"):
            mine = {normalise_origin(o) for o in sites}
            refused = normalise_origin(origin) not in mine
        if refused:
            err = ApiError(
                403,
                "forbidden",
                "cross-site request refused: send it from the site, or with the "
                "X-CSRF-Token header that GET /api/account returns",
            )
            await JSONResponse(err.body(), status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def websocket_origin_ok(conn: HTTPConnection, site_origins: tuple[str, ...]) -> bool:
    """A WebSocket that the session cookie authenticates must come from the site."""
    origin = conn.headers.get("origin")
    if origin is None or COOKIE_NAME not in conn.cookies:
        return True
    headers = {k.lower(): v for k, v in conn.headers.items()}
    sites = {*site_origins, *filter(None, [_own_origin(conn.scope, headers)])}
    mine = {normalise_origin(o) for o in sites}
    return normalise_origin(origin) in mine
