"""benchmarks/bench_threads.py: what it measures, not how fast (no timing is asserted)."""

from __future__ import annotations

import itertools
from types import ModuleType

import pytest
from benchmark_script import load_benchmark


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark("bench_threads")


def test_positions_are_balloted_openings_with_a_choice(bench: ModuleType) -> None:
    boards = bench.positions(6)
    assert len(boards) == 6
    assert len({b.fen() for b in boards}) == 6  # spread over the ballot file, all different
    for board in boards:
        assert len(board.move_stack) == 3  # after a 3-ply ballot
        assert len(board.legal_moves) > 1  # a forced move would start no helper thread


@pytest.mark.parametrize("threads", [1, 2])
def test_search_to_depth_stops_at_that_depth_with_every_depth_timed(
    bench: ModuleType, threads: int
) -> None:
    board = bench.positions(1)[0]
    seconds, nodes, times = bench.search_to_depth(board, threads, 6, 4)
    # stopped when depth 6 was complete: not limited to it (the helper would
    # idle); rising depths, each timed after the one before.  Threads may skip
    # a depth that a helper completed first (the main thread takes it over, on
    # a loaded machine even depth 6 or the first ones): the first depth beyond
    # 6 is then the one timed
    depths = sorted(times)
    assert depths[-1] >= 6 and seconds == times[min(d for d in depths if d >= 6)]
    if threads == 1:
        assert depths == list(range(1, 7))
    assert all(times[a] <= times[b] for a, b in itertools.pairwise(depths))
    assert nodes > 0


def test_main_prints_the_ratios(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--depth", "5", "--positions", "2", "--rounds", "1", "--time", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "2 positions, 1 rounds" in out
    assert "time to depth, 2 threads / 1: best" in out
    assert "per depth, median of the positions' ratios:" in out
    assert "0.01 s a position, 2 thread(s)" in out


def test_main_refuses_one_thread(bench: ModuleType) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--threads", "1"])
