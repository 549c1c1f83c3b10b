"""Player pages, head-to-head tables and rating plots, read from the accounts,
ratings and games tables (the computations are :mod:`poolcheckers.server.ratings.players`).

Answers carry usernames, ratings and games; never an account id, a password hash,
a session or a seat token.  The methods block: callers run them on the database
executor.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from sqlalchemy import Engine

from poolcheckers.server import errors
from poolcheckers.server.accounts.model import User, username_key
from poolcheckers.server.accounts.repository import DbUserStore
from poolcheckers.server.api.schemas import (
    CategoryStats,
    HeadToHeadRow,
    PerfInfo,
    PlayerGame,
    PlayerPage,
)
from poolcheckers.server.domain_errors import UsernameError
from poolcheckers.server.games.model import NO_SHOW, GameRec
from poolcheckers.server.games.timecontrol import Category
from poolcheckers.server.i18n import M_, Translator, translator
from poolcheckers.server.ratings.model import Perf, RatingUpdate
from poolcheckers.server.ratings.players import (
    CHART_RANGES,
    ScoredGame,
    rating_history,
    rating_history_svg,
)
from poolcheckers.server.ratings.players import head_to_head as head_to_head_records
from poolcheckers.server.ratings.repository import (
    DbRatingStore,
    active_perfs,
    category_stats,
    finished_games,
    leaderboard_perfs,
    player_games,
)

#: games a head-to-head table is counted over (the most recent)
HEAD_TO_HEAD_GAMES = 2000
#: rating plots kept, by (account, rating updates so far): one is drawn per new game
_plots: OrderedDict[tuple[str, int, str, bool, str], str] = OrderedDict()
_plots_lock = threading.Lock()
PLOTS_KEPT = 256


def _name(user_id: str | None, names: dict[str, str], engine: bool) -> str:
    if user_id is not None:
        return names.get(user_id, "Anonymous")
    return "Engine" if engine else "Anonymous"


def player_game(g: GameRec, user_id: str, names: dict[str, str]) -> PlayerGame:
    mine = "black" if g.black_user_id == user_id else "white"
    outcome = None
    # a game lost by forfeit (a tournament's no-show rule) is aborted, yet has a winner
    forfeit = g.termination == NO_SHOW and g.winner is not None
    if (g.status == "finished" and g.result is not None) or forfeit:
        outcome = "draw" if g.winner is None else "win" if g.winner == mine else "loss"
    return PlayerGame(
        id=g.id,
        status=g.status,
        category=g.category,
        rated=g.rated,
        black=_name(g.black_user_id, names, g.engine_color == "black"),
        white=_name(g.white_user_id, names, g.engine_color == "white"),
        level=g.level if g.mode == "engine" else None,
        result=g.result,
        player_result=outcome,  # type: ignore[arg-type]
        forfeit=forfeit,
        black_rating=g.black_rating,
        white_rating=g.white_rating,
        ply=g.ply,
        created=g.created_ms / 1000,
        updated=g.updated_ms / 1000,
    )


def _summary(g: GameRec, names: dict[str, str]) -> ScoredGame:
    score = None
    if g.status == "finished" and g.result is not None:
        score = 0.5 if g.winner is None else 1.0 if g.winner == "black" else 0.0
    return ScoredGame(
        g.id,
        None if g.category is None else Category(g.category),
        g.rated,
        g.black_user_id,
        g.white_user_id,
        _name(g.black_user_id, names, g.engine_color == "black"),
        _name(g.white_user_id, names, g.engine_color == "white"),
        score,
        g.updated_ms / 1000 if score is not None else None,
    )


class PlayerPages:
    """The player pages of the site (``ctx.players``)."""

    def __init__(self, db: Engine, users: DbUserStore, ratings: DbRatingStore) -> None:
        self.db = db
        self.users = users
        self.ratings = ratings

    def find(self, username: str) -> User:
        try:
            key = username_key(username)
        except UsernameError:
            key = ""
        user = self.users.by_key(key) if key else None
        if user is None:
            raise errors.ApiError(
                404, "not_found", M_("no player named {username}", username=repr(username))
            )
        return user

    def page(
        self,
        username: str,
        limit: int,
        offset: int,
        result: str | None,
        category: str | None,
        rated: bool | None,
    ) -> PlayerPage:
        user = self.find(username)
        games, total, current = player_games(
            self.db, user.id, limit, offset, result=result, category=category, rated=rated
        )
        ids = {i for g in games + current for i in (g.black_user_id, g.white_user_id) if i}
        names = self.users.names(ids)
        ratings = {
            cat.value: PerfInfo.model_validate(perf.to_dict())
            for cat, perf in self.ratings.perfs(user.id).items()
        }
        stats = {
            category: CategoryStats.model_validate(row)
            for category, row in category_stats(self.db, user.id).items()
        }
        return PlayerPage(
            username=user.username,
            created=user.created,
            bot=user.bot,
            ratings=ratings,
            stats=stats,
            games=[player_game(g, user.id, names) for g in games],
            total=total,
            current=[player_game(g, user.id, names) for g in current],
        )

    def head_to_head(self, username: str) -> list[HeadToHeadRow]:
        user = self.find(username)
        games = finished_games(self.db, user.id, HEAD_TO_HEAD_GAMES)
        ids = {i for g in games for i in (g.black_user_id, g.white_user_id) if i is not None}
        names = self.users.names(ids)
        return [
            HeadToHeadRow(
                opponent=h.opponent,
                wins=h.record.wins,
                draws=h.record.draws,
                losses=h.record.losses,
            )
            for h in head_to_head_records([_summary(g, names) for g in games], user.id)
        ]

    def rating_updates(self, username: str) -> tuple[User, dict[Category, list[RatingUpdate]]]:
        """The player and every rating update of theirs, by category (database work)."""
        user = self.find(username)
        return user, {cat: self.ratings.history(user.id, cat) for cat in Category}

    @staticmethod
    def history_svg(
        user: User,
        updates: dict[Category, list[RatingUpdate]],
        span: str = "all",
        small: bool = False,
        words: Translator | None = None,
    ) -> str:
        """The rating plot over ``span`` (:data:`CHART_RANGES`, back from the player's
        last rated game), for a phone when ``small`` (CPU work: run it in a worker
        thread, not on the database executor), kept until the player's next rated
        game; ``words``: its language (None: English)."""
        words = words or translator("en")
        key = (user.id, sum(len(u) for u in updates.values()), span, small, words.locale)
        with _plots_lock:
            if key in _plots:
                _plots.move_to_end(key)
                return _plots[key]
        histories = {cat: rating_history(u, user.id, cat) for cat, u in updates.items()}
        last = max((p.at for points in histories.values() for p in points), default=None)
        back = CHART_RANGES[span]
        since = None if back is None or last is None else last - back
        title = words.gettext("Rating history of {name}", name=user.username)
        plot = rating_history_svg(histories, title=title, since=since, small=small, words=words)
        with _plots_lock:
            _plots[key] = plot
            while len(_plots) > PLOTS_KEPT:
                _plots.popitem(last=False)
        return plot

    def active_perfs(self, category: Category, since_ms: int) -> list[tuple[str, Perf]]:
        """(username, rating) of the category's players active since ``since_ms``."""
        return active_perfs(self.db, category, since_ms)

    def leaderboard_perfs(self, category: Category, since_ms: int) -> list[tuple[str, Perf]]:
        """(username, rating) of the category's rankable players active since
        ``since_ms``."""
        return leaderboard_perfs(self.db, category, since_ms)
