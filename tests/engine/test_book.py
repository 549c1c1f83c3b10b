"""The opening book: building, choosing with variety, and where the engine uses it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from poolcheckers import Board
from poolcheckers.cli import main
from poolcheckers.engine import Engine, Limit, native_available
from poolcheckers.engine.book import (
    BOOK_VARIABLE,
    DEFAULT_BOOK,
    INFO_KEY,
    Book,
    build,
    default_book,
)
from poolcheckers.engine.core import BOOK_MIN_LEVEL
from poolcheckers.engine.levels import MAX_LEVEL, MIN_LEVEL
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
    book = Book({Board().fen(): [("11-15", 3)]}, info={"depth": 16, "roots": "start"})
    path = tmp_path / "b.json"
    book.save(path)
    loaded = Book.load(path)
    assert loaded.entries == book.entries and loaded.info == book.info
    path.write_text(json.dumps({INFO_KEY: [1]}), encoding="utf-8")
    with pytest.raises(ValueError, match="numbers or text"):
        Book.load(path)
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


def test_a_budgeted_build_searches_the_likeliest_positions_first() -> None:
    """With ``positions``, the build stops after that many searches and goes
    deeper along the move played more often (weights 1 + margin - loss)."""
    searched: list[int] = []

    def search(board: Board) -> list[tuple[Move, int]]:
        searched.append(len(board.legal_moves))
        moves = sorted(board.legal_moves, key=str)
        return [(moves[0], 10), (moves[1], 2)]  # the first is played 11 : 3

    roots = [Board()]
    full = build(roots, search, plies=4, margin=10)
    searched.clear()
    budgeted = build(roots, search, plies=30, margin=10, positions=len(full))
    assert len(searched) == len(budgeted) == len(full)
    assert budgeted.plies(roots) > full.plies(roots) == 4  # deeper along the likely line
    assert build(roots, search, plies=30, margin=10, positions=1).plies(roots) == 1


def test_plies_counts_forced_moves_on_the_way() -> None:
    board = Board("W:W22:B17,1")  # White must jump 22x13 (R11)
    after = board.copy()
    after.push_notation("22x13")
    book = Book({after.fen(): [("1-6", 0)]})
    assert book.plies([board]) == 2


@needs_engine
def test_the_engine_plays_book_moves_at_strong_levels_only() -> None:
    after = Board()
    after.push_notation("11-15")
    book = Book({after.fen(): [("23-19", 7)]}, info={"depth": 16})
    engine = Engine(hash_mb=1, book=book, seed=1)
    seen: list[object] = []
    played = engine.search(after, Limit(time=0.5), level=10, on_info=seen.append)
    assert str(played.move) == "23-19" and played.nodes == 0  # from the book, no search
    # it reports the book's score and build depth (the web card shows them), not 0.00
    assert (played.score, played.depth) == (7, 16) and seen == [played]
    assert engine.search(after, Limit(depth=3)).nodes > 0  # analysis (no level) searches
    assert engine.search(after, Limit(depth=3), level=3).nodes > 0  # a weak level searches
    assert engine.search(Board(), Limit(depth=3), level=10).nodes > 0  # not in the book


@needs_engine
def test_book_command_builds_a_book_the_engine_reads(tmp_path: Path) -> None:
    target = tmp_path / "book.json"
    assert main(["book", "--depth", "4", "--plies", "2", "--hash", "8",
                 "--output", str(target)]) == 0  # fmt: skip
    book = Book.load(target)
    assert Board().fen() in book.entries and len(book) >= 2  # --roots start by default
    assert book.info["depth"] == 4 and book.info["roots"] == "start"
    assert main(["book", "--lines", "9", "--output", str(target)]) == 2


# ------------------------------------------------------------ the shipped book
def shipped() -> Book:
    assert DEFAULT_BOOK.is_file(), f"{DEFAULT_BOOK} is missing"
    return Book.load(DEFAULT_BOOK)


def test_the_environment_chooses_the_book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BOOK_VARIABLE, raising=False)
    book = default_book()
    assert book is not None and book.entries == shipped().entries
    assert Engine(hash_mb=1).book is book  # what the engine plays from by default
    monkeypatch.setenv(BOOK_VARIABLE, "off")
    assert default_book() is None
    own = tmp_path / "own.json"
    Book({Board().fen(): [("12-16", 0)]}).save(own)
    monkeypatch.setenv(BOOK_VARIABLE, str(own))
    own_book = default_book()
    assert own_book is not None and [str(m) for m, _ in own_book.moves(Board())] == ["12-16"]
    monkeypatch.setenv(BOOK_VARIABLE, str(tmp_path / "missing.json"))
    with pytest.raises(ValueError, match="POOLCHECKERS_BOOK: cannot read book"):
        default_book()


def test_the_shipped_book_is_built_from_the_start_and_every_move_is_legal() -> None:
    book = shipped()
    assert book.info["roots"] == "start" and Board().fen() in book.entries
    for fen, moves in book.entries.items():
        board = Board(fen)
        assert len(board.legal_moves) > 1, fen  # forced moves (R11) are not booked
        for text, _ in moves:
            assert board.parse_move(text) in board.legal_moves, (fen, text)
    assert book.plies([Board()]) >= 10  # some lines go 10 plies deep or more


def test_no_book_move_is_worse_than_the_margin_from_the_best() -> None:
    """The builder's rule, at the build's depth: a kept move scores within
    ``margin`` centi-men of the best line of its position."""
    book = shipped()
    margin, depth, lines = (book.info[k] for k in ("margin", "depth", "lines"))
    assert isinstance(margin, int) and isinstance(depth, int) and isinstance(lines, int)
    assert depth >= 16 and lines >= 2
    for fen, moves in book.entries.items():
        best = max(score for _, score in moves)
        assert all(best - score <= margin for _, score in moves), fen
    assert sum(len(moves) > 1 for moves in book.entries.values()) > len(book) // 2


def book_line(engine: Engine) -> list[str]:
    """The moves a level-10 game from the start plays from the book, both
    sides the same engine, until a position is out of the book."""
    board, line = Board(), []
    while True:
        if len(board.legal_moves) == 1:  # forced (R11): not a choice of the book
            line.append(board.notation(board.legal_moves[0]))
            board.push(board.legal_moves[0])
            continue
        played = engine.search(board, Limit(depth=1), level=MAX_LEVEL)
        if played.nodes > 0:  # searched: out of the book
            assert board.fen() not in shipped().entries
            return line
        assert played.move in [m for m, _ in shipped().moves(board)]
        line.append(board.notation(played.move))
        board.push(played.move)


@needs_engine
def test_games_from_the_start_vary_within_the_book_and_stay_in_it() -> None:
    lines = [book_line(Engine(hash_mb=1, seed=seed)) for seed in (1, 2, 3)]
    assert all(len(line) >= 6 for line in lines), lines
    assert len({tuple(line) for line in lines}) == 3, lines  # three different games
    assert len({line[0] for line in lines} | {line[1] for line in lines}) > 2, lines
    again = book_line(Engine(hash_mb=1, seed=1))
    assert again == lines[0]  # a seed makes the choice reproducible


@needs_engine
def test_levels_below_the_book_level_never_play_from_it() -> None:
    engine = Engine(hash_mb=1, seed=1)
    line = book_line(Engine(hash_mb=1, seed=4))
    board = Board()
    for text in ["", *line[:4]]:
        if text:
            board.push_notation(text)
        if board.fen() not in shipped().entries:
            continue
        for level in range(MIN_LEVEL, BOOK_MIN_LEVEL):
            assert engine.search(board, Limit(depth=2), level=level).nodes > 0, level
        assert engine.search(board, Limit(depth=2), level=BOOK_MIN_LEVEL).nodes == 0
