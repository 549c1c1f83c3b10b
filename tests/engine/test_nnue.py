"""The network evaluation as the engine computes it: the same integers as the numpy
reference, the same whether accumulators are updated or refreshed, bad weights files
refused with a clear error."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolcheckers import Board
from poolcheckers.engine import LEVELS, Engine, Limit, SearchResult
from poolcheckers.engine.core import _core
from poolcheckers.engine.nnue import DEFAULT_EVALUATION, DEFAULT_NETWORK, NetworkError, read_network
from poolcheckers.tooling.nnue import model

from .helpers import random_playout

POSITION = np.dtype([("black", "<u4"), ("white", "<u4"), ("kings", "<u4"), ("stm", "u1")])


def random_network(seed: int, hidden: int = 32, l2: int = 8) -> bytes:
    """A network of random weights, large enough that every layer matters."""
    rng = np.random.default_rng(seed)
    params = model.init_params(rng, hidden, l2)
    params["w1"] *= 4
    params["b2"] += rng.normal(0, 0.5, l2)
    params["w3"] *= 3
    model.clip_params(params)
    return model.weights_bytes(model.quantise(params))


def random_game(seed: int, plies: int = 200) -> list[Board]:
    rng = random.Random(seed)
    board, boards = Board(), list[Board]()
    while board.outcome() is None and len(boards) < plies:
        boards.append(board.copy(stack=False))
        board.push(rng.choice(board.legal_moves))
    return boards


def as_tuple(board: Board) -> tuple[int, int, int, int]:
    return (board.black, board.white, board.kings, int(board.turn))


def reference(data: bytes, boards: list[Board]) -> list[int]:
    rows = np.array([as_tuple(b) for b in boards], dtype=POSITION)
    return [
        int(v) for v in model.integer_forward(model.read_quantised(data), *model.features(rows))
    ]


@pytest.fixture(scope="module")
def network(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("nnue") / "random.bin"
    path.write_bytes(random_network(5))
    return path


@pytest.mark.parametrize("shape", [(32, 8), (64, 16), (8, 1)])
def test_the_native_network_computes_the_numpy_reference_integers_on_random_positions(
    tmp_path: Path, shape: tuple[int, int]
) -> None:
    """Each shape takes its own path through the dense layer (16 outputs: AVX2
    where the CPU has it)."""
    network = tmp_path / "random.bin"
    network.write_bytes(random_network(5, *shape))
    data = network.read_bytes()
    searcher = _core().Searcher(1)
    searcher.set_network(data)
    boards = [b for seed in range(6) for b in random_game(seed)]
    native = searcher.nnue_line([as_tuple(b) for b in boards], [0] * len(boards))
    assert [full for _inc, full, _n in native] == reference(data, boards)
    # and the engine's evaluation is that output in centi-men where no end rule applies
    engine = Engine(hash_mb=1, evaluation=network)
    with_men = [b for b in boards if b.black & ~b.kings and b.white & ~b.kings][:200]
    expected = model.centi_men(np.array(reference(data, with_men)))
    assert [engine.evaluate(b) for b in with_men] == expected.tolist()


@settings(max_examples=25, deadline=None)
@given(game=st.integers(0, 10**6), plies=st.lists(st.integers(0, 12), min_size=1, max_size=400))
def test_incremental_accumulators_equal_a_full_refresh_along_random_games(
    game: int, plies: list[int]
) -> None:
    searcher = _core().Searcher(1)
    searcher.set_network(random_network(7))
    boards = random_game(game, plies=len(plies))
    results = searcher.nnue_line([as_tuple(b) for b in boards], plies[: len(boards)])
    assert all(inc == full for inc, full, _n in results)


def test_a_search_finds_the_same_move_and_score_with_updated_or_refreshed_accumulators() -> None:
    data = random_network(11, hidden=64, l2=16)
    for fen in ("B:W18,19,26,27,30:B6,10,13,K25", Board().fen(), "W:WK7,10,21,K31,K32:B4,9,K19,22"):
        board = Board(fen)
        results = []
        for always_refresh in (False, True):
            engine = Engine(hash_mb=4)
            engine._searcher.set_network(data, always_refresh=always_refresh)
            results.append(engine.search(board, Limit(depth=8)))
        updated, refreshed = results
        assert (updated.move, updated.score, updated.nodes) == (
            refreshed.move,
            refreshed.score,
            refreshed.nodes,
        )


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda d: d[:-1], "9347 bytes, 9348 for its shape"),
        (lambda d: b"PCNX" + d[4:], "no PCNN magic"),
        (lambda d: d[:4] + (2).to_bytes(4, "little") + d[8:], "format version 2"),
        (lambda d: d[:-1] + bytes([d[-1] ^ 1]), "checksum"),
        (lambda d: b"", "too short"),
    ],
)
def test_a_bad_weights_file_is_refused_naming_it_and_the_engine_keeps_its_evaluation(
    tmp_path: Path, network: Path, damage: object, problem: str
) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(damage(network.read_bytes()))  # type: ignore[operator]
    engine = Engine(hash_mb=1, evaluation=network)
    before = engine.evaluate(Board())
    with pytest.raises(NetworkError, match=problem) as caught:
        engine.set_evaluation(bad)
    assert str(bad) in str(caught.value)
    assert engine.evaluation == str(network)
    assert engine.evaluate(Board()) == before
    with pytest.raises(NetworkError, match=str(bad)):
        Engine(hash_mb=1, evaluation=bad)


def test_weights_the_native_core_refuses_are_named_too(tmp_path: Path) -> None:
    """A file whose header is right but whose feature weights could overflow the
    16-bit accumulators passes the Python checks and is refused by the core."""
    q = model.read_quantised(random_network(3))
    q.ft_w[0, 0] = 30000
    bad = tmp_path / "overflow.bin"
    bad.write_bytes(model.weights_bytes(q))
    engine = Engine(hash_mb=1)
    with pytest.raises(NetworkError, match="overflow"):
        engine.set_evaluation(bad)
    assert engine.evaluation == DEFAULT_EVALUATION == "nnue"


def test_the_shipped_network_loads_and_plays() -> None:
    assert read_network(DEFAULT_NETWORK).hidden in (32, 64, 128)
    engine = Engine(hash_mb=4, evaluation="nnue")
    assert engine.evaluation == "nnue"
    assert engine.search(Board(), Limit(depth=6)).move in Board().legal_moves
    engine.set_evaluation("pattern")
    assert engine.evaluation == "pattern"
    assert engine.evaluate(Board()) == Engine(hash_mb=1, evaluation="pattern").evaluate(Board())


def test_the_engine_evaluates_with_the_shipped_network_unless_told_otherwise() -> None:
    board = random_playout(3, 24)
    assert Engine(hash_mb=1).evaluation == "nnue"
    assert Engine(hash_mb=1).evaluate(board) == Engine(hash_mb=1, evaluation="nnue").evaluate(board)


def _level_on_both_evaluations(
    level: int, seed: int
) -> tuple[Engine, Board, SearchResult, SearchResult]:
    """A level's search of a random position by an engine on the network and by
    one on the pattern evaluation: (the network engine, the board, its result, the
    pattern engine's result)."""
    board = random_playout(seed, 20)
    net = Engine(hash_mb=4, seed=seed, book=None)
    pattern = Engine(hash_mb=4, seed=seed, book=None, evaluation="pattern")
    a = net.search(board, Limit(depth=20), level=level)
    b = pattern.search(board, Limit(depth=20), level=level)
    return net, board, a, b


@pytest.mark.parametrize("level", [1, 5, 9])
def test_a_level_on_the_pattern_evaluation_keeps_it_whatever_the_engines(
    level: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A level whose table names the pattern evaluation plays the same moves on an
    engine of either evaluation, and the engine's network is back for the next
    full-strength search."""
    monkeypatch.setitem(LEVELS, level, replace(LEVELS[level], network=False))
    for seed in range(3):
        net, board, a, b = _level_on_both_evaluations(level, seed)
        assert (a.move, a.score, a.nodes) == (b.move, b.score, b.nodes)
        assert net.evaluation == "nnue"
        assert net.evaluate(board) == Engine(hash_mb=1).evaluate(board)


@pytest.mark.parametrize("level", [1, 9])
def test_a_level_on_the_network_searches_with_the_engines_network(
    level: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A level whose table names the network plays the network's scores: an engine
    on the pattern evaluation scores the same level's search differently."""
    monkeypatch.setitem(LEVELS, level, replace(LEVELS[level], network=True, noise=0))
    differ = 0
    for seed in range(3):
        net, _, a, b = _level_on_both_evaluations(level, seed)
        differ += (a.score, a.nodes) != (b.score, b.nodes)
        assert a.depth == b.depth == LEVELS[level].depth
        assert net.evaluation == "nnue"
    assert differ, "the network level searched with the pattern evaluation"


def test_the_end_rules_still_score_king_endings_with_the_network(network: Path) -> None:
    engine = Engine(hash_mb=1, evaluation=network)
    assert engine.evaluate(Board("W:WK1,K5:BK32")) == 0  # 2 kings v 1: a draw (flying kings)
    assert engine.evaluate(Board("B:WK1:BK14")) == 0


def test_the_engine_plays_with_the_network_without_numpy() -> None:
    """The weights file is read with the standard library: numpy is for training only."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "sys.modules.update(numpy=None)\n"
        "from poolcheckers import Board\n"
        "from poolcheckers.engine import Engine, Limit\n"
        "engine = Engine(hash_mb=4, evaluation='nnue')\n"
        "assert engine.search(Board(), Limit(depth=4)).move in Board().legal_moves\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_helper_threads_search_with_the_network_too() -> None:
    engine = Engine(hash_mb=4, threads=2, evaluation="nnue")
    board = Board("B:W18,19,26,27,30:B6,10,13,K25")
    assert engine.search(board, Limit(depth=9)).move in board.legal_moves


def test_bench_compares_the_evaluations_in_one_run(capsys: pytest.CaptureFixture[str]) -> None:
    from poolcheckers.cli import main

    assert main(["bench", "--depth", "3", "--eval", "pattern", "nnue", "--repeat", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("pattern: depth 3, nodes ") and "(1.00 x pattern)" in lines[0]
    assert lines[1].startswith("nnue: depth 3, nodes ") and "x pattern)" in lines[1]
    assert main(["bench", "--depth", "3", "--eval", "no/such.bin"]) == 2
    assert "--eval no/such.bin: no/such.bin: cannot read" in capsys.readouterr().err


def test_an_engine_given_weights_evaluates_with_the_pattern_evaluation_they_belong_to() -> None:
    assert Engine(hash_mb=1, weights={"king": 200}).evaluation == "pattern"
    assert Engine(hash_mb=1, weights={"king": 200}, evaluation="nnue").evaluation == "nnue"
