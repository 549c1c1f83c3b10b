"""Sides and pieces (R3, R6–R9).

>>> Color.BLACK.opponent
<Color.WHITE: 1>
>>> Piece(Color.WHITE, PieceType.KING).symbol()
'W'
>>> Piece.from_symbol("b")
Piece(color=<Color.BLACK: 0>, type=<PieceType.MAN: 0>)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Color(enum.IntEnum):
    """A side.  Black moves first (R3)."""

    BLACK = 0
    WHITE = 1

    @property
    def opponent(self) -> Color:
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def char(self) -> str:
        """``"B"`` or ``"W"``, as in FEN (R5)."""
        return "B" if self is Color.BLACK else "W"

    @property
    def name_lower(self) -> str:
        return self.name.lower()

    @classmethod
    def from_char(cls, char: str) -> Color:
        """``"B"``/``"W"`` (either case) to a colour; raises ``ValueError`` otherwise."""
        upper = char.upper()
        if upper == "B":
            return cls.BLACK
        if upper == "W":
            return cls.WHITE
        raise ValueError(f"not a side: {char!r} (expected B or W, R5)")


class PieceType(enum.IntEnum):
    MAN = 0
    KING = 1


@dataclass(frozen=True, slots=True)
class Piece:
    color: Color
    type: PieceType

    def symbol(self) -> str:
        """``b``/``w`` for men, ``B``/``W`` for kings."""
        char = "b" if self.color is Color.BLACK else "w"
        return char.upper() if self.type is PieceType.KING else char

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        if symbol not in ("b", "w", "B", "W"):
            raise ValueError(f"not a piece symbol: {symbol!r}")
        color = Color.BLACK if symbol.lower() == "b" else Color.WHITE
        kind = PieceType.KING if symbol.isupper() else PieceType.MAN
        return cls(color, kind)
