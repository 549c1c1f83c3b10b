"""Things a client may hold only so many of at once (analyses running, say), counted
across every server process of a site.

A slot is a lease: a row of ``slot_leases`` naming what it counts against and when
it lapses.  A lease that its process never gave back (the process died) lapses by
itself, so a crash cannot shut a client out for good.  Taking a slot is one
conditional ``INSERT … SELECT`` (count the live leases, insert when under the
limit); on PostgreSQL a transaction-scoped advisory lock on the name first makes
concurrent takers from several processes wait their turn, so they cannot both see
the last free slot.  SQLite serialises its writers already.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable

from sqlalchemy import Engine, delete, func, select, text, update

from poolcheckers.server.database.tables import SLOT_LEASES

from .storage import bounded_name

_TAKE = text(
    """
    INSERT INTO slot_leases (lease, name, expires_ms)
    SELECT CAST(:lease AS VARCHAR(32)), CAST(:name AS VARCHAR(255)), CAST(:expires AS BIGINT)
    WHERE (SELECT count(*) FROM slot_leases
           WHERE name = :name AND expires_ms > :now) < :limit
    """
)


class Slots:
    """Leases per name over ``engine``; ``clock`` returns seconds."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.clock = clock
        self.postgres = engine.dialect.name == "postgresql"

    def _now_ms(self) -> int:
        return math.floor(self.clock() * 1000)

    def take(
        self, name: str, limit: int, seconds: float, *, lease: str | None = None
    ) -> str | None:
        """A lease on one of ``limit`` slots of ``name`` for ``seconds``, or None when
        all are held.  ``lease`` names it (at most 32 characters, unique: a game's
        lease is found again by its game); by default a random one."""
        name = bounded_name(name)
        lease = lease if lease is not None else secrets.token_hex(16)
        if not 0 < len(lease) <= 32:
            raise ValueError(f"a lease is named by 1 to 32 characters, not {lease!r}")
        now = self._now_ms()
        c = SLOT_LEASES.c
        with self.engine.begin() as conn:
            if self.postgres:
                conn.execute(
                    text("SELECT pg_advisory_xact_lock(hashtextextended(:name, 0))"),
                    {"name": name},
                )
            conn.execute(delete(SLOT_LEASES).where(c.name == name, c.expires_ms <= now))
            taken = conn.execute(
                _TAKE,
                {
                    "lease": lease,
                    "name": name,
                    "expires": now + math.ceil(seconds * 1000),
                    "now": now,
                    "limit": limit,
                },
            ).rowcount
        return lease if taken == 1 else None

    def extend(self, lease: str, seconds: float) -> bool:
        """Make ``lease`` last ``seconds`` from now; False if it had lapsed or was given back."""
        now = self._now_ms()
        c = SLOT_LEASES.c
        with self.engine.begin() as conn:
            changed = conn.execute(
                update(SLOT_LEASES)
                .where(c.lease == lease, c.expires_ms > now)
                .values(expires_ms=now + math.ceil(seconds * 1000))
            ).rowcount
        return changed == 1

    def give_back(self, lease: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(SLOT_LEASES).where(SLOT_LEASES.c.lease == lease))

    def held(self, name: str) -> int:
        """Leases of ``name`` that have not lapsed."""
        c = SLOT_LEASES.c
        query = (
            select(func.count())
            .select_from(SLOT_LEASES)
            .where(c.name == bounded_name(name), c.expires_ms > self._now_ms())
        )
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar_one())
