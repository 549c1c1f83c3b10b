"""The native generator against the library's, move by move (R4–R15, §9 options)."""

from __future__ import annotations

import random
import zlib

import pytest
from hypothesis import HealthCheck, given, settings

from poolcheckers import Board, Move, RuleSet
from poolcheckers.engine import NativeMove, native_legal_moves
from poolcheckers.rules import CrownDuringCapture

from .helpers import RULE_SETS, placements


def _library(board: Board) -> set[NativeMove]:
    return {NativeMove(m.origin, m.destination, m.captured) for m in board.legal_moves}


def _native(board: Board) -> set[NativeMove]:
    moves = native_legal_moves(board)
    assert len(moves) == len(set(moves)), f"native duplicates in {board.fen()} (R4)"
    return set(moves)


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_random_games_every_ply(name: str) -> None:
    rules = RULE_SETS[name]
    rng = random.Random(zlib.crc32(name.encode()))
    plies = 0
    for _ in range(12):
        board = Board(rules=rules)
        for _ in range(250):
            assert _native(board) == _library(board), board.fen()
            plies += 1
            if board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves))
    assert plies > 500


@pytest.mark.parametrize("crown", ["pass", "stop"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fen=placements())
def test_random_placements(crown: CrownDuringCapture, fen: str) -> None:
    board = Board(fen, RuleSet(crown_during_capture=crown))
    assert _native(board) == _library(board), fen


def test_rule_examples() -> None:
    # The worked positions of tests/data/rule-examples.json, against the native generator.
    cases: list[tuple[str, RuleSet, list[str]]] = [
        ("W:WK7,10,21,K31,K32:B4,9,K19,22", RuleSet.apca(), ["31x2", "31x6", "32x5"]),
        ("B:WK1,7,8,K19,22,23,24:B5,K15", RuleSet.apca(), ["15x25", "15x29", "15x4"]),
        ("W:WK3,K10,11,30:BK6,7,K29,K31", RuleSet.apca(), ["10x1", "11x9"]),
        (
            "W:WK3,K10,11,30:BK6,7,K29,K31",
            RuleSet(crown_during_capture="stop"),
            ["10x1", "11x2"],
        ),
        (
            "B:W8,K10,K19,K22,27:BK3",
            RuleSet.apca(),
            ["3x12x23x32", "3x14x32", "3x3", "3x4", "3x7"],
        ),
    ]
    for fen, rules, expected in cases:
        board = Board(fen, rules)
        native = _native(board)
        named: list[Move] = [board.parse_move(text) for text in expected]
        assert native == {NativeMove(m.origin, m.destination, m.captured) for m in named}, fen


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fen=placements())
def test_native_moves_are_library_members(fen: str) -> None:
    board = Board(fen)
    lookup = {(m.origin, m.destination, m.captured) for m in board.legal_moves}
    for move in native_legal_moves(board):
        assert (move.origin, move.destination, move.captured) in lookup
