"""Player pages and leaderboards, as functions of stored games and rating updates.

The store answers the paginated queries (SQL ``WHERE``/``LIMIT``); what the
page shows from them is computed here: a player's result in a game, the record
against each opponent, the rating history and its plot, the leaderboard.

>>> games = [
...     ScoredGame("g1", Category.BLITZ, True, "u1", "u2", "Ann", "Bob", 1.0, 100.0),
...     ScoredGame("g2", Category.BLITZ, True, "u2", "u1", "Bob", "Ann", 0.5, 200.0),
...     ScoredGame("g3", Category.RAPID, False, "u1", "u3", "Ann", "Cy", 0.0, 300.0),
... ]
>>> [result_for(g, "u1") for g in games]
['win', 'draw', 'loss']
>>> [(h.opponent, str(h.record)) for h in head_to_head(games, "u1")]
[('Bob', '+1 =1 -0'), ('Cy', '+0 =0 -1')]
>>> [g.game_id for g in games if matches_filter(g, "u1", result="loss")]
['g3']
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.games.timecontrol import Category
from poolcheckers.server.i18n import M_, N_, Translator, translator
from poolcheckers.server.ratings.model import LICHESS, Glicko, Perf, RatingSystem, RatingUpdate

PlayerResult = Literal["win", "draw", "loss"]
#: A rating is on the leaderboard while its (live) deviation is at most this (lichess: 75).
RANKABLE_DEVIATION: Final = 75.0


@dataclass(frozen=True, slots=True)
class ScoredGame:
    """What a player page needs of a game: who played which side (account ids, None
    for anonymous players and the engine; names as shown), and Black's score (None
    while running or when aborted)."""

    game_id: str
    category: Category | None
    rated: bool
    black_id: str | None
    white_id: str | None
    black_name: str
    white_name: str
    black_score: float | None
    finished_at: float | None


def result_for(game: ScoredGame, player_id: str) -> PlayerResult | None:
    """The player's result in ``game``: win, draw, loss, or None (running, aborted)."""
    if game.black_score is None:
        return None
    if player_id == game.black_id:
        score = game.black_score
    elif player_id == game.white_id:
        score = 1.0 - game.black_score
    else:
        raise CommunityError(
            M_(
                "player {player_id} did not play game {game_id}",
                player_id=repr(player_id),
                game_id=game.game_id,
            )
        )
    return "win" if score == 1.0 else "loss" if score == 0.0 else "draw"


def matches_filter(
    game: ScoredGame,
    player_id: str,
    *,
    result: PlayerResult | None = None,
    category: Category | None = None,
    rated: bool | None = None,
) -> bool:
    """Whether ``game`` is in the player's list filtered by result, category and rated."""
    if player_id not in (game.black_id, game.white_id):
        return False
    if category is not None and game.category is not category:
        return False
    if rated is not None and game.rated != rated:
        return False
    return result is None or result_for(game, player_id) == result


@dataclass(frozen=True, slots=True)
class Record:
    """Wins, draws and losses."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points scored (a draw is half a point)."""
        return self.wins + self.draws / 2

    def add(self, result: PlayerResult) -> Record:
        if result == "win":
            return Record(self.wins + 1, self.draws, self.losses)
        if result == "draw":
            return Record(self.wins, self.draws + 1, self.losses)
        return Record(self.wins, self.draws, self.losses + 1)

    def __str__(self) -> str:
        return f"+{self.wins} ={self.draws} -{self.losses}"


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """The player's record against one opponent (by shown name)."""

    opponent: str
    opponent_id: str | None
    record: Record


