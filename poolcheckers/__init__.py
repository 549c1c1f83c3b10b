"""poolcheckers: American Pool Checkers (APCA rules, ``docs/RULES.md`` R1–R21).

>>> import poolcheckers
>>> board = poolcheckers.Board()
>>> board.push(board.parse_move("11-15"))
>>> board.turn
<Color.WHITE: 1>
>>> poolcheckers.perft(poolcheckers.Board(), 3)
302
"""

from poolcheckers.board import STARTING_FEN, Board
from poolcheckers.errors import (
    AmbiguousMoveError,
    FenError,
    IllegalMoveError,
    InvalidSquareError,
    MalformedMoveError,
    MoveError,
    NotYourPieceError,
    PdnError,
    PoolCheckersError,
    RuleSetError,
)
from poolcheckers.move import Move
from poolcheckers.perft import perft, perft_divide
from poolcheckers.pieces import Color, Piece, PieceType
from poolcheckers.rules import Outcome, RuleOption, RuleSet, Termination

BLACK = Color.BLACK
WHITE = Color.WHITE

__all__ = [
    "BLACK",
    "STARTING_FEN",
    "WHITE",
    "AmbiguousMoveError",
    "Board",
    "Color",
    "FenError",
    "IllegalMoveError",
    "InvalidSquareError",
    "MalformedMoveError",
    "Move",
    "MoveError",
    "NotYourPieceError",
    "Outcome",
    "PdnError",
    "Piece",
    "PieceType",
    "PoolCheckersError",
    "RuleOption",
    "RuleSet",
    "RuleSetError",
    "Termination",
    "perft",
    "perft_divide",
]
__version__ = "0.1.0"
