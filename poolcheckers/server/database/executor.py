"""The one executor of blocking database work (SQLAlchemy's sync API).

Every router and service hands its database calls to :class:`DbExecutor`, so the
number of threads touching the database is set in one place.  The work is short
(a few statements), and by default it runs inline on the event loop when the
database is on this machine: SQLite, or PostgreSQL over a local socket, where a
statement's round trip costs less than handing the work to a thread and back
(a burst of a hundred seek accepts on two processes: about 0.7 ms less server CPU
an accept, and PostgreSQL's own CPU a third lower with one busy connection per
process instead of eight; docs/COMMUNITY.md).  A remote PostgreSQL gets a pool of
threads, which mostly wait on the network (``Settings.inline_db``,
``--db-threads``).

Within one piece of work the statements run outside transactions (:func:`read`)
share one connection, checked out at the first and given back at the end: a lobby
accept reads who asks and the seek, then (PostgreSQL) stores its game by one
statement, and a checkout and return for each cost more than the statements.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

from sqlalchemy import Connection, Engine

from poolcheckers.server.database.engine import is_local

P = ParamSpec("P")
R = TypeVar("R")


#: the connections lent to the reads of the work running in this thread, by pool
_lent: ContextVar[dict[int, Connection] | None] = ContextVar("lent_connections", default=None)


@contextmanager
def shared_reads() -> Iterator[None]:
    """Within: every :func:`read` of an engine's pool uses one connection, given back
    at the end (a connection a failed read invalidated is replaced)."""
    lent: dict[int, Connection] = {}
    token = _lent.set(lent)
    try:
        yield
    finally:
        _lent.reset(token)
        for conn in lent.values():
            conn.close()


@contextmanager
def read(engine: Engine) -> Iterator[Connection]:
    """A connection for a statement outside transactions on ``engine`` (one from
    :func:`~poolcheckers.server.database.engine.single_reads`): a read, or a write
    that is one statement (it commits on its own).  Within :func:`shared_reads`,
    the one lent to this work; else one of its own."""
    lent = _lent.get()
    if lent is None:
        with engine.connect() as conn:
            yield conn
        return
    key = id(engine.pool)
    held = lent.get(key)
    if held is None or held.closed or held.invalidated:
        held = lent[key] = engine.connect()
    yield held


class DbExecutor:
    """Runs blocking database work off the event loop (or inline, for SQLite)."""

    def __init__(self, db: Engine, *, threads: int, inline: bool | None = None) -> None:
        sqlite = db.dialect.name == "sqlite"
        self.inline = is_local(db) if inline is None else inline
        self._pool = ThreadPoolExecutor(
            max_workers=1 if sqlite else threads, thread_name_prefix="db"
        )

    async def run(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``fn(*args, **kwargs)`` in the database thread(s), or inline."""

        def work() -> R:
            with shared_reads():
                return fn(*args, **kwargs)

        if self.inline:
            return work()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, work)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)
