"""How much a client may do: rates (so many sign-ins per ten minutes) and holdings
(so many analyses at once), counted in the site's database so that every server
process of a site enforces one limit, not one each.

Rates are the ``limits`` library's sliding window counters (:mod:`.storage` keeps its
counts in the database); holdings are leases (:mod:`.slots`).  Every call here does
database work: call it from the database executor, never on the event loop.

>>> from poolcheckers.server.database.engine import make_engine, run_migrations
>>> engine = make_engine("sqlite://")
>>> run_migrations(engine)
>>> now = [1_000_000.0]
>>> quotas = Quotas(engine, clock=lambda: now[0])
>>> signups = Rate("signup", 2, 3600)
>>> [quotas.hit(signups, "203.0.113.7").allowed for _ in range(3)]
[True, True, False]
>>> quotas.hit(signups, "198.51.100.1").allowed
True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.strategies import SlidingWindowCounterRateLimiter
from sqlalchemy import Engine

from .slots import Slots
from .storage import DatabaseStorage

__all__ = ["Decision", "Quotas", "Rate", "Slots"]


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether the event may happen; if not, the seconds until it may (``Retry-After``)."""

    allowed: bool
    retry_after: float = 0.0


@dataclass(frozen=True, slots=True)
class Rate:
    """At most ``limit`` events per ``seconds`` for each key, under the name ``name``
    (the name keeps two rates over the same keys apart)."""

    name: str
    limit: int
    seconds: int

    def __post_init__(self) -> None:
        if self.limit < 1 or self.seconds < 1:
            raise ValueError(
                f"a rate needs a limit and a window of at least 1, not {self.limit!r} "
                f"per {self.seconds!r} s ({self.name})"
            )

    @property
    def item(self) -> RateLimitItem:
        return RateLimitItemPerSecond(self.limit, self.seconds, namespace=self.name)


class Quotas:
    """The site's rates and holdings over ``engine`` (its ``rate_counters`` and
    ``slot_leases`` tables); ``clock`` returns seconds."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.storage = DatabaseStorage(engine, clock)
        self.limiter = SlidingWindowCounterRateLimiter(self.storage)
        self.slots = Slots(engine, clock)

    def hit(self, rate: Rate, *key: str, cost: int = 1) -> Decision:
        """Count ``cost`` events of ``key`` when the rate allows them."""
        if self.limiter.hit(rate.item, *key, cost=cost):
            return Decision(True)
        return Decision(False, self.retry_after(rate, *key))

    def test(self, rate: Rate, *key: str, cost: int = 1) -> Decision:
        """Whether ``cost`` more events of ``key`` would be allowed (counts nothing)."""
        if self.limiter.test(rate.item, *key, cost=cost):
            return Decision(True)
        return Decision(False, self.retry_after(rate, *key))

    def retry_after(self, rate: Rate, *key: str) -> float:
        """Seconds until ``key`` may have one more event (at least one)."""
        stats = self.limiter.get_window_stats(rate.item, *key)
        # the library reports a moment of the wall clock: what counts is the wait
        return max(1.0, stats.reset_time - time.time())

    def clear(self, rate: Rate, *key: str) -> None:
        """Forget ``key``'s events (a successful sign-in clears its failures)."""
        self.limiter.clear(rate.item, *key)
