"""``poolcheckers analyse`` and ``poolcheckers bench``."""

from __future__ import annotations

import argparse
import io
import re

import pytest

from poolcheckers.cli import build_parser, main
from poolcheckers.commands import analyse, bench
from poolcheckers.commands.common import native_available

from .conftest import PressCtrlC
from .fake_engine import FakeEngine, FakeLimit

needs_engine = pytest.mark.skipif(not native_available(), reason="native core not built")

LINE = re.compile(
    r"depth +(\d+)  score +(\S+( in \d+)?)  nodes +[\d,]+  nps +\S+  pv (\S+( \S+)*)$"
)


def _args(*options: str) -> argparse.Namespace:
    return build_parser().parse_args(["analyse", *options])


def test_one_line_per_depth_with_score_nodes_and_pv() -> None:
    out = io.StringIO()
    engine = FakeEngine(score=-120, prefer="11-15")
    assert analyse.run(_args(), engine=engine, limit=FakeLimit(depth=3), out=out) == 0
    lines = [line for line in out.getvalue().splitlines() if line.startswith("depth")]
    assert len(lines) == 3
    for depth, line in enumerate(lines, start=1):
        match = LINE.match(line)
        assert match, line
        assert match.group(1) == str(depth) and match.group(2) == "-1.20"
        assert match.group(4) == "11-15 21-17"
    assert out.getvalue().splitlines()[-1].startswith("best move 11-15  score -1.20")


def test_proven_win_is_shown_in_moves() -> None:
    out = io.StringIO()
    engine = FakeEngine(score=9_997, mate_in=3)
    analyse.run(_args("--fen", "B:W14:B9"), engine=engine, limit=FakeLimit(depth=1), out=out)
    assert "score win in 2" in out.getvalue()


def test_finished_position_and_bad_depth_are_usage_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["analyse", "--fen", "W:W:B1"]) == 2
    assert "the game is over" in capsys.readouterr().err
    assert main(["analyse", "--depth", "0"]) == 2


def test_bad_fen_is_one_line_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "--fen", "X:W1:B2", "--depth", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("poolcheckers analyse: error: FEN")


@pytest.mark.parametrize("command", ["analyse", "play", "match", "ballots"])
def test_bad_hash_sizes_are_one_line_on_stderr(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for size, words in (("0", "must be 1..16384 MiB, not 0"), ("x", "not a whole number")):
        with pytest.raises(SystemExit) as exit_info:
            main([command, "--hash", size])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["analyse", "--time", "inf"], "--time must be a finite number of seconds, not inf"),
        (["analyse", "--depth", "1000"], "--depth must be 1..100, not 1000"),
        (["play", "--time", "inf"], "--time must be a finite number of seconds"),
        (["match", "--depth", "101", "--games", "1"], "--depth must be 1..100, not 101"),
    ],
)
def test_bounds_the_engine_refuses_are_usage_errors(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_time_and_depth_together_bound_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[dict[str, object]] = []

    def make_limit(**bounds: object) -> FakeLimit:
        made.append(bounds)
        return FakeLimit(depth=1)

    monkeypatch.setattr(analyse, "make_limit", make_limit)
    analyse.run(_args("--time", "2", "--depth", "9"), engine=FakeEngine(), out=io.StringIO())
    assert made == [{"time": 2.0, "depth": 9}]


def test_ctrl_c_stops_the_search_and_prints_the_best_move_so_far(
    press_ctrl_c: PressCtrlC,
) -> None:
    out = io.StringIO()
    engine = FakeEngine(prefer="9-13", step=0.01)  # no bound: searches until stopped
    # once the search prints its lines, not before it has begun
    presser = press_ctrl_c(lambda: out.getvalue().count("depth ") >= 3)
    assert analyse.run(_args(), engine=engine, limit=FakeLimit(), out=out) == 130
    presser.join()
    assert out.getvalue().splitlines()[-1].startswith("best move 9-13")
    assert out.getvalue().rstrip().endswith("[interrupted]")


@needs_engine
def test_real_engine_analysis_to_depth(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "--depth", "6", "--hash", "4"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("depth")]
    assert [int(m.group(1)) for line in lines if (m := LINE.match(line))] == list(range(1, 7))


@needs_engine
def test_bench_prints_a_stable_node_signature() -> None:
    runs = []
    for _ in range(2):
        out = io.StringIO()
        assert bench.run(build_parser().parse_args(["bench", "--depth", "3"]), out=out) == 0
        fields = dict(line.split(": ", 1) for line in out.getvalue().splitlines())
        assert fields["depth"] == "3" and fields["nps"].replace(",", "").isdigit()
        runs.append(int(fields["nodes"]))
    assert runs[0] == runs[1] > 0


def test_bench_bad_depth(capsys: pytest.CaptureFixture[str]) -> None:
    if not native_available():
        pytest.skip("native core not built")
    assert main(["bench", "--depth", "0"]) == 2
    assert "--depth must be 1..40" in capsys.readouterr().err


@needs_engine
def test_multipv_prints_the_best_lines_numbered_at_each_depth() -> None:
    out = io.StringIO()
    assert analyse.run(_args("--depth", "5", "--multipv", "3", "--threads", "2"), out=out) == 0
    lines = [line for line in out.getvalue().splitlines() if line[:3] in ("1. ", "2. ", "3. ")]
    assert len(lines) == 15  # three lines at each of five depths
    last = [LINE.match(line[3:]) for line in lines[-3:]]
    assert all(last) and [m.group(1) for m in last if m] == ["5", "5", "5"]
    firsts = {m.group(4).split()[0] for m in last if m}
    assert len(firsts) == 3  # each line starts with another move
    assert main(["analyse", "--multipv", "9"]) == 2
