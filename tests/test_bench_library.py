"""Smoke test of benchmarks/bench_library.py: it runs, and its counts are right.

No timing is asserted.  The peer (py-draughts) is compared only where its
throwaway virtualenv already exists; the project never depends on it.
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from benchmark_script import load_benchmark

from poolcheckers import Board


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark("bench_library")


def _quick_args() -> argparse.Namespace:
    return argparse.Namespace(quick=True, repeat=1, no_progress=True)


def _slow_perft(board: Board, depth: int) -> int:
    """Perft through the public Board API (legal_moves, push, pop): the reference."""
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += _slow_perft(board, depth - 1)
        board.pop()
    return total


def test_quick_run_without_peer(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--quick", "--no-peer", "--no-progress"]) == 0
    out = capsys.readouterr().out
    for figure in ("legal moves", "push+pop", "perft(5) start", "perft(3) mid-game x20"):
        assert figure in out
    assert "agree with the stored figures" in out


def test_counts_agree_with_the_board_api(bench: ModuleType) -> None:
    result: dict[str, Any] = bench.measure(bench.Ours(), _quick_args(), show=False)
    counts = result["counts"]
    assert bench.check_expected(counts) == []
    assert counts["perft_start"] == 7482
    # the fast perft path against perft through Board.legal_moves/push/pop
    assert counts["perft_mid"] == [_slow_perft(Board(fen), 3) for fen in bench.ALL_FENS[1:]]
    # legal moves as the benchmark sees them are Board.legal_moves
    for fen, keys in zip(bench.ALL_FENS, counts["legal"], strict=True):
        board = Board(fen)
        expected = sorted([m.origin, m.destination, *sorted(m.captured)] for m in board.legal_moves)
        assert keys == expected
        assert len(counts["after_push"][bench.ALL_FENS.index(fen)]) == len(board.legal_moves)


def test_stored_figures_are_the_start_perft(bench: ModuleType) -> None:
    assert bench.EXPECTED_PERFT_START == {5: 7482, 7: 190146}
    assert all(len(v) == len(bench.MIDGAME_FENS) for v in bench.EXPECTED_PERFT_MID.values())


def test_peer_counts_agree_when_the_peer_is_installed(bench: ModuleType) -> None:
    python = Path(bench.DEFAULT_PEER_VENV) / "bin" / "python"
    has_peer = python.exists() and subprocess.run([python, "-c", "import draughts"]).returncode == 0
    if not has_peer:
        pytest.skip("py-draughts venv not installed (benchmarks/README.md)")
    args = argparse.Namespace(
        quick=True, repeat=1, no_progress=True, peer_venv=str(bench.DEFAULT_PEER_VENV)
    )
    peer = bench.run_peer(args)
    ours = bench.measure(bench.Ours(), args, show=False)
    assert bench.compare_counts(ours, peer) == []
