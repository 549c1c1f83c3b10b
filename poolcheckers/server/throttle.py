"""Per-client limits: sliding-window rate limits, the sign-in limiter built from
them, and the client address requests are limited by.

A :class:`SlidingWindow` allows ``limit`` events per key in any ``window``
seconds.  The clock is injectable (a function returning seconds), so tests
move time by hand:

>>> now = [0.0]
>>> w = SlidingWindow(limit=2, window=60.0, clock=lambda: now[0])
>>> w.hit("k").allowed, w.hit("k").allowed, w.hit("k")
(True, True, Decision(allowed=False, retry_after=60.0))
>>> now[0] = 60.0
>>> w.hit("k").allowed
True

Sign-in attempts are limited per address (every attempt) and per username
(failed attempts): password guessing from one address and password spraying
against one account from many both stop.

>>> limiter = SignInLimiter(clock=lambda: now[0])
>>> limiter.attempt("ann", "203.0.113.7").allowed
True
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from starlette.requests import HTTPConnection

#: a function returning seconds (injectable: tests move time by hand)
Now = Callable[[], float]

#: Every sign-in attempt from one address (an IPv6 /64 counts as one).
ADDRESS_LIMIT: Final = (20, 600.0)
#: Failed sign-ins for one username, from anywhere.
USERNAME_FAILURE_LIMIT: Final = (10, 900.0)


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether the event may happen; if not, the seconds until it may (``Retry-After``)."""

    allowed: bool
    retry_after: float = 0.0


class SlidingWindow:
    """At most ``limit`` events per key in any ``window`` seconds.

    Memory stays bounded: a key keeps at most ``limit`` timestamps, and past
    ``max_keys`` keys the least recently used key is forgotten (its events
    are older than any kept key's newest).
    """

    def __init__(
        self,
        limit: int,
        window: float,
        *,
        clock: Now = time.monotonic,
        max_keys: int = 100_000,
    ) -> None:
        if limit < 1 or window <= 0 or max_keys < 1:
            raise ValueError(
                f"limit and max_keys must be at least 1 and window positive, not "
                f"{limit!r}, {max_keys!r}, {window!r}"
            )
        self.limit = limit
        self.window = window
        self.max_keys = max_keys
        self._clock = clock
        self._lock = threading.Lock()
        self._events: OrderedDict[str, deque[float]] = OrderedDict()

    def _recent(self, key: str, now: float) -> deque[float]:
        events = self._events.get(key)
        if events is None:
            return deque(maxlen=self.limit)
        while events and events[0] <= now - self.window:
            events.popleft()
        return events

    def _decide(self, events: deque[float], now: float) -> Decision:
        if len(events) < self.limit:
            return Decision(True)
        return Decision(False, events[0] + self.window - now)

    def _append(self, key: str, events: deque[float], now: float) -> None:
        events.append(now)
        self._events[key] = events
        self._events.move_to_end(key)
        while len(self._events) > self.max_keys:
            self._events.popitem(last=False)

    def check(self, key: str) -> Decision:
        """Whether one more event for ``key`` is allowed now (records nothing)."""
        now = self._clock()
        with self._lock:
            return self._decide(self._recent(key, now), now)

    def record(self, key: str) -> None:
        """Count one event for ``key`` now."""
        now = self._clock()
        with self._lock:
            self._append(key, self._recent(key, now), now)

    def hit(self, key: str) -> Decision:
        """Check and, when allowed, record in one step."""
        now = self._clock()
        with self._lock:
            events = self._recent(key, now)
            decision = self._decide(events, now)
            if decision.allowed:
                self._append(key, events, now)
            return decision

    def reset(self, key: str) -> None:
        """Forget ``key``'s events."""
        with self._lock:
            self._events.pop(key, None)

    def __len__(self) -> int:
        """Keys remembered."""
        with self._lock:
            return len(self._events)


def address_key(address: str) -> str:
    """The key an address is limited by: IPv4 as is, IPv6 by its /64 network
    (one subscriber usually has a whole /64), an IPv4-mapped IPv6 as its IPv4.

    >>> address_key("2001:db8:1:2:aaaa::1"), address_key("::ffff:192.0.2.1")
    ('2001:db8:1:2::/64', '192.0.2.1')
    """
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address.strip().lower()
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class SignInLimiter:
    """Sign-in attempts: :data:`ADDRESS_LIMIT` per address, :data:`USERNAME_FAILURE_LIMIT`
    per username.  Call :meth:`attempt` before checking the password, then
    :meth:`failed` or :meth:`succeeded`.  ``username`` is the normalised key.
    """

    def __init__(
        self,
        *,
        clock: Now = time.monotonic,
        address_limit: tuple[int, float] = ADDRESS_LIMIT,
        username_failure_limit: tuple[int, float] = USERNAME_FAILURE_LIMIT,
    ) -> None:
        self.per_address = SlidingWindow(*address_limit, clock=clock)
        self.per_username = SlidingWindow(*username_failure_limit, clock=clock)

    def attempt(self, username: str, address: str) -> Decision:
        """May this attempt go ahead?  An allowed attempt counts against the address."""
        for_user = self.per_username.check(username)
        if not for_user.allowed:
            return for_user
        return self.per_address.hit(address_key(address))

    def failed(self, username: str) -> None:
        """The password was wrong (or the user unknown)."""
        self.per_username.record(username)

    def succeeded(self, username: str) -> None:
        """The user signed in: their failures no longer count."""
        self.per_username.reset(username)


#: Addresses a per-address window remembers at most (the least recently seen
#: are forgotten first).
MAX_ADDRESSES = 10_000


def client_address(conn: HTTPConnection) -> str:
    """The address a request or WebSocket came from (the peer of the TCP connection)."""
    return conn.client.host if conn.client is not None else "unknown"
