"""The community stores in the database: accounts, sessions, ratings and seeks.

Each class implements one protocol of :mod:`poolcheckers.community`
(:class:`~poolcheckers.server.accounts.model.UserStore`,
:class:`~poolcheckers.server.accounts.sessions.SessionStore`,
:class:`~poolcheckers.server.ratings.model.RatingStore`,
:class:`~poolcheckers.server.lobby.model.LobbyStore`) over the tables of migration
``0002`` (docs/COMMUNITY.md, "Tables"), and meets the same contract tests as the
in-memory stores (``tests/community/test_store_contracts.py``).  The guarantees
come from the database, so they hold across server processes:

- a username's ``username_key`` is UNIQUE;
- a rating update's primary key is its game id, and each rating changes only if
  its ``games`` count is still the one the update was computed from;
- a seek is taken by ``DELETE ... RETURNING``: one caller gets the row.

The methods block (SQLAlchemy's sync API); the web layer calls them in threads.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from poolcheckers.server.accounts.model import User
from poolcheckers.server.accounts.sessions import Session
from poolcheckers.server.database.engine import GAMES, METADATA
from poolcheckers.server.games.timecontrol import Category
from poolcheckers.server.lobby.model import Player, Seek, SeekSpec
from poolcheckers.server.ratings.model import LICHESS, Glicko, Perf, RatingSystem, RatingUpdate

USERS = Table(
    "users",
    METADATA,
    Column("id", String(16), primary_key=True),
    Column("username", String(20), nullable=False),
    Column("username_key", String(20), nullable=False, unique=True),
    Column("password_hash", Text, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
)

SESSIONS = Table(
    "sessions",
    METADATA,
    Column("digest", String(64), primary_key=True),
    Column(
        "user_id",
        String(16),
        ForeignKey("users.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("created_ms", BigInteger, nullable=False),
    Column("last_seen_ms", BigInteger, nullable=False),
)

RATINGS = Table(
    "ratings",
    METADATA,
    Column("user_id", String(16), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("category", String(16), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("last_played_ms", BigInteger, nullable=True),
    Index("ix_ratings_category_rating", "category", "rating"),
)

_PERF_FIELDS = ("rating", "deviation", "volatility", "games", "last_played_ms")
RATING_UPDATES = Table(
    "rating_updates",
    METADATA,
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("category", String(16), nullable=False),
    Column("black_user_id", String(16), nullable=False, index=True),
    Column("white_user_id", String(16), nullable=False, index=True),
    *[
        Column(
            f"{side}_{when}_{name}",
            {"games": Integer, "last_played_ms": BigInteger}.get(name, Float),
            nullable=name == "last_played_ms",
        )
        for side in ("black", "white")
        for when in ("before", "after")
        for name in _PERF_FIELDS
    ],
    Column("created_ms", BigInteger, nullable=False),
)

SEEKS = Table(
    "seeks",
    METADATA,
    Column("id", String(16), primary_key=True),
    Column("author_id", String(64), nullable=False, index=True),
    Column("author_user_id", String(16), ForeignKey("users.id", ondelete="CASCADE")),
    Column("author_name", String(20), nullable=True),
    Column("spec", JSON, nullable=False),
    Column("author_perf", JSON, nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("seen_ms", BigInteger, nullable=False),
    Index("ix_seeks_created", "created_ms"),
)


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _s(ms: int) -> float:
    return ms / 1000


class _Refused(Exception):
    """A compare-and-set inside a transaction failed: roll back."""


# ---------------------------------------------------------------- users, sessions
class DbUserStore:
    """Accounts in ``users``; ``username_key`` is UNIQUE (case-insensitive names)."""

    def __init__(self, db: Engine) -> None:
        self.db = db

    @staticmethod
    def _user(row: Any) -> User:
        return User(
            row["id"],
            row["username"],
            row["username_key"],
            row["password_hash"],
            _s(row["created_ms"]),
        )

    def add(self, user: User) -> bool:
        try:
            with self.db.begin() as conn:
                conn.execute(
                    insert(USERS).values(
                        id=user.id,
                        username=user.username,
                        username_key=user.key,
                        password_hash=user.password_hash,
                        created_ms=_ms(user.created),
                    )
                )
        except IntegrityError:
            return False
        return True

    def _one(self, where: Any) -> User | None:
        with self.db.connect() as conn:
            row = conn.execute(select(USERS).where(where)).mappings().first()
        return None if row is None else self._user(row)

    def by_key(self, key: str) -> User | None:
        return self._one(USERS.c.username_key == key)

    def by_id(self, user_id: str) -> User | None:
        return self._one(USERS.c.id == user_id)

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


class DbSessionStore:
    """Sessions in ``sessions``, keyed by the token's SHA-256 (never the token)."""

    def __init__(self, db: Engine) -> None:
        self.db = db

    def insert(self, session: Session) -> None:
        with self.db.begin() as conn:
            conn.execute(
                insert(SESSIONS).values(
                    digest=session.digest,
                    user_id=session.user_id,
                    created_ms=_ms(session.created),
                    last_seen_ms=_ms(session.last_seen),
                )
            )

    def get(self, digest: str) -> Session | None:
        with self.db.connect() as conn:
            row = conn.execute(select(SESSIONS).where(SESSIONS.c.digest == digest)).mappings()
            found = row.first()
        if found is None:
            return None
        return Session(
            found["digest"], found["user_id"], _s(found["created_ms"]), _s(found["last_seen_ms"])
        )

    def touch(self, digest: str, at: float) -> None:
        with self.db.begin() as conn:
            conn.execute(
                update(SESSIONS).where(SESSIONS.c.digest == digest).values(last_seen_ms=_ms(at))
            )

    def delete(self, digest: str) -> bool:
        with self.db.begin() as conn:
            return conn.execute(delete(SESSIONS).where(SESSIONS.c.digest == digest)).rowcount == 1

    def delete_user(self, user_id: str) -> int:
        with self.db.begin() as conn:
            return int(conn.execute(delete(SESSIONS).where(SESSIONS.c.user_id == user_id)).rowcount)


