"""Engine thinking for engine games and the analysis board, off the event loop.

Two thread pools, so that an engine game never waits behind an analysis: engine
games' replies and draw decisions run in the *game* pool, the analysis board's
searches in the *analysis* pool, whose threads also run at a lower OS priority
(``nice`` +10 where the system allows it), so a game's search gets the CPU first.
An analysis is capped in time (``analysis_max_time``); the analysis pool serves
client addresses in turn (:class:`~poolcheckers.server.analysis.fair.FairPool`), and
holds at most ``analysis_queue`` analyses running or waiting in this process: beyond
that a request is answered ``busy`` at once (:meth:`EngineRunner.admit_analysis`)
rather than queued behind minutes of others' searches, the last places kept for
clients with none queued; and while analyses wait, a running one ends after its turn
(``analysis_turn`` seconds) with its best line so far.  The per-address count is the
caller's, in the shared quotas, so that it holds across processes.  Levels, limits,
opening an engine and the draw policy are the engine facade's
(:mod:`poolcheckers.engine`).

The native search releases the GIL, so the event loop keeps serving while the engine
thinks.  Each worker thread keeps one :class:`poolcheckers.engine.Engine` per rule
set.  The engine's move is stored through :meth:`GameService.engine_move`, which
validates it like any other move and refuses it if the game moved on meanwhile (a
takeback, a resignation, a flag).  Without the native core, engine games and
analyses are refused with ``engine_unavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from poolcheckers import Board, RuleSet
from poolcheckers.engine import (
    Engine,
    Limit,
    SearchResult,
    decide_draw,
    level_limit,
    make_limit,
    native_available,
    open_engine,
)
from poolcheckers.server import errors
from poolcheckers.server.analysis.fair import FairPool
from poolcheckers.server.games.model import Loaded, color_name, color_of
from poolcheckers.server.games.service import GameService
from poolcheckers.server.i18n import M_

log = logging.getLogger("poolcheckers.server.engine")

#: ``nice`` increment of the analysis threads (game replies keep the default)
ANALYSIS_NICE = 10
#: analyses running or waiting per analysis thread, by default (the queue's bound)
ANALYSES_PER_THREAD = 4
#: seconds after which a ``busy`` analysis request is told to try again
BUSY_RETRY_S = 5.0
#: seconds an analysis runs while others wait for a thread, by default
ANALYSIS_TURN_S = 5.0
#: how often the analyses' turns are checked (seconds)
TURN_CHECK_S = 0.25


def engine_available() -> bool:
    """Whether the engine's native core can be used."""
    try:
        return native_available()
    except Exception:  # a broken build counts as unavailable
        log.exception("poolcheckers.engine.native_available() failed")
        return False


