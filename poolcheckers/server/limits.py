"""Abuse limits: requests per client address in a sliding window.

>>> t = [0.0]
>>> limiter = RateLimiter(2, 60.0, now=lambda: t[0])
>>> limiter.allow("a"), limiter.allow("a"), limiter.allow("a"), limiter.allow("b")
(True, True, False, True)
>>> t[0] = 61.0
>>> limiter.allow("a")
True
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from starlette.requests import HTTPConnection

#: Addresses remembered at most (the oldest are forgotten first).
MAX_ADDRESSES = 10_000


def client_address(conn: HTTPConnection) -> str:
    """The address a request or WebSocket came from (the peer of the TCP connection)."""
    return conn.client.host if conn.client is not None else "unknown"


class RateLimiter:
    """At most ``count`` events per ``window`` seconds per key."""

    def __init__(
        self, count: int, window: float, *, now: Callable[[], float] = time.monotonic
    ) -> None:
        self.count = count
        self.window = window
        self.now = now
        self._events: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        """Record an event for ``key`` if it is within the limit; False if not."""
        t = self.now()
        events = self._events.get(key)
        if events is None:
            if len(self._events) >= MAX_ADDRESSES:
                self._events.pop(next(iter(self._events)))
            events = self._events[key] = deque()
        while events and events[0] <= t - self.window:
            events.popleft()
        if len(events) >= self.count:
            return False
        events.append(t)
        return True

    def retry_after(self, key: str) -> int:
        """Seconds until ``key`` may try again."""
        events = self._events.get(key)
        if not events:
            return 0
        return max(1, int(events[0] + self.window - self.now()) + 1)
