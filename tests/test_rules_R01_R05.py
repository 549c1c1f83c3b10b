"""R1–R5: board, numbering, start position, move notation, position notation."""

from __future__ import annotations

import random

import pytest
import reference

from poolcheckers import (
    STARTING_FEN,
    AmbiguousMoveError,
    Board,
    Color,
    Move,
    Piece,
    PieceType,
    perft,
)


def moves(fen: str) -> list[str]:
    return sorted(str(m) for m in Board(fen).legal_moves)


# ----------------------------------------------------------------- R1


def test_R1_dark_squares_and_near_left_corners() -> None:
    """32 playable squares; each player has a dark square at his near left corner."""
    rows = str(Board()).splitlines()[:8]
    for row, line in enumerate(rows):
        cells = [line[i : i + 2] for i in range(0, 16, 2)]
        for col, cell in enumerate(cells):
            dark = (row + col) % 2 == 1
            assert (cell.strip() != "") == dark, (row, col, line)
    # White's near left (row 7, column 0) is square 29; Black's (row 0, column 7) is 4.
    assert rows[7][:2] == " w"
    assert rows[0][14:16] == " b"
    assert Board("B:W29:B4").piece_at(29) == Piece(Color.WHITE, PieceType.MAN)


# ----------------------------------------------------------------- R2


@pytest.mark.parametrize("square", range(1, 33))
def test_R2_numbering_formula(square: int) -> None:
    """Square s is on row (s-1) div 4, column 2((s-1) mod 4)+1 on even rows, 2((s-1) mod 4)
    on odd ones: the diagram of str(board) puts a lone king exactly there."""
    board = Board(f"W:WK{square}:B")
    row = (square - 1) // 4
    col = 2 * ((square - 1) % 4) + (1 if row % 2 == 0 else 0)
    line = str(board).splitlines()[row]
    assert line[2 * col : 2 * col + 2] == " W"
    assert line.count("W") == 1
    # the number column of the diagram names the same square at the same place
    assert line[20 + 2 * col : 22 + 2 * col].strip() == str(square)


def test_R2_black_at_the_top_moves_down() -> None:
    """Black's men (top) move to higher numbers, White's to lower; edges cut the diagonals."""
    assert moves("B:W28:B14") == ["14-17", "14-18"]
    assert moves("W:W14:B1") == ["14-10", "14-9"]
    assert moves("B:W28:B5") == ["5-9"]  # left edge
    assert moves("B:W28:B12") == ["12-16"]  # right edge
    assert moves("B:W28:B13") == ["13-17"]
    assert moves("W:W32:B1") == ["32-27", "32-28"]
    assert moves("W:W29:B1") == ["29-25"]


# ----------------------------------------------------------------- R3


def test_R3_start_position_and_black_moves_first() -> None:
    board = Board()
    assert board.fen() == STARTING_FEN
    assert board.turn is Color.BLACK
    assert board.pieces(Color.BLACK) == list(range(1, 13))
    assert board.pieces(Color.WHITE) == list(range(21, 33))
    assert board.pieces(Color.BLACK, PieceType.KING) == []
    assert moves(STARTING_FEN) == sorted(
        ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    )
    assert Board(None).fen() == STARTING_FEN


# ----------------------------------------------------------------- R4


def test_R4_plain_and_capture_notation() -> None:
    board = Board()
    board.push_notation("11-15")
    board.push_notation("22-18")
    assert [str(m) for m in board.legal_moves] == ["15x22"]
    move = board.legal_moves[0]
    assert move.captured == frozenset({18})
    assert move.is_capture and move.path == (15, 22)
    assert Move((11, 15)).is_capture is False
    assert str(Move((11, 15))) == "11-15"


def test_R4_full_path_when_two_captures_share_from_and_to() -> None:
    fen = "W:WK13:B2,8,K17,19,27"
    assert moves(fen) == ["13x22x4", "13x3", "13x31x24x15x4"]
    board = Board(fen)
    for text in moves(fen):
        assert str(board.parse_move(text)) == text


def test_R4_full_form_always_accepted() -> None:
    board = Board("W:WK7,K12:BK16,K26,K27,K28")
    for move in board.legal_moves:
        assert board.parse_move(move.full_notation()) == move


