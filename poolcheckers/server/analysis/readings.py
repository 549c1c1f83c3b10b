"""Reading PDN for the analysis board (``POST /api/analysis/pdn``), shared fairly.

Reading a long PDN text costs seconds of CPU, so three bounds hold, cheapest refusal
first: readings per client address per minute (counted in the shared quotas, so every
server process enforces one limit; 429), one reading at a time per address (a lease in
the same store; 429), and a few readings at once per process (503 ``overloaded`` with
``Retry-After`` at once rather than a queue).  One address therefore never holds every
place of a process, and another visitor's short text is read at once.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import Any

import anyio.to_thread

from poolcheckers import RuleSet
from poolcheckers.server import errors
from poolcheckers.server.api.schemas import PdnReadResult
from poolcheckers.server.games import pdn as stored_pdn
from poolcheckers.server.i18n import M_
from poolcheckers.server.quotas import Quotas, Rate
from poolcheckers.server.throttle import address_key

#: seconds after which a refused (busy) reading is told to try again
BUSY_RETRY_AFTER = 2
#: a reading's lease lapses after this long if its process dies while reading
READING_LEASE_S = 120.0


class PdnReadings:
    """The readings of PDN for analysis, over ``quotas`` (database work through
    ``run_db``, the site's database executor)."""

    def __init__(
        self,
        quotas: Quotas,
        run_db: Callable[..., Awaitable[Any]],
        *,
        at_once: int,
        per_minute: int,
    ) -> None:
        self.quotas = quotas
        self.run_db = run_db
        self.rate = Rate("analysis:pdn", per_minute, 60)
        self.running = threading.BoundedSemaphore(max(1, at_once))

    async def read(self, address: str, text: str, rules: RuleSet) -> PdnReadResult:
        """The games of ``text`` for the analysis board, read for the client ``address``,
        or ``rate_limited`` / ``overloaded`` (nothing read)."""
        where = address_key(address)
        decision = await self.run_db(self.quotas.hit, self.rate, where)
        if not decision.allowed:
            raise errors.limit_reached(
                M_("at most {limit} PDN readings a minute from one address", limit=self.rate.limit),
                decision.retry_after,
            )
        slots = self.quotas.slots
        lease = await self.run_db(slots.take, f"pdn-reading:{where}", 1, READING_LEASE_S)
        if lease is None:
            raise errors.rate_limited(
                M_("one PDN reading at a time from one address: wait for the last one"),
                BUSY_RETRY_AFTER,
            )
        try:
            if not self.running.acquire(blocking=False):
                raise errors.ApiError(
                    503,
                    "overloaded",
                    M_("busy reading other PDN: try again shortly"),
                    BUSY_RETRY_AFTER,
                )
            try:
                result: PdnReadResult = await anyio.to_thread.run_sync(
                    stored_pdn.read_for_analysis, text, rules
                )
                return result
            finally:
                self.running.release()
        finally:
            await self.run_db(slots.give_back, lease)
