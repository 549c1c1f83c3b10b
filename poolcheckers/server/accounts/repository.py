"""Accounts and sessions in the database: :class:`~poolcheckers.server.accounts.model.UserStore`
and :class:`~poolcheckers.server.accounts.sessions.SessionStore` over ``users`` and
``sessions``.  They meet the same contract tests as the in-memory stores
(``tests/server/test_store_contracts.py``); ``username_key`` is UNIQUE, so the
guarantee holds across server processes.  The methods block (SQLAlchemy's sync
API): callers run them on the database executor.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from poolcheckers.server.accounts.model import Holdings, User, fold
from poolcheckers.server.accounts.sessions import Session
from poolcheckers.server.accounts.tokens import ApiToken
from poolcheckers.server.database.engine import single_reads
from poolcheckers.server.database.executor import read
from poolcheckers.server.database.tables import (
    API_TOKENS,
    CHALLENGES,
    GAMES,
    PASSWORD_RESETS,
    SEEKS,
    SESSIONS,
    TOURNAMENT_PLAYERS,
    TOURNAMENTS,
    USERS,
    to_ms,
    to_s,
)

# The statements every signed-in request runs, built once: building a statement costs
# SQLAlchemy about twice what executing it costs against SQLite.
_SESSION_BY_DIGEST = select(SESSIONS).where(SESSIONS.c.digest == bindparam("digest"))
_USER_BY_ID = select(USERS).where(USERS.c.id == bindparam("user_id"))
_TOKEN_BY_DIGEST = select(API_TOKENS).where(API_TOKENS.c.digest == bindparam("digest"))
#: who a request is: its session and the session's account in one statement (the
#: account's columns prefixed ``u_``; none when the account is gone)
_SESSION_USER = (
    select(SESSIONS, *[c.label("u_" + c.name) for c in USERS.c])
    .select_from(SESSIONS.outerjoin(USERS, USERS.c.id == SESSIONS.c.user_id))
    .where(SESSIONS.c.digest == bindparam("digest"))
)


def _user_of_row(row: Any, prefix: str = "") -> User:
    return User(
        row[prefix + "id"],
        row[prefix + "username"],
        row[prefix + "username_key"],
        row[prefix + "password_hash"],
        to_s(row[prefix + "created_ms"]),
        bool(row[prefix + "bot"]),
        row[prefix + "locale"],
    )


def _holdings(conn: Connection, user_id: str, now_ms: int) -> Holdings:
    """What the account holds (:class:`Holdings`): the seeks and challenges in one
    statement with the games, so that a seek taken meanwhile is counted as the seek
    or as its game."""
    tp, c, g = TOURNAMENT_PLAYERS.c, CHALLENGES.c, GAMES.c
    events = conn.execute(
        select(TOURNAMENTS.c.name)
        .join(TOURNAMENT_PLAYERS, tp.tournament_id == TOURNAMENTS.c.id)
        .where(
            tp.user_id == user_id,
            tp.withdrawn_ms.is_(None),
            tp.invitation.is_(None),  # an invitation not accepted holds nothing
            TOURNAMENTS.c.status != "finished",
        )
        .order_by(TOURNAMENTS.c.name)
    )
    names = tuple(str(name) for (name,) in events)

    def count(table: Any, *where: Any) -> Any:
        return select(func.count()).select_from(table).where(*where).scalar_subquery()

    seeks, challenges, games = conn.execute(
        select(
            count(SEEKS, SEEKS.c.author_user_id == user_id),
            count(
                CHALLENGES,
                or_(c.challenger_id == user_id, c.challenged_id == user_id),
                c.status == "open",
                c.expires_ms > now_ms,
            ),
            count(GAMES, or_(g.black_user_id == user_id, g.white_user_id == user_id)),
        )
    ).one()
    return Holdings(names, int(seeks), int(challenges), int(games))


def bots_among(conn: Connection, user_ids: Iterable[str]) -> frozenset[str]:
    """Which of these accounts are bots, read in the caller's transaction with their
    rows locked to its end (PostgreSQL ``FOR SHARE``; with SQLite, call it after the
    transaction's first write, which holds the one writer's lock): whoever writes
    what a person holds (a seek, an event's entry, a challenge) and then asks this
    cannot miss an account becoming a bot at the same time (:meth:`DbUserStore.make_bot`)."""
    query = select(USERS.c.id, USERS.c.bot).where(USERS.c.id.in_(sorted(set(user_ids))))
    rows = conn.execute(query.with_for_update(read=True))
    return frozenset(str(user_id) for user_id, bot in rows if bot)


def _session_of_row(row: Any) -> Session:
    return Session(
        row["digest"], row["user_id"], to_s(row["created_ms"]), to_s(row["last_seen_ms"])
    )


class DbUserStore:
    """Accounts in ``users``; ``username_key`` is UNIQUE (case-insensitive names), and
    so is ``username_fold`` (names that read alike), in every server process."""

    def __init__(self, db: Engine) -> None:
        self.db = db
        #: one-statement reads, outside a transaction
        self.reads = single_reads(db)

    @staticmethod
    def _user(row: Any) -> User:
        return _user_of_row(row)

    def add(self, user: User) -> bool:
        try:
            with self.db.begin() as conn:
                conn.execute(
                    insert(USERS).values(
                        id=user.id,
                        username=user.username,
                        username_key=user.key,
                        password_hash=user.password_hash,
                        created_ms=to_ms(user.created),
                        username_fold=fold(user.username),
                    )
                )
        except IntegrityError:
            return False
        return True

    def make_bot(self, user_id: str, now_ms: int) -> Holdings:
        """Turn the account into a bot (never back), unless it holds an event's entry,
        an open seek or challenge, or has games: then nothing changes and the answer
        says what it holds (empty when it became a bot).

        The account's row is written first, so that it is held to the commit (a row
        lock with PostgreSQL, the one writer's lock with SQLite): an entry, a seek or
        a challenge made at the same time, in any process, either committed before
        and is counted here, or reads the account under a lock (:func:`bots_among`)
        after this commit and is refused as a bot's."""
        with self.db.connect() as conn, conn.begin() as tx:
            conn.execute(update(USERS).where(USERS.c.id == user_id).values(bot=True))
            holds = _holdings(conn, user_id, now_ms)
            if holds.held:
                tx.rollback()
        return holds

    def set_locale(self, user_id: str, locale: str | None) -> None:
        """Remember the account's language (None: the browser's)."""
        with self.db.begin() as conn:
            conn.execute(update(USERS).where(USERS.c.id == user_id).values(locale=locale))

    def _one(self, where: Any) -> User | None:
        with self.db.connect() as conn:
            row = conn.execute(select(USERS).where(where)).mappings().first()
        return None if row is None else self._user(row)

    def by_key(self, key: str) -> User | None:
        return self._one(USERS.c.username_key == key)

    def by_id(self, user_id: str) -> User | None:
        with read(self.reads) as conn:
            row = conn.execute(_USER_BY_ID, {"user_id": user_id}).mappings().first()
        return None if row is None else self._user(row)

    def by_keys(self, keys: set[str]) -> dict[str, User]:
        """The accounts of many names at once (a tournament's players), by key."""
        if not keys:
            return {}
        with self.db.connect() as conn:
            rows = conn.execute(select(USERS).where(USERS.c.username_key.in_(sorted(keys))))
            return {r["username_key"]: self._user(r) for r in rows.mappings()}

    def names(self, user_ids: set[str]) -> dict[str, str]:
        """Usernames by account id (for game pages and lists)."""
        if not user_ids:
            return {}
        with self.db.connect() as conn:
            rows = conn.execute(
                select(USERS.c.id, USERS.c.username).where(USERS.c.id.in_(sorted(user_ids)))
            )
            return {r[0]: r[1] for r in rows}

    def set_password_hash(self, user_id: str, old_hash: str, new_hash: str) -> bool:
        with self.db.begin() as conn:
            result = conn.execute(
                update(USERS)
                .where(USERS.c.id == user_id, USERS.c.password_hash == old_hash)
                .values(password_hash=new_hash)
            )
            return result.rowcount == 1

    def set_reset(self, user_id: str, code_hash: str, expires: float) -> None:
        with self.db.begin() as conn:
            conn.execute(delete(PASSWORD_RESETS).where(PASSWORD_RESETS.c.user_id == user_id))
            conn.execute(
                insert(PASSWORD_RESETS).values(
                    user_id=user_id, code_hash=code_hash, expires_ms=int(expires * 1000)
                )
            )

    def reset_of(self, user_id: str) -> tuple[str, float] | None:
        query = select(PASSWORD_RESETS).where(PASSWORD_RESETS.c.user_id == user_id)
        with self.db.connect() as conn:
            row = conn.execute(query).mappings().first()
        return None if row is None else (row["code_hash"], row["expires_ms"] / 1000)

    def drop_reset(self, user_id: str, code_hash: str) -> bool:
        with self.db.begin() as conn:
            gone = conn.execute(
                delete(PASSWORD_RESETS).where(
                    PASSWORD_RESETS.c.user_id == user_id,
                    PASSWORD_RESETS.c.code_hash == code_hash,
                )
            )
        return gone.rowcount == 1


class DbSessionStore:
    """Sessions in ``sessions``, keyed by the token's SHA-256 (never the token)."""

    def __init__(self, db: Engine) -> None:
        self.db = db
        #: one-statement reads, outside a transaction
        self.reads = single_reads(db)

    def insert(self, session: Session) -> None:
        with self.db.begin() as conn:
            conn.execute(
                insert(SESSIONS).values(
                    digest=session.digest,
                    user_id=session.user_id,
                    created_ms=to_ms(session.created),
                    last_seen_ms=to_ms(session.last_seen),
                )
            )

    def get(self, digest: str) -> Session | None:
        with read(self.reads) as conn:
            row = conn.execute(_SESSION_BY_DIGEST, {"digest": digest}).mappings()
            found = row.first()
        return None if found is None else _session_of_row(found)

    def session_user(self, digest: str) -> tuple[Session, User | None] | None:
        """The session of ``digest`` and its account, in one statement
        (:class:`~poolcheckers.server.accounts.model.SessionUserStore`)."""
        with read(self.reads) as conn:
            row = conn.execute(_SESSION_USER, {"digest": digest}).mappings().first()
        if row is None:
            return None
        user = None if row["u_id"] is None else _user_of_row(row, "u_")
        return _session_of_row(row), user

    def touch(self, digest: str, at: float) -> None:
        with self.db.begin() as conn:
            conn.execute(
                update(SESSIONS).where(SESSIONS.c.digest == digest).values(last_seen_ms=to_ms(at))
            )

    def delete(self, digest: str) -> bool:
        with self.db.begin() as conn:
            return conn.execute(delete(SESSIONS).where(SESSIONS.c.digest == digest)).rowcount == 1

    def delete_user(self, user_id: str) -> int:
        with self.db.begin() as conn:
            return int(conn.execute(delete(SESSIONS).where(SESSIONS.c.user_id == user_id)).rowcount)


class DbTokenStore:
    """Personal API tokens in ``api_tokens``, keyed by the token's SHA-256."""

    def __init__(self, db: Engine) -> None:
        self.db = db

    @staticmethod
    def _token(row: Any) -> ApiToken:
        last = row["last_used_ms"]
        return ApiToken(
            row["digest"],
            row["user_id"],
            row["label"],
            frozenset(row["scopes"].split()),
            to_s(row["created_ms"]),
            None if last is None else to_s(last),
        )

    def insert(self, token: ApiToken) -> None:
        with self.db.begin() as conn:
            conn.execute(
                insert(API_TOKENS).values(
                    digest=token.digest,
                    user_id=token.user_id,
                    label=token.label,
                    scopes=" ".join(sorted(token.scopes)),
                    created_ms=to_ms(token.created),
                )
            )

    def of_user(self, user_id: str) -> list[ApiToken]:
        query = (
            select(API_TOKENS)
            .where(API_TOKENS.c.user_id == user_id)
            .order_by(API_TOKENS.c.created_ms, API_TOKENS.c.digest)
        )
        with self.db.connect() as conn:
            return [self._token(r) for r in conn.execute(query).mappings()]

    def by_digest(self, digest: str) -> ApiToken | None:
        with self.db.connect() as conn:
            row = conn.execute(_TOKEN_BY_DIGEST, {"digest": digest}).mappings().first()
        return None if row is None else self._token(row)

    def touch(self, digest: str, at: float) -> None:
        with self.db.begin() as conn:
            conn.execute(
                update(API_TOKENS)
                .where(API_TOKENS.c.digest == digest)
                .values(last_used_ms=to_ms(at))
            )

    def revoke(self, user_id: str, token_id: str) -> bool:
        if len(token_id) != 12 or not token_id.isalnum():
            return False
        with self.db.begin() as conn:
            gone = conn.execute(
                delete(API_TOKENS).where(
                    API_TOKENS.c.user_id == user_id,
                    API_TOKENS.c.digest.startswith(token_id, autoescape=True),
                )
            )
        return gone.rowcount > 0

    def revoke_all(self, user_id: str) -> int:
        with self.db.begin() as conn:
            gone = conn.execute(delete(API_TOKENS).where(API_TOKENS.c.user_id == user_id))
        return int(gone.rowcount)
