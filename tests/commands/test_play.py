"""``poolcheckers play``: piped games against a fake engine, and one with the real one."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from fake_engine import FakeEngine, FakeLimit

from poolcheckers.cli import build_parser
from poolcheckers.commands import play
from poolcheckers.commands.common import native_available
from poolcheckers.pdn import read_games

ROOT = Path(__file__).resolve().parents[2]


def _play(lines: list[str], *options: str, engine: FakeEngine | None = None) -> str:
    args = build_parser().parse_args(["play", *options])
    out = io.StringIO()
    the_engine = engine or FakeEngine()
    status = play.run(
        args,
        engine_factory=lambda: the_engine,
        limit=FakeLimit(depth=2),
        hint_limit=FakeLimit(depth=3),
        stdin=io.StringIO("\n".join(lines) + "\n"),
        stdout=out,
    )
    assert status == 0
    return out.getvalue()


def test_moves_illegal_move_undo_save_and_resign(tmp_path: Path) -> None:
    pdn = tmp_path / "game.pdn"
    out = _play(["11-15", "12-15", "10-15", "undo", "9-13", f"save {pdn}", "resign", "quit"])
    # the engine (White) answers with its first move in notation order
    assert "poolcheckers level 10 (white) plays 21-17" in out
    assert "Illegal move: 12-15: square 15 is occupied (R6, R8)" in out
    assert "Illegal move: 10-15: square 15 is occupied (R6, R8)" in out
    assert "Took back 2 moves." in out
    assert "Black resigned: White wins (R20). Result 0-2." in out
    game = read_games(pdn.read_text(encoding="utf-8"))[0]
    assert game.notations() == ["9-13", "21-17"]
    assert game.tags["Black"] == "You" and game.tags["White"] == "poolcheckers level 10"
    assert game.result == "*"


def test_saving_after_the_end_records_the_result(tmp_path: Path) -> None:
    pdn = tmp_path / "resigned.pdn"
    out = _play(["11-15", "resign", "11-16", f"save {pdn}"])
    assert "The game is over: save FILE, undo or quit." in out
    game = read_games(pdn.read_text(encoding="utf-8"))[0]
    assert game.result == "0-2" and game.notations() == ["11-15", "21-17"]


def test_engine_plays_black_when_you_take_white() -> None:
    out = _play(["quit"], "--color", "white")
    assert "poolcheckers level 10 (black) plays 10-14" in out
    assert out.rstrip().endswith("White to move> quit")


def test_hint_help_moves_and_board() -> None:
    engine = FakeEngine(score=35, prefer="11-15")
    out = _play(["hint", "help", "moves", "board"], engine=engine)
    assert "Hint: 11-15 (score +0.35, depth 3)" in out
    assert "undo        take back your last move" in out
    assert "10-14 10-15 11-15 11-16 12-16 9-13 9-14" in out
    assert engine.searches[0][1] == FakeLimit(depth=3)


@pytest.mark.parametrize(("score", "accepts"), [(0, True), (-25, True), (-26, False)])
def test_engine_draw_offer(score: int, accepts: bool) -> None:
    # the engine searches from the offering side: its own view is -score
    out = _play(["draw"], engine=FakeEngine(score=score))
    if accepts:
        assert "The engine accepts the draw" in out
        assert "Draw by agreement (R17). Result 1-1." in out
    else:
        assert "The engine declines the draw (its evaluation: +0.26 men for it)." in out
        assert "Game over" not in out


def test_engine_declines_when_it_has_a_forced_win() -> None:
    out = _play(["draw"], engine=FakeEngine(score=0, mate_in=-3))
    assert "The engine declines the draw" in out


def test_two_people_draw_and_undo_one_move() -> None:
    out = _play(["11-15", "22-18", "undo", "draw", "no", "draw", "yes"], "--opponent", "human")
    assert "Took back 1 move." in out
    assert "Black, do you accept a draw? (yes/no)" in out
    assert "Draw declined." in out and "Draw accepted." in out
    assert "White to move" in out and "poolcheckers level" not in out


def test_game_ends_by_the_rules_and_end_of_input_quits() -> None:
    out = _play(["7x16"], "--fen", "B:W11:B7")
    assert "Game over: White cannot move: no pieces or all blocked (R16). Result 2-0." in out


def test_bad_level_is_a_usage_error() -> None:
    from poolcheckers.cli import main

    assert main(["play", "--level", "11"]) == 2


@pytest.mark.skipif(not native_available(), reason="the engine's native core is not built")
def test_real_engine_game_over_a_pipe(tmp_path: Path) -> None:
    pdn = tmp_path / "real.pdn"
    proc = subprocess.run(
        [sys.executable, "-m", "poolcheckers.cli", "play", "--time", "0.05", "--level", "5"],
        input=f"11-15\nhint\nsave {pdn}\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert "(white) plays" in proc.stdout and "Hint: " in proc.stdout
    assert len(read_games(pdn.read_text(encoding="utf-8"))[0].moves) == 2
