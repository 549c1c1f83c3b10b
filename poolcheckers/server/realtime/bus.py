"""The real-time pipeline between server processes: one LISTEN connection per process.

The services announce their changes with ``pg_notify`` inside the transaction that
makes them (so a change is announced on commit only, never if it rolls back).  The
:class:`PgBus` of each process LISTENs on every channel those notices use, on one
psycopg 3 async connection, and hands each notice to the handler registered for its
channel (the registrations are in :mod:`poolcheckers.server.wiring`).

A notice sent while the connection is down is lost for good: PostgreSQL keeps none
for a session that is not there.  So when the connection drops (PostgreSQL restarted,
the backend killed, the network cut) the bus reconnects, backing off, LISTENs again,
and then calls every handler's ``catch_up``, which reads again what it may have
missed (the state of the games watched here, the open seeks, the topics followed
here).  Reading after LISTEN leaves no gap: a change committed after the read is
announced on the new connection, and one committed before is in what was read.  The
notices that arrive while the handlers catch up wait in the connection, and are
dispatched after, so none of them is overtaken by an older read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger("poolcheckers.server.notify")

#: the first wait before reconnecting; each failed attempt doubles it up to the most
RECONNECT_FIRST_S = 0.2
RECONNECT_MOST_S = 5.0
#: how long the server waits at start for the LISTEN (it serves only once it hears)
READY_TIMEOUT_S = 30.0
#: a dead peer that never closed the socket (a cut network) is noticed by TCP
#: keepalives within about a minute (libpq ignores them on a Unix socket)
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}


class Notice(Protocol):
    """What the bus needs of a notification (psycopg's ``Notify``)."""

    @property
    def channel(self) -> str: ...

    @property
    def payload(self) -> str: ...


class Listening(Protocol):
    """A LISTEN connection as the bus uses it (psycopg's ``AsyncConnection``)."""

    async def execute(self, query: str) -> object: ...

    def notifies(self) -> AsyncIterator[Notice]: ...

    async def close(self) -> None: ...


#: opens a LISTEN connection (psycopg's, or a test's fake)
Connector = Callable[[], Awaitable[Listening]]


@dataclass(frozen=True)
class Handler:
    """One channel's consumer: ``notified`` gets each notice's payload (on the loop),
    ``catch_up`` reads again what notices may have been lost (after a reconnection),
    ``lost`` (if given) hears when the connection was seen lost (once an outage)."""

    notified: Callable[[str], None]
    catch_up: Callable[[], Awaitable[None]]
    lost: Callable[[], None] | None = None


def psycopg_connector(conninfo: str) -> Connector:
    """Opens autocommit psycopg 3 async connections to ``conninfo``."""

    async def connect() -> Listening:
        import psycopg
        from psycopg.conninfo import make_conninfo

        with_keepalives = make_conninfo(conninfo, **KEEPALIVES)
        return await psycopg.AsyncConnection.connect(with_keepalives, autocommit=True)

    return connect


class PgBus:
    """This process's one LISTEN connection, for every channel of the server."""

    def __init__(self, connect: Connector) -> None:
        self.connect = connect
        self.handlers: dict[str, Handler] = {}
        #: set while LISTENing (the server starts serving once it is)
        self.ready = asyncio.Event()
        #: how many times the handlers caught up (after reconnections)
        self.catch_ups = 0
        self._task: asyncio.Task[None] | None = None

    def register(self, channel: str, handler: Handler) -> None:
        """Hand ``channel``'s notices to ``handler`` (before :meth:`start`)."""
        if not channel.isidentifier():  # it goes into LISTEN as an identifier
            raise ValueError(f"not a channel name: {channel!r}")
        if channel in self.handlers:
            raise ValueError(f"channel {channel} already has a handler")
        self.handlers[channel] = handler

    async def start(self) -> None:
        """LISTEN; returns once listening (or raises after :data:`READY_TIMEOUT_S`)."""
        self._task = asyncio.get_running_loop().create_task(self._run())
        await asyncio.wait_for(self.ready.wait(), timeout=READY_TIMEOUT_S)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        down_since: float | None = None  # when the connection dropped (None: up)
        wait = RECONNECT_FIRST_S
        first = True
        while True:
            try:
                conn = await self.connect()
                try:
                    for channel in self.handlers:
                        await conn.execute(f"LISTEN {channel}")
                    self.ready.set()
                    if not first:
                        if down_since is not None:
                            gone = time.monotonic() - down_since
                            log.warning("LISTEN connection back after %.1f s; catching up", gone)
                        await self._catch_up()
                    first, down_since, wait = False, None, RECONNECT_FIRST_S
                    await self._dispatch_all(conn)
                finally:
                    with contextlib.suppress(Exception):
                        await conn.close()
            except asyncio.CancelledError:
                raise
            except Exception:
                self.ready.clear()
                if down_since is None:  # once per outage, not at every attempt
                    down_since = time.monotonic()
                    log.exception("LISTEN connection lost; reconnecting")
                    if not first:  # at start-up there was nothing to lose yet
                        self._lost()
                await asyncio.sleep(wait)
                wait = min(wait * 2, RECONNECT_MOST_S)

    async def _dispatch_all(self, conn: Listening) -> None:
        async for note in conn.notifies():
            self.dispatch(note)
        raise ConnectionError("the LISTEN connection closed")

    def dispatch(self, note: Notice) -> None:
        """Hand a notice to its channel's handler; a handler's failure is logged (the
        others' notices still go)."""
        handler = self.handlers.get(note.channel)
        if handler is None:
            return
        try:
            handler.notified(note.payload)
        except Exception:
            log.exception("notice on %s not handled: %r", note.channel, note.payload[:200])

    def _lost(self) -> None:
        for channel, handler in self.handlers.items():
            if handler.lost is not None:
                try:
                    handler.lost()
                except Exception:
                    log.exception("telling %s of the lost connection failed", channel)

    async def _catch_up(self) -> None:
        """Every handler reads again what it may have missed; one that fails does not
        keep the others from it, nor the notices from going."""
        self.catch_ups += 1
        for channel, handler in self.handlers.items():
            try:
                await handler.catch_up()
            except Exception:
                log.exception("catching up on %s after a reconnection failed", channel)
