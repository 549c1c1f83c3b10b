"""The engine with the tables: every move keeps the value under the running counts."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from poolcheckers import Board
from poolcheckers.egdb import Tablebase
from poolcheckers.egdb.play import release_engine_tables
from poolcheckers.engine import Engine, Limit
from poolcheckers.rules import RuleSet

from .conftest import Tables
from .solver import positions


@pytest.fixture
def tables4(tables: Tables, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    directory = tables(4, RuleSet.apca())
    monkeypatch.delenv("POOLCHECKERS_EGDB", raising=False)
    monkeypatch.setenv("POOLCHECKERS_EGDB_DIR", str(directory))
    yield directory
    monkeypatch.undo()
    release_engine_tables()


def _fen(black: int, white: int, kings: int, turn: int, suffix: str = "") -> str:
    def side(mask: int) -> str:
        return ",".join(
            ("K" if kings >> (s - 1) & 1 else "") + str(s)
            for s in range(1, 33)
            if mask >> (s - 1) & 1
        )

    return f"{'BW'[turn]}:W{side(white)}:B{side(black)}{suffix}"


def _play(tb: Tablebase, board: Board, plies: int) -> None:
    """Engine against engine; each move must keep the mover's value."""
    engine = Engine(hash_mb=4)
    for _ in range(plies):
        if board.is_game_over():
            return
        before = tb.probe(board)
        assert before is not None
        move = engine.search(board, Limit(depth=4)).move
        board.push(move)
        after = tb.probe(board)
        assert after is not None
        flipped = {"win": "loss", "loss": "win", "draw": "draw"}[after.value]
        assert flipped == before.value, (board.fen(), str(move), before, after)


def test_three_kings_win_whenever_the_count_allows(tables4: Path) -> None:
    """R19: from a table win (fresh or with the count running) the engine wins in time."""
    tb = Tablebase(tables4)
    rng = random.Random(5)
    pool = [p for p in positions((0, 3, 0, 1)) if p[3] == 0]
    played = 0
    while played < 6:
        black, white, kings, turn = rng.choice(pool)
        board = Board(_fen(black, white, kings, turn, f":C{rng.choice([0, 4, 8])}"))
        result = tb.probe(board)
        if result is None or result.value != "win" or result.dtz is None or result.dtz < 5:
            continue
        _play(tb, board, 60)
        outcome = board.outcome()
        assert outcome is not None and outcome.winner is not None and int(outcome.winner) == 0
        played += 1


def test_no_move_spoils_a_value(tables4: Path) -> None:
    """Wins stay wins, draws stay draws (the defender never loses a drawn position)."""
    tb = Tablebase(tables4)
    rng = random.Random(11)
    for material in [(0, 2, 0, 1), (1, 1, 0, 1), (0, 2, 1, 0), (1, 1, 1, 0), (0, 2, 0, 2)]:
        pool = list(positions(material))
        for _ in range(3):
            board = Board(_fen(*rng.choice(pool)))
            if board.is_game_over():
                continue
            _play(tb, board, 20)


def test_without_files_the_engine_searches_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POOLCHECKERS_EGDB", raising=False)
    monkeypatch.setenv("POOLCHECKERS_EGDB_DIR", str(tmp_path))  # empty: no tables
    result = Engine(hash_mb=1).search(Board("B:W14:B9"), Limit(depth=3))
    assert str(result.move) == "9x18" and result.mate_in == 1
