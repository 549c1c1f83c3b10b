"""The objects a running server shares (store, service, hub, engine runner, limits)
and their life cycle; routes get them through :func:`get_ctx` (``Depends``)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

import anyio.to_thread
from starlette.requests import HTTPConnection

from poolcheckers.server.analysis.runner import EngineRunner, engine_available
from poolcheckers.server.api.schemas import Action
from poolcheckers.server.community import Community
from poolcheckers.server.database.engine import (
    checkpoint,
    is_postgres,
    libpq_conninfo,
    make_engine,
    run_migrations,
)
from poolcheckers.server.errors import ApiError
from poolcheckers.server.games.repository import Committed
from poolcheckers.server.games.service import GameService
from poolcheckers.server.games.view import View, base_json
from poolcheckers.server.realtime.fanout import Hub, PgListener
from poolcheckers.server.settings import Settings
from poolcheckers.server.throttle import MAX_ADDRESSES, SlidingWindow

log = logging.getLogger("poolcheckers.server")

P = ParamSpec("P")
R = TypeVar("R")


async def run(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run blocking ``fn`` in a worker thread."""
    return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))


class ServerContext:
    """Everything the routes share, created with the app and started by its lifespan."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.db = make_engine(settings.database_url, background_checkpoints=True)
        if settings.migrate:
            run_migrations(self.db)
        enabled = settings.engine_enabled
        self.engine_ok = engine_available() if enabled is None else enabled
        self.service = GameService(self.db, settings.clock, engine_available=lambda: self.engine_ok)
        self.hub = Hub()
        self.hub.loader = self._load_state
        self.runner = EngineRunner(
            self.service,
            threads=settings.engine_threads,
            analysis_threads=settings.analysis_threads,
            move_time=settings.engine_move_time,
            hash_mb=settings.engine_hash_mb,
            analysis_max_time=settings.analysis_max_time,
            analyses_per_address=settings.analyses_per_address,
            run_db=self.run,
        )
        self.community = Community(settings, self.db)
        self.service.usernames = self.community.username
        self.imports = SlidingWindow(settings.imports_per_minute, 60.0, max_keys=MAX_ADDRESSES)
        self.listener: PgListener | None = None
        if is_postgres(settings.database_url):
            self.listener = PgListener(libpq_conninfo(settings.database_url), self.hub)
        self.loop: asyncio.AbstractEventLoop | None = None
        # SQLite has one writer at a time: one database thread avoids lock waits
        # (busy-sleeps); PostgreSQL gets a pool (its threads mostly wait on the network).
        sqlite = self.db.dialect.name == "sqlite"
        self.inline_db = sqlite if settings.inline_db is None else settings.inline_db
        self.db_executor = ThreadPoolExecutor(
            max_workers=1 if sqlite else settings.db_threads, thread_name_prefix="db"
        )
        self._tasks: list[asyncio.Task[None]] = []
        self.service.on_change = self._on_change

    async def run(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run blocking database work ``fn`` in the database thread(s), or inline."""
        if self.inline_db:
            return fn(*args, **kwargs)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.db_executor, lambda: fn(*args, **kwargs))

    async def act(
        self, game_id: str, action: Action, token: str | None, user_id: str | None = None
    ) -> View:
        """A player's game action; a draw offered to the engine is answered at once
        (the engine facade's draw policy)."""
        view = await self.run(self.service.act, game_id, action, token, user_id)
        g = view.loaded.game
        if action != "draw-offer" or g.mode != "engine" or g.draw_offer is None:
            return view
        accept = await self.runner.draw_decision(view.loaded)
        try:
            answered = await self.run(self.service.engine_answers_draw, game_id, accept)
        except ApiError:
            return view  # the game moved on meanwhile
        return View(answered.loaded, answered.now, view.seat)

    async def _load_state(self, game_id: str) -> tuple[int, str]:
        view = await self.run(self.service.view, game_id)
        return view.loaded.game.version, view.base_json()

    def _on_change(self, c: Committed) -> None:
        """Called in the thread that committed a change."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._changed, c)

    def _changed(self, c: Committed) -> None:
        g = c.loaded.game
        self.hub.publish(g.id, g.version, base_json(c.loaded, c.now))
        self.community.game_changed(c, self.run)
        if c.engine_to_move:
            self.runner.schedule(g.id)
        elif g.mode == "engine":
            self.runner.cancel(g.id)

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.hub.loop = self.loop
        if self.listener is not None:
            self.listener.start()
            await asyncio.wait_for(self.listener.ready.wait(), timeout=30)
        await self.community.start(self.run, self.service.store)
        self._tasks.append(self.loop.create_task(self._timer()))
        self._tasks.append(
            self.loop.create_task(self.community.rating_sweeper(self.run, self.service.store))
        )
        if self.db.dialect.name == "sqlite":
            self._tasks.append(self.loop.create_task(self._checkpointer()))
        # the start-up objects (modules, metadata) live forever: keep them out of the
        # garbage collector's full passes, which otherwise pause the loop under load
        gc.collect()
        gc.freeze()
        if self.engine_ok:
            for game_id in await self.run(self.service.engine_games_to_move):
                self.runner.schedule(game_id)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.community.stop()
        if self.listener is not None:
            await self.listener.stop()
        await run(self.runner.close)
        self.db_executor.shutdown(wait=True)
        self.db.dispose()

    async def _timer(self) -> None:
        """End games on a fallen flag (R20) even when nobody sends a request."""
        failing = False
        while True:
            await asyncio.sleep(self.settings.sweep_interval)
            try:
                await self.run(self.service.sweep_flags)
                failing = False
            except Exception:
                if not failing:  # once per outage, not four times a second
                    log.exception("clock sweep failed")
                failing = True

    async def _checkpointer(self) -> None:
        """SQLite: move the WAL into the database file in a background thread, so that
        its fsync never holds up a move (the connections do not checkpoint)."""
        failing = False
        while True:
            await asyncio.sleep(self.settings.checkpoint_interval)
            try:
                await run(checkpoint, self.db)
                failing = False
            except Exception:
                if not failing:
                    log.exception("WAL checkpoint failed")
                failing = True


def get_ctx(conn: HTTPConnection) -> ServerContext:
    """The server's shared objects (a FastAPI dependency, for HTTP and WebSockets)."""
    ctx: ServerContext = conn.app.state.ctx
    return ctx
