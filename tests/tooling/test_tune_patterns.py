"""Pattern terms of the evaluation: the windows' features, the
fit of their table, the data file and the native core's generated table."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from engine.helpers import random_games_pdn
from hypothesis import given, settings
from hypothesis import strategies as st

from poolcheckers import Board
from poolcheckers.cli import main
from poolcheckers.engine import Engine, native_available
from poolcheckers.pieces import Color
from poolcheckers.tooling import tune as texel

ROOT = Path(__file__).resolve().parents[2]
needs_engine = pytest.mark.skipif(not native_available(), reason="native core not built")
ALL_WINDOWS = tuple((r, k) for r in range(5) for k in range(3))


def _random_boards(count: int, seed: int) -> list[Board]:
    """Positions of random games (every stage: openings, middle games, kings)."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        board = Board()
        while board.outcome() is None and len(boards) < count:
            board.push(rng.choice(board.legal_moves))
            boards.append(board.copy(stack=False))
    return boards


def _flip(board: Board) -> Board:
    """The board turned half round with the colours swapped (R2: square s -> 33 - s)."""

    def turned(mask: int) -> list[int]:
        return [33 - s for s in range(1, 33) if mask >> (s - 1) & 1]

    def side(letter: str, mask: int) -> str:
        kings = set(turned(board.kings & mask))
        return letter + ",".join(("K" if s in kings else "") + str(s) for s in sorted(turned(mask)))

    turn = "W" if board.turn is Color.BLACK else "B"
    return Board(f"{turn}:{side('W', board.black)}:{side('B', board.white)}")


