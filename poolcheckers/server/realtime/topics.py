"""Change notices by topic (a tournament's standings and pairings; an account's
revoked API tokens and ended sessions), for the WebSocket clients and streams of
every server process.

A notice says only "this topic changed": the page reads the topic again over HTTP.
:meth:`TopicFeed.publish` may be called from any thread (the database threads that
commit the change); with PostgreSQL it also sends ``pg_notify`` on
:data:`TOPIC_CHANNEL`, which the other processes hear through their
:class:`~poolcheckers.server.realtime.bus.PgBus` (:meth:`TopicFeed.deliver`).  When
the bus reconnected, notices may have been lost: :meth:`TopicFeed.changed_all` tells
every subscriber here that its topic changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sqlalchemy import Engine, text

log = logging.getLogger("poolcheckers.server.notify")
#: the PostgreSQL channel of topic notices between server processes
TOPIC_CHANNEL = "poolcheckers_topics"


class TopicFeed:
    """This process's subscribers by topic, and the channel to the others."""

    def __init__(self, db: Engine | None = None) -> None:
        #: the PostgreSQL database that carries notices to other processes (None: one
        #: process, SQLite)
        self.db = db
        self.loop: asyncio.AbstractEventLoop | None = None
        self._subscribers: dict[str, set[asyncio.Queue[None]]] = {}

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
        if self.db is not None:
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

    def deliver(self, topic: str) -> None:
        """A notice of another process (loop thread): tell ``topic``'s subscribers here."""
        self._notify(topic)

    def topics(self) -> list[str]:
        """The topics with a subscriber here."""
        return list(self._subscribers)

    def changed_all(self) -> None:
        """Tell every subscriber here that its topic changed (notices may have been
        lost: each page reads its topic again, each stream checks its token)."""
        for topic in self.topics():
            self._notify(topic)

    def start(self) -> None:
        self.loop = asyncio.get_running_loop()
