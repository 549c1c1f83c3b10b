"""Challenges, blocks and whom a player takes challenges from in the database
(``challenges``, ``blocks``, ``challenge_policies``).  A challenge's
status moves from ``open`` by ``UPDATE ... WHERE status = 'open'``: of any number of
answers, in any number of processes, one counts.  The methods block: callers run
them on the database executor."""

from __future__ import annotations

from typing import Any, Literal

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    ScalarSelect,
    and_,
    delete,
    func,
    insert,
    literal,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError

from poolcheckers.server.accounts.repository import bots_among
from poolcheckers.server.challenges.model import Challenge, Policy, policy_of
from poolcheckers.server.database.tables import BLOCKS, CHALLENGE_POLICIES, CHALLENGES, GAMES
from poolcheckers.server.lobby.model import SeekSpec

_C = CHALLENGES
_P = CHALLENGE_POLICIES
#: a lock on one player's challenges until the transaction ends (PostgreSQL)
_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended(:name, 0))")
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

    def insert(
        self, c: Challenge, max_sent: int, max_received: int, bots: frozenset[str] = frozenset()
    ) -> Literal["stored", "full", "bots"]:
        """Store the open challenge ``c`` when its challenger has fewer than ``max_sent``
        open challenges and the challenged fewer than ``max_received`` ("full", storing
        nothing, when either has the most), and which of its two accounts are bots is
        still ``bots`` as the sender read them ("bots", nothing stored: read under a
        lock after the write, so an account becoming a bot at the same time is seen,
        :func:`~poolcheckers.server.accounts.repository.bots_among`).

        The counts and the insert are one ``INSERT ... SELECT ... WHERE`` statement
        (SQLite runs a writing statement alone).  On PostgreSQL two such statements
        of two processes could both count before either inserts, so the statement
        first waits for transaction-scoped advisory locks on both players (taken in
        one order by every caller: no deadlock)."""
        values = {
            "id": c.id,
            "challenger_id": c.challenger_id,
            "challenger": c.challenger,
            "challenged_id": c.challenged_id,
            "challenged": c.challenged,
            "spec": c.spec.to_dict(),
            "status": c.status,
            "reason": None,
            "game_id": None,
            "created_ms": c.created_ms,
            "expires_ms": c.expires_ms,
        }
        row = select(*(literal(v, _C.c[k].type).label(k) for k, v in values.items())).where(
            self._open_count(_C.c.challenger_id == c.challenger_id, c.created_ms) < max_sent,
            self._open_count(_C.c.challenged_id == c.challenged_id, c.created_ms) < max_received,
        )
        with self.db.connect() as conn, conn.begin() as tx:
            if self.db.dialect.name == "postgresql":
                for user_id in sorted({c.challenger_id, c.challenged_id}):
                    conn.execute(_LOCK, {"name": f"challenges:{user_id}"})
            # the number of rows an INSERT ... SELECT inserted is not told on every
            # driver (psycopg: -1): the row it returns is
            done = conn.execute(insert(_C).from_select(list(values), row).returning(_C.c.id))
            if done.first() is None:
                return "full"
            if bots_among(conn, [c.challenger_id, c.challenged_id]) != bots:
                tx.rollback()
                return "bots"
        return "stored"

    @staticmethod
    def _open_count(whose: ColumnElement[bool], now_ms: int) -> ScalarSelect[int]:
        return (
            select(func.count())
            .select_from(_C)
            .where(whose, _C.c.status == "open", _C.c.expires_ms > now_ms)
            .scalar_subquery()
        )

    def get(self, cid: str) -> Challenge | None:
        with self.db.connect() as conn:
            row = conn.execute(select(_C).where(_C.c.id == cid)).mappings().first()
        return None if row is None else _challenge(row)

    def open_from(self, user_id: str, now_ms: int) -> int:
        """Open challenges ``user_id`` has sent."""
        with self.db.connect() as conn:
            return int(
                conn.execute(
                    select(self._open_count(_C.c.challenger_id == user_id, now_ms))
                ).scalar_one()
            )

    def open_to(self, user_id: str, now_ms: int) -> int:
        """Open challenges ``user_id`` has received."""
        with self.db.connect() as conn:
            return int(
                conn.execute(
                    select(self._open_count(_C.c.challenged_id == user_id, now_ms))
                ).scalar_one()
            )

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

    # ------------------------------------------------------------------ policies
    def policy(self, user_id: str) -> Policy:
        query = select(_P.c.accept).where(_P.c.user_id == user_id)
        with self.db.connect() as conn:
            accept = conn.execute(query).scalar_one_or_none()
        return policy_of(accept) if accept is not None else "everyone"

    def set_policy(self, user_id: str, policy: Policy, now_ms: int) -> None:
        with self.db.begin() as conn:
            changed = conn.execute(
                update(_P).where(_P.c.user_id == user_id).values(accept=policy, updated_ms=now_ms)
            ).rowcount
            if changed == 0:
                try:
                    with conn.begin_nested():
                        conn.execute(
                            insert(_P).values(user_id=user_id, accept=policy, updated_ms=now_ms)
                        )
                except IntegrityError:  # another request stored one meanwhile
                    conn.execute(
                        update(_P)
                        .where(_P.c.user_id == user_id)
                        .values(accept=policy, updated_ms=now_ms)
                    )

    def have_played(self, one: str, other: str) -> bool:
        """Whether the two players have a game together (any game, any outcome)."""
        pair = or_(
            and_(GAMES.c.black_user_id == one, GAMES.c.white_user_id == other),
            and_(GAMES.c.black_user_id == other, GAMES.c.white_user_id == one),
        )
        with self.db.connect() as conn:
            return conn.execute(select(GAMES.c.id).where(pair).limit(1)).first() is not None

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

    def blocking(self, user_ids: set[str], blocked_id: str) -> set[str]:
        """Those of ``user_ids`` who block ``blocked_id`` (an event's invitees who block
        its director), in one query per 500."""
        ids = sorted(user_ids)
        found: set[str] = set()
        with self.db.connect() as conn:
            for start in range(0, len(ids), 500):
                query = select(BLOCKS.c.user_id).where(
                    BLOCKS.c.user_id.in_(ids[start : start + 500]),
                    BLOCKS.c.blocked_id == blocked_id,
                )
                found.update(r[0] for r in conn.execute(query))
        return found

    def blocked_by(self, user_id: str) -> list[str]:
        query = select(BLOCKS.c.blocked_id).where(BLOCKS.c.user_id == user_id)
        with self.db.connect() as conn:
            return [r[0] for r in conn.execute(query)]
