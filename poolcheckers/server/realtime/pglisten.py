"""Game changes of the other server processes, with PostgreSQL.

Every change is announced by ``pg_notify`` inside its transaction (so it is sent on
commit only); :class:`PgListener` LISTENs on that channel with a psycopg 3 async
connection and hands the changes to the :class:`~poolcheckers.server.realtime.fanout.Fanout`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from poolcheckers.server.database.engine import PG_CHANNEL
from poolcheckers.server.realtime.fanout import Fanout

log = logging.getLogger("poolcheckers.server.notify")


class PgListener:
    """LISTEN on the PostgreSQL channel and feed other processes' changes to the fan-out."""

    def __init__(self, conninfo: str, fanout: Fanout) -> None:
        self.conninfo = conninfo
        self.fanout = fanout
        self.ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        import psycopg

        first = True
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {PG_CHANNEL}")
                    self.ready.set()
                    if not first:
                        self.fanout.refresh_all()
                    first = False
                    async for note in conn.notifies():
                        game_id, _, version = note.payload.rpartition(":")
                        try:
                            self.fanout.remote_change(game_id, int(version))
                        except ValueError:
                            log.warning("ignored notification %r", note.payload)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("LISTEN connection lost; reconnecting in 1 s")
                self.ready.clear()
                await asyncio.sleep(1.0)
