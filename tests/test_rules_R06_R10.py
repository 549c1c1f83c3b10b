"""R6–R10: men (move forward, capture both ways) and flying kings."""

from __future__ import annotations

import pytest

from poolcheckers import Board, Color, IllegalMoveError, Piece, PieceType


def moves(fen: str) -> list[str]:
    return sorted(str(m) for m in Board(fen).legal_moves)


# ----------------------------------------------------------------- R6


def test_R6_man_moves_one_square_forward() -> None:
    assert moves("B:W28:B14") == ["14-17", "14-18"]
    assert moves("W:W14:B1") == ["14-10", "14-9"]


def test_R6_man_never_moves_backward_or_further() -> None:
    board = Board("B:W28:B14")
    for text in ("14-9", "14-10", "14-21", "14-23"):
        with pytest.raises(IllegalMoveError, match="R6"):
            board.parse_move(text)


def test_R6_only_to_an_empty_square() -> None:
    assert moves("B:W28:B14,17") == ["14-18", "17-21", "17-22"]
    board = Board("B:W28:B14,17")
    with pytest.raises(IllegalMoveError, match="occupied"):
        board.parse_move("14-17")


def test_R6_blocked_man_has_no_move() -> None:
    # black man on 14 faces 17 (own) and 18, 23 (white: 18 cannot be jumped, 23 is behind)
    assert moves("B:W18,23:B14,17") == ["17-21", "17-22"]


# ----------------------------------------------------------------- R7


def test_R7_man_captures_forward_and_backward_man_or_king() -> None:
    # forward over the man on 18, backward over the king on 10
    assert moves("B:W18,K10:B14") == ["14x23", "14x7"]
    assert moves("W:W22,27:B18,K26") == ["22x15", "22x31"]
    assert Board("B:W18,K10:B14").parse_move("14x7").captured == frozenset({10})


def test_R7_man_jumps_only_an_adjacent_piece_onto_an_empty_square() -> None:
    assert moves("B:W23:B14") == ["14-17", "14-18"]  # 23 is two squares away
    assert moves("B:W18,23:B14") == ["14-17"]  # the square beyond 18 is taken
    assert moves("B:W18:B14,23") == ["14-17", "23-26", "23-27"]  # own piece beyond
    assert moves("B:W5:B1") == ["1-6"]  # 5 on the edge: no square beyond


# ----------------------------------------------------------------- R8


def test_R8_king_moves_any_distance_both_ways() -> None:
    assert moves("B:W32:BK18") == sorted(
        f"18-{t}" for t in (14, 9, 5, 15, 11, 8, 4, 22, 25, 29, 23, 27)
    )


def test_R8_king_stops_before_an_occupied_square() -> None:
    # own man on 11 cuts the NE diagonal; the white man on 32 cannot be jumped (corner)
    assert moves("B:W32:BK18,11") == sorted(
        ["11-15", "11-16"] + [f"18-{t}" for t in (14, 9, 5, 15, 22, 25, 29, 23, 27)]
    )
    board = Board("B:W32:BK18,11")
    with pytest.raises(IllegalMoveError, match="R8"):
        board.parse_move("18-8")  # through its own man
    with pytest.raises(IllegalMoveError, match="R8"):
        board.parse_move("18-20")  # not on a diagonal


def test_R8_white_king_too() -> None:
    assert moves("W:WK29:B1") == ["29-11", "29-15", "29-18", "29-22", "29-25", "29-4", "29-8"]


# ----------------------------------------------------------------- R9


def test_R9_king_captures_at_a_distance_and_lands_anywhere_beyond() -> None:
    # K5 passes 9, 14, 18, jumps 23, may land on 27 or 32
    assert moves("B:W23:BK5") == ["5x27", "5x32"]
    board = Board("B:W23:BK5")
    assert {m.captured for m in board.legal_moves} == {frozenset({23})}


def test_R9_landing_only_before_the_next_occupied_square() -> None:
    # K4 jumps 8; it may land on 11, 15, 18, 22, 25 but not beyond its own king on 29
    assert moves("B:W8:BK4,K29,14") == ["4x11", "4x15", "4x18", "4x22", "4x25"]


def test_R9_king_cannot_jump_two_pieces_in_a_row() -> None:
    # 23 and 27 stand next to each other on the diagonal of K5
    assert "5x32" not in moves("B:W23,27:BK5,1")
    assert not Board("B:W23,27:BK5,1").has_capture()


def test_R9_king_changes_direction_after_a_jump() -> None:
    # K5 jumps 23 to 27, turns NE and jumps 24 to 20
    board = Board("B:W23,24:BK5")
    assert moves(board.fen()) == ["5x20"]
    (move,) = board.legal_moves
    assert move.path == (5, 27, 20)
    assert move.captured == frozenset({23, 24})
    board.push(move)
    assert board.fen() == "W:W:BK20"


def test_R9_king_capture_is_compulsory_like_any_capture() -> None:
    # The white king's capture at a distance is the only legal move kind (R11)
    assert moves("W:WK29,31:B15") == ["29x11", "29x4", "29x8"]  # not 31-26 etc.


# ----------------------------------------------------------------- R10


def test_R10_king_must_land_where_the_capture_goes_on() -> None:
    # K5 jumps 23; from 27 it can go on over 24, from 32 not: 27 is compulsory
    assert "5x32" not in moves("B:W23,24:BK5")


def test_R10_free_landing_when_none_goes_on() -> None:
    assert moves("B:W23:BK5") == ["5x27", "5x32"]


def test_R10_several_landings_that_go_on_are_all_allowed() -> None:
    # K12 jumps 16 and may land on 19 or 23: both go on over 26 (one move, R4)
    board = Board("W:WK7,K12:BK16,K26,K27,K28")
    (move,) = [m for m in board.legal_moves if m.origin == 12 and m.destination == 30]
    assert board.parse_move("12x19x30") == move == board.parse_move("12x23x30")


def test_R10_rule_example() -> None:
    """rule-examples.json: a king must land where its capture can go on."""
    assert moves("W:WK7,10,21,K31,K32:B4,9,K19,22") == ["31x2", "31x6", "32x5"]


def test_kings_and_men_are_distinct_pieces() -> None:
    board = Board("B:W32:BK18,11")
    assert board.piece_at(18) == Piece(Color.BLACK, PieceType.KING)
    assert board.piece_at(11) == Piece(Color.BLACK, PieceType.MAN)
    king, man = board.piece_at(18), board.piece_at(32)
    assert king is not None and king.symbol() == "B"
    assert man is not None and man.symbol() == "w"
