"""The bulk-counting perft fast path (bare bitboards) against perft through the
Board API (``legal_moves``, ``push``, ``pop``), on seeded random positions with
men and kings, under both values of ``crown_during_capture`` (R15, §9)."""

from __future__ import annotations

import random

import pytest

from poolcheckers import Board, RuleSet, perft
from poolcheckers.movegen import count_simple_moves, generate, has_capture
from poolcheckers.rules import CrownDuringCapture


def _board_perft(board: Board, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += _board_perft(board, depth - 1)
        board.pop()
    return total


def _random_fens(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        squares = rng.sample(range(1, 33), rng.randint(3, 14))
        black = [s for s in squares if rng.random() < 0.5]
        white = [s for s in squares if s not in black]
        if not black or not white:
            continue

        # a man on its own king row would already be a king (R15)
        def spell(own: list[int], king_row: range) -> str:
            return ",".join(f"K{s}" if s in king_row or rng.random() < 0.3 else str(s) for s in own)

        turn = rng.choice("BW")
        fens.append(f"{turn}:W{spell(white, range(1, 5))}:B{spell(black, range(29, 33))}")
    return fens


@pytest.mark.parametrize("crown", ["pass", "stop"])
def test_fast_perft_matches_board_perft(crown: CrownDuringCapture) -> None:
    rules = RuleSet(crown_during_capture=crown)
    for fen in _random_fens(2026 if crown == "pass" else 7, 40):
        board = Board(fen, rules)
        assert perft(board, 3) == _board_perft(board, 3), fen


def test_fast_perft_from_random_play() -> None:
    rng = random.Random(11)
    board = Board()
    for _ in range(60):
        moves = board.legal_moves
        if not moves:
            break
        assert perft(board, 2) == _board_perft(board, 2), board.fen()
        board.push(rng.choice(moves))


def test_count_simple_moves_is_the_length_of_the_list() -> None:
    for fen in _random_fens(99, 200):
        board = Board(fen)
        own, opp = (board.black, board.white) if board.turn == 0 else (board.white, board.black)
        if has_capture(own, opp, board.kings):
            continue
        moves = generate(own, opp, board.kings, int(board.turn))
        assert count_simple_moves(own, opp, board.kings, int(board.turn)) == len(moves), fen
