"""``poolcheckers play``: piped games against a fake engine, and one with the real one."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from poolcheckers import Move
from poolcheckers.cli import build_parser
from poolcheckers.commands import play
from poolcheckers.commands.common import EngineUnavailable, native_available
from poolcheckers.pdn import read_games

from .conftest import PressCtrlC
from .fake_engine import FakeEngine, FakeLimit

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
    assert "Illegal move: 12-15: square 15 is occupied (R6)" in out
    assert "Illegal move: 10-15: square 15 is occupied (R6)" in out
    assert "Took back 2 moves." in out
    assert "Game over: White (poolcheckers level 10) wins, 0-2. Black resigned" in out
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


def test_undo_before_your_first_move_takes_nothing_back() -> None:
    out = _play(["undo", "undo"], "--color", "white")
    assert out.count("Nothing to undo: you have not moved yet.") == 2
    assert out.count("(black) plays") == 1  # the engine's opening move stands
    out = _play(["undo"])
    assert "Nothing to undo: you have not moved yet." in out


def test_hint_help_moves_and_board() -> None:
    engine = FakeEngine(score=35, prefer="11-15")
    out = _play(["hint", "help", "moves", "board"], engine=engine)
    assert "Hint: 11-15 (score +0.35, depth 3)" in out
    assert "undo        take back your last move" in out
    assert "9-13 9-14 10-14 10-15 11-15 11-16 12-16" in out
    assert engine.searches[0][1] == FakeLimit(depth=3)


#: Nine men a side: past the opening, not yet an endgame (poolcheckers.engine.policy).
MIDDLEGAME = "B:W19,20,21,22,23,24,25,26,27:B1,2,3,4,5,6,7,8,9"
#: Three men a side: an endgame.
ENDGAME = "B:W20,21,22:B9,10,11"


@pytest.mark.parametrize("level", range(1, 11))
def test_engine_never_accepts_a_draw_in_the_opening(level: int) -> None:
    # even when it believes itself nine men down (the fake's score is Black's view):
    # before any move, and after one move each
    for lines in (["draw"], ["11-15", "draw"]):
        engine = FakeEngine(score=900)
        out = _play(lines, "--level", str(level), engine=engine)
        assert "The engine declines the draw (the game is still in its opening)." in out
        assert "Game over" not in out
        assert all(limit != FakeLimit(depth=3) for _, limit, _ in engine.searches)  # no search


@pytest.mark.parametrize(
    ("fen", "score", "accepts", "words"),
    [
        # the engine searches from the offering side (Black): its own view is -score
        (MIDDLEGAME, 50, True, "-0.50 men for it in the middlegame"),
        (MIDDLEGAME, 49, False, "-0.49 men for it in the middlegame"),
        (MIDDLEGAME, 0, False, "+0.00 men for it in the middlegame"),
        (ENDGAME, -25, True, "+0.25 men for it in the endgame"),
        (ENDGAME, -26, False, "+0.26 men for it in the endgame"),
    ],
)
def test_engine_draw_offer_by_phase_and_evaluation(
    fen: str, score: int, accepts: bool, words: str
) -> None:
    out = _play(["draw"], "--fen", fen, engine=FakeEngine(score=score))
    verdict = "accepts" if accepts else "declines"
    assert f"The engine {verdict} the draw (its evaluation: {words})." in out
    assert ("Game over: drawn, 1-1. Draw by agreement (R17)." in out) == accepts


def test_engine_declines_when_it_has_a_forced_win() -> None:
    # Black (the offering side) is lost in 3 plies: White wins with its 2nd move
    out = _play(["draw"], "--fen", ENDGAME, engine=FakeEngine(score=0, mate_in=-3))
    assert "The engine declines the draw (it has a forced win in 2)." in out


def test_engine_accepts_when_it_sees_a_forced_loss() -> None:
    out = _play(["draw"], "--fen", MIDDLEGAME, engine=FakeEngine(score=0, mate_in=5))
    assert "The engine accepts the draw (it sees a forced loss in 3)." in out


def test_engine_accepts_a_dead_draw_whatever_its_evaluation() -> None:
    # king against king: flying kings cannot force a win without a third king (R19)
    out = _play(["draw"], "--fen", "B:WK29:BK1", engine=FakeEngine(score=-300))
    assert "The engine accepts the draw (a dead draw: only kings are left" in out


def test_two_people_draw_and_undo_one_move() -> None:
    out = _play(["11-15", "22-18", "undo", "draw", "no", "draw", "yes"], "--opponent", "human")
    assert "Took back 1 move." in out
    assert "Black, do you accept a draw? (yes/no)" in out
    assert "Draw declined." in out and "Draw accepted." in out
    assert "White to move" in out and "poolcheckers level" not in out


def test_game_ends_by_the_rules_and_end_of_input_quits() -> None:
    out = _play(["7x16"], "--fen", "B:W11:B7")
    assert "Game over: Black (you) wins, 2-0. White cannot move: no pieces or all blocked" in out


def test_error_messages_say_what_is_wrong() -> None:
    out = _play(["hello", "23-19", "30x3"], "--opponent", "human")
    assert "Not a move or a command: 'hello' is not move notation" in out
    assert "Type help for the commands." in out
    assert "Illegal move: 23-19: square 23 holds a white man; black is to move" in out
    out = _play(["30x3"], "--opponent", "human", "--fen", "W:WK30:B4,9,7,26,20,25,18")
    assert "Ambiguous move: 30x3 is ambiguous: it could be 30x21x3, 30x23x14x3" in out


def test_the_board_is_shown_once_per_exchange_against_the_engine() -> None:
    out = _play(["11-15"])
    assert "You (black) played 11-15." in out
    assert out.count("Black to move\n") == 2  # the start and after the engine's reply


def test_save_adds_to_a_pdn_file_and_replaces_its_own_copy(tmp_path: Path) -> None:
    pdn = tmp_path / "games.pdn"
    _play(["11-15", "resign", f"save {pdn}"])  # one finished game already in the file
    out = _play(["9-13", f"save {pdn}", "10-14", f"save {pdn}", "resign", f"save {pdn}"])
    assert f"Added the game (1 move, result *) to {pdn}, after 1 other game." in out
    games = read_games(pdn.read_text(encoding="utf-8"))
    assert [g.notations() for g in games] == [
        ["11-15", "21-17"],
        ["9-13", "21-17", "10-14", "17x10"],
    ]
    assert [g.result for g in games] == ["0-2", "0-2"]


def test_save_adds_to_a_file_made_by_the_pdn_writer(tmp_path: Path) -> None:
    from poolcheckers.pdn import PdnGame, read_file, write_file

    pdn = tmp_path / "collection.pdn"
    first = PdnGame(tags={"Event": "one"}, moves=[Move.from_notation("9-13")])
    second = PdnGame(tags={"Event": "two"}, start_fen="W:W22:B9", result="*")
    write_file(pdn, [first, second])
    _play(["11-15", "resign", f"save {pdn}"])
    games = read_file(pdn)
    assert [g.tags["Event"] for g in games] == ["one", "two", "poolcheckers play"]
    assert games[2].result == "0-2" and games[2].notations() == ["11-15", "21-17"]
    assert [g.line for g in games] == [1, 12, 24]


def test_save_refuses_to_add_a_game_to_a_file_that_is_not_pdn(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    out = _play([f"save {notes}"])
    assert "Not saved:" in out and "holds no PDN games" in out
    assert notes.read_text(encoding="utf-8") == "my notes\n"
    out = _play([f"save {tmp_path / 'no' / 'such' / 'dir.pdn'}"])
    assert "Cannot save to" in out
    out = _play([f"save {tmp_path}", f"save {tmp_path / 'new'}/"])
    assert out.count("is a folder; give a file name") == 2
    assert not (tmp_path / "new").exists()


def _interrupt(size: int | None = -1, /) -> str:
    raise KeyboardInterrupt


def test_ctrl_c_at_the_prompt_leaves_with_status_130(monkeypatch: pytest.MonkeyPatch) -> None:
    args = build_parser().parse_args(["play", "--opponent", "human"])
    stdin, out = io.StringIO(), io.StringIO()
    monkeypatch.setattr(stdin, "readline", _interrupt)  # Ctrl-C while waiting for a line
    status = play.run(args, engine_factory=FakeEngine, stdin=stdin, stdout=out)
    assert status == 130 and out.getvalue().endswith("> \nInterrupted.\n")


def test_ctrl_c_while_the_engine_thinks_stops_it_at_once(press_ctrl_c: PressCtrlC) -> None:
    engine = FakeEngine(step=0.01)  # with no bound it thinks until stopped
    args = build_parser().parse_args(["play", "--color", "white"])
    # once the engine thinks: a Ctrl-C before its search would test the prompt
    presser = press_ctrl_c(lambda: bool(engine.searches), settle=0.05)
    status = play.run(
        args,
        engine_factory=lambda: engine,
        limit=FakeLimit(),
        hint_limit=FakeLimit(),
        stdin=io.StringIO(""),
        stdout=io.StringIO(),
    )
    presser.join()
    assert status == 130 and engine._stopped.is_set()


def _no_engine() -> FakeEngine:
    raise EngineUnavailable("the engine's native core is not built (run: make setup)")


def test_without_the_engine_two_people_still_play_and_hint_says_why() -> None:
    args = build_parser().parse_args(["play", "--opponent", "human"])
    out = io.StringIO()
    lines = io.StringIO("11-15\nhint\n22-18\nquit\n")
    assert play.run(args, engine_factory=_no_engine, stdin=lines, stdout=out) == 0
    assert "No hint: the engine's native core is not built" in out.getvalue()
    assert "Black to move> quit" in out.getvalue()


def test_without_the_engine_a_game_against_it_fails_at_once() -> None:
    args = build_parser().parse_args(["play"])
    out = io.StringIO()
    with pytest.raises(EngineUnavailable):
        play.run(args, engine_factory=_no_engine, stdin=io.StringIO("11-15\n"), stdout=out)
    assert out.getvalue() == ""


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


def test_bytes_that_are_not_utf8_are_answered_not_fatal() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "poolcheckers.cli", "play", "--opponent", "human"],
        input=b"\xff\xfe\n11-15\nquit\n",
        capture_output=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},  # as in a en_US.UTF-8 locale
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode("utf-8")
    assert "Not a move or a command" in out and "White to move> quit" in out


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_at_a_terminal_moves_history_and_ctrl_d(tmp_path: Path) -> None:
    import pty
    import select

    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "poolcheckers.cli", "play", "--opponent", "human"],
        stdin=terminal, stdout=terminal, stderr=terminal, cwd=ROOT, close_fds=True,
    )  # fmt: skip
    os.close(terminal)
    seen = b""

    def read_until(marker: bytes, count: int = 1) -> None:
        nonlocal seen
        while seen.count(marker) < count:
            ready, _, _ = select.select([controller], [], [], 30)
            assert ready, seen.decode(errors="replace")
            seen += os.read(controller, 4096)

    try:
        read_until(b"Black to move> ")
        os.write(controller, b"11-15\n")
        read_until(b"White to move> ")
        os.write(controller, b"\x1b[A\n")  # the up arrow recalls 11-15: not White's move
        read_until(b"White to move> ", 2)  # the answer, then the prompt again
        assert b"square 11 is empty" in seen
        os.write(controller, b"\x04")  # Ctrl-D ends the session
        assert proc.wait(30) == 0
    finally:
        proc.kill()
        proc.wait()
        os.close(controller)


def test_a_reader_that_goes_away_ends_the_session_quietly() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "poolcheckers.cli", "play", "--opponent", "human"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdin is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # like `poolcheckers play … | head -1`
    try:
        proc.stdin.write(b"board\n" * 2000)
        proc.stdin.close()
    except BrokenPipeError:
        pass  # the session had already ended
    assert proc.wait(60) == 0
    assert proc.stderr.read() == b""


@pytest.mark.parametrize(("options", "seconds"), [([], 0.4), (["--time", "2.5"], 2.5)])
def test_engine_moves_take_the_levels_time_unless_told(options: list[str], seconds: float) -> None:
    """The same time per level as the web app (poolcheckers.engine.level_limit)."""
    from poolcheckers.engine import Limit

    args = build_parser().parse_args(["play", "--color", "white", "--level", "4", *options])
    engine = FakeEngine()
    status = play.run(
        args,
        engine_factory=lambda: engine,
        stdin=io.StringIO("quit\n"),
        stdout=io.StringIO(),
    )
    assert status == 0
    assert engine.searches[0][1:] == (Limit(time=seconds), 4)


@pytest.mark.parametrize("fen", ["B:W:B", "W:W:B1", "B:W5:B"])
def test_a_position_where_the_game_is_over_is_refused_as_analyse_refuses_it(
    fen: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from poolcheckers.cli import main

    for command in ("play", "analyse"):
        assert main([command, "--fen", fen]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"poolcheckers {command}: error: the game is over in this position")
        assert "(R16)" in err
