"""Challenges and blocks in the database (``challenges``, ``blocks``).  A challenge's
status moves from ``open`` by ``UPDATE ... WHERE status = 'open'``: of any number of
answers, in any number of processes, one counts.  The methods block: callers run
them on the database executor."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from poolcheckers.server.accounts.repository import bots_among
from poolcheckers.server.challenges.model import Challenge
from poolcheckers.server.database.tables import BLOCKS, CHALLENGES
from poolcheckers.server.lobby.model import SeekSpec

_C = CHALLENGES
_SPEC_KEYS = frozenset({"clock", "rated", "color", "rules"})


def _challenge(row: Any) -> Challenge:
    spec = SeekSpec.from_dict({k: v for k, v in row["spec"].items() if k in _SPEC_KEYS})
    return Challenge(
        id=row["id"],
        challenger_id=row["challenger_id"],
        challenger=row["challenger"],
        challenged_id=row["challenged_id"],
        challenged=row["challenged"],
        spec=spec,
        status=row["status"],
        reason=row["reason"],
        game_id=row["game_id"],
        created_ms=row["created_ms"],
        expires_ms=row["expires_ms"],
    )


class DbChallengeStore:
    def __init__(self, db: Engine) -> None:
        self.db = db

    def insert(self, c: Challenge, bots: frozenset[str] = frozenset()) -> bool:
        """Store the new challenge, unless which of its two accounts are bots is no
        longer ``bots`` (as the sender read them): False, nothing stored.  Read
        under a lock after the write, so an account becoming a bot at the same time
        is seen (:func:`~poolcheckers.server.accounts.repository.bots_among`)."""
        with self.db.connect() as conn, conn.begin() as tx:
            conn.execute(
                insert(_C).values(
                    id=c.id,
                    challenger_id=c.challenger_id,
                    challenger=c.challenger,
                    challenged_id=c.challenged_id,
                    challenged=c.challenged,
                    spec=c.spec.to_dict(),
                    status=c.status,
                    reason=None,
                    game_id=None,
                    created_ms=c.created_ms,
                    expires_ms=c.expires_ms,
                )
            )
            if bots_among(conn, [c.challenger_id, c.challenged_id]) != bots:
                tx.rollback()
                return False
        return True

    def get(self, cid: str) -> Challenge | None:
        with self.db.connect() as conn:
            row = conn.execute(select(_C).where(_C.c.id == cid)).mappings().first()
        return None if row is None else _challenge(row)

    def open_from(self, user_id: str, now_ms: int) -> int:
        query = select(func.count()).where(
            _C.c.challenger_id == user_id, _C.c.status == "open", _C.c.expires_ms > now_ms
        )
        with self.db.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def of(self, user_id: str, since_ms: int) -> list[Challenge]:
        """The user's challenges, sent and received, open or answered since ``since_ms``."""
        query = (
            select(_C)
            .where(
                or_(_C.c.challenger_id == user_id, _C.c.challenged_id == user_id),
                or_(_C.c.status == "open", _C.c.created_ms >= since_ms),
            )
            .order_by(_C.c.created_ms.desc())
            .limit(100)
        )
        with self.db.connect() as conn:
            return [_challenge(r) for r in conn.execute(query).mappings()]

    @staticmethod
    def settle(conn: Connection, cid: str, now_ms: int, status: str, **values: Any) -> bool:
        """Move an open, unexpired challenge to ``status`` in the caller's transaction:
        True for the one caller that did."""
        done = conn.execute(
            update(_C)
            .where(_C.c.id == cid, _C.c.status == "open", _C.c.expires_ms > now_ms)
            .values(status=status, **values)
        )
        return done.rowcount == 1

    def settle_now(self, cid: str, now_ms: int, status: str, **values: Any) -> bool:
        with self.db.begin() as conn:
            return self.settle(conn, cid, now_ms, status, **values)

    def cancel_between(self, one: str, other: str) -> int:
        """Open challenges between two players are cancelled (one blocked the other)."""
        pair = or_(
            and_(_C.c.challenger_id == one, _C.c.challenged_id == other),
            and_(_C.c.challenger_id == other, _C.c.challenged_id == one),
        )
        with self.db.begin() as conn:
            return conn.execute(
                update(_C).where(pair, _C.c.status == "open").values(status="cancelled")
            ).rowcount

    # ------------------------------------------------------------------ blocks
    def block(self, user_id: str, blocked_id: str, now_ms: int) -> None:
        try:
            with self.db.begin() as conn:
                conn.execute(
                    insert(BLOCKS).values(user_id=user_id, blocked_id=blocked_id, created_ms=now_ms)
                )
        except IntegrityError:
            pass  # blocked already

    def unblock(self, user_id: str, blocked_id: str) -> None:
        with self.db.begin() as conn:
            conn.execute(
                delete(BLOCKS).where(BLOCKS.c.user_id == user_id, BLOCKS.c.blocked_id == blocked_id)
            )

    def blocks(self, user_id: str, blocked_id: str) -> bool:
        query = select(BLOCKS.c.user_id).where(
            BLOCKS.c.user_id == user_id, BLOCKS.c.blocked_id == blocked_id
        )
        with self.db.connect() as conn:
            return conn.execute(query).first() is not None

    def blocked_by(self, user_id: str) -> list[str]:
        query = select(BLOCKS.c.blocked_id).where(BLOCKS.c.user_id == user_id)
        with self.db.connect() as conn:
            return [r[0] for r in conn.execute(query)]
