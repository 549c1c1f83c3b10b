"""Ratings in the database: :class:`~poolcheckers.server.ratings.model.RatingStore` over
``ratings`` and ``rating_updates``, and the queries of the player pages.

A rating update's primary key is its game id, and each rating changes only if its
``games`` count is still the one the update was computed from: a game is rated
once, in any number of processes.  The methods block: callers run them on the
database executor.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, and_, bindparam, case, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from poolcheckers.server.database.engine import single_reads
from poolcheckers.server.database.executor import read
from poolcheckers.server.database.tables import (
    GAMES,
    RATING_UPDATES,
    RATINGS,
    USERS,
    to_ms,
    to_s,
)
from poolcheckers.server.games.model import GameRec
from poolcheckers.server.games.timecontrol import Category
from poolcheckers.server.ratings.model import LICHESS, Glicko, Perf, RatingSystem, RatingUpdate

#: one player's rating in one category (every seek, accept and game start reads it),
#: built once
_PERF = select(RATINGS).where(
    RATINGS.c.user_id == bindparam("user_id"), RATINGS.c.category == bindparam("category")
)

_PERFS = select(RATINGS).where(
    RATINGS.c.user_id.in_(bindparam("user_ids", expanding=True)),
    RATINGS.c.category == bindparam("category"),
)


class _Refused(Exception):
    """A compare-and-set inside a transaction failed: roll back."""


def perf_values(perf: Perf) -> dict[str, Any]:
    return {
        "rating": perf.glicko.rating,
        "deviation": perf.glicko.deviation,
        "volatility": perf.glicko.volatility,
        "games": perf.games,
        "last_played_ms": None if perf.last_played is None else to_ms(perf.last_played),
    }


def perf_of_row(row: Any, prefix: str = "") -> Perf:
    last = row[prefix + "last_played_ms"]
    return Perf(
        Glicko(row[prefix + "rating"], row[prefix + "deviation"], row[prefix + "volatility"]),
        row[prefix + "games"],
        None if last is None else to_s(last),
    )


class DbRatingStore:
    """Ratings in ``ratings``, one row per player and category (no row: a new player),
    and every update in ``rating_updates`` under its game id (exactly once)."""

    def __init__(self, db: Engine, system: RatingSystem = LICHESS) -> None:
        self.db = db
        #: one-statement reads, outside a transaction
        self.reads = single_reads(db)
        self.system = system

    def perf(self, player: str, category: Category) -> Perf:
        with read(self.reads) as conn:
            params = {"user_id": player, "category": category.value}
            row = conn.execute(_PERF, params).mappings().first()
        return self.system.new_perf() if row is None else perf_of_row(row)

    def pair_perfs(self, players: list[str], category: Category) -> dict[str, Perf]:
        """The ratings of a pairing's players in one category, in one read (a player
        with none has the starting rating)."""
        with read(self.reads) as conn:
            params = {"user_ids": players, "category": category.value}
            rows = conn.execute(_PERFS, params).mappings()
            found = {r["user_id"]: perf_of_row(r) for r in rows}
        return {p: found.get(p) or self.system.new_perf() for p in players}

    def perfs_of(self, players: list[str], category: Category) -> dict[str, Perf]:
        """The ratings of many players in one category, in one query (a player with
        none has the starting rating)."""
        found: dict[str, Perf] = {}
        with self.db.connect() as conn:
            for start in range(0, len(players), 500):
                rows = conn.execute(
                    select(RATINGS).where(
                        RATINGS.c.user_id.in_(players[start : start + 500]),
                        RATINGS.c.category == category.value,
                    )
                ).mappings()
                found.update({r["user_id"]: perf_of_row(r) for r in rows})
        return {p: found.get(p) or self.system.new_perf() for p in players}

    def perfs(self, player: str) -> dict[Category, Perf]:
        """Every category the player has a rating in."""
        with self.db.connect() as conn:
            rows = conn.execute(select(RATINGS).where(RATINGS.c.user_id == player)).mappings()
            return {Category(r["category"]): perf_of_row(r) for r in rows}

    @staticmethod
    def _update(row: Any) -> RatingUpdate:
        return RatingUpdate(
            row["game_id"],
            Category(row["category"]),
            row["black_user_id"],
            row["white_user_id"],
            perf_of_row(row, "black_before_"),
            perf_of_row(row, "black_after_"),
            perf_of_row(row, "white_before_"),
            perf_of_row(row, "white_after_"),
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
        values = perf_values(after)
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
            "created_ms": to_ms(update.black_after.last_played or 0.0),
        }
        for side, before, after in (
            ("black", update.black_before, update.black_after),
            ("white", update.white_before, update.white_after),
        ):
            for when, perf in (("before", before), ("after", after)):
                for name, value in perf_values(perf).items():
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


def category_stats(db: Engine, user_id: str) -> dict[str, dict[str, int | None]]:
    """The player's rated games by category: games, wins, draws, losses and the best
    rating reached, in two aggregate queries.

    The games are those that changed the player's rating (a rating update each), the
    ones the rating's own ``games`` counts: a rated game that ended too soon to be
    rated (``--min-rated-plies``) counts in neither, so "1 game" never comes with
    "+1 =0 -1"."""
    g = GAMES.c
    u = RATING_UPDATES.c
    black = u.black_user_id == user_id
    white = u.white_user_id == user_id
    won = or_(and_(black, g.winner == "black"), and_(white, g.winner == "white"))
    lost = or_(and_(black, g.winner == "white"), and_(white, g.winner == "black"))
    drawn = g.winner.is_(None)
    games = (
        select(
            u.category,
            func.count(),
            func.sum(case((won, 1), else_=0)),
            func.sum(case((drawn, 1), else_=0)),
            func.sum(case((lost, 1), else_=0)),
        )
        .select_from(RATING_UPDATES.join(GAMES, g.id == u.game_id))
        .where(or_(black, white))
        .group_by(u.category)
    )
    best = (
        select(
            u.category,
            func.max(
                case((u.black_user_id == user_id, u.black_after_rating), else_=u.white_after_rating)
            ),
        )
        .where(or_(u.black_user_id == user_id, u.white_user_id == user_id))
        .group_by(u.category)
    )
    out: dict[str, dict[str, int | None]] = {}
    with db.connect() as conn:
        for category, count, wins, draws, losses in conn.execute(games):
            out[str(category)] = {
                "games": int(count),
                "wins": int(wins or 0),
                "draws": int(draws or 0),
                "losses": int(losses or 0),
                "best": None,
            }
        for category, top in conn.execute(best):
            row = out.setdefault(
                str(category), {"games": 0, "wins": 0, "draws": 0, "losses": 0, "best": None}
            )
            row["best"] = None if top is None else int(top)
    return out


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
            USERS.c.bot.is_(False),  # bots are never ranked among people
        )
        .order_by(RATINGS.c.rating.desc())
        .limit(1000)
    )
    with db.connect() as conn:
        return [(r["username"], perf_of_row(r)) for r in conn.execute(query).mappings()]


def active_perfs(
    db: Engine, category: Category, since_ms: int, limit: int = 1000
) -> list[tuple[str, Perf]]:
    """(username, rating) of the category's players who played since ``since_ms``,
    whatever their deviation (those not yet on the leaderboard among them)."""
    query = (
        select(USERS.c.username, RATINGS)
        .join(USERS, USERS.c.id == RATINGS.c.user_id)
        .where(
            RATINGS.c.category == category.value,
            RATINGS.c.last_played_ms >= since_ms,
            USERS.c.bot.is_(False),
        )
        .order_by(RATINGS.c.deviation)
        .limit(limit)
    )
    with db.connect() as conn:
        return [(r["username"], perf_of_row(r)) for r in conn.execute(query).mappings()]


def unrated_finished_games(db: Engine, min_plies: int = 0) -> list[GameRec]:
    """Finished rated games of at least ``min_plies`` plies without their rating
    update (a crash between the two commits)."""
    query = (
        select(GAMES)
        .outerjoin(RATING_UPDATES, RATING_UPDATES.c.game_id == GAMES.c.id)
        .where(
            GAMES.c.rated.is_(True),
            GAMES.c.status == "finished",
            GAMES.c.ply >= min_plies,
            RATING_UPDATES.c.game_id.is_(None),
        )
    )
    with db.connect() as conn:
        return [GameRec.from_row(r) for r in conn.execute(query).mappings()]


#: running games a player page lists at the top
CURRENT_GAMES = 20


def player_games(
    db: Engine,
    user_id: str,
    limit: int,
    offset: int,
    *,
    result: str | None = None,
    category: str | None = None,
    rated: bool | None = None,
) -> tuple[list[GameRec], int, list[GameRec]]:
    """A page of the player's games (filtered), how many match, and their running
    games."""
    query = player_games_query(user_id, result=result, category=category, rated=rated)
    running = player_games_query(user_id).where(GAMES.c.status == "running")
    counted = select(func.count()).select_from(query.order_by(None).subquery())
    with db.connect() as conn:
        rows = conn.execute(query.limit(limit).offset(offset)).mappings().all()
        total = int(conn.execute(counted).scalar_one())
        current_rows = conn.execute(running.limit(CURRENT_GAMES)).mappings().all()
    return (
        [GameRec.from_row(r) for r in rows],
        total,
        [GameRec.from_row(r) for r in current_rows],
    )


def finished_games(db: Engine, user_id: str, limit: int) -> list[GameRec]:
    """The player's most recent finished games."""
    query = player_games_query(user_id).where(GAMES.c.status == "finished").limit(limit)
    with db.connect() as conn:
        return [GameRec.from_row(r) for r in conn.execute(query).mappings()]
