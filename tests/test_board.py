"""Board: push/pop, Zobrist hashing, copies, diagram, piece_at, move stack."""

from __future__ import annotations

import random

import pytest
import reference
from hypothesis import given, settings
from hypothesis import strategies as st

from poolcheckers import (
    STARTING_FEN,
    Board,
    Color,
    IllegalMoveError,
    InvalidSquareError,
    Move,
    Piece,
    PieceType,
    RuleSet,
)


def _state(board: Board) -> tuple[object, ...]:
    return (
        board.fen(),
        board.hash,
        board.halfmove_clock,
        board.three_kings_count,
        board.turn,
        board.black,
        board.white,
        board.kings,
        [str(m) for m in board.legal_moves],
    )


@st.composite
def start_fens(draw: st.DrawFn) -> str:
    """The start, or a random valid position (king-heavy half of the time)."""
    if draw(st.booleans()):
        return STARTING_FEN
    rng = random.Random(draw(st.integers(0, 2**32)))
    placement: dict[int, reference.Piece] = {}
    kings = rng.choice([0.1, 0.6])
    for s in rng.sample(range(1, 33), rng.randint(4, 20)):
        color, king = rng.choice("bw"), rng.random() < kings
        if reference.to_rc(s)[0] == reference.KING_ROW[color]:
            king = True
        if sum(1 for c, _ in placement.values() if c == color) < 12:
            placement[s] = (color, king)
    return reference.to_fen(placement, rng.choice("bw"))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(fen=start_fens(), seed=st.integers(0, 2**32), length=st.integers(1, 80))
def test_push_pop_identity(fen: str, seed: int, length: int) -> None:
    rng = random.Random(seed)
    board = Board(fen)
    history = [_state(board)]
    played = []
    for _ in range(length):
        if not board.legal_moves:
            break
        move = rng.choice(board.legal_moves)
        board.push(move)
        played.append(move)
        # the incremental hash is the hash of the position computed from scratch
        again = Board(board.fen())
        assert board.hash == again.hash
        # the counters travel in the FEN (R18 :H, R19 :C), so the outcome does too
        assert again == board
        assert again.outcome() == board.outcome()
        assert board.move_stack == played
        history.append(_state(board))
    while board.move_stack:
        assert _state(board) == history.pop()
        assert board.pop() == played.pop()
    assert _state(board) == history.pop() == _state(Board(fen))
    assert board.ply == 0


def test_hash_same_position_by_different_move_orders() -> None:
    a = Board()
    for text in ["9-13", "24-20", "10-14", "23-19"]:
        a.push_notation(text)
    b = Board()
    for text in ["10-14", "23-19", "9-13", "24-20"]:
        b.push_notation(text)
    assert a.fen() == b.fen()
    assert a.hash == b.hash == Board(a.fen()).hash
    assert a == b


def test_hash_same_king_position_by_different_routes() -> None:
    a = Board("B:WK29,K30:BK3,K4")
    for text in ["3-7", "30-26", "7-10", "26-23"]:
        a.push_notation(text)
    b = Board("B:WK29,K30:BK3,K4")
    for text in ["3-10", "30-23"]:
        b.push_notation(text)
    c = Board("B:WK29,K30:BK3,K4")
    for text in ["3-7", "30-23", "7-10"]:
        c.push_notation(text)
    assert a.hash == b.hash == Board("B:WK23,K29:BK4,K10").hash
    assert c.hash != a.hash  # White to move there
    assert c.hash == Board("W:WK23,K29:BK4,K10").hash


def test_hash_distinguishes_side_kings_and_colour() -> None:
    hashes = {
        Board(f).hash
        for f in ["B:W21:B9", "W:W21:B9", "B:WK21:B9", "B:W21:BK9", "B:W9:B21", "B:W22:B9"]
    }
    assert len(hashes) == 6


def test_hash_of_crowning_and_capture() -> None:
    board = Board("B:W26,24:B22")
    board.push_notation("22x31")
    assert board.hash == Board("W:W24:BK31").hash
    board = Board("B:W23,24:BK5")
    board.push_notation("5x20")
    assert board.hash == Board("W:W:BK20").hash


def test_copy_is_independent() -> None:
    board = Board()
    board.push_notation("11-15")
    copy = board.copy()
    assert copy.fen() == board.fen() and copy.hash == board.hash
    assert copy.move_stack == board.move_stack and copy.move_stack is not board.move_stack
    copy.push_notation("22-18")
    assert board.ply == 1 and copy.ply == 2
    assert board.fen() != copy.fen()
    assert str(board.legal_moves[0]) != "15x22"
    copy.pop()
    copy.pop()
    assert copy.fen() == STARTING_FEN
    assert board.move_stack[0] == Move((11, 15))
    board.pop()
    assert board.fen() == STARTING_FEN


