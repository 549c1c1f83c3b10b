"""Endgame practice (plain code: no web server, no tables opened here): the positions
every pool player must know, the target of each, the verdict on a player's move
against the tables' values of every move, and the tables' reply.

A move's value is the mover's result after it under the running counts (R18, R19):
"win", "draw" or "loss", with its plies to conversion (the next capture or man
move).  The player's move *keeps the result* when its value is the position's; it
*costs* the plies it adds to the best conversion (a win) or takes from the longest
defence (a loss).  The tables reply as a perfect defender: a lost side resists
longest, a drawn side keeps the draw choosing the reply that leaves the player the
most ways to go wrong, a winning side wins fastest.

>>> from poolcheckers import Board, Move
>>> a, b, c = (Move.from_notation(t) for t in ("1-6", "1-5", "2-6"))
>>> verdict([(a, "win", 5), (b, "win", 9), (c, "draw", None)], b)
Verdict(before='win', after='win', kept=True, cost=4, best='1-6')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from poolcheckers.engine import tables_best_move
from poolcheckers.move import Move
from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.i18n import N_

Value = str
MoveValues = Sequence[tuple[Move, Value, int | None]]
_RANK = {"win": 2, "draw": 1, "loss": 0}


class PracticeError(CommunityError):
    field = "practice"


class PracticeUnavailable(PracticeError):
    code = "tables_unavailable"


@dataclass(frozen=True, slots=True)
class Exercise:
    id: str
    title: str
    #: what to do, in plain words (the rule ids are in the docs, not on the page)
    about: str
    fen: str
    target: Literal["win", "draw"]


#: The positions of the practice page (checked against the tables by a test).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "three-kings", N_("Three kings against one"),
        N_("Catch the lone king within 13 moves of the count, or the game is a draw."),
        "W:WK12,K16,K26:BK27", "win",
    ),
    Exercise(
        "three-kings-hold", N_("One king against three: hold the long diagonal"),
        N_("You have the lone king. Three kings catch it only where they can trap it: "
        "find the safe squares of the long diagonal and keep to them."),
        "B:WK20,K23,K32:BK15", "draw",
    ),
    Exercise(
        "two-kings-hold", N_("Two kings against one: hold the draw"),
        N_("You have the lone king. Keep it safe: one careless step and it is caught."),
        "B:WK4,K16:BK18", "draw",
    ),
    Exercise(
        "king-and-man", N_("King and man against king"),
        N_("Bring your man home to the king row with the king's help, and win."),
        "W:WK3,11:BK29", "win",
    ),
    Exercise(
        "kings-v-king-and-man", N_("Two kings against king and man"),
        N_("Win the man, then the king."),
        "W:WK3,K15:BK16,20", "win",
    ),
    # The classic positions of the flying-king games on this board (Russian checkers'
    # books; the pool books name none "first" or "second" position): docs/PRACTICE.md.
    Exercise(
        "petrov-triangle", N_("Petrov's triangle"),
        N_("A. D. Petrov's position (1827): three kings that hold the long diagonal trap "
        "the lone king with the method known as Petrov's triangle. Catch it within 13 "
        "moves of the count."),
        "W:WK29,K30,K31:BK3", "win",
    ),
    Exercise(
        "sargin", N_("Sargin's position: win with two men"),
        N_("D. I. Sargin's position (1891): the black king on the diagonal from 32 to 5 "
        "cuts off your two men. With you to move it is a win, and only one move wins; "
        "with Black to move it would be a draw."),
        "W:WK28,17,22:BK32", "win",
    ),
    Exercise(
        "sargin-hold", N_("Sargin's position: hold the draw"),
        N_("Sargin's position with you to move: you have the lone king, on the diagonal "
        "from 32 to 5 that cuts off the two men. Only two of your six moves keep the draw."),
        "B:WK28,17,22:BK32", "draw",
    ),
)  # fmt: skip
BY_ID = {e.id: e for e in EXERCISES}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The position's value before the move, the move's, whether it kept the result,
    what it cost in plies against the best move of that value, and the best move."""

    before: Value
    after: Value
    kept: bool
    cost: int
    best: str


def position_value(values: MoveValues) -> Value:
    return max((v for _m, v, _d in values), key=lambda v: _RANK[v])


def best_move(values: MoveValues) -> tuple[Move, Value, int | None]:
    """The move keeping the best value (the engine's choice: a win by the fastest
    conversion, a loss by the longest)."""
    return tables_best_move(values)


def verdict(values: MoveValues, played: Move) -> Verdict:
    best = best_move(values)
    mine = next(item for item in values if item[0] == played)
    before, after = best[1], mine[1]
    cost = 0
    if after == before and before != "draw":
        cost = abs((mine[2] or 0) - (best[2] or 0))
    return Verdict(before, after, after == before, cost, str(best[0]))


def reply(values: MoveValues, traps: dict[Move, int]) -> Move:
    """The tables' reply: the best value; a drawn side picks the drawing move that
    leaves the player the most losing replies (``traps``: move -> how many)."""
    top = best_move(values)
    if top[1] != "draw":
        return top[0]
    drawing = [m for m, v, _d in values if v == "draw"]
    return max(drawing, key=lambda m: (traps.get(m, 0), str(m)))
