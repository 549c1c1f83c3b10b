"""Puzzle attempts as the site judges and rates them (plain code: no web server, no
database).

An attempt is the line a player played from the puzzle's position: the solver's
moves and the replies the site played, up to the solution's end or the first move
that left it.  Each move is read by the rules library in its position (a move that
is not legal is refused, naming it and the rule); the attempt is solved when the
line is the solution, move for move (any notation of the same move counts, R4).

A signed-in player's first attempt at a puzzle is a Glicko-2 game between the
player and the puzzle (lichess's puzzle ratings): a solve is a win for the player,
a miss a win for the puzzle.  Puzzle ratings are kept apart from game ratings.

>>> from poolcheckers.puzzles import Puzzle
>>> p = Puzzle("p1", "W:W22,27:B18,11", ("22x8",), "material", 1200)
>>> judge(p, ["22x8"]), judge(p, ["22-15x8"])
(True, True)
>>> judge(p, ["27-23"])
Traceback (most recent call last):
...
poolcheckers.server.puzzles.model.AttemptError: move 1 '27-23': ...
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from poolcheckers.errors import PoolCheckersError
from poolcheckers.puzzles import Puzzle, replay
from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.i18n import M_, N_
from poolcheckers.server.ratings.model import LICHESS, Glicko, Perf

#: a new puzzle's deviation: its starting rating is an estimate from the generator
PUZZLE_DEVIATION = 250.0
#: the words of each goal on the trainer page
GOAL_TEXT = {
    "material": N_("Win material"),
    "win": N_("Win the game"),
    "draw": N_("Save the game: find the draw"),
}


class PuzzleRequestError(CommunityError):
    field = "puzzle"


class AttemptError(PuzzleRequestError):
    """An attempt that is not a line of moves from the puzzle's position."""


class PuzzleGone(PuzzleRequestError):
    code = "not_found"


class PuzzleUnavailable(PuzzleRequestError):
    """The server cannot make puzzles (no native engine)."""

    code = "engine_unavailable"


def judge(puzzle: Puzzle, moves: Sequence[object]) -> bool:
    """Whether ``moves`` solve ``puzzle``: each is checked by the rules library; the
    line must be the whole solution, or end at its first wrong move (a line that
    stops early, or goes on after a wrong move, is refused)."""
    if not isinstance(moves, list | tuple) or not 1 <= len(moves) <= len(puzzle.solution):
        raise AttemptError(
            M_(
                "moves must be a list of 1 to {count} moves (R4) from the puzzle's position",
                count=len(puzzle.solution),
            )
        )
    board, solution = replay(puzzle)
    for i, text in enumerate(moves):
        if not isinstance(text, str):
            raise AttemptError(
                M_(
                    "move {value} must be text in R4 notation, not {text}",
                    value=i + 1,
                    text=repr(text),
                )
            )
        try:
            move = board.parse_move(text)
        except PoolCheckersError as error:
            raise AttemptError(
                M_("move {value} {text}: {error}", value=i + 1, text=repr(text), error=error)
            ) from error
        if move != solution[i]:
            if i % 2 == 1:
                raise AttemptError(
                    M_(
                        "move {value} {text}: the replies are the puzzle's, {value2} here",
                        value=i + 1,
                        text=repr(text),
                        value2=board.notation(solution[i]),
                    )
                )
            if i + 1 != len(moves):
                raise AttemptError(
                    M_(
                        "move {value} {text} left the solution: the attempt ends there",
                        value=i + 1,
                        text=repr(text),
                    )
                )
            return False
        board.push(move)
    if len(moves) != len(puzzle.solution):
        raise AttemptError(
            M_(
                "the attempt stops at move {count} of {count2}: it ends at the solution's end or at the first wrong move",  # noqa: E501
                count=len(moves),
                count2=len(puzzle.solution),
            )
        )
    return True


@dataclass(frozen=True, slots=True)
class Rated:
    """A rated attempt: the player's and the puzzle's standings before and after."""

    player_before: Perf
    player_after: Perf
    puzzle_before: Glicko
    puzzle_after: Glicko


def rate(player: Perf, puzzle: Perf, solved: bool, at: float) -> tuple[Perf, Perf]:
    """The player's and the puzzle's standings after one attempt (Glicko-2, τ 0.75)."""
    return LICHESS.rate_game(player, puzzle, 1.0 if solved else 0.0, at)
