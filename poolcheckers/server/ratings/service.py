"""The rating of finished games: each rated game changes both ratings exactly once,
at its end or, after a crash between the two commits, by the sweeper; the rating
changes are then written into the game's PDN tags."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from sqlalchemy import Engine

from poolcheckers import Outcome, Termination
from poolcheckers.server.database.executor import DbExecutor
from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.games.flow import rated_result
from poolcheckers.server.games.model import Change, GameRec, Loaded, color_of
from poolcheckers.server.games.repository import Committed, GameStore
from poolcheckers.server.games.timecontrol import Category
from poolcheckers.server.ratings.model import Perf, RatingUpdate, apply_result
from poolcheckers.server.ratings.repository import DbRatingStore, unrated_finished_games

log = logging.getLogger("poolcheckers.server")

#: plies a rated game must last for its result to count: a result reached sooner
#: (a resignation after two moves, say) says nothing of the players' strength, and
#: is how a pair of accounts would farm a rating
MIN_RATED_PLIES = 10


class RatingService:
    """Ratings of the accounts (``ctx.ratings``): read, and applied at a game's end."""

    def __init__(
        self,
        db: Engine,
        executor: DbExecutor,
        games: GameStore,
        *,
        min_plies: int = MIN_RATED_PLIES,
    ) -> None:
        self.db = db
        self.min_plies = min_plies
        self.executor = executor
        self.games = games
        self.store = DbRatingStore(db)
        self._pending: set[asyncio.Task[None]] = set()

    def perf(self, user_id: str, category: Category | None) -> Perf | None:
        return None if category is None else self.store.perf(user_id, category)

    def perfs(self, user_ids: list[str], category: Category | None) -> dict[str, Perf | None]:
        """:meth:`perf` of a few players (a pairing's), in one read."""
        if category is None:
            return dict.fromkeys(user_ids)
        return {**self.store.pair_perfs(user_ids, category)}

    def or_new(self, perfs: Mapping[str, Perf | None]) -> dict[str, Perf | None]:
        """Ratings as read from a row of ``ratings`` by account id, the starting
        rating where there was none (a player with no rated game in the category)."""
        return {
            p: self.store.system.new_perf() if perf is None else perf for p, perf in perfs.items()
        }

    def rate(self, game: GameRec) -> RatingUpdate | None:
        """Apply a finished rated game's result to both ratings, exactly once (the
        ``rating_updates`` primary key): any number of calls, in any process, end
        at the one stored update.  None for a game that does not count."""
        if not game.rated or game.status != "finished" or game.termination is None:
            return None
        if game.ply < self.min_plies:
            return None
        outcome = Outcome(
            Termination(game.termination),
            None if game.winner is None else color_of(game.winner),
        )
        category = None if game.category is None else Category(game.category)
        result = rated_result(
            game.id,
            category,
            game.black_user_id,
            game.white_user_id,
            outcome,
            game.updated_ms / 1000,
        )
        if result is None:
            return None
        update = apply_result(self.store, result)
        self.games.run(game.id, lambda g, _now: rating_diff_tags(g, update), lambda *_: None)
        return update

    def game_changed(self, c: Committed) -> None:
        """On the event loop after every stored change: a rated game that has just
        finished is rated (on the database executor)."""
        g = c.loaded.game
        if g.rated and g.status == "finished":
            task = asyncio.get_running_loop().create_task(self._rate_soon(g))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    async def _rate_soon(self, game: GameRec) -> None:
        try:
            await self.executor.run(self.rate, game)
        except Exception:  # the sweep tries again
            log.exception("rating game %s failed", game.id)

    async def sweeper(self, interval: float = 60.0) -> None:
        """At start-up and every ``interval`` seconds: rate the finished rated games
        that have no update yet (after a crash between the two commits)."""
        failing = False
        while True:
            try:
                await self.executor.run(self.sweep)
                failing = False
            except Exception:
                if not failing:
                    log.exception("rating sweep failed")
                failing = True
            await asyncio.sleep(interval)

    def sweep(self) -> int:
        """Rate every finished rated game not rated yet; how many were rated."""
        done = 0
        for game in unrated_finished_games(self.db, self.min_plies):
            try:
                if self.rate(game) is not None:
                    done += 1
            except CommunityError:
                log.exception("game %s cannot be rated", game.id)
        return done


def rating_diff_tags(loaded: Loaded, update: RatingUpdate) -> Change | None:
    """The change that writes a rated game's rating changes into its PDN tags
    (``BlackRatingDiff``, ``WhiteRatingDiff``, as lichess); None once written."""
    g = loaded.game
    diffs = {
        "BlackRatingDiff": f"{update.black_diff:+d}",
        "WhiteRatingDiff": f"{update.white_diff:+d}",
    }
    if g.tags is not None and all(g.tags.get(k) == v for k, v in diffs.items()):
        return None
    game = g.copy()
    game.tags = {**(g.tags or {}), **diffs}
    return Change(game, loaded.board, loaded.moves)
