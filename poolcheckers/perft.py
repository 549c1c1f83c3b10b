"""Perft: the number of leaf positions of the move tree to a depth.

Captures with the same origin, destination and captured set count once (R4).

>>> from poolcheckers.board import Board
>>> [perft(Board(), d) for d in range(1, 5)]
[7, 49, 302, 1469]

A depth that is not a whole number in 0..:data:`MAX_PERFT_DEPTH`, or a board
that is not a :class:`Board`, raises :class:`~poolcheckers.errors.PerftError` (a
:class:`~poolcheckers.errors.PoolCheckersError`):

>>> perft(Board(), -1)
Traceback (most recent call last):
...
poolcheckers.errors.PerftError: perft depth must be a whole number 0..30, not -1
"""

from __future__ import annotations

from collections.abc import Callable

from poolcheckers.board import Board
from poolcheckers.errors import PerftError
from poolcheckers.move import Move
from poolcheckers.movegen import (
    KING_RAYS,
    KING_ROW,
    MAN_STEP_CLASSES,
    capture_sequences_of,
    count_simple_moves,
    kings_can_capture,
    man_capturers,
)
from poolcheckers.rules import RuleSet
from poolcheckers.squares import ALL_SQUARES_MASK as FULL

__all__ = ["MAX_PERFT_DEPTH", "PerftError", "perft", "perft_divide"]

BIT = tuple(1 << (s - 1) if s else 0 for s in range(33))

#: The deepest perft taken (the native core's limit too): far beyond what can be
#: counted, and well within Python's recursion limit (one frame a ply).
MAX_PERFT_DEPTH = 30


def _check(board: object, depth: object, minimum: int, what: str) -> int:
    if not isinstance(board, Board):
        raise PerftError(
            f"{what} counts the moves of a poolcheckers.Board, not {type(board).__name__}"
        )
    if (
        isinstance(depth, bool)
        or not isinstance(depth, int)
        or not minimum <= depth <= MAX_PERFT_DEPTH
    ):
        raise PerftError(
            f"{what} depth must be a whole number {minimum}..{MAX_PERFT_DEPTH}, not {depth!r}"
        )
    return depth


def _perft(own: int, opp: int, kings: int, side: int, depth: int, rules: RuleSet) -> int:
    """Leaves below a position (``own`` to move), ``depth`` >= 1, bulk-counted.

    The fast path: no :class:`Move` objects, no board; moves are applied as
    bit operations.  It follows the generator's rules exactly (same capture
    sequences, same plain moves) and is checked against it by tests.
    """
    occupied = own | opp
    empty = FULL ^ occupied
    men = own & ~kings
    own_kings = own & kings
    total = 0
    next_depth = depth - 1
    next_side = 1 - side
    king_row = KING_ROW[side]
    # R11: a capture, if there is one, must be played.
    capturers = man_capturers(men, opp, empty)
    if capturers or (own_kings and kings_can_capture(own_kings, occupied, opp)):
        sequences = capture_sequences_of(capturers | own_kings, own, opp, kings, side, rules)
        if not next_depth and len(sequences) == 1:
            return 1
        # R4: sequences with the same origin, destination and captured set are one move.
        ends = {(path[0], path[-1], mask) for path, mask in sequences}
        if not next_depth:
            return len(ends)
        for origin, dest, mask in ends:
            o = BIT[origin]
            t = BIT[dest]
            n_kings = kings & ~mask
            # a king keeps its crown; R15: a man is crowned if the move ends on the king row
            n_kings = (n_kings ^ o) | t if kings & o else n_kings | (t & king_row)
            # R14: the captured pieces go all at once, when the sequence is over.
            total += _perft(opp & ~mask, (own ^ o) | t, n_kings, next_side, next_depth, rules)
        return total
    if not next_depth:
        return count_simple_moves(own, opp, kings, side)
    # R6: men step forward; a shift class moves every man of its origins at once.
    for shift, origins in MAN_STEP_CLASSES[side]:
        if shift > 0:
            targets = ((men & origins) << shift) & empty
        else:
            targets = ((men & origins) >> -shift) & empty
        while targets:
            t = targets & -targets
            targets ^= t
            o = t >> shift if shift > 0 else t << -shift
            # R15: a man whose move ends on the king row is crowned.
            total += _perft(
                opp, own ^ (o | t), kings | (t & king_row), next_side, next_depth, rules
            )
    # R8: kings slide to any empty square of a ray before the first occupied one.
    while own_kings:
        k = own_kings & -own_kings
        own_kings ^= k
        for _direction, ray, down in KING_RAYS[k.bit_length()]:
            blockers = ray & occupied
            if not blockers:
                targets = ray
            elif down:
                targets = ray & ((blockers & -blockers) - 1)
            else:
                targets = ray & -(1 << blockers.bit_length())
            while targets:
                t = targets & -targets
                targets ^= t
                total += _perft(opp, own ^ (k | t), kings ^ (k | t), next_side, next_depth, rules)
    return total


def perft(board: Board, depth: int) -> int:
    """Leaf count of the legal move tree of ``board`` to ``depth`` plies (bulk-counted).

    ``depth`` is 0..:data:`MAX_PERFT_DEPTH`; else :class:`PerftError`.
    """
    _check(board, depth, 0, "perft")
    if depth == 0:
        return 1
    own, opp = (board.black, board.white) if board.turn == 0 else (board.white, board.black)
    return _perft(own, opp, board.kings, int(board.turn), depth, board.rules)


def perft_divide(
    board: Board, depth: int, progress: Callable[[int, int], object] | None = None
) -> list[tuple[Move, int]]:
    """Leaf counts per root move (``depth`` 1..:data:`MAX_PERFT_DEPTH`, else
    :class:`PerftError`), in the order of ``board.legal_moves``.

    >>> from poolcheckers.board import Board
    >>> [(str(m), n) for m, n in perft_divide(Board(), 2)][:2]
    [('9-13', 7), ('9-14', 7)]
    >>> perft_divide(Board(), 0)
    Traceback (most recent call last):
    ...
    poolcheckers.errors.PerftError: perft divide depth must be a whole number 1..30, not 0
    """
    _check(board, depth, 1, "perft divide")
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
