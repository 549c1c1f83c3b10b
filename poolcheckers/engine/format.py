"""Search information for people: scores, "win in N moves", principal variations.

Scores are centi-men from the side to move's point of view (a man is 100) and
are shown in men: ``+0.35``.  A proven end is shown as ``win in N`` or
``loss in N``, where **N counts the winner's own moves** until the win, as a
chess engine's "mate in N" does: the move that takes the last piece or leaves
the loser without a move (R16) is the winner's N-th move.  The engine reports
such an end in plies (:attr:`SearchInfo.mate_in`: plies until the end, positive
when the side to move wins); :func:`mate_in_moves` converts it.  Every place
that shows a proven end (``analyse``, ``play``, the Hub ``win-in`` field, the
web app through the ``win_in`` field of :func:`info_fields`) uses these
functions, so they agree.

Black to move with four kings against one wins in two moves (three plies:
Black, White, Black):

>>> from poolcheckers import Board
>>> mate_in_moves(3), mate_in_moves(-4), mate_in_moves(1)
(2, -2, 1)
>>> format_score(9990, 3), format_score(-9990, -4), format_score(35, None)
('win in 2', 'loss in 2', '+0.35')
>>> board = Board()
>>> pv_notation(board, [board.parse_move("11-15"), Move.from_notation("22-18")])
['11-15', '22-18']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from poolcheckers.board import Board
from poolcheckers.move import Move

from .protocols import SearchInfo

__all__ = [
    "CENTI_MEN_PER_MAN",
    "TABLEBASE_WIN",
    "TABLEBASE_WIN_BAND",
    "format_nps",
    "format_score",
    "info_fields",
    "is_tablebase_score",
    "mate_in_moves",
    "pv_notation",
    "score_in_men",
    "win_in",
]

#: A man is worth 100 in the engine's scores (centi-men).
CENTI_MEN_PER_MAN = 100

#: The engine's score of a win proven by the endgame tables: ``PC_EGDB_WIN - ply - dtz``
#: (native/egdb_search.h), above any evaluation and below the mate scores (30000).
TABLEBASE_WIN = 20000
#: How far below :data:`TABLEBASE_WIN` a table win can score: the search's ply (under
#: 128, native/search.h) plus a DTZ of one byte, with room to spare.
TABLEBASE_WIN_BAND = 1000


def is_tablebase_score(score: int) -> bool:
    """Whether ``score`` is a win or loss the engine took from the endgame tables.

    >>> is_tablebase_score(19982), is_tablebase_score(-19982), is_tablebase_score(1500)
    (True, True, False)
    """
    return TABLEBASE_WIN - TABLEBASE_WIN_BAND < abs(score) <= TABLEBASE_WIN


def mate_in_moves(mate_in_plies: int) -> int:
    """The winner's own moves to a proven end, from the engine's plies.

    Positive when the side to move wins (it makes the first and the last move:
    ``p`` plies hold ``(p + 1) // 2`` of its moves), negative when it loses
    (the opponent makes every second ply, the last included: ``p // 2`` moves,
    the same formula for the even ``p`` of a loss).  Zero plies (a position
    already lost) is ``0``.

    >>> [mate_in_moves(p) for p in (1, 2, 3, 5, -2, -4, -6, 0)]
    [1, 1, 2, 3, -1, -2, -3, 0]
    """
    moves = (abs(mate_in_plies) + 1) // 2
    return moves if mate_in_plies > 0 else -moves


def win_in(info: SearchInfo) -> int | None:
    """:func:`mate_in_moves` of ``info.mate_in``, or ``None`` when no end is proven.

    >>> from poolcheckers import Board
    >>> from poolcheckers.engine import Engine, Limit
    >>> win_in(Engine(hash_mb=1).search(Board("B:WK29:BK1,K2,K3,K4"), Limit(depth=6)))
    2
    """
    return None if info.mate_in is None else mate_in_moves(info.mate_in)


def score_in_men(score: int) -> str:
    """A centi-men score in men with its sign: ``+0.35``, ``-1.20``, ``+0.00``.

    >>> score_in_men(-120), score_in_men(0)
    ('-1.20', '+0.00')
    """
    return f"{score / CENTI_MEN_PER_MAN:+.2f}"


def format_score(score: int, mate_in: int | None) -> str:
    """A score for people: ``+0.35`` men, ``win in N`` / ``loss in N`` moves, or
    ``tablebase win`` / ``tablebase loss`` for a result the endgame tables proved
    (docs/EGDB.md; their score ``20000 - plies`` is no count of men).

    ``mate_in`` is the engine's plies to a proven end (``None``: none proven).

    >>> format_score(-20, None), format_score(29999, 1), format_score(-29990, -2)
    ('-0.20', 'win in 1', 'loss in 1')
    >>> format_score(19982, None), format_score(-19990, None)
    ('tablebase win', 'tablebase loss')
    """
    if mate_in is not None:
        moves = mate_in_moves(mate_in)
        return f"win in {moves}" if moves > 0 else f"loss in {-moves}"
    if is_tablebase_score(score):
        return "tablebase win" if score > 0 else "tablebase loss"
    return score_in_men(score)


def pv_notation(board: Board, pv: Sequence[Move]) -> list[str]:
    """The R4 notation of each move of ``pv`` played from ``board`` (unchanged).

    Stops at the first move that is not legal where it is played.
    """
    return [str(move) for move in board.legal_prefix(pv)]


def format_nps(nodes: int, seconds: float) -> str:
    """Nodes per second, scaled: ``812``, ``45.2k``, ``3.10M``.

    >>> format_nps(3_100_000, 1.0), format_nps(45_200, 1.0), format_nps(10, 0.0)
    ('3.10M', '45.2k', '-')
    """
    if seconds <= 0:
        return "-"
    rate = nodes / seconds
    if rate >= 1e6:
        return f"{rate / 1e6:.2f}M"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f}k"
    return f"{rate:.0f}"


def info_fields(board: Board, info: SearchInfo) -> dict[str, Any]:
    """A search report of ``board`` as plain data (for JSON), units named.

    ``score`` centi-men and ``mate_in`` plies as the engine gives them;
    ``win_in`` the winner's moves (signed like ``mate_in``, ``None`` when no end
    is proven) and ``score_text`` the words people read (:func:`format_score`);
    ``pv`` in R4 notation, cut where a move stops being legal.

    >>> from poolcheckers import Board
    >>> from poolcheckers.engine import Engine, Limit
    >>> board = Board("B:WK29:BK1,K2,K3,K4")
    >>> fields = info_fields(board, Engine(hash_mb=1).search(board, Limit(depth=6)))
    >>> fields["mate_in"], fields["win_in"], fields["score_text"]
    (3, 2, 'win in 2')
    """
    seconds = max(float(info.time), 0.0)
    return {
        "depth": info.depth,
        "score": info.score,
        "mate_in": info.mate_in,
        "win_in": win_in(info),
        "score_text": format_score(info.score, info.mate_in),
        "pv": pv_notation(board, info.pv),
        "nodes": info.nodes,
        "nps": int(info.nodes / seconds) if seconds > 0 else 0,
        "time": seconds,
    }
