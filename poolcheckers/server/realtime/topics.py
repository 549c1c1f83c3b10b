"""Change notices by topic (a tournament's standings and pairings; an account's
revoked API tokens and ended sessions), for the WebSocket clients and streams of
every server process.

A notice says only "this topic changed": the page reads the topic again over HTTP.
:meth:`TopicFeed.publish` may be called from any thread (the database threads that
commit the change); with PostgreSQL it also sends ``pg_notify`` so that the other
processes' subscribers hear it, through their own LISTEN connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from sqlalchemy import Engine, text

log = logging.getLogger("poolcheckers.server.notify")
#: the PostgreSQL channel of topic notices between server processes
TOPIC_CHANNEL = "poolcheckers_topics"


class TopicFeed:
    """This process's subscribers by topic, and the channel to the others."""

    def __init__(
        self,
        db: Engine | None = None,
        conninfo: str | None = None,
        on_remote: Callable[[str], None] | None = None,
    ) -> None:
        #: the database that carries notices to other processes (None: one process)
        self.db = db
        self.conninfo = conninfo
        #: told of each notice from another process (before its subscribers here)
        self.on_remote = on_remote
        self.loop: asyncio.AbstractEventLoop | None = None
        self._subscribers: dict[str, set[asyncio.Queue[None]]] = {}
        self._task: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()

    def subscribe(self, topic: str) -> asyncio.Queue[None]:
        # one pending notice is enough: the page reads the whole topic again
        queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)
        self._subscribers.setdefault(topic, set()).add(queue)
        return queue

    def unsubscribe(self, topic: str, queue: asyncio.Queue[None]) -> None:
        queues = self._subscribers.get(topic)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self._subscribers[topic]

    def publish(self, topic: str) -> None:
        """Tell ``topic``'s subscribers here and, with PostgreSQL, in the other
        processes (this blocks on the database: call it on the database executor)."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._notify, topic)
        if self.db is not None and self.conninfo is not None:
            try:
                with self.db.begin() as conn:
                    conn.execute(
                        text("SELECT pg_notify(:channel, :topic)"),
                        {"channel": TOPIC_CHANNEL, "topic": topic},
                    )
            except Exception:  # the others' pages still refresh by themselves
                log.exception("topic notice %s not sent to the other processes", topic)

    def _notify(self, topic: str) -> None:
        for queue in self._subscribers.get(topic, ()):
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(None)

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        if self.conninfo is not None:
            self._task = self.loop.create_task(self._listen())
            await asyncio.wait_for(self.ready.wait(), timeout=30)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _listen(self) -> None:
        import psycopg

        while True:
            try:
                assert self.conninfo is not None
                conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {TOPIC_CHANNEL}")
                    self.ready.set()
                    async for note in conn.notifies():
                        if self.on_remote is not None:
                            self.on_remote(note.payload)
                        self._notify(note.payload)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("topic LISTEN connection lost; reconnecting in 1 s")
                await asyncio.sleep(1.0)
