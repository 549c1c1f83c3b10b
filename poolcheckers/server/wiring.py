"""The one place that builds the server's services, by constructor, and runs
their start and stop; routes get them through :func:`get_ctx` (``Depends``).

The order of construction is the order of dependence: the database and its
executor, accounts, games (which name accounts in PDN tags and report every
commit here), ratings, the lobby (which starts games through the games' creator
and reads ratings), the real-time fan-out and the engine runner; last, the one
real-time pipeline between server processes (:meth:`Services._pipeline`), where
every channel's consumer is registered.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging

from starlette.requests import HTTPConnection

from poolcheckers.server.accounts.service import AccountService
from poolcheckers.server.analysis.readings import PdnReadings
from poolcheckers.server.analysis.runner import EngineRunner, engine_available
from poolcheckers.server.api.schemas import Action
from poolcheckers.server.challenges.repository import DbChallengeStore
from poolcheckers.server.challenges.service import ChallengeService
from poolcheckers.server.database.engine import (
    PG_CHANNEL,
    checkpoint,
    is_postgres,
    libpq_conninfo,
    make_engine,
    run_migrations,
)
from poolcheckers.server.database.executor import DbExecutor
from poolcheckers.server.errors import ApiError
from poolcheckers.server.games.admission import CreationLimits
from poolcheckers.server.games.model import IdleLimits
from poolcheckers.server.games.repository import Committed
from poolcheckers.server.games.service import GameService
from poolcheckers.server.games.view import View, base_json
from poolcheckers.server.i18n.shell import render_shells
from poolcheckers.server.lessons.service import LessonService
from poolcheckers.server.lobby.service import LOBBY_CHANNEL, LobbyService
from poolcheckers.server.practice.service import PracticeService
from poolcheckers.server.puzzles.service import PuzzleService
from poolcheckers.server.quotas import Quotas
from poolcheckers.server.ratings.pages import PlayerPages
from poolcheckers.server.ratings.service import RatingService
from poolcheckers.server.realtime.bus import Handler, PgBus, psycopg_connector
from poolcheckers.server.realtime.fanout import Fanout
from poolcheckers.server.realtime.topics import TOPIC_CHANNEL, TopicFeed
from poolcheckers.server.settings import Settings
from poolcheckers.server.tournaments.imports import TrfImports
from poolcheckers.server.tournaments.invitations import Invitations
from poolcheckers.server.tournaments.passwords import EventPasswords
from poolcheckers.server.tournaments.service import TournamentService

log = logging.getLogger("poolcheckers.server")


class Services:
    """Everything the routes share, created with the app and started by its lifespan."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        #: the app's frame (index.html) in each language
        self.shells = render_shells(settings.static_dir)
        self.db = make_engine(settings.database_url, background_checkpoints=True)
        if settings.migrate:
            run_migrations(self.db)
        self.executor = DbExecutor(self.db, threads=settings.db_threads, inline=settings.inline_db)
        #: every router and service runs its database work here
        self.run = self.executor.run
        self._limits(settings)
        #: told to stop (SIGTERM with ``serve --drain``): /api/health answers 503 so
        #: that the proxy sends new requests to another process before this one's
        #: port closes
        self.stopping = False
        enabled = settings.engine_enabled
        self.engine_ok = engine_available() if enabled is None else enabled
        postgres = is_postgres(settings.database_url)
        #: "this changed" notices (an event's standings, an account's revoked tokens and
        #: ended sessions), for the sockets and streams of every process
        self.topics = TopicFeed(self.db if postgres else None)
        self.accounts = AccountService(
            settings, self.db, self.executor, self.quotas, notices=self.topics
        )
        self.games = GameService(
            self.db,
            settings.clock,
            engine_available=lambda: self.engine_ok,
            usernames=self.accounts.username,
            titles=self.accounts.title,
            on_change=self._on_change,
            rated_per_pair_per_day=settings.rated_games_per_pair_per_day,
            limits=self.creation,
            idle=IdleLimits(
                first_move_ms=int(settings.first_move_timeout * 1000),
                abandon_ms=int(settings.abandon_after_days * 86_400_000),
            ),
        )
        self.ratings = RatingService(
            self.db, self.executor, self.games.store, min_plies=settings.min_rated_plies
        )
        self.lobby = LobbyService(
            settings, self.db, self.executor, self.games.creator, self.ratings
        )
        self._events(settings)
        self.players = PlayerPages(self.db, self.accounts.users, self.ratings.store)
        self.fanout = Fanout(loader=self._load_state)
        self.runner = EngineRunner(
            self.games,
            threads=settings.engine_threads,
            analysis_threads=settings.analysis_threads,
            move_time=settings.engine_move_time,
            hash_mb=settings.engine_hash_mb,
            analysis_max_time=settings.analysis_max_time,
            analysis_queue=settings.analysis_queue,
            analysis_turn=settings.analysis_turn,
            run_db=self.executor.run,
        )
        self.bus = self._pipeline(settings) if postgres else None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task[None]] = []

    def _limits(self, settings: Settings) -> None:
        #: rates and holdings counted in the database: one limit for every process
        clock = settings.clock
        self.quotas = Quotas(self.db, clock=lambda: clock.now_ms() / 1000)
        #: the analysis board's PDN readings, per address and per process
        self.pdn_readings = PdnReadings(
            self.quotas,
            self.run,
            at_once=settings.pdn_analyses_at_once,
            per_minute=settings.pdn_analyses_per_minute,
        )
        #: how many games one client may start and import, for every process
        self.creation = CreationLimits(
            self.quotas,
            games_per_minute=settings.games_per_minute,
            engine_per_minute=settings.engine_games_per_minute,
            engine_at_once=settings.engine_games_at_once,
            imported_per_hour=settings.imported_games_per_hour,
        )

    def stop_soon(self) -> None:
        """The process is about to stop: the health check says so from now on."""
        self.stopping = True

    def _events(self, settings: Settings) -> None:
        """Tournaments and direct challenges."""
        self.tournaments = TournamentService(
            self.db,
            # the tournaments' own thread: an event's advance (a big Swiss pairing, an
            # arena's matching) never waits behind, nor holds, the routes' database work
            DbExecutor(self.db, threads=1, inline=False),
            settings.clock,
            self.games.creator,
            self.games.store,
            self.ratings,
            on_update=lambda tid: self.topics.publish(f"tournament:{tid}"),
            quotas=self.quotas,
            read_cache=settings.tournament_read_cache,
            users=self.accounts.users,
        )
        blocks = DbChallengeStore(self.db)
        #: TRF imports: counted, then parsed in a worker process of their own
        self.tournament_imports = TrfImports(
            self.tournaments, self.run, blocks, announce=self.lobby.announce
        )
        #: the answers of the players an imported file named
        self.invitations = Invitations(self.tournaments, blocks)
        #: club events' passwords, hashed as accounts' are, in the hashing threads
        self.event_passwords = EventPasswords(
            self.accounts.accounts.passwords,
            self.accounts.hashing,
            self.run,
            self.tournaments.store,
        )
        self.practice = PracticeService(settings.tables_dir, settings.practice_build_pieces)
        self.puzzles = PuzzleService(
            self.db, settings.clock, quotas=self.quotas, tables=self.practice.tables
        )
        self.lessons = LessonService(self.db, settings.clock)
        self.challenges = ChallengeService(
            DbChallengeStore(self.db),
            self.accounts.users,
            self.games.creator,
            self.ratings,
            settings.clock,
            announce=self.lobby.announce,
            quotas=self.quotas,
        )

    def _pipeline(self, settings: Settings) -> PgBus:
        """The process's one LISTEN connection (PostgreSQL), and who hears each channel:
        the games' changes go to the fan-out, the lobby's to its sockets, the topics'
        to their subscribers; after a reconnection each reads again what it missed."""
        bus = PgBus(psycopg_connector(libpq_conninfo(settings.database_url)))
        bus.register(PG_CHANNEL, Handler(self.fanout.notified, self.fanout.catch_up))
        lobby = self.lobby
        bus.register(LOBBY_CHANNEL, Handler(lobby.remote, lobby.catch_up, lobby.lost))
        bus.register(TOPIC_CHANNEL, Handler(self._remote_notice, self._topics_catch_up))
        return bus

    def _remote_notice(self, topic: str) -> None:
        """A topic notice from another process: what this process keeps of the topic
        first, then its subscribers here."""
        if topic.startswith("tournament:"):
            # another process changed an event: this process's last read of it is old
            self.tournaments.forget(topic.removeprefix("tournament:"))
        else:
            self.accounts.remote_notice(topic)
        self.topics.deliver(topic)

    async def _topics_catch_up(self) -> None:
        """After the bus reconnected (topic notices were lost): every event is read
        again, the sockets of ended sessions close, and every subscriber here hears
        that its topic changed (pages read it again, streams check their token)."""
        self.tournaments.forget_all()
        self.topics.changed_all()
        await self.accounts.catch_up()

    async def act(
        self,
        game_id: str,
        action: Action,
        token: str | None,
        user_id: str | None = None,
        address: str | None = None,
    ) -> View:
        """A player's game action (from the client ``address``); a draw offered to the
        engine is answered at once (the engine facade's draw policy)."""
        view = await self.run(self.games.act, game_id, action, token, user_id, address)
        g = view.loaded.game
        if action != "draw-offer" or g.mode != "engine" or g.draw_offer is None:
            return view
        accept = await self.runner.draw_decision(view.loaded)
        try:
            answered = await self.run(self.games.engine_answers_draw, game_id, accept)
        except ApiError:
            return view  # the game moved on meanwhile
        return View(answered.loaded, answered.now, view.seat)

    async def _load_state(self, game_id: str) -> tuple[int, str]:
        view = await self.run(self.games.view, game_id)
        return view.loaded.game.version, view.base_json()

    def _on_change(self, c: Committed) -> None:
        """Called in the thread that committed a change."""
        g = c.loaded.game
        if g.mode == "engine":
            # an engine game in play counts against its client until it ends or idles
            try:
                if g.status == "running":
                    self.creation.changed(g.id)
                else:
                    self.creation.ended(g.id)
            except Exception:  # the game is stored: a missed count only lapses later
                log.exception("engine game %s: its count could not be updated", g.id)
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._changed, c)

    def _changed(self, c: Committed) -> None:
        g = c.loaded.game
        self.fanout.publish(g.id, g.version, base_json(c.loaded, c.now))
        self.ratings.game_changed(c)
        self.tournaments.game_changed(c)
        if c.engine_to_move:
            self.runner.schedule(g.id)
        elif g.mode == "engine":
            self.runner.cancel(g.id)

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.fanout.loop = self.loop
        self.topics.start()
        await self.lobby.start()
        if self.bus is not None:  # serve only once the other processes are heard
            await self.bus.start()
        self.tournaments.start_loop()
        self._tasks.append(self.loop.create_task(self._timer()))
        self._tasks.append(self.loop.create_task(self.ratings.sweeper()))
        self._tasks.append(self.loop.create_task(self._tournament_sweeper()))
        if self.db.dialect.name == "sqlite":
            self._tasks.append(self.loop.create_task(self._checkpointer()))
        # the start-up objects (modules, metadata) live forever: keep them out of the
        # garbage collector's full passes, which otherwise pause the loop under load
        gc.collect()
        gc.freeze()
        if self.engine_ok:
            for game_id in await self.run(self.games.engine_games_to_move):
                self.runner.schedule(game_id)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.bus is not None:
            await self.bus.stop()
        await self.lobby.stop()
        self.tournaments.executor.shutdown()
        self.tournaments.close()
        self.tournament_imports.close()
        await asyncio.get_running_loop().run_in_executor(None, self.runner.close)
        self.executor.shutdown()
        self.db.dispose()

    async def _timer(self) -> None:
        """End games on a fallen flag (R20) even when nobody sends a request, and close
        the games that waited too long for a move (less often: a wider query)."""
        failing = False
        idle_at = 0.0
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.settings.sweep_interval)
            try:
                await self.run(self.games.sweep_flags)
                if loop.time() >= idle_at:
                    idle_at = loop.time() + self.settings.idle_sweep_interval
                    await self.run(self.games.sweep_idle)
                failing = False
            except Exception:
                if not failing:  # once per outage, not four times a second
                    log.exception("clock sweep failed")
                failing = True

    async def _tournament_sweeper(self) -> None:
        """Move the running tournaments on (rounds, arena pairings, no-shows, start
        times) even when no game ends; every process does, by compare-and-set."""
        failing = False
        while True:
            await asyncio.sleep(self.settings.tournament_sweep_interval)
            try:
                await self.tournaments.executor.run(self.tournaments.sweep)
                failing = False
            except Exception:
                if not failing:
                    log.exception("tournament sweep failed")
                failing = True

    async def _checkpointer(self) -> None:
        """SQLite: move the WAL into the database file in a thread of its own, so that
        its fsync never holds up a move (the connections do not checkpoint) nor waits
        behind the database executor's queue."""
        failing = False
        while True:
            await asyncio.sleep(self.settings.checkpoint_interval)
            try:
                await asyncio.get_running_loop().run_in_executor(None, checkpoint, self.db)
                failing = False
            except Exception:
                if not failing:
                    log.exception("WAL checkpoint failed")
                failing = True


async def get_ctx(conn: HTTPConnection) -> Services:
    """The server's services (a FastAPI dependency, for HTTP and WebSockets; a
    coroutine, as every dependency here that does not block: FastAPI runs a plain
    function in a worker thread, a thread hop per request)."""
    ctx: Services = conn.app.state.ctx
    return ctx
