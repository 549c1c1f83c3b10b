"""The game store: games in the database, changed by compare-and-set, with a cache.

A change is stored in one transaction: ``UPDATE games ... WHERE version = <read
version>`` (compare-and-set) plus, for a move, an ``INSERT`` into ``moves`` whose
primary key ``(game_id, ply)`` refuses a second move for the same ply.  Only after
the commit is the change answered and announced (:attr:`GameStore.on_change`), so a
move is durable before it is acknowledged, and two moves racing for one ply (in one
process or in several) have exactly one winner: the loser re-reads and runs again.

The methods block (SQLAlchemy's sync API): the web layer calls them in worker threads
or, with SQLite, on the event loop.  Within one process, operations on one game are
serialised by a lock; a per-process cache keeps the rebuilt board of recently used
games, valid while the stored ``version`` is unchanged.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import (
    CTE,
    ColumnElement,
    Connection,
    Engine,
    Select,
    and_,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.dml import ReturningDelete

from poolcheckers.server import errors
from poolcheckers.server.database.engine import PG_CHANNEL, single_reads
from poolcheckers.server.database.executor import read
from poolcheckers.server.database.tables import GAME_DIGESTS, GAMES, MOVES, USERS
from poolcheckers.server.errors import ApiError
from poolcheckers.server.games.model import (
    Change,
    GameFilter,
    GameRec,
    Loaded,
    MoveRec,
    flag,
    replay,
)
from poolcheckers.server.i18n import M_
from poolcheckers.server.timesource import TimeSource

T = TypeVar("T")

# statements built once (SQLAlchemy caches their compiled form)
SELECT_GAME = select(GAMES).where(GAMES.c.id == bindparam("b_id"))
SELECT_MOVES = select(MOVES).where(MOVES.c.game_id == bindparam("b_id")).order_by(MOVES.c.ply)
SELECT_NEWER_MOVES = (
    select(MOVES)
    .where(MOVES.c.game_id == bindparam("b_id"), MOVES.c.version > bindparam("b_version"))
    .order_by(MOVES.c.ply)
)
UPDATE_GAME = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("b_id"), GAMES.c.version == bindparam("b_old"))
    .values({c.name: bindparam("v_" + c.name) for c in GAMES.c if c.name != "id"})
)
#: a new game's row, every column bound at execution (a built ``values(...)`` would
#: cost SQLAlchemy a coercion per column on every game start)
INSERT_GAME = insert(GAMES)


def rated_between(
    one: ColumnElement[str], other: ColumnElement[str], since: ColumnElement[int]
) -> Select[int]:
    """The query of the rated games between two accounts (either colours) created
    since a moment, the accounts and the moment given as expressions (bound
    parameters, or another query's columns when it is a subquery of that query)."""
    pair = or_(
        and_(GAMES.c.black_user_id == one, GAMES.c.white_user_id == other),
        and_(GAMES.c.black_user_id == other, GAMES.c.white_user_id == one),
    )
    return (
        select(func.count())
        .select_from(GAMES)
        .where(GAMES.c.rated.is_(True), GAMES.c.created_ms >= since, pair)
    )


#: rated games of a pair since a moment (read at every rated game start)
RATED_BETWEEN = rated_between(bindparam("one"), bindparam("other"), bindparam("since"))
MAX_ATTEMPTS = 8
#: a game row's columns (``GameRec.values()``'s keys)
_GAME_COLUMNS = tuple(f.name for f in dataclasses.fields(GameRec))


def claimed_insert(claim: ReturningDelete[Any], then: Callable[[CTE], Select[Any]]) -> Select[Any]:
    """PostgreSQL: one statement that runs ``claim`` (a ``DELETE ... RETURNING``),
    stores a new game (its columns bound as ``game_<column>``) for the row the claim
    returned, none if it returned none, and then ``then``'s query over the stored
    game's row (a NOTIFY: sent once the game is stored).  Outside a transaction it
    commits on its own, all or nothing, as :meth:`GameStore.insert_claimed`'s
    transaction does, without its BEGIN and COMMIT round trips.  Built once, at
    import: building it costs SQLAlchemy more than running it."""
    claimed = claim.cte("claimed")
    row = select(
        *(bindparam("game_" + name, type_=GAMES.c[name].type) for name in _GAME_COLUMNS)
    ).select_from(claimed)
    game = insert(GAMES).from_select(list(_GAME_COLUMNS), row).returning(GAMES.c.id)
    return then(game.cte("game"))


#: An operation on the current game: the change to store, or None.
Op = Callable[[Loaded, int], Change | None]


class _Lost(Exception):
    """A claim lost to another caller: its transaction is rolled back."""


class _Conflict(Exception):
    """The compare-and-set lost against a concurrent change: reload and retry."""


@dataclass
class Committed:
    """A stored change: the game after it, when it was made, and whether the engine
    is to move now."""

    loaded: Loaded
    now: int
    engine_to_move: bool


class GameStore:
    """Games in ``db``: read (cached), changed by compare-and-set, listed."""

    def __init__(
        self,
        db: Engine,
        clock: TimeSource,
        *,
        cache_size: int = 4096,
        on_change: Callable[[Committed], None] | None = None,
    ) -> None:
        self.db = db
        #: one-statement reads, outside a transaction
        self.reads = single_reads(db)
        self.clock = clock
        self.is_postgres = db.dialect.name == "postgresql"
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()
        self._locks = [threading.Lock() for _ in range(64)]
        #: called after every commit, in the committing thread
        self.on_change = on_change

    # ------------------------------------------------------------------ cache
    def _lock_for(self, game_id: str) -> threading.Lock:
        return self._locks[hash(game_id) % len(self._locks)]

    def cached(self, game_id: str) -> Loaded | None:
        with self._cache_lock:
            loaded = self._cache.get(game_id)
            if loaded is not None:
                self._cache.move_to_end(game_id)
            return loaded

    def _cache_put(self, loaded: Loaded) -> None:
        with self._cache_lock:
            self._cache[loaded.game.id] = loaded
            self._cache.move_to_end(loaded.game.id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _cache_drop(self, game_id: str) -> None:
        with self._cache_lock:
            self._cache.pop(game_id, None)

    # ------------------------------------------------------------------ reading
    def _load(self, conn: Connection, game_id: str) -> Loaded:
        row = conn.execute(SELECT_GAME, {"b_id": game_id}).mappings().first()
        if row is None:
            raise errors.not_found(game_id)
        cached = self.cached(game_id)
        if cached is not None and cached.game.version == row["version"]:
            return cached
        game = GameRec.from_row(row)
        if cached is not None and cached.game.version < game.version:
            newer = self._load_newer(conn, cached, game)
            if newer is not None:
                self._cache_put(newer)
                return newer
        moves = [
            MoveRec.from_row(m) for m in conn.execute(SELECT_MOVES, {"b_id": game_id}).mappings()
        ]
        if len(moves) != game.ply or any(m.version > game.version for m in moves):
            # the two reads saw different commits (READ COMMITTED): read again
            raise _Conflict
        loaded = Loaded(game, moves, replay(game, moves))
        self._cache_put(loaded)
        return loaded

    def _load_newer(self, conn: Connection, cached: Loaded, game: GameRec) -> Loaded | None:
        """Bring a cached game up to date by playing only the moves stored since
        (changes made by another process); None when that is not possible (a takeback
        rewrote earlier plies): then the game is replayed from the start."""
        rows = conn.execute(
            SELECT_NEWER_MOVES, {"b_id": game.id, "b_version": cached.game.version}
        ).mappings()
        new = [MoveRec.from_row(m) for m in rows]
        first = len(cached.moves)
        if game.ply != first + len(new) or any(
            m.ply != first + i or m.version > game.version for i, m in enumerate(new)
        ):
            return None
        if not new:
            return Loaded(game, cached.moves, cached.board)
        board = cached.board.copy()
        for m in new:
            board.push(board.parse_move(m.path))
        return Loaded(game, [*cached.moves, *new], board)

    # ------------------------------------------------------------------ writing
    def _store(self, conn: Connection, old_version: int, change: Change) -> None:
        g = change.game
        if change.spawn is not None:  # a new game (a rematch) with this change
            conn.execute(INSERT_GAME, change.spawn.game.values())
        params = {"v_" + k: v for k, v in g.values().items() if k != "id"}
        params["b_id"] = g.id
        params["b_old"] = old_version
        if conn.execute(UPDATE_GAME, params).rowcount != 1:
            raise _Conflict
        if change.delete_from is not None:
            conn.execute(
                delete(MOVES).where(MOVES.c.game_id == g.id, MOVES.c.ply >= change.delete_from)
            )
        if change.insert:
            try:
                conn.execute(insert(MOVES), [m.values(g.id) for m in change.insert])
            except IntegrityError as exc:
                raise _Conflict from exc
        if self.is_postgres:
            conn.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": PG_CHANNEL, "payload": f"{g.id}:{g.version}"},
            )

    def _apply(
        self, conn: Connection, loaded: Loaded, change: Change, now: int, out: list[Committed]
    ) -> Loaded:
        old_version = loaded.game.version
        change.game.version = old_version + 1
        change.game.updated_ms = now
        for m in change.insert:
            m.version = change.game.version
        self._store(conn, old_version, change)
        new = Loaded(change.game, change.moves, change.board)
        out.append(Committed(new, now, new.game.engine_to_move(new.board)))
        if change.spawn is not None:
            spawn = change.spawn
            out.append(Committed(spawn, now, spawn.game.engine_to_move(spawn.board)))
        return new

    def _attempt(
        self, game_id: str, op: Op, answer: Callable[[Loaded, int], T], cached: Loaded | None
    ) -> tuple[T | None, list[Committed], bool]:
        """One try of :meth:`run` under the game's lock: (answer, commits, flagged)."""
        committed: list[Committed] = []
        try:
            with self.db.begin() as conn:
                now = self.clock.now_ms()
                loaded = cached if cached is not None else self._load(conn, game_id)
                flagged = flag(loaded, now)
                if flagged is not None:
                    # stored on its own, even if ``op`` then fails (game over)
                    self._apply(conn, loaded, flagged, now, committed)
                    return None, committed, True
                try:
                    change = op(loaded, now)
                except ApiError:
                    if cached is not None:
                        raise _Conflict from None  # decide on fresh data
                    raise
                if change is not None:
                    loaded = self._apply(conn, loaded, change, now, committed)
                elif cached is not None:
                    raise _Conflict  # answer from fresh data
                value = answer(loaded, now)
        except (ApiError, _Conflict):
            raise  # the cached snapshots stay valid: _load catches up
        except BaseException:
            self._cache_drop(game_id)
            raise
        return value, committed, False

    def run(
        self,
        game_id: str,
        op: Op,
        answer: Callable[[Loaded, int], T],
        *,
        optimistic: bool = False,
    ) -> T:
        """Run ``op`` on the current game, store its change (if any) and answer.

        Before ``op``, a fallen flag ends the game (R20): checked on every request.
        On a lost compare-and-set, everything is re-read and ``op`` runs again.

        ``optimistic``: first try ``op`` on the cached game without reading the
        stored version; a change is still stored by compare-and-set (so a stale
        cache only costs a retry), and an answer without a change (an error, a
        retried move) is only given after re-running on a freshly read game.
        """
        unverified = optimistic
        for _ in range(MAX_ATTEMPTS):
            try:
                with self._lock_for(game_id):
                    cached = self.cached(game_id) if unverified else None
                    unverified = False
                    value, committed, flagged = self._attempt(game_id, op, answer, cached)
                    for c in committed:
                        self._cache_put(c.loaded)
            except _Conflict:
                continue
            for c in committed:
                if self.on_change is not None:
                    self.on_change(c)
            if not flagged:
                return value  # type: ignore[return-value]
        raise errors.conflict(M_("too many concurrent changes to this game; try again"))

    def read(self, game_id: str, answer: Callable[[Loaded, int], T]) -> T:
        """Answer from the current game (after the flag check, R20)."""
        return self.run(game_id, lambda _loaded, _now: None, answer)

    def insert(self, loaded: Loaded, digest: str | None = None) -> str:
        """Store a new game with its moves; its id.  With a ``digest`` (an imported
        game's content), a game already stored with that digest is not stored again:
        the id is that game's."""
        g = loaded.game
        try:
            with self.db.begin() as conn:
                if digest is not None:
                    known = self._digest_owner(conn, digest)
                    if known is not None:
                        return known
                conn.execute(INSERT_GAME, g.values())
                if loaded.moves:
                    conn.execute(insert(MOVES), [m.values(g.id) for m in loaded.moves])
                if digest is not None:
                    conn.execute(insert(GAME_DIGESTS).values(digest=digest, game_id=g.id))
        except IntegrityError:
            if digest is None:
                raise
            with self.db.connect() as conn:  # the same game, imported at the same time
                known = self._digest_owner(conn, digest)
            if known is None:
                raise
            return known
        self._cache_put(loaded)
        return g.id

    def insert_claimed(self, loaded: Loaded, claim: Callable[[Connection], bool]) -> bool:
        """Store a new game in the transaction of ``claim`` (e.g. removing the seek it
        comes from): both commit, or neither.  False, nothing stored, if ``claim``
        says so (the seek was taken by someone else)."""
        with self.db.begin() as conn:
            if not claim(conn):
                return False
            conn.execute(INSERT_GAME, loaded.game.values())
            if loaded.moves:
                g = loaded.game
                conn.execute(insert(MOVES), [m.values(g.id) for m in loaded.moves])
        self._cache_put(loaded)
        return True

    def insert_claimed_at_once(
        self, loaded: Loaded, statement: Select[Any], params: dict[str, Any]
    ) -> bool:
        """:meth:`insert_claimed` by one statement of :func:`claimed_insert` (with its
        other ``params``), on the connection of this work's reads: False, nothing
        stored, if its claim returned no row.  A new game without moves."""
        assert not loaded.moves
        values = {"game_" + k: v for k, v in loaded.game.values().items()}
        with read(self.reads) as conn:
            stored = conn.execute(statement, {**params, **values}).first() is not None
        if stored:
            self._cache_put(loaded)
        return stored

    def insert_many(
        self,
        games: list[Loaded],
        claim: Callable[[Connection], bool],
        then: Callable[[Connection], None] = lambda _conn: None,
    ) -> bool:
        """Store new games in one transaction with ``claim`` before them (a
        tournament's compare-and-set of its round) and ``then`` after them (the
        rows that name them): all commit, or nothing (False when ``claim`` says so)."""
        try:
            with self.db.begin() as conn:
                if not claim(conn):
                    raise _Lost
                if games:
                    conn.execute(insert(GAMES), [loaded.game.values() for loaded in games])
                then(conn)
        except _Lost:
            return False
        for loaded in games:
            self._cache_put(loaded)
        return True

    @staticmethod
    def _digest_owner(conn: Connection, digest: str) -> str | None:
        row = conn.execute(
            select(GAME_DIGESTS.c.game_id).where(GAME_DIGESTS.c.digest == digest)
        ).first()
        return None if row is None else str(row[0])

    # ------------------------------------------------------------------ queries
    def ids_flagged(self, now: int) -> list[str]:
        """Running games whose side to move has run out of time (for the timer)."""
        with self.db.connect() as conn:
            rows = conn.execute(
                select(GAMES.c.id).where(
                    GAMES.c.status == "running",
                    GAMES.c.deadline_ms.is_not(None),
                    GAMES.c.deadline_ms <= now,
                )
            )
            return [r[0] for r in rows]

    def ids_idle(self, now: int, first_move_ms: int, abandon_ms: int) -> list[str]:
        """Running games that may have waited too long for a move (the model decides):
        online games before both sides moved, idle for ``first_move_ms``, and any game
        idle for ``abandon_ms``."""
        c = GAMES.c
        with self.db.connect() as conn:
            rows = conn.execute(
                select(c.id).where(
                    c.status == "running",
                    c.tournament_id.is_(None),
                    or_(
                        and_(c.mode == "online", c.ply < 2, c.updated_ms <= now - first_move_ms),
                        c.updated_ms <= now - abandon_ms,
                    ),
                )
            )
            return [r[0] for r in rows]

    def ids_running(self, mode: str) -> list[str]:
        with self.db.connect() as conn:
            rows = conn.execute(
                select(GAMES.c.id).where(GAMES.c.status == "running", GAMES.c.mode == mode)
            )
            return [r[0] for r in rows]

    def search(self, wanted: GameFilter, limit: int, offset: int) -> tuple[list[GameRec], int]:
        """The games ``wanted`` describes, newest played first, and how many there are
        in all (for the archive's pages)."""
        c = GAMES.c
        black = USERS.alias("black_user")
        white = USERS.alias("white_user")
        joined = GAMES.outerjoin(black, black.c.id == c.black_user_id).outerjoin(
            white, white.c.id == c.white_user_id
        )
        where: list[ColumnElement[bool]] = []
        if wanted.status is not None:
            where.append(c.status == wanted.status)
        if wanted.mode is not None:
            where.append(c.mode == wanted.mode)
        if wanted.player.strip():
            part = wanted.player.strip().lower()
            where.append(
                or_(
                    *(
                        func.lower(col).contains(part, autoescape=True)
                        for col in (c.black_name, c.white_name, black.c.username, white.c.username)
                    )
                )
            )
        if wanted.event.strip():
            where.append(
                func.lower(c.event).contains(wanted.event.strip().lower(), autoescape=True)
            )
        if wanted.result == "unfinished":
            where.append(or_(c.result.is_(None), c.result == "*"))
        elif wanted.result is not None:
            where.append(c.result == wanted.result)
        if wanted.date_from:
            where.append(c.played_on >= wanted.date_from)
        if wanted.date_to:
            where.append(c.played_on <= wanted.date_to)
        if wanted.mine:
            mine: list[ColumnElement[bool]] = [c.id.in_(wanted.ids)] if wanted.ids else []
            if wanted.account is not None:
                mine += [c.black_user_id == wanted.account, c.white_user_id == wanted.account]
            where.append(or_(*mine) if mine else c.id.is_(None))
        query = (
            select(GAMES)
            .select_from(joined)
            .where(*where)
            .order_by(c.played_on.desc(), c.created_ms.desc(), c.id)
        )
        count = select(func.count()).select_from(joined).where(*where)
        with self.db.connect() as conn:
            rows = conn.execute(query.limit(limit).offset(offset)).mappings().all()
            total = int(conn.execute(count).scalar_one())
        return [GameRec.from_row(r) for r in rows], total

    def running_of_player(self, user_id: str) -> list[str]:
        """The ids of the running games an account has a seat in, oldest first."""
        c = GAMES.c
        query = (
            select(c.id)
            .where(
                c.status == "running",
                or_(c.black_user_id == user_id, c.white_user_id == user_id),
            )
            .order_by(c.created_ms, c.id)
        )
        with self.db.connect() as conn:
            return [str(r[0]) for r in conn.execute(query)]

    def started_since(self, user_ids: list[str], since_ms: int) -> list[tuple[str, set[str]]]:
        """The running games created since ``since_ms`` with a seat of one of these
        accounts: (game id, the accounts of its seats), oldest first."""
        if not user_ids:
            return []
        c = GAMES.c
        query = (
            select(c.id, c.black_user_id, c.white_user_id)
            .where(
                c.status == "running",
                c.created_ms >= since_ms,
                or_(c.black_user_id.in_(user_ids), c.white_user_id.in_(user_ids)),
            )
            .order_by(c.created_ms, c.id)
        )
        with self.db.connect() as conn:
            return [
                (str(gid), {u for u in (black, white) if u is not None})
                for gid, black, white in conn.execute(query)
            ]

    def count_of_player(self, user_id: str) -> int:
        """Games an account has a seat in (any kind, any state)."""
        c = GAMES.c
        query = (
            select(func.count())
            .select_from(GAMES)
            .where(or_(c.black_user_id == user_id, c.white_user_id == user_id))
        )
        with self.db.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def rated_between(self, one: str, other: str, since_ms: int) -> int:
        """Rated games between two accounts (either colours) created since ``since_ms``."""
        params = {"one": one, "other": other, "since": since_ms}
        with read(self.reads) as conn:
            return int(conn.execute(RATED_BETWEEN, params).scalar_one())

    def iter_ids(self, batch: int = 200) -> Iterator[str]:
        """Every game id, oldest first."""
        offset = 0
        while True:
            with self.db.connect() as conn:
                query = select(GAMES.c.id).order_by(GAMES.c.created_ms, GAMES.c.id)
                ids = [r[0] for r in conn.execute(query.limit(batch).offset(offset))]
            yield from ids
            if len(ids) < batch:
                return
            offset += batch

    def ping(self) -> None:
        """Raise if the database cannot be reached."""
        with self.db.connect() as conn:
            conn.execute(text("SELECT 1"))