# ---------------------------------------------------------------- ratings
def _perf_values(perf: Perf) -> dict[str, Any]:
    return {
        "rating": perf.glicko.rating,
        "deviation": perf.glicko.deviation,
        "volatility": perf.glicko.volatility,
        "games": perf.games,
        "last_played_ms": None if perf.last_played is None else _ms(perf.last_played),
    }


def _perf(row: Any, prefix: str = "") -> Perf:
    last = row[prefix + "last_played_ms"]
    return Perf(
        Glicko(row[prefix + "rating"], row[prefix + "deviation"], row[prefix + "volatility"]),
        row[prefix + "games"],
        None if last is None else _s(last),
    )


class DbRatingStore:
    """Ratings in ``ratings``, one row per player and category (no row: a new player),
    and every update in ``rating_updates`` under its game id (exactly once)."""

    def __init__(self, db: Engine, system: RatingSystem = LICHESS) -> None:
        self.db = db
        self.system = system

    def perf(self, player: str, category: Category) -> Perf:
        with self.db.connect() as conn:
            row = (
                conn.execute(
                    select(RATINGS).where(
                        RATINGS.c.user_id == player, RATINGS.c.category == category.value
                    )
                )
                .mappings()
                .first()
            )
        return self.system.new_perf() if row is None else _perf(row)

    def perfs(self, player: str) -> dict[Category, Perf]:
        """Every category the player has a rating in."""
        with self.db.connect() as conn:
            rows = conn.execute(select(RATINGS).where(RATINGS.c.user_id == player)).mappings()
            return {Category(r["category"]): _perf(r) for r in rows}

    @staticmethod
    def _update(row: Any) -> RatingUpdate:
        return RatingUpdate(
            row["game_id"],
            Category(row["category"]),
            row["black_user_id"],
            row["white_user_id"],
            _perf(row, "black_before_"),
            _perf(row, "black_after_"),
            _perf(row, "white_before_"),
            _perf(row, "white_after_"),
        )

    def applied(self, game_id: str) -> RatingUpdate | None:
        with self.db.connect() as conn:
            row = (
                conn.execute(select(RATING_UPDATES).where(RATING_UPDATES.c.game_id == game_id))
                .mappings()
                .first()
            )
        return None if row is None else self._update(row)

    def history(self, player: str, category: Category) -> list[RatingUpdate]:
        """The player's rating updates in one category, oldest first."""
        u = RATING_UPDATES.c
        with self.db.connect() as conn:
            rows = conn.execute(
                select(RATING_UPDATES)
                .where(
                    (u.black_user_id == player) | (u.white_user_id == player),
                    u.category == category.value,
                )
                .order_by(u.created_ms, u.game_id)
            ).mappings()
            return [self._update(r) for r in rows]

    @staticmethod
    def _set(conn: Connection, user: str, category: Category, before: Perf, after: Perf) -> None:
        values = _perf_values(after)
        if before.games == 0:  # a new player: the first rated game inserts the row
            try:
                conn.execute(
                    insert(RATINGS).values(user_id=user, category=category.value, **values)
                )
            except IntegrityError as exc:
                raise _Refused from exc  # another game got there first
            return
        changed = conn.execute(
            update(RATINGS)
            .where(
                RATINGS.c.user_id == user,
                RATINGS.c.category == category.value,
                RATINGS.c.games == before.games,
            )
            .values(**values)
        ).rowcount
        if changed != 1:
            raise _Refused

    def commit(self, update: RatingUpdate) -> bool:
        """One transaction: a failed insert or compare-and-set rolls all of it back."""
        row: dict[str, Any] = {
            "game_id": update.game_id,
            "category": update.category.value,
            "black_user_id": update.black,
            "white_user_id": update.white,
            "created_ms": _ms(update.black_after.last_played or 0.0),
        }
        for side, before, after in (
            ("black", update.black_before, update.black_after),
            ("white", update.white_before, update.white_after),
        ):
            for when, perf in (("before", before), ("after", after)):
                for name, value in _perf_values(perf).items():
                    row[f"{side}_{when}_{name}"] = value
        try:
            with self.db.begin() as conn:
                try:
                    conn.execute(insert(RATING_UPDATES).values(row))
                except IntegrityError as exc:
                    raise _Refused from exc  # this game was rated already
                self._set(
                    conn, update.black, update.category, update.black_before, update.black_after
                )
                self._set(
                    conn, update.white, update.category, update.white_before, update.white_after
                )
        except _Refused:
            return False
        return True


