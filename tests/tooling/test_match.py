"""Matches and ``poolcheckers match`` / ``poolcheckers ballots``: Elo, ballots, games,
clocks, Hub engines, PDN, plots."""

from __future__ import annotations

import io
import math
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

import pytest
from commands.fake_engine import FakeEngine, FakeLimit, FakeResult, LimitLike

from poolcheckers import Board, Move, RuleSet
from poolcheckers.cli import UsageError, build_parser, main
from poolcheckers.commands import ballots
from poolcheckers.commands import match as match_cmd
from poolcheckers.commands.common import native_available
from poolcheckers.engine import Engine, SearchInfo
from poolcheckers.pdn import read_games
from poolcheckers.tooling import ToolingError, games, hubclient, match, openings, plots
from poolcheckers.tooling.games import pairings
from poolcheckers.tooling.openings import DEFAULT_BALLOTS, load_ballots
from poolcheckers.tooling.stats import Z_95, elo_estimate, logistic_elo

needs_engine = pytest.mark.skipif(not native_available(), reason="native core not built")


# ----------------------------------------------------------------- Elo
def test_even_score_is_zero_elo_with_a_symmetric_interval() -> None:
    e = elo_estimate(10, 20, 10)
    assert e.score == 0.5 and e.elo == 0.0
    assert e.low == pytest.approx(-e.high)
    # per-game variance: 20 games at ±0.5, 20 at 0 -> 0.125; SE = sqrt(0.125 / 40)
    assert e.stderr == pytest.approx(math.sqrt(0.125 / 40))
    assert e.high == pytest.approx(logistic_elo(0.5 + Z_95 * e.stderr))


def test_elo_is_antisymmetric_and_matches_the_logistic_formula() -> None:
    assert logistic_elo(0.75) == pytest.approx(400 * math.log10(3))
    assert logistic_elo(0.25) == pytest.approx(-logistic_elo(0.75))
    a, b = elo_estimate(7, 2, 1), elo_estimate(1, 2, 7)
    assert a.elo == pytest.approx(-b.elo) and a.low == pytest.approx(-b.high)
    assert a.low < a.elo < a.high


def test_perfect_and_null_scores_are_infinite() -> None:
    assert elo_estimate(5, 0, 0).elo == math.inf and elo_estimate(0, 0, 5).elo == -math.inf
    all_wins = elo_estimate(5, 0, 0)
    assert all_wins.stderr == 0.0 and all_wins.low == math.inf
    assert elo_estimate(9, 1, 0).low < elo_estimate(9, 1, 0).high == math.inf
    with pytest.raises(ValueError, match="no games"):
        elo_estimate(0, 0, 0)


def test_draws_narrow_the_interval() -> None:
    decisive = elo_estimate(10, 0, 10)
    drawish = elo_estimate(2, 16, 2)
    assert decisive.score == drawish.score and drawish.stderr < decisive.stderr


# ----------------------------------------------------------------- ballots
def test_shipped_ballots_are_sixty_or_more_distinct_legal_three_ply_openings() -> None:
    openings = load_ballots(DEFAULT_BALLOTS)
    assert len(openings) >= 60
    positions = set()
    for opening in openings:
        assert len(opening) == 3
        board = Board()
        for text in opening:
            board.push_notation(text)
        positions.add(board.fen())
    assert len(positions) == len(openings)


def test_ballot_file_errors_name_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("# comment\n11-15 22-18\n11-15 11-16\n", encoding="utf-8")
    with pytest.raises(ToolingError, match="line 3"):
        load_ballots(bad)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n", encoding="utf-8")
    with pytest.raises(ToolingError, match="no opening"):
        load_ballots(empty)
    with pytest.raises(ToolingError, match="cannot read"):
        load_ballots(tmp_path / "missing.txt")


def test_enumerated_lines_are_perft_three() -> None:
    lines = openings.enumerate_lines(3)
    assert len(lines) == 302 and len(set(lines)) == 302


def test_sound_openings_keep_distinct_positions_within_the_margin() -> None:
    kept = openings.sound_openings(FakeEngine(score=0), FakeLimit(depth=1), plies=2)
    assert len(kept) == 49  # 7 x 7 two-ply lines, no transpositions
    assert openings.sound_openings(FakeEngine(score=31), FakeLimit(depth=1), plies=2) == []
    # White to move after 3 plies: a White score of -30 is +30 for Black, still sound
    three = openings.sound_openings(FakeEngine(score=-30), FakeLimit(depth=1), margin=30)
    assert 0 < len(three) < 302 and all(score == 30 for _line, score in three)


