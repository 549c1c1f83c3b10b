"""A slow, obviously-correct endgame solver over the full game state.

Written from docs/RULES.md and the tables' definitions in docs/EGDB.md; shares no code with
the native generator: moves come from the rules library
(:mod:`poolcheckers.movegen`, itself checked against tests/reference.py),
and the state is the whole of what decides the game: the pieces, the side to
move, the R18 plies ``h`` and the R19 moves ``c``.  Plain memoised minimax:

- R16/R21: no legal move loses, even where a count runs out;
- R19: in 3 kings v 1 king, once the strong side has made its 13th move
  (``c == 13``) the game is drawn (option "loss": the strong side loses);
- R18: at ``h == 2L`` plies without a man move or capture the game is drawn;
- a zeroing ply (capture or man move) sets ``h`` to 0; ``c`` counts the strong
  side's moves in 3 kings v 1 king, from 0 when that material arises;
- DTZ: the winner takes the fastest move that keeps the win (a zeroing ply
  counts 1), the loser the slowest; no legal move is a loss in 0; the end of
  the R19 count under "loss" ends the game (0 plies left).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator

from poolcheckers import movegen
from poolcheckers.rules import RuleSet

#: a position: (black, white, kings, turn) bitboards, bit s-1 for square s (R2)
Pos = tuple[int, int, int, int]


def strong_side(pos: Pos) -> int | None:
    """R19: the colour (0 Black, 1 White) with exactly three kings and no men v a lone king."""
    black, white, kings, _ = pos
    if (black | white) & ~kings:
        return None
    nb, nw = black.bit_count(), white.bit_count()
    if (nb, nw) == (3, 1):
        return 0
    if (nb, nw) == (1, 3):
        return 1
    return None


class Solver:
    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.limit = 2 * rules.king_only_move_limit
        self.loss = rules.three_kings_limit_result == "loss"
        self.memo: dict[tuple[Pos, int, int], tuple[int, int | None]] = {}
        self.kids: dict[Pos, list[tuple[Pos, bool]]] = {}
        sys.setrecursionlimit(100000)

    def children(self, pos: Pos) -> list[tuple[Pos, bool]]:
        """Positions after each legal move and whether the move is a zeroing ply."""
        got = self.kids.get(pos)
        if got is not None:
            return got
        black, white, kings, turn = pos
        own, opp = (black, white) if turn == 0 else (white, black)
        out = []
        for move in movegen.generate(own, opp, kings, turn, self.rules):
            zeroing = bool(move.captured) or not kings & (1 << (move.origin - 1))
            own2, opp2, kings2, _ = movegen.apply(own, opp, kings, turn, move)
            b2, w2 = (own2, opp2) if turn == 0 else (opp2, own2)
            out.append(((b2, w2, kings2, 1 - turn), zeroing))
        self.kids[pos] = out
        return out

    def solve(self, pos: Pos, h: int = 0, c: int = 0) -> tuple[int, int | None]:
        """(value for the side to move: 1 win, 0 draw, -1 loss; DTZ or None)."""
        memo_key = (pos, h, c)
        got = self.memo.get(memo_key)
        if got is not None:
            return got
        result = self._solve(pos, h, c)
        self.memo[memo_key] = result
        return result

    def _solve(self, pos: Pos, h: int, c: int) -> tuple[int, int | None]:
        kids = self.children(pos)
        if not kids:
            return (-1, 0)  # R16, first by R21
        strong = strong_side(pos)
        colour = pos[3]
        if strong is not None and c >= 13:  # R19
            if self.loss:
                return (-1, 0) if colour == strong else (1, 0)
            return (0, None)
        if h >= self.limit:  # R18
            return (0, None)
        outcomes = []
        for child, zeroing in kids:
            child_strong = strong_side(child)
            if zeroing:
                ch, cc = 0, 0
            else:
                ch = h + 1
                if child_strong is not None and child_strong == strong:
                    cc = c + (1 if colour == strong else 0)
                else:
                    cc = 0
            value, dtz = self.solve(child, ch, cc)
            plies = 1 if zeroing else 1 + (dtz if dtz is not None else 0)
            outcomes.append((-value, plies))
        best = max(v for v, _ in outcomes)
        if best == 1:
            return (1, min(p for v, p in outcomes if v == 1))
        if best == -1:
            return (-1, max(p for _, p in outcomes))
        return (0, None)


def positions(material: tuple[int, int, int, int]) -> Iterator[Pos]:
    """Every position of a material (both sides to move); men never on their king row."""
    bm, bk, wm, wk = material
    for black_men in itertools.combinations(range(1, 29), bm):
        for white_men in itertools.combinations(range(5, 33), wm):
            if set(black_men) & set(white_men):
                continue
            free = [s for s in range(1, 33) if s not in black_men and s not in white_men]
            for black_kings in itertools.combinations(free, bk):
                rest = [s for s in free if s not in black_kings]
                for white_kings in itertools.combinations(rest, wk):
                    black = _mask(black_men) | _mask(black_kings)
                    white = _mask(white_men) | _mask(white_kings)
                    kings = _mask(black_kings) | _mask(white_kings)
                    yield (black, white, kings, 0)
                    yield (black, white, kings, 1)


def _mask(squares: tuple[int, ...]) -> int:
    return sum(1 << (s - 1) for s in squares)
