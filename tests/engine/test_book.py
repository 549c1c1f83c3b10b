"""The opening book: building, choosing with variety, and where the engine uses it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from poolcheckers import Board
from poolcheckers.cli import main
from poolcheckers.engine import Engine, Limit, native_available
from poolcheckers.engine.book import Book, build
from poolcheckers.move import Move

needs_engine = pytest.mark.skipif(not native_available(), reason="native core not built")


def test_choose_keeps_to_the_margin_and_varies() -> None:
    book = Book({Board().fen(): [("9-14", 2), ("11-15", 5), ("10-14", -40)]})
    assert [str(m) for m, _ in book.moves(Board())] == ["11-15", "9-14", "10-14"]  # best first
    picks = [str(book.choose(Board(), random.Random(s), margin=10)) for s in range(200)]
    assert set(picks) == {"11-15", "9-14"}  # never the move 45 centi-men worse
    assert picks.count("11-15") > picks.count("9-14")  # the better move more often
    assert {str(book.choose(Board(), random.Random(s), margin=0)) for s in range(20)} == {"11-15"}


def test_moves_not_legal_in_the_position_are_not_offered() -> None:
    book = Book({Board().fen(): [("11-16", 0), ("22-18", 9)]})  # 22-18 is White's (R3)
    assert [str(m) for m, _ in book.moves(Board())] == ["11-16"]


def test_save_load_round_trip_and_bad_files(tmp_path: Path) -> None:
    book = Book({Board().fen(): [("11-15", 3)]})
    path = tmp_path / "b.json"
    book.save(path)
    assert Book.load(path).entries == book.entries
    path.write_text('{"x": [["11-15"]]}', encoding="utf-8")
    with pytest.raises(ValueError, match="move, score"):
        Book.load(path)
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="not JSON"):
        Book.load(path)


def test_build_follows_the_kept_moves_for_the_plies() -> None:
    searched: list[str] = []

    def search(board: Board) -> list[tuple[Move, int]]:
        searched.append(board.fen())
        moves = sorted(board.legal_moves, key=str)
        return [(moves[0], 10), (moves[1], 5), (moves[2], -50)][: len(moves)]

    book = build([Board()], search, plies=2, margin=10)
    assert len(book.entries[Board().fen()]) == 2  # the -50 move is left out
    assert len(book) == 3 and len(searched) == 3  # the start and its two kept replies


@needs_engine
def test_the_engine_plays_book_moves_at_strong_levels_only() -> None:
    after = Board()
    after.push_notation("11-15")
    book = Book({after.fen(): [("23-19", 0)]})
    engine = Engine(hash_mb=1, book=book, seed=1)
    played = engine.search(after, Limit(time=0.5), level=10)
    assert str(played.move) == "23-19" and played.nodes == 0  # from the book, no search
    assert engine.search(after, Limit(depth=3)).nodes > 0  # analysis (no level) searches
    assert engine.search(after, Limit(depth=3), level=3).nodes > 0  # a weak level searches
    assert engine.search(Board(), Limit(depth=3), level=10).nodes > 0  # not in the book


@needs_engine
def test_book_command_builds_a_book_the_engine_reads(tmp_path: Path) -> None:
    target = tmp_path / "book.json"
    assert main(["book", "--roots", "start", "--depth", "4", "--plies", "2",
                 "--output", str(target)]) == 0  # fmt: skip
    book = Book.load(target)
    assert Board().fen() in book.entries and len(book) >= 2
    assert main(["book", "--lines", "9", "--output", str(target)]) == 2
