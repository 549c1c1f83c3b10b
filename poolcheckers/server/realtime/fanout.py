"""Pushing game changes to WebSocket clients (the fan-out).

:class:`Fanout` keeps, per game, the WebSocket subscribers of this process.  A change
made here is published right after its commit; a change made by another server
process arrives as a notice of :mod:`poolcheckers.server.realtime.bus` and is reloaded;
after the bus reconnected, every game watched here is reloaded (notices were lost).
Each subscriber remembers the version it last got, so a change that arrives twice
(directly and by NOTIFY) is sent once, and versions never go backwards.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from poolcheckers.server.games.view import viewer_json

log = logging.getLogger("poolcheckers.server.notify")

#: A subscriber whose queue holds this many unsent messages is too slow: dropped.
MAX_BACKLOG = 256


class Subscriber:
    """One WebSocket client of one game: its seat (or None) and its outgoing queue."""

    def __init__(self, game_id: str, color: str | None) -> None:
        self.game_id = game_id
        self.color = color
        self.version = 0
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        #: False while the connection is still reading its first state (seat unknown)
        self.ready = False
        #: a change was published while not ready
        self.missed = False

    def send(self, message: str) -> None:
        if self.queue.qsize() >= MAX_BACKLOG:
            self.queue.put_nowait(None)  # tells the sender to close: client too slow
        else:
            self.queue.put_nowait(message)


def state_message(base_json: str, color: str | None) -> str:
    """``{"type": "state", "game": GameState}`` for one viewer, from a serialised base.

    >>> state_message('{"id":"g"}', "white")
    '{"type":"state","game":{"your_color":"white","id":"g"}}'
    """
    return '{"type":"state","game":' + viewer_json(base_json, color) + "}"


class Fanout:
    """The WebSocket subscribers of this process, by game."""

    def __init__(self, loader: Callable[[str], Awaitable[tuple[int, str]]] | None = None) -> None:
        self.subs: dict[str, set[Subscriber]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        #: loads a game's current (version, base state) for changes made elsewhere
        self.loader = loader
        self._reloading: set[str] = set()
        self._reload_again: set[str] = set()

    def subscribe(self, game_id: str, color: str | None) -> Subscriber:
        sub = Subscriber(game_id, color)
        self.subs.setdefault(game_id, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        subs = self.subs.get(sub.game_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self.subs[sub.game_id]

    def publish(self, game_id: str, version: int, base_json: str) -> None:
        """Send a new state (serialised, without ``your_color``) to the game's
        subscribers that have an older one (loop thread)."""
        subs = self.subs.get(game_id)
        if not subs:
            return
        for sub in list(subs):
            if not sub.ready:
                sub.missed = True
                continue
            if sub.version >= version:
                continue
            sub.version = version
            sub.send(state_message(base_json, sub.color))

    def notified(self, payload: str) -> None:
        """A notice of the games' channel: ``"<game id>:<version>"``."""
        game_id, _, version = payload.rpartition(":")
        try:
            self.remote_change(game_id, int(version))
        except ValueError:
            log.warning("ignored notification %r", payload[:200])

    async def catch_up(self) -> None:
        """After the bus reconnected: reload every game watched here."""
        self.refresh_all()

    def remote_change(self, game_id: str, version: int) -> None:
        """Another process changed a game (NOTIFY): reload and publish if anyone is behind."""
        subs = self.subs.get(game_id)
        if not subs or all(s.version >= version for s in subs):
            return
        self._schedule_reload(game_id)

    def _schedule_reload(self, game_id: str) -> None:
        if game_id in self._reloading:
            self._reload_again.add(game_id)  # one more pass after the running one
        elif self.loop is not None:
            self._reloading.add(game_id)
            self.loop.create_task(self._reload(game_id))

    async def _reload(self, game_id: str) -> None:
        try:
            while True:
                self._reload_again.discard(game_id)
                if self.loader is None or game_id not in self.subs:
                    return
                try:
                    version, base_json = await self.loader(game_id)
                except Exception:
                    log.exception("reloading game %s after a notification failed", game_id)
                    return
                self.publish(game_id, version, base_json)
                if game_id not in self._reload_again:
                    return
        finally:
            self._reloading.discard(game_id)

    def refresh_all(self) -> None:
        """Reload every subscribed game (after the listener reconnected: NOTIFYs may be lost)."""
        for game_id in list(self.subs):
            self._schedule_reload(game_id)
