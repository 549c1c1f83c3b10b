"""R11–R15: compulsory capture, free choice, completion, jumped pieces, crowning;
and every worked example of the rule book's rule-examples.json (kept in tests/data)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from poolcheckers import Board, Color, IllegalMoveError, Piece, PieceType, RuleSet

STOP = RuleSet(crown_during_capture="stop")


def moves(fen: str, rules: RuleSet | None = None) -> list[str]:
    return sorted(str(m) for m in Board(fen, rules=rules).legal_moves)


# ----------------------------------------------------------------- R11


def test_R11_capture_is_compulsory() -> None:
    assert moves("B:W18:B14,1") == ["14x23"]
    board = Board("B:W18:B14,1")
    assert board.has_capture()
    with pytest.raises(IllegalMoveError, match="R11"):
        board.parse_move("1-5")
    with pytest.raises(IllegalMoveError, match="R11"):
        board.parse_move("1-6")


def test_R11_a_king_capture_forces_men_to_wait() -> None:
    # only the king can capture; the man on 12 may not move
    assert moves("B:W23,28:BK5,12") == ["5x27", "5x32"]


def test_R11_no_capture_no_duty() -> None:
    assert not Board("B:W23:B14").has_capture()
    assert moves("B:W23:B14") == ["14-17", "14-18"]


# ----------------------------------------------------------------- R12


def test_R12_free_choice_not_the_most_pieces() -> None:
    # 14x32 takes two, 14x7 takes one: both are legal
    board = Board("B:W18,27,10:B14")
    assert moves(board.fen()) == ["14x32", "14x7"]
    assert {len(m.captured) for m in board.legal_moves} == {1, 2}


def test_R12_free_choice_not_the_king() -> None:
    # man 14x23 or king 4x... : either piece may capture
    fen = "B:W18,8:B14,K4"
    got = moves(fen)
    assert "14x23" in got
    assert any(m.startswith("4x") for m in got)


# ----------------------------------------------------------------- R13


def test_R13_capture_must_be_completed() -> None:
    board = Board("B:W18,27:B14")
    assert moves(board.fen()) == ["14x32"]
    with pytest.raises(IllegalMoveError, match="R13"):
        board.parse_move("14x23")


def test_R13_king_must_complete_too() -> None:
    board = Board("B:W23,24:BK5")
    with pytest.raises(IllegalMoveError, match="R13"):
        board.parse_move("5x27")
    assert [str(m) for m in board.legal_moves] == ["5x20"]


# ----------------------------------------------------------------- R14


def test_R14_jumped_pieces_block_until_the_end() -> None:
    """rule-examples.json: jumped pieces stay on the board as blockers."""
    assert moves("B:WK1,7,8,K19,22,23,24:B5,K15") == ["15x25", "15x29", "15x4"]


def test_R14_start_square_is_empty_during_the_sequence() -> None:
    """rule-examples.json: a king may even end on its own start square (3x3)."""
    fen = "B:W8,K10,K19,K22,27:BK3"
    assert moves(fen) == ["3x12x23x32", "3x14x32", "3x3", "3x4", "3x7"]
    board = Board(fen)
    (circle,) = [m for m in board.legal_moves if m.destination == 3]
    assert len(circle.captured) == 4
    board.push(circle)
    assert board.piece_at(3) == Piece(Color.BLACK, PieceType.KING)
    assert board.pieces(Color.WHITE) == sorted({8, 10, 19, 22, 27} - circle.captured)


def test_R14_a_man_may_return_over_its_start_square() -> None:
    # 11x2x9x18x11x20: the white man passes its own start square 11
    assert "11x2x9x18x11x20" in moves("W:W11,21,25:B6,K7,K14,15,16,23")


def test_R14_a_piece_is_jumped_once() -> None:
    # K9 jumps 18; from any landing the way back crosses 18 again: not allowed
    board = Board("B:W18:BK9")
    assert moves(board.fen()) == ["9x23", "9x27", "9x32"]
    assert {m.captured for m in board.legal_moves} == {frozenset({18})}


def test_R14_never_jumps_own_pieces() -> None:
    # own man on 8 shields the white man on 15 from the king on 4
    assert moves("B:W15:BK4,8") == ["8-11", "8-12"]


def test_R14_pieces_removed_all_at_once_after_the_sequence() -> None:
    board = Board("B:W18,27:B14")
    board.push(board.legal_moves[0])
    assert board.fen() == "W:W:BK32"


# ----------------------------------------------------------------- R15


def test_R15_man_crowned_when_the_move_ends_on_the_king_row() -> None:
    board = Board("B:W5:B25")
    board.push_notation("25-30")
    assert board.piece_at(30) == Piece(Color.BLACK, PieceType.KING)
    board = Board("W:W5:B25")
    board.push_notation("5-1")
    assert board.piece_at(1) == Piece(Color.WHITE, PieceType.KING)


def test_R15_crowned_by_a_capture_and_the_turn_is_over() -> None:
    # 22x31 crowns; as a king it could take 24 at a distance, but the turn ends
    board = Board("B:W26,24:B22")
    assert moves(board.fen()) == ["22x31"]
    board.push_notation("22x31")
    assert board.piece_at(31) == Piece(Color.BLACK, PieceType.KING)
    assert board.turn is Color.WHITE
    assert board.pieces(Color.WHITE) == [24]


def test_R15_man_passes_the_king_row_mid_capture_as_a_man() -> None:
    """rule-examples.json: 11x9 jumps on from 2 as a man; not crowned on 2."""
    fen = "W:WK3,K10,11,30:BK6,7,K29,K31"
    assert moves(fen) == ["10x1", "11x9"]
    board = Board(fen)
    board.push_notation("11x9")
    assert board.piece_at(9) == Piece(Color.WHITE, PieceType.MAN)


def test_R15_man_does_not_jump_on_as_a_king() -> None:
    # the man passes 2 and goes on as a man: 9x18 etc.; a long multi-jump through the
    # king row that ends off it leaves a man
    board = Board("W:W11,21,25:B6,K7,K14,15,16,23")
    long = board.parse_move("11x2x9x18x27")
    board.push(long)
    assert board.piece_at(27) == Piece(Color.WHITE, PieceType.MAN)


def test_R15_sequence_ending_on_the_king_row_crowns() -> None:
    # white man 20x11x2: ends on the king row: crowned
    board = Board("W:W20:B16,7")
    assert moves(board.fen()) == ["20x2"]
    board.push_notation("20x2")
    assert board.piece_at(2) == Piece(Color.WHITE, PieceType.KING)


# ----------------------------------------------------------------- rule-examples.json

EXAMPLES_PATH = Path(__file__).parent / "data" / "rule-examples.json"


def _examples() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(EXAMPLES_PATH.read_text())["examples"]
    return data


@pytest.mark.parametrize("example", _examples(), ids=lambda e: f"{e['rules']}: {e['fen']}")
def test_rule_examples(example: dict[str, Any]) -> None:
    assert moves(example["fen"]) == example["legal_moves"]
    if "legal_moves_with_crown_during_capture_stop" in example:
        assert moves(example["fen"], STOP) == example["legal_moves_with_crown_during_capture_stop"]
    else:
        # without a man reaching the king row mid-capture the option changes nothing
        assert moves(example["fen"], STOP) == example["legal_moves"]


def test_rule_examples_are_all_present() -> None:
    examples = _examples()
    assert len(examples) >= 4
    assert all(e["legal_moves"] == sorted(e["legal_moves"]) for e in examples)


def test_R11_a_plain_move_of_a_piece_that_must_capture_names_R11() -> None:
    board = Board()
    board.push_notation("11-15")
    board.push_notation("22-18")
    for text in ("15-19", "15-18", "9-13"):
        with pytest.raises(IllegalMoveError, match="a capture is available: R11"):
            board.parse_move(text)
