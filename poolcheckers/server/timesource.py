"""The time source of the server (milliseconds since the epoch), injectable so that
tests move time by hand; the game clocks and every timestamp read it.

>>> c = ManualTime(1_000)
>>> c.now_ms()
1000
>>> c.advance(2.5)
>>> c.now_ms()
3500
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class TimeSource(Protocol):
    """Where the server reads the time."""

    def now_ms(self) -> int: ...


class SystemTime:
    """The real time."""

    def now_ms(self) -> int:
        return int(time.time() * 1000)


class ManualTime:
    """A time source that only moves when told to (tests)."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self._now = start_ms
        self._lock = threading.Lock()

    def now_ms(self) -> int:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += round(seconds * 1000)
