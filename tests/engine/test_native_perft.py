"""Native perft (R4: duplicates dropped) from the start and against the library."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from poolcheckers import Board, RuleSet, perft
from poolcheckers.engine import perft_divide_native, perft_native

from .helpers import boards

START_PERFT = [1, 7, 49, 302, 1469, 7482, 37986, 190146, 929896, 4570534, 22435955, 110833952]


@pytest.mark.parametrize("depth", range(10))
def test_perft_from_the_start(depth: int) -> None:
    assert perft_native(Board(), depth) == START_PERFT[depth]


@pytest.mark.slow
@pytest.mark.parametrize("depth", [10, 11])
def test_deep_perft_from_the_start(depth: int) -> None:
    assert perft_native(Board(), depth) == START_PERFT[depth]


def test_perft_divide_sums_and_names_library_moves() -> None:
    board = Board()
    divide = perft_divide_native(board, 4)
    assert sum(n for _, n in divide) == START_PERFT[4]
    assert sorted(str(m) for m, _ in divide) == sorted(str(m) for m in board.legal_moves)


def test_rule_examples_perft_match_library() -> None:
    # The worked positions of tests/data/rule-examples.json (R9, R10, R14, R15, R4).
    for fen in [
        "W:WK7,10,21,K31,K32:B4,9,K19,22",
        "B:WK1,7,8,K19,22,23,24:B5,K15",
        "W:WK3,K10,11,30:BK6,7,K29,K31",
        "B:W8,K10,K19,K22,27:BK3",
    ]:
        for rules in (RuleSet.apca(), RuleSet(crown_during_capture="stop")):
            board = Board(fen, rules)
            assert perft_native(board, 4) == perft(board, 4), (fen, rules.name)


def _comparable_depth(board: Board, wanted: int, budget: int = 60_000) -> int:
    """The largest depth <= wanted whose tree the Python library walks quickly."""
    depth = wanted
    while depth > 1 and perft_native(board, depth) > budget:
        depth -= 1
    return depth


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(boards())
def test_perft5_against_library(board: Board) -> None:
    depth = _comparable_depth(board, 5)
    assert perft_native(board, depth) == perft(board, depth), (board.fen(), depth)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_perft_with_crown_stop_against_library(board: Board) -> None:
    board = Board(board.fen(), RuleSet(crown_during_capture="stop"))
    depth = _comparable_depth(board, 4)
    assert perft_native(board, depth) == perft(board, depth), (board.fen(), depth)


def test_bad_depth_is_refused() -> None:
    with pytest.raises(ValueError, match="depth"):
        perft_native(Board(), -1)
    with pytest.raises(ValueError, match="depth"):
        perft_divide_native(Board(), 0)
