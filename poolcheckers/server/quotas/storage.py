"""The ``limits`` library's counters kept in the site's own database.

Every server process of a site shares its database, so counters kept there hold
across processes with nothing else to run (a Redis server would do as well, but a
small site would then need one).  :class:`DatabaseStorage` is a ``limits`` storage
backend: the library's strategies (fixed window, sliding window counter) decide, this
class only counts.

A counter is one row of ``rate_counters``: a name, a count and when the count
expires.  An increment is one ``INSERT … ON CONFLICT DO UPDATE … RETURNING``
statement (SQLite 3.35+ and PostgreSQL), so two processes racing on one counter each
see their own increment.  Time comes from an injectable clock (seconds), so tests move
it by hand and the counters follow the server's clock.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections.abc import Callable

from limits.storage import Storage
from limits.storage.base import SlidingWindowCounterSupport
from sqlalchemy import Engine, delete, func, select, text
from sqlalchemy.exc import SQLAlchemyError

from poolcheckers.server.database.tables import RATE_COUNTERS

#: Names longer than this are stored by their SHA-256 (a name holds client input,
#: such as the username of a sign-in attempt).
MAX_NAME = 200

#: Expired counters are deleted once every this many increments (they are ignored
#: before that, so this only bounds the table's size).
PURGE_EVERY = 512

_INCREMENT = text(
    """
    INSERT INTO rate_counters (name, count, expires_ms)
    VALUES (:name, :amount, :expires)
    ON CONFLICT (name) DO UPDATE SET
      count = CASE WHEN rate_counters.expires_ms <= :now THEN :amount
                   ELSE rate_counters.count + :amount END,
      expires_ms = CASE WHEN rate_counters.expires_ms <= :now THEN :expires
                        ELSE rate_counters.expires_ms END
    RETURNING count
    """
)


def bounded_name(name: str) -> str:
    """``name``, or its digest when it is too long for the name column.

    >>> bounded_name("signin/ann"), len(bounded_name("x" * 500))
    ('signin/ann', 71)
    """
    if len(name) <= MAX_NAME:
        return name
    return "sha256:" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()


class DatabaseStorage(Storage, SlidingWindowCounterSupport):
    """A ``limits`` storage over the ``rate_counters`` table of ``engine``.

    ``clock`` returns seconds (the epoch's, or any other origin shared by the
    processes of a site).
    """

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        super().__init__(uri=None, wrap_exceptions=False)
        self.engine = engine
        self.clock = clock
        self._increments = 0
        self._lock = threading.Lock()

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return SQLAlchemyError

    def _now_ms(self) -> int:
        return math.floor(self.clock() * 1000)

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        """Add ``amount`` to ``key``'s count, starting it afresh (expiring in
        ``expiry`` seconds) when it has expired; returns the new count."""
        now = self._now_ms()
        with self.engine.begin() as conn:
            count = conn.execute(
                _INCREMENT,
                {
                    "name": bounded_name(key),
                    "amount": amount,
                    "now": now,
                    "expires": now + expiry * 1000,
                },
            ).scalar_one()
            if self._purge_due():
                conn.execute(delete(RATE_COUNTERS).where(RATE_COUNTERS.c.expires_ms <= now))
        return int(count)

    def _purge_due(self) -> bool:
        with self._lock:
            self._increments += 1
            return self._increments % PURGE_EVERY == 0

    def _live(self, keys: list[str]) -> dict[str, tuple[int, int]]:
        """``key -> (count, expires_ms)`` of the keys that have not expired."""
        now = self._now_ms()
        c = RATE_COUNTERS.c
        names = {bounded_name(key): key for key in keys}
        query = select(c.name, c.count, c.expires_ms).where(
            c.name.in_(list(names)), c.expires_ms > now
        )
        with self.engine.connect() as conn:
            return {
                names[name]: (int(count), int(expires))
                for name, count, expires in conn.execute(query)
            }

    def get(self, key: str) -> int:
        return self._live([key]).get(key, (0, 0))[0]

    def get_expiry(self, key: str) -> float:
        """When ``key``'s count expires (seconds of the clock; now when it has none)."""
        live = self._live([key])
        return live[key][1] / 1000 if key in live else self.clock()

    def check(self) -> bool:
        try:
            with self.engine.connect() as conn:
                conn.execute(select(1))
            return True
        except SQLAlchemyError:
            return False

    def reset(self) -> int | None:
        with self.engine.begin() as conn:
            removed = conn.execute(select(func.count()).select_from(RATE_COUNTERS)).scalar_one()
            conn.execute(delete(RATE_COUNTERS))
        return int(removed)

    def clear(self, key: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(RATE_COUNTERS).where(RATE_COUNTERS.c.name == bounded_name(key)))

    # -- the sliding window counter: a count per window of ``expiry`` seconds, the
    # previous window weighted by how much of it still overlaps the last ``expiry``
    # seconds (the library's strategy adds them up)

    @staticmethod
    def _window_keys(key: str, expiry: int, now: float) -> tuple[str, str]:
        return f"{key}/{math.floor((now - expiry) / expiry)}", f"{key}/{math.floor(now / expiry)}"

    def _window(self, key: str, expiry: int, now: float) -> tuple[int, float, int, float]:
        previous, current = self._window_keys(key, expiry, now)
        live = self._live([previous, current])
        previous_count = live.get(previous, (0, 0))[0]
        current_count = live.get(current, (0, 0))[0]
        # the share of the previous window still inside the last ``expiry`` seconds
        previous_ttl = (1 - ((now - expiry) / expiry) % 1) * expiry if previous_count else 0.0
        current_ttl = (1 - (now / expiry) % 1) * expiry + expiry
        return previous_count, previous_ttl, current_count, current_ttl

    def get_sliding_window(self, key: str, expiry: int) -> tuple[int, float, int, float]:
        return self._window(key, expiry, self.clock())

    def acquire_sliding_window_entry(
        self, key: str, limit: int, expiry: int, amount: int = 1
    ) -> bool:
        if amount > limit:
            return False
        now = self.clock()
        previous_count, previous_ttl, current_count, _ = self._window(key, expiry, now)
        if math.floor(previous_count * previous_ttl / expiry + current_count) + amount > limit:
            return False
        _, current = self._window_keys(key, expiry, now)
        # the current window's count is needed until the end of the next window
        counted = self.incr(current, 2 * expiry, amount)
        if math.floor(previous_count * previous_ttl / expiry + counted) > limit:
            # another process took the last entries between the read and the
            # increment: give these back and refuse
            self.incr(current, 2 * expiry, -amount)
            return False
        return True

    def clear_sliding_window(self, key: str, expiry: int) -> None:
        previous, current = self._window_keys(key, expiry, self.clock())
        with self.engine.begin() as conn:
            names = [bounded_name(previous), bounded_name(current)]
            conn.execute(delete(RATE_COUNTERS).where(RATE_COUNTERS.c.name.in_(names)))
