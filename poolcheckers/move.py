"""The immutable :class:`Move` (R4).

A move is its origin, every landing square of its path and the set of
captured squares.  Two captures with the same origin, destination and captured
set leave the same position and are one move (R4): equality and hashing use
exactly those three, and the path is one representative.

>>> m = Move((11, 15))
>>> str(m), m.is_capture
('11-15', False)
>>> c = Move((1, 10, 19), frozenset({6, 15}))
>>> str(c), c.full_notation()
('1x19', '1x10x19')
>>> Move((1, 10, 19), frozenset({6, 15}), needs_full_path=True)
Move.from_notation('1x10x19')
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Move:
    """A legal move's origin, landing squares and captured squares."""

    path: tuple[int, ...] = field(compare=False)
    captured: frozenset[int] = frozenset()
    #: whether R4 asks for the full path in this move's position (set by the generator)
    needs_full_path: bool = field(default=False, compare=False)
    origin: int = field(init=False)
    destination: int = field(init=False)
    #: the captured squares as a bitboard (bit ``s - 1`` is square ``s``)
    captured_mask: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.path) < 2:
            raise ValueError(f"a move needs an origin and a destination: {self.path!r}")
        object.__setattr__(self, "origin", self.path[0])
        object.__setattr__(self, "destination", self.path[-1])
        mask = 0
        for s in self.captured:
            mask |= 1 << (s - 1)
        object.__setattr__(self, "captured_mask", mask)

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)

    def full_notation(self) -> str:
        """Every landing square: ``1x10x19`` (or ``11-15`` for a plain move)."""
        sep = "x" if self.captured else "-"
        return sep.join(str(s) for s in self.path)

    def short_notation(self) -> str:
        """``fromxto`` / ``from-to``."""
        sep = "x" if self.captured else "-"
        return f"{self.origin}{sep}{self.destination}"

    def __str__(self) -> str:
        return self.full_notation() if self.needs_full_path else self.short_notation()

    def __repr__(self) -> str:
        return f"Move.from_notation({self.full_notation()!r})"

    @classmethod
    def from_notation(cls, text: str) -> Move:
        """A move from its full-path text, without checking legality.

        The captured squares of a capture are derived from its path when every
        leg is a man's single jump; for kings use a move from
        :attr:`Board.legal_moves` or :meth:`Board.parse_move`.

        >>> Move.from_notation("15x22").captured
        frozenset({18})
        """
        from poolcheckers.squares import row_col, square_at

        capture = "x" in text
        parts = text.replace("x", "-").split("-")
        path = tuple(int(p) for p in parts)
        captured: set[int] = set()
        if capture:
            for a, b in itertools.pairwise(path):
                (ra, ca), (rb, cb) = row_col(a), row_col(b)
                if abs(ra - rb) == 2 and abs(ca - cb) == 2:
                    mid = square_at((ra + rb) // 2, (ca + cb) // 2)
                    if mid is not None:
                        captured.add(mid)
        return cls(path, frozenset(captured), needs_full_path=len(path) > 2)