def head_to_head(games: Iterable[ScoredGame], player_id: str) -> list[HeadToHead]:
    """The record against each opponent in finished games, most games first.

    Opponents with an account are told apart by id, others by name (``Anonymous``,
    ``Engine level 5``…).
    """
    records: dict[tuple[str | None, str], Record] = {}
    for game in games:
        result = result_for(game, player_id)
        if result is None:
            continue
        if player_id == game.black_id:
            key = (game.white_id, game.white_name)
        else:
            key = (game.black_id, game.black_name)
        records[key] = records.get(key, Record()).add(result)
    rows = [HeadToHead(name, opp_id, record) for (opp_id, name), record in records.items()]
    rows.sort(key=lambda h: (-h.record.games, h.opponent.lower()))
    return rows


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """The rating after one rated game."""

    at: float
    rating: float
    deviation: float


def rating_history(
    updates: Iterable[RatingUpdate], player_id: str, category: Category
) -> list[HistoryPoint]:
    """The player's rating after each rated game of ``category``, oldest first."""
    points = []
    for update in updates:
        if update.category is not category:
            continue
        if update.black == player_id:
            after = update.black_after
        elif update.white == player_id:
            after = update.white_after
        else:
            continue
        if after.last_played is None:  # pragma: no cover - every update dates its game
            continue
        points.append(HistoryPoint(after.last_played, after.glicko.rating, after.glicko.deviation))
    points.sort(key=lambda p: p.at)
    return points


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    rank: int
    username: str
    rating: int
    deviation: int
    games: int


def leaderboard(
    perfs: Iterable[tuple[str, Perf]],
    at: float,
    *,
    system: RatingSystem = LICHESS,
    limit: int = 100,
) -> list[LeaderboardEntry]:
    """The best ``limit`` ratings of a category at time ``at``: only ratings whose live
    deviation (grown over idle time) is at most :data:`RANKABLE_DEVIATION`, so that
    players who stopped playing leave the board.  Ties share neither rank nor order:
    the higher unrounded rating first, then the username.

    >>> from poolcheckers.server.ratings.model import Glicko
    >>> board = leaderboard([("Ann", Perf(Glicko(1700, 50), 40, 0.0)),
    ...                      ("Bob", Perf(Glicko(1800, 120), 9, 0.0)),
    ...                      ("Cy", Perf(Glicko(1650, 60), 80, 0.0))], at=86_400.0)
    >>> [(e.rank, e.username, e.rating) for e in board]
    [(1, 'Ann', 1700), (2, 'Cy', 1650)]
    """
    rankable = []
    for name, perf in perfs:
        deviation = system.live_deviation(perf, at)
        if deviation <= RANKABLE_DEVIATION:
            rankable.append((perf.glicko.rating, name, deviation, perf.games))
    rankable.sort(key=lambda row: (-row[0], row[1].lower()))
    return [
        LeaderboardEntry(i + 1, name, int(rating), int(deviation), games)
        for i, (rating, name, deviation, games) in enumerate(rankable[:limit])
    ]


@dataclass(frozen=True, slots=True)
class WaitingEntry:
    """An active player not yet on a leaderboard, and about how many more rated games
    will settle the rating."""

    username: str
    rating: int
    games: int
    more_games: int


def games_to_settle(
    perf: Perf, at: float, *, system: RatingSystem = LICHESS, most: int = 99
) -> int:
    """About how many more rated games, played from ``at`` on, bring ``perf``'s
    deviation to :data:`RANKABLE_DEVIATION`: drawn games against a settled player of
    the same rating (each game's result moves the rating, hardly the deviation).

    >>> from poolcheckers.server.ratings.model import Glicko
    >>> games_to_settle(Perf(Glicko(1500, 500, 0.09)), 0.0)  # a new player
    23
    >>> games_to_settle(Perf(Glicko(1620, 70, 0.06), 30, 0.0), 0.0)
    0
    """
    live = system.live(perf, at)
    opponent = Glicko(live.glicko.rating, RANKABLE_DEVIATION, 0.06)
    more = 0
    while live.glicko.deviation > RANKABLE_DEVIATION and more < most:
        live = system.rate_one(live, opponent, 0.5, at)
        more += 1
    return more


