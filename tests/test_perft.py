"""Perft: leaf counts of the move tree (R4: a capture with the same from, to and
captured set counts once), from the start and under the options of §9."""

from __future__ import annotations

import pytest
import reference

from poolcheckers import Board, PoolCheckersError, RuleSet, perft, perft_divide
from poolcheckers.errors import PerftError
from poolcheckers.perft import MAX_PERFT_DEPTH
from poolcheckers.rules import CrownDuringCapture

START_PERFT = [7, 49, 302, 1469, 7482, 37986, 190146, 929896]


@pytest.mark.parametrize(("depth", "expected"), list(enumerate(START_PERFT, start=1))[:7])
def test_perft_from_the_start(depth: int, expected: int) -> None:
    assert perft(Board(), depth) == expected


@pytest.mark.slow
def test_perft_8_from_the_start() -> None:
    assert perft(Board(), 8) == START_PERFT[7]


def test_perft_depth_zero_and_negative() -> None:
    assert perft(Board(), 0) == 1
    with pytest.raises(PerftError):
        perft(Board(), -1)
    with pytest.raises(PerftError):
        perft_divide(Board(), 0)


@pytest.mark.parametrize(
    "depth", [-1, -(10**9), MAX_PERFT_DEPTH + 1, 10**9, 10**100, "3", 2.0, True, None]
)
def test_bad_perft_depths_raise_the_librarys_error(depth: object) -> None:
    """Not ValueError from a comparison, TypeError, or RecursionError from a depth
    the recursion cannot reach (perft(Board(), 10**9) used to overflow the stack)."""
    for count, minimum in ((perft, 0), (perft_divide, 1)):
        with pytest.raises(
            PerftError, match=rf"depth must be a whole number {minimum}\.\.30"
        ) as info:
            # the depth is deliberately of any type: the check under test
            count(Board(), depth)  # type: ignore[arg-type]
        assert isinstance(info.value, PoolCheckersError)
        assert repr(depth)[:20] in str(info.value)


def test_perft_of_something_that_is_not_a_board() -> None:
    # deliberately not a Board: the library's own type check under test
    with pytest.raises(PerftError, match=r"poolcheckers\.Board, not str"):
        perft("B:W:B1", 2)  # type: ignore[arg-type]
    with pytest.raises(PerftError, match=r"poolcheckers\.Board, not NoneType"):
        perft_divide(None, 2)  # type: ignore[arg-type]


def test_the_deepest_perft_is_taken_where_it_is_cheap() -> None:
    # White has no piece: after Black's two moves the tree ends (R16)
    assert perft(Board("B:W:B1"), MAX_PERFT_DEPTH) == 0
    assert [n for _, n in perft_divide(Board("B:W:B1"), MAX_PERFT_DEPTH)] == [0, 0]


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_perft_divide_sums_to_perft(depth: int) -> None:
    board = Board()
    rows = perft_divide(board, depth)
    assert [m for m, _ in rows] == board.legal_moves
    assert sum(n for _, n in rows) == START_PERFT[depth - 1]
    assert board.ply == 0  # the board is left as it was


def test_perft_divide_progress_callback() -> None:
    calls: list[tuple[int, int]] = []
    perft_divide(Board(), 2, lambda done, total: calls.append((done, total)))
    assert calls == [(i, 7) for i in range(1, 8)]


def test_perft_leaves_the_board_unchanged() -> None:
    board = Board()
    board.push_notation("11-15")
    before = (board.fen(), board.hash, board.ply)
    perft(board, 4)
    assert (board.fen(), board.hash, board.ply) == before


def reference_perft(
    placement: dict[int, tuple[str, bool]], color: str, depth: int, stop: bool
) -> int:
    """Perft with the independent reference generator."""
    moves = reference.legal_moves(placement, color, stop)
    if depth == 1:
        return len(moves)
    return sum(
        reference_perft(reference.apply(placement, key), reference.opponent(color), depth - 1, stop)
        for key in moves
    )


def _placement(board: Board) -> dict[int, tuple[str, bool]]:
    out = {}
    for square in range(1, 33):
        piece = board.piece_at(square)
        if piece is not None:
            out[square] = ("b" if piece.color == 0 else "w", piece.type.name == "KING")
    return out


POSITIONS = [
    ("W:W11,21,25:B6,K7,K14,15,16,23", 3),  # a man passing the king row mid-capture
    ("W:WK3,K10,11,30:BK6,7,K29,K31", 3),
    ("B:W8,K10,K19,K22,27:BK3", 3),  # flying-king circles
    ("W:WK7,10,21,K31,K32:B4,9,K19,22", 3),
    ("B:W18,19,22,23,26,27:B5,6,9,10,14", 4),  # crowded, men only
]


@pytest.mark.parametrize("crown", ["pass", "stop"])
@pytest.mark.parametrize(("fen", "depth"), POSITIONS)
def test_perft_with_options_against_the_reference(
    fen: str, depth: int, crown: CrownDuringCapture
) -> None:
    rules = RuleSet(crown_during_capture=crown)
    board = Board(fen, rules=rules)
    color = "b" if fen[0] == "B" else "w"
    expected = reference_perft(_placement(board), color, depth, crown == "stop")
    assert perft(board, depth) == expected
    assert sum(n for _, n in perft_divide(board, depth)) == expected


def test_crown_during_capture_changes_perft() -> None:
    fen = "W:W11,21,25:B6,K7,K14,15,16,23"
    passing = perft(Board(fen), 4)
    stopping = perft(Board(fen, rules=RuleSet(crown_during_capture="stop")), 4)
    assert (passing, stopping) == (291, 651)


def test_end_rule_options_do_not_change_perft() -> None:
    """Perft counts the move tree; R18/R19/repetition options decide outcomes only."""
    rules = RuleSet(three_kings_limit_result="loss", king_only_move_limit=15, repetition_draw=True)
    assert perft(Board(rules=rules), 5) == START_PERFT[4]
