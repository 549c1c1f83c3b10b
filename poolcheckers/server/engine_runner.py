"""Engine thinking for engine games and the analysis board, off the event loop.

Searches run in a small thread pool (the native search releases the GIL, so the
event loop keeps serving while the engine thinks).  Each worker thread keeps one
:class:`poolcheckers.engine.Engine` per rule set.  The engine's move is stored through
:meth:`GameService.engine_move`, which validates it like any other move and refuses
it if the game moved on meanwhile (a takeback, a resignation, a flag).

Without the engine's native core, engine games and analyses are refused with
``engine_unavailable``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from poolcheckers import Board, RuleSet
from poolcheckers.engine import Engine, Limit, SearchResult, native_available

from .service import GameService
from .state import Loaded, color_name

log = logging.getLogger("poolcheckers.server.engine")


def engine_available() -> bool:
    """Whether the engine's native core can be used."""
    try:
        return native_available()
    except Exception:  # a broken build counts as unavailable
        log.exception("poolcheckers.engine.native_available() failed")
        return False


def level_time(level: int | None) -> float:
    """Seconds the engine thinks per move at a level (1 fast .. 10 strongest).

    >>> level_time(1), level_time(10)
    (0.1, 1.0)
    """
    return 0.1 * (level or 10)


class EngineRunner:
    """Plays the engine's moves and runs analyses in a thread pool."""

    def __init__(
        self,
        service: GameService,
        *,
        threads: int = 2,
        move_time: float | None = None,
        hash_mb: int = 32,
        run_db: Callable[..., Awaitable[Any]] | None = None,
    ) -> None:
        self.service = service
        self.run_db: Callable[..., Awaitable[Any]] = run_db or asyncio.to_thread
        self.move_time = move_time
        self.hash_mb = hash_mb
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="engine")
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
        self.executor.shutdown(wait=True, cancel_futures=True)

    # ------------------------------------------------------------ worker side
    def _engine(self, rules: RuleSet) -> Engine:
        engines: dict[RuleSet, Engine] | None = getattr(self._local, "engines", None)
        if engines is None:
            engines = {}
            self._local.engines = engines
        eng = engines.get(rules)
        if eng is None:
            eng = Engine(hash_mb=self.hash_mb, rules=rules)
            engines[rules] = eng
        return eng

    def search_blocking(
        self,
        key: str,
        board: Board,
        *,
        time: float,
        clock: float | None = None,
        increment: float = 0.0,
        level: int | None = None,
        on_info: Callable[[SearchResult], None] | None = None,
    ) -> SearchResult:
        """Run one search in the calling (worker) thread; ``key`` lets :meth:`cancel` stop it."""
        eng = self._engine(board.rules)
        limit = Limit(time=time, clock=clock, increment=increment)
        with self._searching_lock:
            self._searching[key] = eng
        try:
            try:
                return eng.search(board, limit, on_info=on_info, level=level)
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

    # ------------------------------------------------------------ loop side
    def schedule(self, game_id: str) -> None:
        """Let the engine reply in ``game_id`` (no-op if it is already thinking there)."""
        task = self._tasks.get(game_id)
        if task is not None and not task.done():
            self._again.add(game_id)  # re-check once the current task has finished
            return
        self._tasks[game_id] = asyncio.get_running_loop().create_task(self._play(game_id))

    def cancel(self, game_id: str) -> None:
        """The game changed under the engine (e.g. a takeback): stop its search."""
        if game_id in self._tasks:
            self.stop("game:" + game_id)

    def thinking(self, game_id: str) -> bool:
        task = self._tasks.get(game_id)
        return task is not None and not task.done()

    async def _play(self, game_id: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            loaded: Loaded = await self.run_db(self.service.loaded, game_id)
            g = loaded.game
            board = loaded.board
            if (
                g.status != "running"
                or g.mode != "engine"
                or g.engine_color != color_name(board.turn)
            ):
                return
            think = self.move_time if self.move_time is not None else level_time(g.level)
            clock = None
            increment = 0.0
            if g.has_clock:
                clock = max(
                    0.0, g.remaining_ms(color_name(board.turn), self.service.clock.now_ms())
                )
                clock /= 1000
                increment = (g.clock_increment_ms or 0) / 1000
                think = min(think, max(0.01, clock / 20 + increment / 2))
            ply = g.ply
            result = await loop.run_in_executor(
                self.executor,
                lambda: self.search_blocking(
                    "game:" + game_id,
                    board,
                    time=think,
                    clock=clock,
                    increment=increment,
                    level=g.level,
                ),
            )
            await self.run_db(self.service.engine_move, game_id, ply, result.move.full_notation())
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

    async def evaluate(self, board: Board, time: float = 0.2) -> SearchResult:
        """A short search of ``board`` (e.g. to decide on a draw offer)."""
        loop = asyncio.get_running_loop()
        key = f"eval:{id(board)}"
        return await loop.run_in_executor(
            self.executor, lambda: self.search_blocking(key, board.copy(), time=time)
        )