# ---------------------------------------------------------------- seeks
_SPEC_KEYS = frozenset({"clock", "rated", "color", "rules", "rating_range"})


def _perf_json(perf: Perf | None) -> dict[str, Any] | None:
    return None if perf is None else _perf_values(perf)


class DbLobbyStore:
    """Open seeks in ``seeks``; :meth:`take` is ``DELETE ... RETURNING``, so exactly one
    caller takes a seek, in any number of processes."""

    def __init__(self, db: Engine) -> None:
        self.db = db

    @staticmethod
    def _seek(row: Any) -> Seek:
        perf = row["author_perf"]
        return Seek(
            row["id"],
            Player(row["author_id"], row["author_name"]),
            SeekSpec.from_dict({k: v for k, v in row["spec"].items() if k in _SPEC_KEYS}),
            _s(row["created_ms"]),
            None if perf is None else _perf(perf),
        )

    def insert(self, seek: Seek) -> None:
        author = seek.author
        with self.db.begin() as conn:
            conn.execute(
                insert(SEEKS).values(
                    id=seek.id,
                    author_id=author.id,
                    author_user_id=author.id if author.registered else None,
                    author_name=author.name,
                    spec=seek.spec.to_dict(),
                    author_perf=_perf_json(seek.author_perf),
                    created_ms=_ms(seek.created),
                    seen_ms=_ms(seek.created),
                )
            )

    def get(self, seek_id: str) -> Seek | None:
        with self.db.connect() as conn:
            row = conn.execute(select(SEEKS).where(SEEKS.c.id == seek_id)).mappings().first()
        return None if row is None else self._seek(row)

    def _list(self, where: Any = None) -> list[Seek]:
        query = select(SEEKS).order_by(SEEKS.c.created_ms, SEEKS.c.id)
        if where is not None:
            query = query.where(where)
        with self.db.connect() as conn:
            return [self._seek(r) for r in conn.execute(query).mappings()]

    def open_seeks(self) -> list[Seek]:
        return self._list()

    def by_author(self, author_id: str) -> list[Seek]:
        return self._list(SEEKS.c.author_id == author_id)

    def take(self, seek_id: str) -> Seek | None:
        with self.db.begin() as conn:
            row = (
                conn.execute(delete(SEEKS).where(SEEKS.c.id == seek_id).returning(*SEEKS.c))
                .mappings()
                .first()
            )
            return None if row is None else self._seek(row)

    @staticmethod
    def claim(conn: Connection, seek_id: str) -> bool:
        """Remove the seek in the caller's transaction (the game of a taken seek is
        stored in the same commit): True for the one caller that removed it."""
        return conn.execute(delete(SEEKS).where(SEEKS.c.id == seek_id)).rowcount == 1

    def touch_author(self, author_id: str, at: float) -> None:
        """The author is still in the lobby (a socket's ping): their seeks stay."""
        with self.db.begin() as conn:
            conn.execute(
                update(SEEKS).where(SEEKS.c.author_id == author_id).values(seen_ms=_ms(at))
            )

    def stale_authors(self, before: float) -> list[str]:
        """Authors whose seeks nobody has seen since ``before`` (their process died)."""
        with self.db.connect() as conn:
            rows = conn.execute(
                select(SEEKS.c.author_id).where(SEEKS.c.seen_ms < _ms(before)).distinct()
            )
            return [r[0] for r in rows]


