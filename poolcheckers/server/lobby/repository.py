"""Open seeks in the database: :class:`~poolcheckers.server.lobby.model.LobbyStore` over
``seeks``.  A seek is taken by ``DELETE ... RETURNING``: one caller gets the row,
in any number of processes.  The methods block: callers run them on the database
executor.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, bindparam, delete, insert, select, update

from poolcheckers.server.database.engine import single_reads
from poolcheckers.server.database.executor import read
from poolcheckers.server.database.tables import (
    SEEKS,
    to_ms,
    to_s,
)
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
_CLAIM = delete(SEEKS).where(SEEKS.c.id == bindparam("id"))


def _perf_json(perf: Perf | None) -> dict[str, Any] | None:
    return None if perf is None else perf_values(perf)


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

    def get(self, seek_id: str) -> Seek | None:
        with read(self.reads) as conn:
            row = conn.execute(_BY_ID, {"id": seek_id}).mappings().first()
        return None if row is None else self._seek(row)

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