def _lower_priority() -> None:
    """Thread initialiser of the analysis pool: a higher ``nice`` for this thread."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), ANALYSIS_NICE)


class EngineRunner:
    """Plays the engine's moves (game pool) and runs analyses (analysis pool)."""

    def __init__(
        self,
        service: GameService,
        *,
        threads: int = 2,
        analysis_threads: int = 2,
        move_time: float | None = None,
        hash_mb: int = 32,
        analysis_max_time: float = 30.0,
        analysis_queue: int | None = None,
        analysis_turn: float = ANALYSIS_TURN_S,
        run_db: Callable[..., Awaitable[Any]] | None = None,
    ) -> None:
        self.service = service
        self.run_db: Callable[..., Awaitable[Any]] = run_db or asyncio.to_thread
        self.move_time = move_time
        self.hash_mb = hash_mb
        self.analysis_max_time = analysis_max_time
        # replies are served client by client in turn: one client's many engine
        # games do not queue everyone else's reply behind theirs
        self.game_pool = FairPool(threads, name="engine")
        self._clients: dict[str, str] = {}
        # analyses too: one address's queued searches do not hold back another's
        self.analysis_pool = FairPool(
            analysis_threads, name="analysis", initializer=_lower_priority
        )
        #: analyses running or waiting in this process at most; more are ``busy``
        self.analysis_queue = analysis_queue or ANALYSES_PER_THREAD * max(1, analysis_threads)
        self.analysis_threads = max(1, analysis_threads)
        #: analyses admitted and not yet finished, in all and per client (event-loop
        #: thread only)
        self.analyses_in_flight = 0
        self._client_analyses: dict[str, int] = {}
        #: seconds an analysis runs while others wait; when each running one began
        self.analysis_turn = analysis_turn
        self._turn_began: dict[str, float] = {}
        self._turns: asyncio.Task[None] | None = None
        self._local = threading.local()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._searching: dict[str, Engine] = {}
        self._searching_lock = threading.Lock()
        self._again: set[str] = set()

    def close(self) -> None:
        with self._searching_lock:
            for eng in self._searching.values():
                eng.stop()
        for task in self._tasks.values():
            task.cancel()
        if self._turns is not None:
            self._turns.cancel()
        self.analysis_pool.shutdown(wait=True, cancel_futures=True)
        self.game_pool.shutdown(wait=True, cancel_futures=True)

    # ------------------------------------------------------------ worker side
    def _engine(self, rules: RuleSet) -> Engine:
        engines: dict[RuleSet, Engine] | None = getattr(self._local, "engines", None)
        if engines is None:
            engines = {}
            self._local.engines = engines
        eng = engines.get(rules)
        if eng is None:
            eng = open_engine(self.hash_mb, rules)
            engines[rules] = eng
        return eng

    def search_blocking(
        self,
        key: str,
        board: Board,
        limit: Limit,
        *,
        level: int | None = None,
        on_info: Callable[[SearchResult], None] | None = None,
        multipv: int = 1,
    ) -> SearchResult:
        """Run one search in the calling (worker) thread; ``key`` lets :meth:`stop` stop it.
        ``multipv`` > 1: also the best lines (``SearchResult.lines``, best first)."""
        eng = self._engine(board.rules)
        with self._searching_lock:
            self._searching[key] = eng
        try:
            try:
                return eng.search(board, limit, on_info=on_info, level=level, multipv=multipv)
            except ValueError:
                if level is None:
                    raise
                # a failing weakened search must not leave the game stuck: play at
                # full strength within the same time budget instead
                log.exception("level %s search failed; searching at full strength", level)
                return eng.search(board, limit, on_info=on_info)
        finally:
            with self._searching_lock:
                self._searching.pop(key, None)

    def stop(self, key: str) -> None:
        """Stop the search running under ``key`` (it returns its best move so far)."""
        with self._searching_lock:
            eng = self._searching.get(key)
        if eng is not None:
            eng.stop()

    def searching(self, prefix: str) -> int:
        """How many searches run under keys starting with ``prefix``."""
        with self._searching_lock:
            return sum(1 for k in self._searching if k.startswith(prefix))

    # ------------------------------------------------------------ analyses
    def admit_analysis(self, client: str) -> None:
        """Count one more analysis of ``client`` in this process's queue, or raise
        ``busy`` (503 with ``Retry-After``) when ``analysis_queue`` are already running
        or waiting.  The last places (one per analysis thread) are kept for clients
        with no analysis in the queue: a newcomer gets in while the clients already
        served keep asking.  Call :meth:`analysis_done` once it has ended (event-loop
        thread only)."""
        full = self.analysis_queue
        if self._client_analyses.get(client, 0) > 0:
            full = max(1, full - self.analysis_threads)
        if self.analyses_in_flight >= full:
            raise errors.busy(
                M_(
                    "the analysis engine is busy ({analyses_in_flight} analyses running or waiting): try again in {BUSY_RETRY_S} s",  # noqa: E501
                    analyses_in_flight=self.analyses_in_flight,
                    BUSY_RETRY_S=format(BUSY_RETRY_S, "g"),
                ),
                BUSY_RETRY_S,
            )
        self.analyses_in_flight += 1
        self._client_analyses[client] = self._client_analyses.get(client, 0) + 1

    def analysis_done(self, client: str) -> None:
        self.analyses_in_flight = max(0, self.analyses_in_flight - 1)
        left = self._client_analyses.pop(client, 0) - 1
        if left > 0:
            self._client_analyses[client] = left

    async def analyse(
        self,
        key: str,
        client: str,
        board: Board,
        seconds: float,
        on_info: Callable[[SearchResult], None] | None = None,
        multipv: int = 1,
    ) -> SearchResult:
        """An analysis search of at most ``analysis_max_time`` in the analysis pool, in
        ``client``'s turn, with the best ``multipv`` lines (multi-PV) in
        ``SearchResult.lines`` when > 1.  While other analyses wait, it ends after
        ``analysis_turn`` seconds with its best line so far (:meth:`_share_turns`)."""
        seconds = min(max(seconds, 0.01), self.analysis_max_time)
        limit = make_limit(time=seconds)
        if self._turns is None or self._turns.done():
            self._turns = asyncio.get_running_loop().create_task(self._share_turns())

        def job() -> SearchResult:
            with self._searching_lock:
                self._turn_began[key] = time.monotonic()
            try:
                return self.search_blocking(key, board, limit, on_info=on_info, multipv=multipv)
            finally:
                with self._searching_lock:
                    self._turn_began.pop(key, None)

        return await asyncio.wrap_future(self.analysis_pool.submit(client, job))

    async def _share_turns(self) -> None:
        """While analyses wait for a thread, stop those that have had their turn: with
        twenty clients and two threads, each waits seconds, not minutes."""
        while True:
            await asyncio.sleep(TURN_CHECK_S)
            if not self.analysis_pool.pending():
                continue
            now = time.monotonic()
            with self._searching_lock:
                over = [k for k, t in self._turn_began.items() if now - t >= self.analysis_turn]
            for key in over:
                self.stop(key)

    # ------------------------------------------------------------ engine games
    def schedule(self, game_id: str, client: str | None = None) -> None:
        """Let the engine reply in ``game_id`` (no-op if it is already thinking there);
        ``client`` (the creator's address or account) shares the game pool fairly."""
        if client is not None:
            self._clients[game_id] = client
        task = self._tasks.get(game_id)
        if task is not None and not task.done():
            self._again.add(game_id)  # re-check once the current task has finished
            return
        self._tasks[game_id] = asyncio.get_running_loop().create_task(self._play(game_id))

    def cancel(self, game_id: str) -> None:
        """The game changed under the engine (e.g. a takeback): stop its search."""
        if game_id in self._tasks:
            self.stop("game:" + game_id)

    def move_limit(self, loaded: Loaded) -> Limit:
        """The engine's time for its move: by level (the facade's
        :func:`~poolcheckers.engine.level_limit`), within its clock (R20)."""
        g = loaded.game
        if not g.has_clock:
            return level_limit(g.level, move_time=self.move_time)
        now = self.service.clock.now_ms()
        clock = max(0.0, g.remaining_ms(color_name(loaded.board.turn), now)) / 1000
        increment = (g.clock_increment_ms or 0) / 1000
        return level_limit(g.level, move_time=self.move_time, clock=clock, increment=increment)

    async def _play(self, game_id: str) -> None:
        try:
            loaded: Loaded = await self.run_db(self.service.loaded, game_id)
            g = loaded.game
            if not g.engine_to_move(loaded.board):
                if g.status != "running":
                    self._clients.pop(game_id, None)
                return
            limit = self.move_limit(loaded)
            result = await asyncio.wrap_future(
                self.game_pool.submit(
                    self._clients.get(game_id, "game:" + game_id),
                    lambda: self.search_blocking(
                        "game:" + game_id, loaded.board, limit, level=g.level
                    ),
                )
            )
            await self.run_db(self.service.engine_move, game_id, g.ply, result.move.full_notation())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("engine move in game %s failed", game_id)
        finally:
            if self._tasks.get(game_id) is asyncio.current_task():
                del self._tasks[game_id]
                if game_id in self._again:
                    self._again.discard(game_id)
                    self.schedule(game_id)

    async def draw_decision(self, loaded: Loaded) -> bool:
        """Whether the engine accepts the draw offered to it in ``loaded`` (R17): the
        facade's policy (:func:`poolcheckers.engine.decide_draw`), in the game pool."""
        board = loaded.board.copy()
        engine_color = color_of(loaded.game.engine_color or "white")
        decision = await asyncio.wrap_future(
            self.game_pool.submit(
                self._clients.get(loaded.game.id, "game:" + loaded.game.id),
                lambda: decide_draw(self._engine(board.rules), board, engine_color),
            )
        )
        return decision.accept