def test_R4_same_from_to_and_captured_set_is_one_move() -> None:
    """12x19x30 and 12x23x30 jump the same two kings: one move, listed once,
    counted once, named by either path."""
    fen = "W:WK7,K12:BK16,K26,K27,K28"
    board = Board(fen)
    assert moves(fen) == ["12x30", "12x32", "7x13", "7x17", "7x22"]
    (move,) = [m for m in board.legal_moves if m.destination == 30]
    assert move.captured == frozenset({16, 26})
    assert move.path in {(12, 19, 30), (12, 23, 30)}
    assert board.parse_move("12x19x30") == move
    assert board.parse_move("12x23x30") == move
    assert board.parse_move("12x30") == move
    assert perft(board, 1) == 5
    # the reference generator finds the two paths of that one move
    placement = {7: ("w", True), 12: ("w", True)}
    placement.update({s: ("b", True) for s in (16, 26, 27, 28)})
    found = reference.legal_moves(placement, "w")
    assert found[(12, 30, frozenset({16, 26}))] == {(12, 19, 30), (12, 23, 30)}


def test_R4_shorthand_ambiguous_lists_candidates() -> None:
    board = Board("W:WK2:BK6,K14,16,K22,K31")
    with pytest.raises(AmbiguousMoveError) as info:
        board.parse_move("2x12")
    assert sorted(info.value.candidates) == ["2x13x26x12", "2x9x23x12"]
    assert "2x13x26x12" in str(info.value) and "2x9x23x12" in str(info.value)
    assert board.parse_move("2x13x12").full_notation() == "2x13x26x12"
    assert board.parse_move("2x9x23x12").full_notation() == "2x9x23x12"


# R4: "When several captures go from a to b and one of them is a single jump,
# axb names that single jump (it is its full path)", and "a reader must accept
# the full form always" (found broken here; fixed in 4a3ab2d).


def test_R4_single_jump_named_by_axb_king() -> None:
    board = Board("W:WK15,28,31:BK9,K17,K18,19")
    assert moves(board.fen()) == ["15x22x13x6x24", "15x24"]
    move = board.parse_move("15x24")
    assert move.captured == frozenset({19})


def test_R4_single_jump_named_by_axb_man() -> None:
    board = Board("W:W11,21,25:B6,K7,K14,15,16,23")
    move = board.parse_move("11x20")
    assert move.captured == frozenset({16})


def test_R4_full_path_that_is_part_of_a_longer_path() -> None:
    """11x18x27 is the full path of one move, and a subsequence of 11x2x9x18x27."""
    board = Board("W:W11,21,25:B6,K7,K14,15,16,23")
    assert moves(board.fen()) == ["11x18x27", "11x20", "11x2x9x18x11x20", "11x2x9x18x27"]
    move = board.parse_move("11x18x27")
    assert move.captured == frozenset({15, 23})


def test_R4_every_listed_notation_names_its_move() -> None:
    """Seeded sweep: parse_move(str(m)) and parse_move(full path) give m back."""
    rng = random.Random(4)
    failures = []
    for _ in range(3000):
        placement = {}
        for s in rng.sample(range(1, 33), rng.randint(2, 10)):
            color, king = rng.choice("bw"), rng.random() < 0.5
            if not king and reference.to_rc(s)[0] == reference.KING_ROW[color]:
                king = True
            placement[s] = (color, king)
        board = Board(reference.to_fen(placement, rng.choice("bw")))
        for move in board.legal_moves:
            for text in (str(move), move.full_notation()):
                try:
                    ok = board.parse_move(text) == move
                except AmbiguousMoveError:
                    ok = False
                if not ok:
                    failures.append((board.fen(), text))
    assert failures == []


def test_R4_full_path_and_notation_round_trip_when_ends_unique() -> None:
    """Where no other capture shares from and to, both forms name the move."""
    rng = random.Random(44)
    checked = 0
    for _ in range(1500):
        placement = {}
        for s in rng.sample(range(1, 33), rng.randint(2, 10)):
            color, king = rng.choice("bw"), rng.random() < 0.5
            if not king and reference.to_rc(s)[0] == reference.KING_ROW[color]:
                king = True
            placement[s] = (color, king)
        board = Board(reference.to_fen(placement, rng.choice("bw")))
        ends = [(m.origin, m.destination) for m in board.legal_moves]
        for move in board.legal_moves:
            if ends.count((move.origin, move.destination)) == 1:
                assert board.parse_move(str(move)) == move
                assert board.parse_move(move.full_notation()) == move
                checked += 1
    assert checked > 5000


# ----------------------------------------------------------------- R5


def test_R5_position_notation() -> None:
    board = Board("W:WK5,18:B3,K30")
    assert board.turn is Color.WHITE
    assert board.piece_at(5) == Piece(Color.WHITE, PieceType.KING)
    assert board.piece_at(18) == Piece(Color.WHITE, PieceType.MAN)
    assert board.piece_at(3) == Piece(Color.BLACK, PieceType.MAN)
    assert board.piece_at(30) == Piece(Color.BLACK, PieceType.KING)
    assert board.piece_at(1) is None
    assert board.fen() == "W:WK5,18:B3,K30"
    assert (
        Board(STARTING_FEN).fen()
        == "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    )
