"""Puzzle attempts as the site judges and rates them (plain code: no web server, no
database).

The solution stays on the server: an attempt is played one solver move at a time
from the puzzle's position.  Each move is read by the rules library in its position
(a move that is not legal is refused, naming it and the rule); a move that is the
solution's (any notation of the same move counts, R4) is answered with the
puzzle's reply, until the line ends (solved); the first move that leaves it ends
the attempt (failed).  The line is shown only when the attempt has ended.

A signed-in player's first attempt at a puzzle is a Glicko-2 game between the
player and the puzzle (lichess's puzzle ratings): a solve is a win for the player,
a miss (a wrong move, the solution asked for, or a solve helped by a hint) a win
for the puzzle.  Puzzle ratings are kept apart from game ratings.

>>> from poolcheckers.puzzles import Puzzle
>>> p = Puzzle("p1", "W:W19,20,28:B3,5,8,18,K30", ("28-24", "30x16", "20x4"), "material", 1380)
>>> step(p, 0, "28-24")
Step(correct=True, move='28-24', reply='30x16', solved=False)
>>> step(p, 2, "20x11x4")
Step(correct=True, move='20x4', reply=None, solved=True)
>>> step(p, 0, "19-15")
Step(correct=False, move='19-15', reply=None, solved=False)
>>> step(p, 0, "28-23")
Traceback (most recent call last):
...
poolcheckers.server.puzzles.model.AttemptError: move 1 '28-23': ...
>>> hint_square(p, 2)
20
"""

from __future__ import annotations

from dataclasses import dataclass

from poolcheckers.board import Board
from poolcheckers.errors import PoolCheckersError
from poolcheckers.move import Move
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


class AttemptOver(PuzzleRequestError):
    """A move, hint or give-up for an attempt that has ended, or for a ply already
    played (a move posted twice, or racing another post of it)."""

    code = "conflict"
    field = "attempt"


class AttemptGone(PuzzleRequestError):
    code = "not_found"
    field = "attempt"


class AttemptForbidden(PuzzleRequestError):
    """Another account's attempt, or a signed-in player's attempt without the account."""

    code = "forbidden"
    field = "attempt"


@dataclass(frozen=True, slots=True)
class Step:
    """The site's answer to one solver move: whether it is the solution's, the move
    as the rules write it, the puzzle's reply when the line goes on, and whether the
    line is done."""

    correct: bool
    move: str
    reply: str | None
    solved: bool


def _position(puzzle: Puzzle, ply: int) -> tuple[Board, list[Move]]:
    """The position after the first ``ply`` moves of the solution, and the solution."""
    board, solution = replay(puzzle)
    for move in solution[:ply]:
        board.push(move)
    return board, solution


def step(puzzle: Puzzle, ply: int, text: object) -> Step:
    """Judge the solver's move ``text`` played after ``ply`` moves of the solution."""
    if not isinstance(text, str):
        raise AttemptError(
            M_("move {value} must be text in R4 notation, not {text}", value=ply + 1,
               text=repr(text))
        )  # fmt: skip
    board, solution = _position(puzzle, ply)
    try:
        move = board.parse_move(text)
    except PoolCheckersError as error:
        raise AttemptError(
            M_("move {value} {text}: {error}", value=ply + 1, text=repr(text), error=error)
        ) from error
    if move != solution[ply]:
        return Step(False, board.notation(move), None, False)
    if ply + 1 == len(solution):
        return Step(True, puzzle.solution[ply], None, True)
    return Step(True, puzzle.solution[ply], puzzle.solution[ply + 1], False)


def hint_square(puzzle: Puzzle, ply: int) -> int:
    """The square of the piece the solver moves after ``ply`` moves of the solution."""
    return replay(puzzle)[1][ply].origin


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
