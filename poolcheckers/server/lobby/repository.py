"""Open seeks in the database: :class:`~poolcheckers.server.lobby.model.LobbyStore` over
``seeks``.  A seek is taken by ``DELETE ... RETURNING``: one caller gets the row,
in any number of processes.  The methods block: callers run them on the database
executor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    and_,
    bindparam,
    delete,
    func,
    insert,
    select,
    update,
)

from poolcheckers.server.accounts.repository import bots_among
from poolcheckers.server.database.engine import single_reads
from poolcheckers.server.database.executor import read
from poolcheckers.server.database.tables import (
    PERF_FIELDS,
    RATINGS,
    SEEKS,
    USERS,
    to_ms,
    to_s,
)
from poolcheckers.server.domain_errors import SeekForbiddenError
from poolcheckers.server.games.repository import claimed_insert, rated_between
from poolcheckers.server.i18n import M_
from poolcheckers.server.lobby.model import LobbyPlayer, Seek, SeekSpec
from poolcheckers.server.ratings.model import Perf
from poolcheckers.server.ratings.repository import perf_of_row, perf_values

_SPEC_KEYS = frozenset({"clock", "rated", "color", "rules", "rating_range"})

# built once: the lobby's hot statements (a statement costs SQLAlchemy more to build
# than SQLite takes to run it)
_BY_ID = select(SEEKS).where(SEEKS.c.id == bindparam("id"))
_BY_AUTHORS = (
    select(SEEKS)
    .where(SEEKS.c.author_id.in_(bindparam("authors", expanding=True)))
    .order_by(SEEKS.c.created_ms, SEEKS.c.id)
)
_INSERT = insert(SEEKS)
_TAKEN = SEEKS.alias("taken")
_AUTHOR = USERS.alias("author")
_TAKER = USERS.alias("taker")
_AUTHOR_RATING = RATINGS.alias("author_rating")
_TAKER_RATING = RATINGS.alias("taker_rating")
#: the seek's rating category as stored with it (``SeekSpec.to_dict``)
_CATEGORY = SEEKS.c.spec["category"].as_string()
#: what taking a seek reads, in one statement: the seek, the other open seeks of its
#: author and of the taker (a clock game's start removes them), whether each of the
#: two accounts is a bot (the game's PDN marks a bot), the rated games the two have
#: started together since ``since`` (a pair has a daily limit of them), and their
#: ratings in the seek's category (columns ``a_*``, ``t_*``; none: a new player)
_FOR_TAKING = (
    select(
        SEEKS,
        _AUTHOR.c.bot.label("author_bot"),
        _TAKER.c.bot.label("taker_bot"),
        rated_between(SEEKS.c.author_id, bindparam("taker"), bindparam("since"))
        .scalar_subquery()
        .label("rated_since"),
        *(_AUTHOR_RATING.c[name].label("a_" + name) for name in PERF_FIELDS),
        *(_TAKER_RATING.c[name].label("t_" + name) for name in PERF_FIELDS),
    )
    .select_from(
        SEEKS.outerjoin(_AUTHOR, _AUTHOR.c.id == SEEKS.c.author_user_id)
        .outerjoin(_TAKER, _TAKER.c.id == bindparam("taker"))
        .outerjoin(
            _AUTHOR_RATING,
            and_(
                _AUTHOR_RATING.c.user_id == SEEKS.c.author_id,
                _AUTHOR_RATING.c.category == _CATEGORY,
            ),
        )
        .outerjoin(
            _TAKER_RATING,
            and_(
                _TAKER_RATING.c.user_id == bindparam("taker"),
                _TAKER_RATING.c.category == _CATEGORY,
            ),
        )
    )
    .where(  # the seek is one of its author's (an index scan of author_id)
        SEEKS.c.author_id.in_(
            [
                bindparam("taker"),
                select(_TAKEN.c.author_id).where(_TAKEN.c.id == bindparam("id")).scalar_subquery(),
            ]
        )
    )
    .order_by(SEEKS.c.created_ms, SEEKS.c.id)
)
_CLAIM = delete(SEEKS).where(SEEKS.c.id == bindparam("id"))
#: PostgreSQL: the seek's removal, its game's insert and the NOTIFY of the game's
#: start in one statement (:func:`claimed_insert`)
TAKE_AND_START = claimed_insert(
    delete(SEEKS).where(SEEKS.c.id == bindparam("seek_id")).returning(SEEKS.c.id),
    lambda game: select(func.pg_notify(bindparam("channel"), bindparam("payload"))).select_from(
        game
    ),
)


def _perf_json(perf: Perf | None) -> dict[str, Any] | None:
    return None if perf is None else perf_values(perf)


@dataclass(frozen=True, slots=True)
class Taking:
    """A seek as someone is about to take it (:meth:`DbLobbyStore.for_taking`)."""

    seek: Seek
    #: the other open seeks of the seek's author and of the taker, oldest first
    others: list[Seek]
    #: which of the two (the author's and the taker's account ids) are bot accounts
    bots: frozenset[str]
    #: the rated games the two have started together since the moment asked about
    rated_since: int
    #: the two players' ratings in the seek's category, by account id (None: the
    #: player has none yet); None when not read with the seek (a seek without a
    #: category, or one whose stored category is not what its clock now makes)
    perfs: dict[str, Perf | None] | None


class DbLobbyStore:
    """Open seeks in ``seeks``; :meth:`take` is ``DELETE ... RETURNING``, so exactly one
    caller takes a seek, in any number of processes."""

    def __init__(self, db: Engine) -> None:
        self.db = db
        #: one-statement reads, outside a transaction
        self.reads = single_reads(db)

    @staticmethod
    def _seek(row: Any) -> Seek:
        perf = row["author_perf"]
        return Seek(
            row["id"],
            LobbyPlayer(row["author_id"], row["author_name"]),
            SeekSpec.from_dict({k: v for k, v in row["spec"].items() if k in _SPEC_KEYS}),
            to_s(row["created_ms"]),
            None if perf is None else perf_of_row(perf),
        )

    def insert(self, seek: Seek) -> None:
        author = seek.author
        with self.db.begin() as conn:
            conn.execute(
                _INSERT,
                {
                    "id": seek.id,
                    "author_id": author.id,
                    "author_user_id": author.id if author.registered else None,
                    "author_name": author.name,
                    "spec": seek.spec.to_dict(),
                    "author_perf": _perf_json(seek.author_perf),
                    "created_ms": to_ms(seek.created),
                    "seen_ms": to_ms(seek.created),
                },
            )
            if author.registered and bots_among(conn, [author.id]):
                # it became one meanwhile (read under a lock, after the write)
                raise SeekForbiddenError(
                    M_("a bot account cannot post seeks in the lobby: players challenge it")
                )

    def get(self, seek_id: str) -> Seek | None:
        with read(self.reads) as conn:
            row = conn.execute(_BY_ID, {"id": seek_id}).mappings().first()
        return None if row is None else self._seek(row)

    def for_taking(self, seek_id: str, taker_id: str, since_ms: int) -> Taking | None:
        """The seek ``taker_id`` is about to take, the other open seeks of its author
        and of the taker, which of the two accounts are bots, and the rated games
        they have started together since ``since_ms``, in one read; None if the seek
        is gone."""
        params = {"id": seek_id, "taker": taker_id, "since": since_ms}
        with read(self.reads) as conn:
            rows = conn.execute(_FOR_TAKING, params).mappings().all()
        row = next((r for r in rows if r["id"] == seek_id), None)
        if row is None:
            return None
        seek = self._seek(row)
        bots = {seek.author.id} if row["author_bot"] else set()
        if row["taker_bot"]:
            bots.add(taker_id)
        others = [self._seek(r) for r in rows if r["id"] != seek_id]
        category = seek.spec.category
        perfs: dict[str, Perf | None] | None = None
        if category is not None and row["spec"].get("category") == category.value:
            perfs = {
                p: None if row[prefix + "rating"] is None else perf_of_row(row, prefix)
                for p, prefix in ((seek.author.id, "a_"), (taker_id, "t_"))
            }
        return Taking(seek, others, frozenset(bots), int(row["rated_since"]), perfs)

    def _list(self, where: Any = None) -> list[Seek]:
        query = select(SEEKS).order_by(SEEKS.c.created_ms, SEEKS.c.id)
        if where is not None:
            query = query.where(where)
        with read(self.reads) as conn:
            return [self._seek(r) for r in conn.execute(query).mappings()]

    def open_seeks(self) -> list[Seek]:
        return self._list()

    def by_author(self, author_id: str) -> list[Seek]:
        return self.by_authors([author_id])

    def by_authors(self, author_ids: list[str]) -> list[Seek]:
        """The open seeks of any of these authors, oldest first (one query)."""
        with read(self.reads) as conn:
            rows = conn.execute(_BY_AUTHORS, {"authors": author_ids}).mappings()
            return [self._seek(r) for r in rows]

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
        return conn.execute(_CLAIM, {"id": seek_id}).rowcount == 1

    def touch_authors(self, author_ids: list[str], at: float) -> None:
        """These authors are still in the lobby (a socket of theirs is open): their
        seeks stay.  One statement for all (the sweep runs it for every author of a
        process at once)."""
        with self.db.begin() as conn:
            for start in range(0, len(author_ids), 500):  # SQLite's bound-parameter limit
                conn.execute(
                    update(SEEKS)
                    .where(SEEKS.c.author_id.in_(author_ids[start : start + 500]))
                    .values(seen_ms=to_ms(at))
                )

    def stale_authors(self, before: float) -> list[str]:
        """Authors whose seeks nobody has seen since ``before`` (their process died)."""
        with self.db.connect() as conn:
            rows = conn.execute(
                select(SEEKS.c.author_id).where(SEEKS.c.seen_ms < to_ms(before)).distinct()
            )
            return [r[0] for r in rows]
