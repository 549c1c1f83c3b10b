"""Board geometry of R1–R2: square numbering, rows, columns and diagonals.

Squares are numbered 1–32 (R2) from the upper-left, Black's side at the top.
Internally a bitboard is a Python ``int`` whose bit ``s - 1`` stands for
square ``s``.

>>> row_col(1), row_col(5), row_col(29), row_col(32)
((0, 1), (1, 0), (7, 0), (7, 6))
>>> square_at(3, 6)
16
>>> neighbour(22, NE), neighbour(29, NW)
(18, None)
>>> ray(29, NE)
(25, 22, 18, 15, 11, 8, 4)
"""

from __future__ import annotations

from typing import Final

SQUARES: Final = range(1, 33)
ALL_SQUARES_MASK: Final = (1 << 32) - 1

# Directions, named from the diagram of R2 (Black at the top).
NW: Final = 0  # up-left: towards row 0
NE: Final = 1  # up-right
SW: Final = 2  # down-left: towards row 7
SE: Final = 3  # down-right
DIRECTIONS: Final = (NW, NE, SW, SE)
DIRECTION_NAMES: Final = ("NW", "NE", "SW", "SE")
_DELTAS: Final = ((-1, -1), (-1, 1), (1, -1), (1, 1))


def row_col(square: int) -> tuple[int, int]:
    """Row and column (0–7) of a dark square, by the formula of R2."""
    index = square - 1
    row = index // 4
    col = 2 * (index % 4) + (1 if row % 2 == 0 else 0)
    return row, col


def square_at(row: int, col: int) -> int | None:
    """The square number at ``(row, col)``, or ``None`` off the board or on a light square."""
    if not (0 <= row < 8 and 0 <= col < 8):
        return None
    if (row + col) % 2 == 0:
        return None  # a light square: R1, play uses the dark squares only
    return row * 4 + col // 2 + 1


def neighbour(square: int, direction: int) -> int | None:
    """The square next to ``square`` in ``direction``, or ``None`` at the edge."""
    row, col = row_col(square)
    dr, dc = _DELTAS[direction]
    return square_at(row + dr, col + dc)


def ray(square: int, direction: int) -> tuple[int, ...]:
    """Every square from ``square`` (excluded) to the edge along ``direction``."""
    out: list[int] = []
    current: int | None = neighbour(square, direction)
    while current is not None:
        out.append(current)
        current = neighbour(current, direction)
    return tuple(out)


def bit(square: int) -> int:
    """The bitboard with only ``square`` set."""
    return 1 << (square - 1)


def squares_of(bitboard: int) -> list[int]:
    """The squares set in ``bitboard``, ascending.

    >>> squares_of(0b1011)
    [1, 2, 4]
    """
    out: list[int] = []
    while bitboard:
        low = bitboard & -bitboard
        out.append(low.bit_length())
        bitboard ^= low
    return out


# Precomputed tables, indexed by square 1..32 (index 0 unused).
NEIGHBOURS: Final[tuple[tuple[int | None, ...], ...]] = (
    (None, None, None, None),
    *(tuple(neighbour(s, d) for d in DIRECTIONS) for s in SQUARES),
)
RAYS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = (
    ((), (), (), ()),
    *(tuple(ray(s, d) for d in DIRECTIONS) for s in SQUARES),
)

BLACK_KING_ROW: Final = sum(bit(s) for s in range(29, 33))  # row 7, R2
WHITE_KING_ROW: Final = sum(bit(s) for s in range(1, 5))  # row 0, R2
