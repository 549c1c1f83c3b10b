"""The one executor of blocking database work (SQLAlchemy's sync API).

Every router and service hands its database calls to :class:`DbExecutor`, so the
number of threads touching the database is set in one place: SQLite has one
writer at a time, so one thread avoids lock waits (busy-sleeps), or the work runs
inline on the event loop (``Settings.inline_db``); PostgreSQL gets a pool (its
threads mostly wait on the network).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from sqlalchemy import Engine

P = ParamSpec("P")
R = TypeVar("R")


class DbExecutor:
    """Runs blocking database work off the event loop (or inline, for SQLite)."""

    def __init__(self, db: Engine, *, threads: int, inline: bool | None = None) -> None:
        sqlite = db.dialect.name == "sqlite"
        self.inline = sqlite if inline is None else inline
        self._pool = ThreadPoolExecutor(
            max_workers=1 if sqlite else threads, thread_name_prefix="db"
        )

    async def run(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``fn(*args, **kwargs)`` in the database thread(s), or inline."""
        if self.inline:
            return fn(*args, **kwargs)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, lambda: fn(*args, **kwargs))

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)
