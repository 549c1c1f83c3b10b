"""Perft: the number of leaf positions of the move tree to a depth.

Captures with the same origin, destination and captured set count once (R4).

>>> from poolcheckers.board import Board
>>> [perft(Board(), d) for d in range(1, 5)]
[7, 49, 302, 1469]
"""

from __future__ import annotations

from collections.abc import Callable

from poolcheckers import movegen
from poolcheckers.board import Board
from poolcheckers.move import Move
from poolcheckers.rules import RuleSet


def _perft(own: int, opp: int, kings: int, side: int, depth: int, rules: RuleSet) -> int:
    moves = movegen.generate(own, opp, kings, side, rules)
    if depth == 1:
        return len(moves)
    total = 0
    apply = movegen.apply
    for move in moves:
        n_own, n_opp, n_kings, _ = apply(own, opp, kings, side, move)
        total += _perft(n_opp, n_own, n_kings, 1 - side, depth - 1, rules)
    return total


def perft(board: Board, depth: int) -> int:
    """Leaf count of the legal move tree of ``board`` to ``depth`` plies (bulk-counted)."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, not {depth}")
    if depth == 0:
        return 1
    own, opp = (board.black, board.white) if board.turn == 0 else (board.white, board.black)
    return _perft(own, opp, board.kings, int(board.turn), depth, board.rules)


def perft_divide(
    board: Board, depth: int, progress: Callable[[int, int], object] | None = None
) -> list[tuple[Move, int]]:
    """Leaf counts per root move (``depth`` >= 1), in the order of ``board.legal_moves``.

    >>> from poolcheckers.board import Board
    >>> [(str(m), n) for m, n in perft_divide(Board(), 2)][:2]
    [('9-13', 7), ('9-14', 7)]
    """
    if depth < 1:
        raise ValueError(f"perft --divide needs depth >= 1, not {depth}")
    out: list[tuple[Move, int]] = []
    moves = board.legal_moves
    for i, move in enumerate(moves):
        board.push(move)
        try:
            out.append((move, perft(board, depth - 1)))
        finally:
            board.pop()
        if progress is not None:
            progress(i + 1, len(moves))
    return out