def waiting_list(
    perfs: Iterable[tuple[str, Perf]],
    at: float,
    *,
    system: RatingSystem = LICHESS,
    limit: int = 10,
) -> list[WaitingEntry]:
    """The active players whose rating has not settled, those closest to it first.

    >>> from poolcheckers.server.ratings.model import Glicko
    >>> rows = waiting_list([("Ann", Perf(Glicko(1700, 50), 40, 0.0)),
    ...                      ("Bob", Perf(Glicko(1800, 120), 9, 0.0))], at=0.0)
    >>> [(e.username, e.more_games) for e in rows]
    [('Bob', 14)]
    """
    waiting = []
    for name, perf in perfs:
        if system.live_deviation(perf, at) <= RANKABLE_DEVIATION:
            continue
        more = games_to_settle(perf, at, system=system)
        waiting.append(WaitingEntry(name, int(perf.glicko.rating), perf.games, more))
    waiting.sort(key=lambda e: (e.more_games, -e.rating, e.username.lower()))
    return waiting[:limit]


#: each category's name in the chart's legend
CATEGORY_WORDS: Final = {
    Category.BULLET: N_("bullet"),
    Category.BLITZ: N_("blitz"),
    Category.RAPID: N_("rapid"),
    Category.CLASSICAL: N_("classical"),
    Category.CORRESPONDENCE: N_("correspondence"),
}

#: the rating chart's time ranges: seconds back from the last game (None: all)
CHART_RANGES: Final = {"all": None, "year": 365 * 86_400.0, "month": 30 * 86_400.0}


def rating_history_svg(
    histories: Mapping[Category, Sequence[HistoryPoint]],
    *,
    title: str = "Rating history",
    since: float | None = None,
    small: bool = False,
    words: Translator | None = None,
) -> str:
    """An SVG plot of the rating history, one line per category (±deviation shaded):
    the points from ``since`` (epoch seconds; None: all), and with ``small`` a figure
    drawn for a phone (narrower, larger type), so that its words stay readable.

    ``words``: the language of the plot's words (None: English); ``title`` is given
    in it already.

    Uses matplotlib's object API (no pyplot global state), so it is safe in server
    threads.
    """
    import numpy as np
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    say = (words or translator("en")).gettext
    figure = Figure(figsize=(4.2, 3.4) if small else (8, 3.2))
    FigureCanvasSVG(figure)
    axes = figure.add_subplot()
    drawn = 0
    shown: list[float] = []  # the times drawn: the axis fits them, not the default years
    for category in Category:
        points = [p for p in histories.get(category, ()) if since is None or p.at >= since]
        if not points:
            continue
        shown += [p.at for p in points]
        when = np.array([round(p.at) for p in points], dtype="datetime64[s]")
        rating = [p.rating for p in points]
        low = [p.rating - p.deviation for p in points]
        high = [p.rating + p.deviation for p in points]
        (line,) = axes.plot(
            when, rating, marker="o", markersize=3, label=say(CATEGORY_WORDS[category])
        )
        axes.fill_between(when, low, high, color=line.get_color(), alpha=0.12)
        drawn += 1
    if drawn:
        axes.legend(loc="best", fontsize="small")
        first, last = min(shown), max(shown)
        pad = max((last - first) * 0.05, 3600.0)  # an hour at least: one day's games spread
        # matplotlib takes datetime64 limits on a date axis (its stubs say float)
        left: Any = np.datetime64(round(first - pad), "s")
        right: Any = np.datetime64(round(last + pad), "s")
        axes.set_xlim(left, right)
    else:
        empty = N_("no rated games yet") if since is None else N_("no rated game in this time")
        axes.text(0.5, 0.5, say(empty), ha="center", va="center", transform=axes.transAxes)
    axes.set_title(title)
    axes.set_ylabel(say("rating (shaded: ± RD)"))
    axes.grid(True, alpha=0.3)
    figure.autofmt_xdate()
    figure.tight_layout()
    out = io.StringIO()
    figure.savefig(out, format="svg", metadata={"Date": None})
    return out.getvalue()