def test_ballots_command_writes_a_loadable_file(tmp_path: Path) -> None:
    target = tmp_path / "ballots.txt"
    args = build_parser().parse_args(["ballots", "--output", str(target)])
    assert ballots.run(args, engine=FakeEngine(), limit=FakeLimit(depth=1)) == 0
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# ") and "depth-12 search" in text
    assert len(load_ballots(target)) == len(text.splitlines()) - 3


# ----------------------------------------------------------------- matches
def test_pairings_give_each_opening_both_colours() -> None:
    openings = [("11-15",), ("9-13",), ("10-14",)]
    assert pairings(openings, None) == [(i, b) for i in range(3) for b in (True, False)]
    assert len(pairings(openings, 5)) == 5


def _two_openings(tmp_path: Path) -> Path:
    path = tmp_path / "two.txt"
    path.write_text("11-15 22-18 15x22\n9-13 22-18 10-14\n", encoding="utf-8")
    return path


def test_match_with_fake_engines_writes_pdn_and_plot(tmp_path: Path) -> None:
    pdn, png = tmp_path / "out.pdn", tmp_path / "out.png"
    args = build_parser().parse_args(
        ["match", "--level-b", "3", "--ballots", str(_two_openings(tmp_path)),
         "--pdn", str(pdn), "--plot", str(png)]
    )  # fmt: skip
    made: list[tuple[int, RuleSet, str | None]] = []

    def factory(hash_mb: int, rules: RuleSet, weights: str | None) -> FakeEngine:
        made.append((hash_mb, rules, weights))
        return FakeEngine()

    out = io.StringIO()
    assert match_cmd.run(args, engine_factory=factory, limit=FakeLimit(depth=1), out=out) == 0
    text = out.getvalue()
    assert "4 games" in text and "W/D/L of poolcheckers L10" in text
    assert "Elo" in text and "95% interval" in text
    games = read_games(pdn.read_text(encoding="utf-8"))
    assert len(games) == 4
    assert [g.notations()[:3] for g in games[:2]] == [["11-15", "22-18", "15x22"]] * 2
    assert games[0].tags["Black"] == "poolcheckers L10" == games[1].tags["White"]
    assert all(g.result in ("2-0", "0-2", "1-1") for g in games)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(made) == 2


def test_match_argument_errors(tmp_path: Path) -> None:
    assert main(["match", "--level-a", "0"]) == 2
    assert main(["match", "--games", "0"]) == 2
    assert main(["match", "--ballots", str(tmp_path / "none.txt")]) == 2
    assert main(["match", "--nodes", "0"]) == 2
    assert main(["match", "--nodes", "1000", "--depth", "3"]) == 2


def test_unwritable_outputs_are_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engines: list[FakeEngine] = []

    def factory(hash_mb: int, rules: RuleSet, weights: str | None) -> FakeEngine:
        engines.append(FakeEngine())
        return engines[-1]

    for option, path in (("--pdn", tmp_path / "no" / "x.pdn"), ("--plot", tmp_path)):
        args = build_parser().parse_args(["match", option, str(path), "--games", "1"])
        with pytest.raises(UsageError, match=option):
            match_cmd.run(args, engine_factory=factory, limit=FakeLimit(depth=1), out=io.StringIO())
    assert engines == []  # refused before the engines were even made


def test_one_game_is_one_game_not_one_games(tmp_path: Path) -> None:
    args = build_parser().parse_args(["match", "--games", "1"])
    out = io.StringIO()
    factory = lambda mb, rules, weights: FakeEngine()  # noqa: E731
    assert match_cmd.run(args, engine_factory=factory, limit=FakeLimit(depth=1), out=out) == 0
    assert ": 1 game," in out.getvalue() and "1 games" not in out.getvalue()


class _CtrlCAfter(FakeEngine):
    """A fake engine that counts searches; Ctrl-C cuts the one after ``budget``."""

    budget: ClassVar[list[int]] = [1_000_000]
    calls: ClassVar[list[int]] = [0]

    def search(
        self,
        board: Board,
        limit: LimitLike,
        on_info: Callable[[SearchInfo], None] | None = None,
        level: int | None = None,
    ) -> FakeResult:
        self.calls[0] += 1
        if self.calls[0] > self.budget[0]:
            raise KeyboardInterrupt
        return super().search(board, limit, on_info, level)