def test_window_squares_are_4x4_blocks_and_the_colours_see_them_turned() -> None:
    for row, k in ALL_WINDOWS:
        black = texel.window_squares(row, k, Color.BLACK)
        rows = {(s - 1) // 4 for s in black}
        assert rows == set(range(row, row + 4)) and len(set(black)) == 8
        # two squares a row, neighbours in the row (R2: four dark squares a row)
        assert all(black[2 * a + 1] == black[2 * a] + 1 for a in range(4))
        assert texel.window_squares(row, k, Color.WHITE) == tuple(33 - s for s in black)
    quadrants = texel.WINDOW_SETS["quadrants"]
    covered = [s for w in quadrants for s in texel.window_squares(*w, Color.BLACK)]
    assert sorted(covered) == list(range(1, 33))  # the quadrants tile the board
    with pytest.raises(ValueError, match="row is 0-4"):
        texel.window_squares(5, 0, Color.BLACK)


def test_vectorised_indices_equal_the_square_by_square_definition() -> None:
    boards = _random_boards(1500, 11)
    black, white, kings = (
        np.array([getattr(b, n) for b in boards], dtype=np.uint32)
        for n in ("black", "white", "kings")
    )
    for_black, for_white = texel.pattern_indices(black, white, kings, ALL_WINDOWS)
    for i, board in enumerate(boards):
        for j, (row, k) in enumerate(ALL_WINDOWS):
            assert for_black[i, j] == texel.pattern_index(board, row, k, Color.BLACK)
            assert for_white[i, j] == texel.pattern_index(board, row, k, Color.WHITE)
    assert len({int(v) for v in for_black[:, 0]}) > 50  # the sample reaches many configurations


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_the_colour_flip_gives_the_side_to_move_the_same_features(seed: int) -> None:
    boards = _random_boards(30, seed)
    flipped = [_flip(b) for b in boards]
    windows = texel.WINDOW_SETS["overlap"]
    assert all(np.array_equal(a, b) for a, b in zip(
        texel.pattern_features(boards, windows), texel.pattern_features(flipped, windows),
        strict=True))  # fmt: skip


def _planted(
    boards: list[Board],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A table with weights on a few common configurations, a scalar part, and
    the expected results (1 = the side to move wins) both make together."""
    windows = texel.WINDOW_SETS["quadrants"]
    plus, minus = texel.pattern_features(boards, windows)
    table = np.zeros(len(windows) * texel.PATTERN_CONFIGS)
    seen, counts = np.unique(np.concatenate([plus.ravel(), minus.ravel()]), return_counts=True)
    common = seen[counts >= 40]
    rng = np.random.default_rng(3)
    table[common] = rng.choice([-120.0, 120.0], size=len(common))
    offset = rng.choice([-200.0, 200.0], size=len(boards))
    scores = offset + texel.pattern_scores(table, plus, minus)
    results = 1.0 / (1.0 + np.power(10.0, -scores / 400.0))
    return plus, minus, table, offset, results


def test_the_fit_finds_a_planted_pattern_table_and_is_reproducible() -> None:
    boards = _random_boards(6000, 5)
    plus, minus, table, offset, results = _planted(boards)
    n = len(boards)
    args = (np.zeros((n, 0)), results, offset, np.zeros(0), plus, minus, table.size)
    fitted = texel.fit_patterns(*args, steps=600, rate=2.0, pattern_l2=1.0)
    assert fitted.loss_after < 0.5 * fitted.loss_before
    # the fitted table scores the positions as the planted one does (entries that
    # always come together, or as often for both sides, are not told apart)
    found = texel.pattern_scores(fitted.table, plus, minus)
    assert np.corrcoef(found, texel.pattern_scores(table, plus, minus))[0, 1] > 0.95
    again = texel.fit_patterns(*args, steps=600, rate=2.0, pattern_l2=1.0)
    assert np.array_equal(again.table, fitted.table) and again.loss_after == fitted.loss_after
    # a stronger pull keeps the table nearer 0
    pulled = texel.fit_patterns(*args, steps=600, rate=2.0, pattern_l2=1000.0)
    assert np.abs(pulled.table).sum() < np.abs(fitted.table).sum()


def test_pattern_files_round_trip_and_bad_files_are_named(tmp_path: Path) -> None:
    windows = texel.WINDOW_SETS["quadrants"]
    table = np.arange(len(windows) * texel.PATTERN_CONFIGS, dtype=np.float64) % 7 - 3
    path = tmp_path / "p.json"
    texel.save_pattern_table(str(path), windows, table, "test table")
    loaded = texel.load_pattern_table(str(path))
    assert loaded.windows == windows and loaded.phases == 1 and loaded.about == "test table"
    assert np.array_equal(loaded.table, table)
    texel.save_pattern_table(str(path), windows, np.concatenate([table, -table]), "two", 2)
    loaded = texel.load_pattern_table(str(path))
    assert loaded.phases == 2 and np.array_equal(loaded.table[table.size :], -table)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["weights"][1] = data["weights"][1][:-1]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"need 6561 weights for each of 4 windows in 2 phase"):
        texel.load_pattern_table(str(path))
    path.write_text(json.dumps({"windows": [[6, 0]], "weights": [[0] * 6561]}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"not \(6, 0\)"):
        texel.load_pattern_table(str(path))
    path.write_text(json.dumps({"windows": [[0, 0]], "weights": [[0] * 6561]}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"window \(0, 0\) without \(4, 2\)"):
        texel.load_pattern_table(str(path))


def test_the_native_table_is_generated_from_the_data_file() -> None:
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_pattern_table.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_generator_writes_a_header_of_the_table(tmp_path: Path) -> None:
    windows = ((0, 1), (4, 1))  # each the other turned half round
    table = np.zeros(2 * texel.PATTERN_CONFIGS)
    table[texel.PATTERN_CONFIGS + 5] = -17
    data, header = tmp_path / "p.json", tmp_path / "t.h"
    texel.save_pattern_table(str(data), windows, table, "two windows */ made up")
    script = str(ROOT / "scripts" / "gen_pattern_table.py")
    run = [sys.executable, script, "--input", str(data), "--output", str(header)]
    assert subprocess.run(run, capture_output=True, check=False).returncode == 0
    text = header.read_text(encoding="utf-8")
    assert "#define PC_PATTERN_WINDOWS 2" in text and "{{0, 1}, {4, 1}}" in text
    assert "made up" in text and "*/ made" not in text  # the comment stays closed
    assert "\n            0,0,0,0,0,-17,0," in text and "#define PC_PATTERN_PHASES 1" in text
    assert subprocess.run([*run, "--check"], capture_output=True, check=False).returncode == 0
    data.write_text("{}", encoding="utf-8")
    assert subprocess.run(run, capture_output=True, check=False).returncode == 2


@needs_engine
def test_the_native_pattern_term_is_the_shipped_table_over_the_same_features() -> None:
    shipped = texel.load_pattern_table(str(ROOT / "native" / "patterns.json"))
    boards = [b for b in _random_boards(3000, 8) if (b.black | b.white) & ~b.kings]
    engine = Engine(hash_mb=1, evaluation="pattern")
    engine.set_weights({"patterns": 0})
    without = np.array([engine.evaluate(b) for b in boards])
    engine.set_weights({"patterns": 100})
    with_patterns = np.array([engine.evaluate(b) for b in boards])
    plus, minus = texel.pattern_features(boards, shipped.windows)
    pieces = texel.piece_counts(boards)
    term = texel.native_pattern_scores(shipped.table, plus, minus, pieces, shipped.phases)
    assert np.array_equal(with_patterns - without, term)
    # the shipped table is not empty, so this compares something
    assert np.count_nonzero(term) > len(boards) // 2
    # the fit's (unrounded) blend is the native one but for the rounding
    fit_term = texel.pattern_scores(
        shipped.table, *texel.phased(plus, minus, pieces, shipped.phases)
    )
    assert np.max(np.abs(fit_term - term)) < 1.0


def test_two_phases_blend_by_the_pieces_rounding_towards_zero() -> None:
    table = np.zeros(2 * 4 * texel.PATTERN_CONFIGS)
    table[7] = 10  # opening, window 0, configuration 7
    table[4 * texel.PATTERN_CONFIGS + 7] = 34  # the same in the ending
    plus, minus = np.array([[7, 0, 0, 0], [0] * 4]), np.array([[0] * 4, [7, 0, 0, 0]])
    pieces = np.array([13, 13])
    # (10 * 13 + 34 * 11) / 24 = 21.41...: 21 for the side that has it, -21 against
    scores = texel.native_pattern_scores(table, plus, minus, pieces, 2)
    assert scores.tolist() == [21, -21]
    assert texel.native_pattern_scores(table, plus, minus, np.array([30, 0]), 2).tolist() == [
        10,
        -34,
    ]


@needs_engine
def test_tune_command_fits_a_pattern_table_reproducibly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdn = tmp_path / "games.pdn"
    random_games_pdn(pdn, 16, 4)
    tables = []
    for run in ("a", "b"):
        weights, patterns = tmp_path / f"w{run}.json", tmp_path / f"p{run}.json"
        argv = ["tune", "--load-pdn", str(pdn), "--holdout", "0.25", "--steps", "40",
                "--names", "none", "--patterns", "quadrants", "--pattern-l2", "10",
                "--pattern-phases", "2",
                "--output", str(weights), "--pattern-output", str(patterns)]  # fmt: skip
        assert main(argv) == 0
        assert json.loads(weights.read_text(encoding="utf-8")) == {"patterns": 100}
        tables.append(patterns.read_text(encoding="utf-8"))
    text = capsys.readouterr().out
    assert "patterns: 4 windows (quadrants), 2 phase(s)" in text and "held out: 4 games" in text
    assert tables[0] == tables[1]
    fitted = texel.load_pattern_table(str(tmp_path / "pa.json"))
    assert fitted.windows == texel.WINDOW_SETS["quadrants"] and fitted.phases == 2
    assert np.count_nonzero(fitted.table) > 0 and "--pattern-l2 10" in fitted.about
    target = str(tmp_path / "w.json")
    assert (
        main(["tune", "--load-pdn", str(pdn), "--patterns", "quadrants", "--output", target]) == 2
    )
    assert main(["tune", "--load-pdn", str(pdn), "--names", "none", "--output", target]) == 2
    missing = str(tmp_path / "no" / "p.json")
    assert main(["tune", "--load-pdn", str(pdn), "--patterns", "quadrants",
                 "--pattern-output", missing, "--output", target]) == 2  # fmt: skip