# ---------------------------------------------------------------- player pages


def player_games_query(
    user_id: str,
    *,
    result: str | None = None,
    category: str | None = None,
    rated: bool | None = None,
) -> Any:
    """The player's games, newest first, filtered in SQL as
    :func:`poolcheckers.server.ratings.players.matches_filter` filters them."""
    g = GAMES.c
    black, white = g.black_user_id == user_id, g.white_user_id == user_id
    query = select(GAMES).where(black | white).order_by(g.created_ms.desc(), g.id)
    if category is not None:
        query = query.where(g.category == category)
    if rated is not None:
        query = query.where(g.rated.is_(rated))
    if result == "win":
        query = query.where((black & (g.winner == "black")) | (white & (g.winner == "white")))
    elif result == "loss":
        query = query.where((black & (g.winner == "white")) | (white & (g.winner == "black")))
    elif result == "draw":
        query = query.where(g.status == "finished", g.winner.is_(None), g.result.is_not(None))
    return query


def leaderboard_perfs(db: Engine, category: Category, since_ms: int) -> list[tuple[str, Perf]]:
    """(username, rating) of the category's players who played since ``since_ms`` and
    whose stored deviation is rankable (the live one is checked afterwards)."""
    query = (
        select(USERS.c.username, RATINGS)
        .join(USERS, USERS.c.id == RATINGS.c.user_id)
        .where(
            RATINGS.c.category == category.value,
            RATINGS.c.deviation <= 75.0,
            RATINGS.c.last_played_ms >= since_ms,
        )
        .order_by(RATINGS.c.rating.desc())
        .limit(1000)
    )
    with db.connect() as conn:
        return [(r["username"], _perf(r)) for r in conn.execute(query).mappings()]