def test_copy_without_stack() -> None:
    board = Board()
    board.push_notation("11-15")
    copy = board.copy(stack=False)
    assert copy.move_stack == []
    assert copy.start_fen == board.fen()
    with pytest.raises(IndexError):
        copy.pop()
    assert board.start_fen == STARTING_FEN


def test_copy_keeps_rules() -> None:
    rules = RuleSet(crown_during_capture="stop")
    assert Board(rules=rules).copy().rules == rules


def test_diagram_of_the_start() -> None:
    assert str(Board()) == "\n".join(
        [
            "   b   b   b   b       1   2   3   4",
            " b   b   b   b       5   6   7   8",
            "   b   b   b   b       9  10  11  12",
            " .   .   .   .      13  14  15  16",
            "   .   .   .   .      17  18  19  20",
            " w   w   w   w      21  22  23  24",
            "   w   w   w   w      25  26  27  28",
            " w   w   w   w      29  30  31  32",
            "Black to move",
        ]
    )


def test_diagram_shows_kings_and_side() -> None:
    text = str(Board("W:WK5,18:B3,K30"))
    lines = text.splitlines()
    assert lines[1].startswith(" W")
    assert lines[7].startswith(" .   B")
    assert lines[-1] == "White to move"
    assert repr(Board("W:WK5,18:B3,K30")) == "Board('W:WK5,18:B3,K30')"


def test_piece_at() -> None:
    board = Board("W:WK5,18:B3,K30")
    assert board.piece_at(3) == Piece(Color.BLACK, PieceType.MAN)
    assert board.piece_at(5) == Piece(Color.WHITE, PieceType.KING)
    assert board.piece_at(4) is None
    for bad in (0, 33, -1):
        with pytest.raises(InvalidSquareError):
            board.piece_at(bad)


def test_move_stack_push_pop_peek() -> None:
    board = Board()
    assert board.move_stack == [] and board.peek() is None
    first = board.push_notation("11-15")
    second = board.push_notation("22-18")
    third = board.push_notation("15x22")
    assert board.move_stack == [first, second, third]
    assert board.peek() == third and board.ply == 3
    assert board.pop() == third
    assert board.pop() == second
    assert board.pop() == first
    with pytest.raises(IndexError):
        board.pop()


def test_push_illegal_move_changes_nothing() -> None:
    board = Board()
    before = _state(board)
    with pytest.raises(IllegalMoveError):
        board.push(Move((11, 16, 20)))
    with pytest.raises(IllegalMoveError):
        board.push(Move((22, 18)))
    assert _state(board) == before


def test_push_stores_the_generators_move() -> None:
    """A hand-made Move equal to a legal one is stored as the generator's (R4 notation)."""
    board = Board("W:WK13:B2,8,K17,19,27")
    legal = next(m for m in board.legal_moves if m.path == (13, 22, 4))
    hand_made = Move((13, 22, 4), legal.captured)
    board.push(hand_made)
    assert str(board.peek()) == "13x22x4"


def test_notation_of_a_move() -> None:
    board = Board("W:WK13:B2,8,K17,19,27")
    for move in board.legal_moves:
        assert board.notation(move) == str(move)
    assert board.notation(Move((1, 5))) == "1-5"


def test_legal_moves_are_unique() -> None:
    board = Board("B:W8,K10,K19,K22,27:BK3")
    assert len(board.legal_moves) == len(set(board.legal_moves)) == 5
    assert all(board.is_legal(m) for m in board.legal_moves)


def test_set_fen_clears_the_stack() -> None:
    board = Board()
    board.push_notation("11-15")
    board.set_fen("W:WK5,18:B3,K30")
    assert board.move_stack == [] and board.start_fen == "W:WK5,18:B3,K30"


def test_reversible_history() -> None:
    board = Board("B:WK29,K30:BK3,K4")
    board.push_notation("3-7")
    board.push_notation("30-26")
    history = board.reversible_history()
    assert len(history) == 2
    assert history[0][3] is Color.BLACK and history[1][3] is Color.WHITE
    first = Board("B:WK29,K30:BK3,K4")
    assert history[0][:3] == (first.black, first.white, first.kings)
