"""When the engine accepts a draw offer (R17): one policy for ``play``, the web app
and any other place the engine answers an offer.

The answer depends on the phase of the game and on the engine's evaluation:

* **Dead draw** (any phase): only kings are left, at most two a side.  Flying
  kings cannot force a win without a third king (that is why R19 counts only
  three kings against one), so the engine accepts, unless its search has
  proved a win (a king that is lost at once).
* **Opening**: no king yet and at least :data:`OPENING_MIN_PIECES` pieces on
  the board (24 at the start: at most two exchanges).  The engine always
  declines: the game has not begun, whatever the evaluation says.
* **Middlegame**: the engine accepts when it is clearly worse, by at least
  :data:`MIDDLEGAME_ACCEPT_BELOW` centi-men, or its search proved a loss.
* **Endgame** (at most :data:`ENDGAME_MAX_PIECES` pieces): the engine accepts
  when it is not better than :data:`ENDGAME_ACCEPT_UP_TO` centi-men (about
  equal) or its search proved a loss.
* It never accepts when its search proved a win.

The phase is read from the material alone, not from the number of moves
played: a position set up from a FEN (ply 0) may be an endgame, and a game
with early exchanges leaves its opening sooner.

>>> from poolcheckers import Board, Color
>>> game_phase(Board()), game_phase(Board("W:WK29:BK1")), game_phase(Board("B:W20,21,22:B9,10"))
(<Phase.OPENING: 'opening'>, <Phase.ENDGAME: 'endgame'>, <Phase.ENDGAME: 'endgame'>)
>>> accepts_draw(Board(), Color.WHITE, None)
False
>>> accepts_draw(Board("W:WK29:BK1"), Color.WHITE, None)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from poolcheckers.board import Board
from poolcheckers.pieces import Color

from .format import format_score, score_in_men
from .limits import make_limit
from .protocols import EngineLike, SearchInfo

__all__ = [
    "DEAD_DRAW_MAX_KINGS",
    "DRAW_SEARCH_TIME",
    "ENDGAME_ACCEPT_UP_TO",
    "ENDGAME_MAX_PIECES",
    "MIDDLEGAME_ACCEPT_BELOW",
    "OPENING_MIN_PIECES",
    "DrawDecision",
    "Phase",
    "accepts_draw",
    "decide_draw",
    "draw_decision",
    "draw_search_needed",
    "game_phase",
    "is_dead_draw",
]

#: The opening lasts while no king is crowned and at least this many pieces are left.
OPENING_MIN_PIECES: Final = 20

#: The endgame: at most this many pieces on the board.
ENDGAME_MAX_PIECES: Final = 8

#: A dead draw: no men, and at most this many kings on each side.
DEAD_DRAW_MAX_KINGS: Final = 2

#: In the middlegame the engine accepts when its score is at most minus this (centi-men).
MIDDLEGAME_ACCEPT_BELOW: Final = 50

#: In the endgame the engine accepts when its score is at most this (centi-men).
ENDGAME_ACCEPT_UP_TO: Final = 25

#: Seconds the engine searches to answer an offer (when the answer needs a search).
DRAW_SEARCH_TIME: Final = 0.5


class Phase(StrEnum):
    """The phase of a game, read from its material."""

    OPENING = "opening"
    MIDDLEGAME = "middlegame"
    ENDGAME = "endgame"


def game_phase(board: Board) -> Phase:
    """The phase of ``board``: opening, middlegame or endgame (see the module text).

    >>> from poolcheckers import Board
    >>> game_phase(Board("B:W19,20,21,22,23,24,25,26,27:B1,2,3,4,5,6,7,8,9"))
    <Phase.MIDDLEGAME: 'middlegame'>
    """
    pieces = (board.black | board.white).bit_count()
    if pieces <= ENDGAME_MAX_PIECES:
        return Phase.ENDGAME
    if pieces >= OPENING_MIN_PIECES and board.kings == 0:
        return Phase.OPENING
    return Phase.MIDDLEGAME


def is_dead_draw(board: Board) -> bool:
    """Whether only kings are left, at most :data:`DEAD_DRAW_MAX_KINGS` a side.

    >>> from poolcheckers import Board
    >>> is_dead_draw(Board("W:WK29,K30:BK1,K2")), is_dead_draw(Board("W:WK29:BK1,K2,K3"))
    (True, False)
    >>> is_dead_draw(Board("W:WK29:B1"))  # a man can still be crowned
    False
    """
    if (board.black | board.white) & ~board.kings:
        return False
    return all(0 < side.bit_count() <= DEAD_DRAW_MAX_KINGS for side in (board.black, board.white))


def draw_search_needed(board: Board) -> bool:
    """Whether the answer to an offer in ``board`` depends on a search.

    In the opening (when it is not a dead draw) the engine declines without one.

    >>> from poolcheckers import Board
    >>> draw_search_needed(Board()), draw_search_needed(Board("W:WK29:BK1"))
    (False, True)
    """
    return is_dead_draw(board) or game_phase(board) is not Phase.OPENING


@dataclass(frozen=True)
class DrawDecision:
    """The engine's answer to a draw offer and why, in words for people.

    ``score``: the engine's evaluation from its own point of view (centi-men),
    ``None`` when no search was needed or available.
    """

    accept: bool
    reason: str
    phase: Phase
    score: int | None = None


def draw_decision(board: Board, engine_color: Color, info: SearchInfo | None) -> DrawDecision:
    """Whether the engine, playing ``engine_color``, accepts a draw in ``board``.

    ``info`` is a full-strength search of ``board`` (score and ``mate_in`` from
    the side to move's point of view, as every search reports them), or
    ``None`` when there is none: then only a dead draw is accepted.

    >>> from poolcheckers import Board, Color
    >>> from types import SimpleNamespace as Info
    >>> middle = Board("B:W19,20,21,22,23,24,25,26,27:B1,2,3,4,5,6,7,8,9")
    >>> draw_decision(middle, Color.WHITE, Info(score=80, mate_in=None)).reason
    'its evaluation: -0.80 men for it in the middlegame'
    >>> draw_decision(middle, Color.BLACK, Info(score=80, mate_in=None)).accept
    False
    >>> draw_decision(Board(), Color.WHITE, Info(score=900, mate_in=None)).reason
    'the game is still in its opening'
    """
    phase = game_phase(board)
    dead = is_dead_draw(board)
    if phase is Phase.OPENING and not dead:
        return DrawDecision(False, "the game is still in its opening", phase)
    if info is None:
        if dead:
            return DrawDecision(True, "a dead draw: only kings are left, at most two a side", phase)
        return DrawDecision(False, "it cannot evaluate the position", phase)
    own = info.score if board.turn is engine_color else -info.score
    mate = info.mate_in
    if mate is not None:
        own_mate = mate if board.turn is engine_color else -mate
        words = format_score(own, own_mate)  # "win in N" / "loss in N" moves
        if own_mate > 0:
            return DrawDecision(False, f"it has a forced {words}", phase, own)
        return DrawDecision(True, f"it sees a forced {words}", phase, own)
    if dead:
        return DrawDecision(
            True, "a dead draw: only kings are left, at most two a side", phase, own
        )
    text = f"its evaluation: {score_in_men(own)} men for it in the {phase.value}"
    if phase is Phase.ENDGAME:
        return DrawDecision(own <= ENDGAME_ACCEPT_UP_TO, text, phase, own)
    return DrawDecision(own <= -MIDDLEGAME_ACCEPT_BELOW, text, phase, own)


def accepts_draw(board: Board, engine_color: Color, info: SearchInfo | None) -> bool:
    """:attr:`DrawDecision.accept` of :func:`draw_decision`."""
    return draw_decision(board, engine_color, info).accept


def decide_draw(
    engine: EngineLike,
    board: Board,
    engine_color: Color,
    limit: object | None = None,
) -> DrawDecision:
    """Answer a draw offer, searching ``board`` at full strength only when needed.

    ``limit`` defaults to :data:`DRAW_SEARCH_TIME` seconds.  Runs in the
    calling thread (the web app calls it in its engine threads).

    >>> from poolcheckers import Board, Color
    >>> from poolcheckers.engine import Engine
    >>> decide_draw(Engine(hash_mb=1), Board(), Color.WHITE).accept
    False
    >>> decide_draw(Engine(hash_mb=1), Board("B:WK29:BK1"), Color.WHITE, make_limit(depth=4)).accept
    True
    """
    if not draw_search_needed(board) or not board.legal_moves:
        return draw_decision(board, engine_color, None)
    info = engine.search(
        board.copy(), limit if limit is not None else make_limit(time=DRAW_SEARCH_TIME)
    )
    return draw_decision(board, engine_color, info)