def test_ctrl_c_keeps_the_games_finished_so_far(tmp_path: Path) -> None:
    pdn = tmp_path / "partial.pdn"
    args = build_parser().parse_args(
        ["match", "--ballots", str(_two_openings(tmp_path)), "--pdn", str(pdn)]
    )
    factory = lambda mb, rules, weights: _CtrlCAfter()  # noqa: E731
    _CtrlCAfter.calls[0] = 0
    quiet = io.StringIO()
    assert match_cmd.run(args, engine_factory=factory, limit=FakeLimit(depth=1), out=quiet) == 0
    _CtrlCAfter.budget[0], _CtrlCAfter.calls[0] = _CtrlCAfter.calls[0] * 5 // 8, 0  # in game 3
    out = io.StringIO()
    assert match_cmd.run(args, engine_factory=factory, limit=FakeLimit(depth=1), out=out) == 130
    text = out.getvalue()
    played = len(read_games(pdn.read_text(encoding="utf-8")))
    assert 1 <= played < 4
    assert f"interrupted: the {played} game" in text and "W/D/L" in text
    _CtrlCAfter.budget[0], _CtrlCAfter.calls[0] = 3, 0  # in the first game
    out = io.StringIO()
    assert match_cmd.run(args, engine_factory=factory, limit=FakeLimit(depth=1), out=out) == 130
    assert (
        out.getvalue().splitlines()[-1]
        == "interrupted before the first game ended: nothing to count"
    )


def test_ballots_output_errors(tmp_path: Path) -> None:
    args = build_parser().parse_args(["ballots", "--output", str(tmp_path)])
    with pytest.raises(UsageError, match="is a folder"):
        ballots.run(args, engine=FakeEngine(), limit=FakeLimit(depth=1))
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    args = build_parser().parse_args(["ballots", "--output", str(blocker / "x.txt")])
    with pytest.raises(UsageError, match="cannot write"):
        ballots.run(args, engine=FakeEngine(), limit=FakeLimit(depth=1))


