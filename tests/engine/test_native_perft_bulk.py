"""The native perft's bulk counts against the library on the positions that
take their special paths: a man's four-jump square back onto its own origin
(R14, R4), short men captures made from bitboards (R7, R13, R15), and the
replies to all the man steps of a direction at once (R6, R7, R11)."""

from __future__ import annotations

import random

import pytest

from poolcheckers import Board, RuleSet, perft
from poolcheckers.engine import perft_native

from .helpers import random_playout

RULES = {"pass": RuleSet.apca(), "stop": RuleSet(crown_during_capture="stop")}


@pytest.mark.parametrize("crown", sorted(RULES))
def test_man_square_back_to_its_origin_is_one_move(crown: str) -> None:
    # 10x17x26x19x10 both ways round: the origin is empty during the sequence
    # (R14) and the two ways are one move (R4).
    board = Board("W:W10:B14,15,22,23", RULES[crown])
    assert [str(m) for m in board.legal_moves] == ["10x10"]
    assert perft_native(board, 1) == perft(board, 1) == 1
    # a fifth piece to take from the origin, and a shorter capture beside it
    board = Board("W:W10,31:B14,15,22,23,6", RULES[crown])
    assert perft_native(board, 1) == perft(board, 1) == len(board.legal_moves)
    assert perft_native(board, 3) == perft(board, 3)


def test_short_men_captures_through_the_king_row() -> None:
    # A man passing its king row mid-capture goes on as a man ("pass", R15) or
    # is crowned and stops there ("stop").
    cases = {
        "W:W9:B6,7": {"pass": ["9x11"], "stop": ["9x2"]},
        "W:W9,30:B6,7,15,21": {"pass": ["9x18"], "stop": ["9x2"]},
        "B:W26,27,30:B22,23,K4": {"pass": ["22x24", "23x32"], "stop": ["22x31", "23x32"]},
    }
    for fen, expected in cases.items():
        for crown, moves in expected.items():
            board = Board(fen, RULES[crown])
            assert sorted(str(m) for m in board.legal_moves) == moves
            for depth in (1, 2, 3):
                assert perft_native(board, depth) == perft(board, depth), (fen, crown, depth)


@pytest.mark.parametrize("crown", sorted(RULES))
def test_random_games_depth_three(crown: str) -> None:
    # Depth 3 runs the bulk count of the replies at every position whose side
    # to move has no capture, and the bitboard captures at the others.
    rng = random.Random(2026 if crown == "pass" else 7)
    for _ in range(40):
        board = random_playout(rng.randrange(2**32), rng.randrange(50), RULES[crown])
        assert perft_native(board, 3) == perft(board, 3), board.fen()
