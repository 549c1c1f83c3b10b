"""Game flow as on lichess, as pure functions: PDN tags naming the players, when a game
may be aborted, when a side's clock runs, and the result a rating sees.  (Rematches
are the game model's: :func:`poolcheckers.server.games.model.rematch`.)

>>> from poolcheckers.server.games.timecontrol import Clock
>>> tags = player_tags(Seat("Ann", 1612), Seat("Bob", None), Clock(300, 3))
>>> tags
{'Black': 'Ann', 'White': 'Bob', 'BlackElo': '1612', 'WhiteElo': '-', 'TimeControl': '300+3'}
>>> can_abort(ply=1, finished=False), can_abort(ply=2, finished=False)
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

from poolcheckers.pieces import Color
from poolcheckers.rules import Outcome
from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.games.timecontrol import Category, TimeControl, pdn_time_control
from poolcheckers.server.i18n import M_
from poolcheckers.server.ratings.model import RatedResult, RatingUpdate

#: Plies after which a game can no longer be aborted: both sides have moved.
ABORTABLE_PLIES = 2


@dataclass(frozen=True, slots=True)
class Seat:
    """A player as a game shows them: a username (None: anonymous) and the rating
    the game is played at (None: unrated, anonymous or the engine)."""

    name: str | None = None
    rating: int | None = None

    @property
    def shown_name(self) -> str:
        return self.name if self.name is not None else "Anonymous"


def player_tags(
    black: Seat,
    white: Seat,
    time_control: TimeControl,
    update: RatingUpdate | None = None,
) -> dict[str, str]:
    """The PDN tags of a site game: ``Black``, ``White``, ``BlackElo``, ``WhiteElo``
    (``-`` for a player without a rating, as PGN), ``TimeControl`` (``300+3``, ``1/86400``
    for a day per move, ``-`` for none) and, for a rated game that changed the ratings,
    ``BlackRatingDiff`` and ``WhiteRatingDiff`` (as lichess).

    >>> from poolcheckers.server.games.timecontrol import Correspondence
    >>> player_tags(Seat(), Seat("Engine level 5"), Correspondence(1))["TimeControl"]
    '1/86400'
    """
    tags = {
        "Black": black.shown_name,
        "White": white.shown_name,
        "BlackElo": "-" if black.rating is None else str(black.rating),
        "WhiteElo": "-" if white.rating is None else str(white.rating),
        "TimeControl": pdn_time_control(time_control),
    }
    if update is not None:
        tags["BlackRatingDiff"] = f"{update.black_diff:+d}"
        tags["WhiteRatingDiff"] = f"{update.white_diff:+d}"
    return tags


def can_abort(ply: int, *, finished: bool) -> bool:
    """A game may be aborted (no result, unrated) while a side has not yet moved:
    before ply 2.  A game nobody joined is at ply 0, so it can always be cancelled.

    >>> [can_abort(ply=p, finished=False) for p in range(4)], can_abort(0, finished=True)
    ([True, True, False, False], False)
    """
    return not finished and 0 <= ply < ABORTABLE_PLIES


def abort_refusal(ply: int, *, finished: bool) -> str | None:
    """Why an abort is refused (for the API's error message), None when it is allowed."""
    if finished:
        return "the game is over: it can no longer be aborted"
    if ply >= ABORTABLE_PLIES:
        return "both sides have moved: the game can no longer be aborted (resign instead, R20)"
    return None


def clock_runs(ply: int) -> bool:
    """Whether the side to move's clock runs: only once that side has made its first
    move (from ply 2).  Before, the game waits without anyone losing time.

    >>> [clock_runs(p) for p in range(4)]
    [False, False, True, True]
    """
    return ply >= ABORTABLE_PLIES


def black_score(outcome: Outcome) -> float:
    """Black's score in a finished game: 1 win, 0.5 draw, 0 loss.

    >>> from poolcheckers.rules import Termination
    >>> black_score(Outcome(Termination.RESIGNATION, Color.WHITE))
    0.0
    """
    if outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner is Color.BLACK else 0.0


def rated_result(
    game_id: str,
    category: Category | None,
    black_id: str | None,
    white_id: str | None,
    outcome: Outcome | None,
    finished_at: float,
) -> RatedResult | None:
    """The result to rate, or None when the game does not count: aborted (no outcome),
    no clock, or a side without an account (anonymous or the engine).

    The game must have been created rated; the caller checks that flag.
    """
    if outcome is None or category is None or black_id is None or white_id is None:
        return None
    if black_id == white_id:
        raise CommunityError(
            M_("a game against oneself is not rated ({black_id})", black_id=repr(black_id))
        )
    return RatedResult(game_id, category, black_id, white_id, black_score(outcome), finished_at)