def test_help_texts_carry_no_markup(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("play", "analyse", "bench", "match", "ballots", "hub"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        assert "``" not in text and ":func:" not in text, command


@needs_engine
def test_real_engines_play_two_openings_at_tiny_depth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdn = tmp_path / "real.pdn"
    status = main(
        ["match", "--level-a", "10", "--level-b", "10", "--depth", "2", "--hash", "4",
         "--ballots", str(_two_openings(tmp_path)), "--pdn", str(pdn)]
    )  # fmt: skip
    assert status == 0
    out = capsys.readouterr().out
    assert "4 games" in out and "+" in out and "W/D/L" in out
    assert len(read_games(pdn.read_text(encoding="utf-8"))) == 4


def test_weights_files_are_checked(tmp_path: Path) -> None:
    from poolcheckers.commands.common import load_weights

    good = tmp_path / "w.json"
    good.write_text('{"king": 150}', encoding="utf-8")
    assert load_weights(str(good)) == {"king": 150}
    for text, message in [("{", "not JSON"), ('{"king": 1.5}', "whole numbers"), ("[]", "object")]:
        bad = tmp_path / "bad.json"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(UsageError, match=message):
            load_weights(str(bad))
    with pytest.raises(UsageError, match="cannot read"):
        load_weights(str(tmp_path / "none.json"))


@needs_engine
def test_weights_reach_the_engine(tmp_path: Path) -> None:
    from poolcheckers.commands.common import open_engine

    good = tmp_path / "w.json"
    good.write_text('{"king": 150}', encoding="utf-8")
    engine = open_engine(1, RuleSet(), str(good))
    assert isinstance(engine, Engine) and engine.weights["king"] == 150


def test_summary_of_a_perfect_score_gives_wilsons_bound() -> None:
    result = match.MatchResult("A", "B")
    for _ in range(100):
        result.games.append(
            match.GameRecord(("11-15",), Board(), "A", "B", "2-0", "R16", True, 1.0, 0.1)
        )
    text = result.summary()
    assert "+100 =0 -0" in text and "Elo +inf" in text
    assert "above 96.3%, Elo above +566" in text
    result.games = result.games[:10]
    for game in result.games:
        game.a_points = 0.0
    assert "below 27.8%, Elo below -166" in result.summary()


# ----------------------------------------------------------------- SPRT mode
def test_sprt_mode_stops_when_decided_and_counts_pairs(tmp_path: Path) -> None:
    # two identical fakes over two openings, at most 20 pairs, games saved and plotted
    png, pdn = tmp_path / "sprt.png", tmp_path / "sprt.pdn"
    args = build_parser().parse_args(
        ["match", "--sprt", "-400", "400", "--ballots", str(_two_openings(tmp_path)),
         "--games", "40", "--plot", str(png), "--pdn", str(pdn)]
    )  # fmt: skip
    out = io.StringIO()
    factory = lambda mb, rules, weights: FakeEngine()  # noqa: E731
    assert match_cmd.run(args, engine_factory=factory, limit=FakeLimit(depth=1), out=out) == 0
    text = out.getvalue()
    # identical fakes: every opening scores the same for both colours, so each pair is 1 point
    assert "pentanomial [0, 0," in text and "SPRT logistic Elo [-400, 400]" in text
    assert "H0 accepted" in text or "H1 accepted" in text or "undecided" in text
    games = read_games(pdn.read_text(encoding="utf-8"))
    assert len(games) % 2 == 0 and len(games) <= 40
    assert games[0].notations()[:3] == games[1].notations()[:3]  # a pair shares its opening
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_sprt_options_are_checked() -> None:
    assert main(["match", "--sprt", "5", "0", "--games", "2"]) == 2
    assert main(["match", "--sprt", "0", "5", "--alpha", "0.7", "--games", "2"]) == 2
    assert main(["match", "--concurrency", "0"]) == 2
    assert main(["match", "--hub-b", ""]) == 2


@needs_engine
def test_a_hub_engine_plays_through_the_protocol() -> None:
    import sys

    command = [sys.executable, "-c", "import sys; from poolcheckers.cli import main; "
               "sys.exit(main(['hub']))"]  # fmt: skip
    player = hubclient.HubPlayer(command, "hub", depth=2, hash_mb=1)
    try:
        board = Board()
        board.push_notation("11-15")
        move = player.choose(board.copy())
        assert move in board.legal_moves
        # the whole game goes to the engine, so it answers in the right position
        board.push(move)
        assert player.choose(board.copy()) in board.legal_moves
    finally:
        player.close()


@needs_engine
def test_a_hub_engine_at_fixed_nodes_is_load_independent(tmp_path: Path) -> None:
    """--nodes bounds each move by nodes (Hub ``level nodes=``): the same game twice."""
    import sys

    hub = shlex.join([sys.executable, "-c", "import sys; from poolcheckers.cli import main; "
                      "sys.exit(main(['hub']))"])  # fmt: skip
    runs = []
    for n in range(2):
        pdn = tmp_path / f"nodes{n}.pdn"
        args = build_parser().parse_args(
            ["match", "--hub-b", hub, "--ballots", str(_two_openings(tmp_path)), "--games", "2",
             "--nodes", "300", "--concurrency", "1", "--sprt", "0", "10", "--hash", "1",
             "--pdn", str(pdn)]
        )  # fmt: skip
        out = io.StringIO()
        assert match_cmd.run(args, out=out) == 0
        assert "300 nodes/move" in out.getvalue()
        runs.append([game.moves for game in read_games(pdn.read_text(encoding="utf-8"))])
    assert runs[0] == runs[1] and len(runs[0]) == 2


@needs_engine
def test_sprt_pairs_run_in_two_processes(tmp_path: Path) -> None:
    args = build_parser().parse_args(
        ["match", "--sprt", "0", "10", "--ballots", str(_two_openings(tmp_path)),
         "--games", "4", "--depth", "1", "--concurrency", "2", "--hash", "1"]
    )  # fmt: skip
    out = io.StringIO()
    assert match_cmd.run(args, out=out) == 0
    assert "4 games (2 pairs)" in out.getvalue()


def test_fixed_pairs_mode_without_sprt_plots_the_score_only(tmp_path: Path) -> None:
    png = tmp_path / "pairs.png"
    run = match.SprtRun(None, "A", "B", pair_points=[1.0, 1.5, 0.5, 1.0])
    plots.plot_sprt(run, png, "pairs")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "fixed number of games" in run.summary()


# ----------------------------------------------------------------- resuming a match
def _three_openings(tmp_path: Path) -> Path:
    path = tmp_path / "three.txt"
    path.write_text("11-15 22-18 15x22\n9-13 22-18 10-14\n11-16 24-19 8-11\n", encoding="utf-8")
    return path


def _pairs_run(
    tmp_path: Path, pdn: Path, games_count: int, *extra: str
) -> tuple[int, str, list[FakeEngine]]:
    """A pairs match of two fakes over three openings: its status, its output
    and the two engines (their searches say what was played)."""
    engines: list[FakeEngine] = []

    def factory(mb: int, rules: RuleSet, weights: str | None) -> FakeEngine:
        engines.append(FakeEngine(prefer="22-17" if engines else None))
        return engines[-1]

    args = build_parser().parse_args(
        ["match", "--concurrency", "1", "--ballots", str(_three_openings(tmp_path)),
         "--games", str(games_count), "--pdn", str(pdn), *extra]
    )  # fmt: skip
    out = io.StringIO()
    status = match_cmd.run(args, engine_factory=factory, limit=FakeLimit(depth=1), out=out)
    return status, out.getvalue(), engines


def _searches(engines: list[FakeEngine]) -> int:
    return sum(len(engine.searches) for engine in engines)


def test_a_stopped_match_goes_on_from_its_pdn_playing_only_the_missing_pairs(
    tmp_path: Path,
) -> None:
    whole, part = tmp_path / "whole.pdn", tmp_path / "part.pdn"
    _status, whole_out, whole_engines = _pairs_run(tmp_path, whole, 6, "--resume")
    assert "resumed" not in whole_out  # no file yet: the match starts
    _status, _out, part_engines = _pairs_run(tmp_path, part, 2)  # stopped after a pair
    status, out, engines = _pairs_run(tmp_path, part, 6, "--resume")
    assert status == 0
    assert "resumed: 2 games of" in out and "6 games (3 pairs)" in out
    # the saved pair is not played again: the two runs searched what the whole one did
    assert _searches(part_engines) + _searches(engines) == _searches(whole_engines)
    moves = [g.notations() for g in read_games(part.read_text(encoding="utf-8"))]
    assert sorted(moves) == sorted(
        g.notations() for g in read_games(whole.read_text(encoding="utf-8"))
    )
    # the counts of the whole match, its pairs read back included
    assert out.split("pentanomial")[1][:20] == whole_out.split("pentanomial")[1][:20]
    # a finished match resumed plays nothing more
    status, out, engines = _pairs_run(tmp_path, part, 6, "--resume")
    assert status == 0 and _searches(engines) == 0 and "resumed: 6 games" in out


def test_a_resumed_sprt_counts_the_saved_pairs_in_its_test(tmp_path: Path) -> None:
    pdn = tmp_path / "sprt.pdn"
    test = ("--sprt", "-400", "400")
    _status, part, _engines = _pairs_run(tmp_path, tmp_path / "whole.pdn", 12, *test)
    _pairs_run(tmp_path, pdn, 4, *test)
    status, again, engines = _pairs_run(tmp_path, pdn, 12, *test, "--resume")
    assert status == 0 and _searches(engines) > 0 and "resumed: 4 games" in again
    # the same pentanomial, LLR and state as the match played at once
    counts = again.split("pentanomial")[1].split("games saved")[0]
    assert counts == part.split("pentanomial")[1].split("games saved")[0] and "LLR" in counts
    # the test is part of the match: other bounds are another match
    with pytest.raises(UsageError, match="SPRT"):
        _pairs_run(tmp_path, pdn, 40, "--sprt", "0", "10", "--resume")


def test_a_pairs_match_saves_its_games_after_every_pair(tmp_path: Path) -> None:
    """A match killed outright (here: an exception no handler stops) keeps the
    pairs it finished, ready for --resume."""
    pdn = tmp_path / "killed.pdn"

    class Killed(BaseException):
        pass

    class DyingEngine(FakeEngine):
        def search(
            self,
            board: Board,
            limit: LimitLike,
            on_info: Callable[[SearchInfo], None] | None = None,
            level: int | None = None,
        ) -> FakeResult:
            if pdn.exists():  # the first pair is saved: killed in the second
                raise Killed
            return super().search(board, limit, on_info, level)

    args = build_parser().parse_args(
        ["match", "--concurrency", "1", "--ballots", str(_three_openings(tmp_path)),
         "--games", "6", "--pdn", str(pdn)]
    )  # fmt: skip
    factory = lambda mb, rules, weights: DyingEngine()  # noqa: E731
    with pytest.raises(Killed):
        match_cmd.run(args, engine_factory=factory, limit=FakeLimit(depth=1), out=io.StringIO())
    saved = read_games(pdn.read_text(encoding="utf-8"))
    assert len(saved) == 2 and saved[0].tags["Ballot"] == "11-15 22-18 15x22"
    assert not list(tmp_path.glob(".*.partial"))  # written beside, then moved


def test_resuming_refuses_the_games_of_another_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdn = tmp_path / "m.pdn"
    _pairs_run(tmp_path, pdn, 2)
    # another bound per move: the file's Event names the old one
    refused = r"--resume: .*game 1 \(line 1\): Event .*0\.1 s/move.*depth 2"
    with pytest.raises(UsageError, match=refused):
        _pairs_run(tmp_path, pdn, 6, "--resume", "--depth", "2")
    # another player's name
    with pytest.raises(UsageError, match="Black 'A'"):
        _pairs_run(tmp_path, pdn, 6, "--resume", "--name-a", "A")
    # a game that does not start with its opening; openings the match does not play
    text = pdn.read_text(encoding="utf-8")
    other = tmp_path / "other.pdn"
    other.write_text(text.replace("11-15 22-18 15x22", "11-15 22-18 15x22x"), encoding="utf-8")
    with pytest.raises(UsageError, match="the moves do not start with its Ballot"):
        _pairs_run(tmp_path, other, 6, "--resume")
    one = tmp_path / "one.txt"
    one.write_text("9-13 22-18 10-14\n", encoding="utf-8")
    with pytest.raises(UsageError, match="'11-15 22-18 15x22' is none of this match's openings"):
        _pairs_run(tmp_path, pdn, 6, "--resume", "--ballots", str(one))
    # half a pair
    first = read_games(text)[0].to_pdn()
    other.write_text(first, encoding="utf-8")
    with pytest.raises(UsageError, match="1 game, not whole pairs"):
        _pairs_run(tmp_path, other, 6, "--resume")
    # more pairs than the match plays
    other.write_text(text + "\n" + text, encoding="utf-8")
    with pytest.raises(UsageError, match="more pairs of '11-15 22-18 15x22' than this match"):
        _pairs_run(tmp_path, other, 2, "--resume")
    # --resume goes on with a file
    assert main(["match", "--resume"]) == 2
    assert "give --pdn" in capsys.readouterr().err
    assert read_games(pdn.read_text(encoding="utf-8")) == read_games(text)  # left as it was


# ----------------------------------------------------------------- game clock
class _Ticker:
    """A fake wall clock that the players below move on."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _SpendingPlayer:
    """Plays the first legal move in notation order, spending ``spend[i]``
    seconds of the fake clock on its i-th move (the last value after that)."""

    def __init__(self, name: str, ticker: _Ticker, spend: list[float]) -> None:
        self.name = name
        self.ticker = ticker
        self.spend = spend
        self.readings: list[games.ClockReading | None] = []

    def choose(self, board: Board, clock: games.ClockReading | None = None) -> Move:
        self.readings.append(clock)
        self.ticker.now += self.spend[min(len(self.readings) - 1, len(self.spend) - 1)]
        return sorted(board.legal_moves, key=board.notation)[0]


def test_the_match_keeps_each_sides_clock_and_adds_the_increment() -> None:
    ticker = _Ticker()
    black = _SpendingPlayer("B", ticker, [1.0, 0.5, 0.0])
    white = _SpendingPlayer("W", ticker, [0.25])
    control = games.TimeControl(6.0, 0.1)
    game = games.play_clock_game(black, white, ("11-15",), None, control, timer=ticker)
    assert not game.time_loss and not game.reason.startswith(games.TIME_FORFEIT)
    # White moves first after the 1-ply opening; each reading is the clock as the move begins
    assert [r.remaining for r in white.readings[:3] if r] == pytest.approx([6.0, 5.85, 5.7])
    assert [r.remaining for r in black.readings[:4] if r] == pytest.approx([6.0, 5.1, 4.7, 4.8])
    assert all(r is not None and r.increment == 0.1 for r in black.readings + white.readings)
    moves_black = len(black.readings)
    assert game.clock_left is not None
    assert game.clock_left[0] == pytest.approx(6.0 - 1.5 + 0.1 * moves_black)


def test_a_side_whose_clock_runs_out_loses_on_time_and_its_move_is_not_played() -> None:
    ticker = _Ticker()
    black = _SpendingPlayer("B", ticker, [0.0])
    white = _SpendingPlayer("W", ticker, [2.0, 2.0, 2.5])  # 3+1 s: out on its third move
    game = games.play_clock_game(
        black, white, ("11-15",), None, games.TimeControl(3.0, 1.0), timer=ticker
    )
    assert game.time_loss and game.result == "2-0"  # Black wins (CONTRACTS.md §1)
    assert game.reason.startswith("time forfeit: White's clock ran out on move 3")
    assert "(clock 3+1 s, 1.500 s over)" in game.reason
    assert len(game.board.move_stack) == 1 + 2 + 2  # the opening, two moves each: not the late one
    assert game.clock_left == pytest.approx((5.0, -1.5))


def _clock_factory(made: list[FakeEngine]) -> Callable[[int, RuleSet, str | None], FakeEngine]:
    def factory(hash_mb: int, rules: RuleSet, weights: str | None) -> FakeEngine:
        made.append(FakeEngine())
        return made[-1]

    return factory


def test_clock_match_gives_engines_their_clock_and_counts_time_losses(tmp_path: Path) -> None:
    pdn = tmp_path / "clock.pdn"
    args = build_parser().parse_args(
        ["match", "--clock", "6", "--increment", "0.06", "--games", "2",
         "--ballots", str(_two_openings(tmp_path)), "--pdn", str(pdn)]
    )  # fmt: skip
    made: list[FakeEngine] = []
    out = io.StringIO()
    assert match_cmd.run(args, engine_factory=_clock_factory(made), out=out) == 0
    text = out.getvalue()
    assert "2 games, clock 6+0.06 s" in text
    assert "time losses: poolcheckers L10 (A) 0, poolcheckers L10 (B) 0" in text
    assert "mean clock left at the end" in text
    limits = [limit for engine in made for _fen, limit, _level in engine.searches]
    assert limits and all(lim.increment == 0.06 and lim.time is None for lim in limits)
    assert all(lim.clock is not None and 0 < lim.clock <= 6.0 + 0.06 * 200 for lim in limits)
    assert limits[0].clock == 6.0  # each side's first move sees the whole clock
    tags = [game.tags["Termination"] for game in read_games(pdn.read_text(encoding="utf-8"))]
    assert len(tags) == 2 and not any(tag.startswith("time forfeit") for tag in tags)


def test_clock_sprt_pairs_record_the_clocks(tmp_path: Path) -> None:
    args = build_parser().parse_args(
        ["match", "--clock", "5", "--sprt", "0", "10", "--games", "2",
         "--ballots", str(_two_openings(tmp_path))]
    )  # fmt: skip
    out = io.StringIO()
    assert match_cmd.run(args, engine_factory=_clock_factory([]), out=out) == 0
    text = out.getvalue()
    assert "clock 5+0 s" in text and "2 games (1 pairs)" in text and "time losses:" in text


def test_summary_counts_time_losses_by_player() -> None:
    result = match.MatchResult("A", "B")
    result.games.append(
        match.GameRecord(("11-15",), Board(), "A", "B", "0-2", "time forfeit: Black's …",
                         True, 0.0, 1.0, time_loss=True, clock_left=(-0.1, 2.0))
    )  # fmt: skip
    result.games.append(
        match.GameRecord(("11-15",), Board(), "B", "A", "1-1", "R18", False, 0.5, 1.0,
                         clock_left=(1.0, 3.0))
    )  # fmt: skip
    assert result.clock_lines() == [
        "  time losses: A 1, B 0; mean clock left at the end: A 3.00 s, B 1.50 s"
    ]
    assert "time losses: A 1, B 0" in result.summary()


def test_clock_options_are_checked() -> None:
    for extra in (["--depth", "3"], ["--nodes", "100"], ["--time", "0.1"]):
        assert main(["match", "--clock", "6", *extra]) == 2
    assert main(["match", "--increment", "0.1"]) == 2  # an increment needs a clock
    for bad in ("0", "-1", "nan", "inf"):
        assert main(["match", "--clock", bad]) == 2
    assert main(["match", "--clock", "6", "--increment", "-0.1"]) == 2


_FAKE_HUB = """
import sys
log = open(sys.argv[1], "a", encoding="utf-8")
for line in sys.stdin:
    log.write(line)
    log.flush()
    word = line.split()[0] if line.split() else ""
    if word == "hub":
        print("wait", flush=True)
    elif word == "init":
        print("ready", flush=True)
    elif word == "go":
        print("done move=22-18", flush=True)
    elif word == "quit":
        break
"""


def test_a_hub_engine_on_a_clock_gets_its_remaining_time_before_each_go(tmp_path: Path) -> None:
    import sys

    log = tmp_path / "hub.log"
    script = tmp_path / "fake_hub.py"
    script.write_text(_FAKE_HUB, encoding="utf-8")
    player = hubclient.HubPlayer([sys.executable, str(script), str(log)], "fake", hash_mb=1)
    try:
        board = Board()
        board.push_notation("11-15")
        move = player.choose(board.copy(), games.ClockReading(1.23456, 0.01))
        assert board.notation(move) == "22-18"
    finally:
        player.close()
    lines = log.read_text(encoding="utf-8").splitlines()
    go = lines.index("go think")
    # Hub: time= is the mover's remaining clock (rounded down to the millisecond), inc= per move
    assert lines[go - 1] == "level time=1.234 inc=0.01"
    assert lines[go - 2].startswith("pos pos=") and lines[go - 2].endswith("moves=11-15")


def test_a_hub_engine_can_be_sent_the_position_alone_as_some_guis_do(tmp_path: Path) -> None:
    import sys

    from poolcheckers.hub import hub_position

    log = tmp_path / "hub.log"
    script = tmp_path / "fake_hub.py"
    script.write_text(_FAKE_HUB, encoding="utf-8")
    command = [sys.executable, str(script), str(log)]
    player = hubclient.HubPlayer(command, "fake", move_time=0.1, position_only=True)
    board = Board()
    board.push_notation("11-15")
    try:
        player.choose(board.copy())
    finally:
        player.close()
    lines = log.read_text(encoding="utf-8").splitlines()
    assert f"pos pos={hub_position(board)}" in lines
    assert not any("moves=" in line for line in lines)
    args = build_parser().parse_args(["match", "--hub-position-only"])
    assert args.hub_position_only is True


@needs_engine
def test_a_real_engine_plays_a_tiny_clock_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdn = tmp_path / "clock.pdn"
    status = main(
        ["match", "--clock", "1", "--increment", "0.01", "--games", "1", "--hash", "4",
         "--ballots", str(_two_openings(tmp_path)), "--pdn", str(pdn)]
    )  # fmt: skip
    assert status == 0
    out = capsys.readouterr().out
    assert "1 game, clock 1+0.01 s" in out and "time losses:" in out
    (game,) = read_games(pdn.read_text(encoding="utf-8"))
    assert game.result in ("2-0", "0-2", "1-1") and game.tags["Termination"]


class _TermAfter(FakeEngine):
    """A fake engine whose process gets SIGTERM during its ``after``-th search."""

    after: ClassVar[list[int]] = [0]

    def search(
        self,
        board: Board,
        limit: LimitLike,
        on_info: Callable[[SearchInfo], None] | None = None,
        level: int | None = None,
    ) -> FakeResult:
        import os
        import signal

        self.after[0] -= 1
        if self.after[0] == 0:
            os.kill(os.getpid(), signal.SIGTERM)
        return super().search(board, limit, on_info, level)


def test_sigterm_ends_a_match_like_ctrl_c(tmp_path: Path) -> None:
    import signal

    pdn = tmp_path / "term.pdn"
    args = build_parser().parse_args(
        ["match", "--clock", "60", "--ballots", str(_two_openings(tmp_path)), "--pdn", str(pdn)]
    )
    before = signal.getsignal(signal.SIGTERM)
    _TermAfter.after[0] = 1_000_000
    factory = lambda mb, rules, weights: _TermAfter()  # noqa: E731
    assert match_cmd.run(args, engine_factory=factory, out=io.StringIO()) == 0
    _TermAfter.after[0] = (1_000_000 - _TermAfter.after[0]) * 5 // 8  # in the third game
    out = io.StringIO()
    code = match_cmd.run(args, engine_factory=factory, out=out)
    assert code == 130 and "interrupted: the " in out.getvalue()
    assert 1 <= len(read_games(pdn.read_text(encoding="utf-8"))) < 4
    assert signal.getsignal(signal.SIGTERM) == before  # the command's handler is gone
