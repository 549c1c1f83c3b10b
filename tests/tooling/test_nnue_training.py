"""The network's training pipeline (poolcheckers.tooling.nnue): deterministic from a
seed, gradients that are the loss's, a quantisation that loses little, and training
data that never holds a held-out opening."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from poolcheckers import Board
from poolcheckers.cli import EXIT_MISSING_EXTRA, main
from poolcheckers.engine import Engine
from poolcheckers.engine.nnue import read_network
from poolcheckers.tooling.nnue import data, model
from poolcheckers.tooling.nnue.train import TrainConfig, fit, targets
from poolcheckers.tooling.openings import HELDOUT_OPENINGS, load_ballots, passes_through_heldout


def tiny_records(n: int = 200, seed: int = 0) -> data.Records:
    """Random legal-looking positions with random labels."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        squares = rng.permutation(np.arange(32))[:10]
        black = sum(1 << int(s) for s in squares[:5])
        white = sum(1 << int(s) for s in squares[5:])
        kings = (1 << int(squares[0])) if i % 3 == 0 else 0
        rows.append((black, white, kings, i % 2, int(rng.integers(-500, 500)), 0.5, 0, 0, i // 4))
    return data.to_records(rows)


def test_training_is_reproducible_bit_for_bit_from_its_seed() -> None:
    records = tiny_records()
    config = TrainConfig(hidden=8, l2=4, epochs=3, batch=32, seed=9)
    first, again = fit(records, config), fit(records, config)
    other = fit(records, TrainConfig(hidden=8, l2=4, epochs=3, batch=32, seed=10))
    assert first.train_loss == again.train_loss
    assert first.validation_loss == again.validation_loss
    assert model.weights_bytes(model.quantise(first.params)) == model.weights_bytes(
        model.quantise(again.params)
    )
    assert first.train_loss != other.train_loss


def test_training_lowers_the_loss_on_labels_the_material_explains() -> None:
    records = tiny_records(400, seed=1)
    black_men = np.array([bin(int(b)).count("1") for b in records["black"]])
    # Black a man up or down by the labels: the network must learn the sign
    records["score"] = 0
    records["exact"] = 1
    records["result"] = np.where(records["stm"] == 0, 0.8, 0.2)
    result = fit(records, TrainConfig(hidden=8, l2=4, epochs=8, batch=32, seed=1))
    assert result.train_loss[-1] < result.train_loss[0]
    assert black_men.size == len(records)


def test_the_backward_pass_is_the_gradient_of_the_loss() -> None:
    rng = np.random.default_rng(4)
    params = model.init_params(rng, 8, 4)
    params["w1"] *= 3
    x_us, x_them = (x.astype(np.float64) for x in model.features(tiny_records(16)))
    t = rng.uniform(0, 1, 16)

    def loss(p: model.Params) -> float:
        f = model.forward(p, x_us, x_them)
        return model.bce(model.sigmoid(100 * f.y / 200.0), t)

    f = model.forward(params, x_us, x_them)
    dy = (model.sigmoid(100 * f.y / 200.0) - t) * (100 / 200.0) / len(t)
    grads = model.backward(params, f, dy)
    for name in ("w1", "b1", "w2", "b2", "w3", "b3", "p"):
        flat = params[name].reshape(-1)
        for i in rng.choice(flat.size, size=min(4, flat.size), replace=False):
            saved = flat[i]
            flat[i] = saved + 1e-6
            up = loss(params)
            flat[i] = saved - 1e-6
            down = loss(params)
            flat[i] = saved
            assert grads[name].reshape(-1)[i] == pytest.approx((up - down) / 2e-6, abs=1e-6)


def test_the_integer_network_is_the_float_one_within_its_rounding() -> None:
    rng = np.random.default_rng(2)
    params = model.fake_quantised(model.init_params(rng, 16, 8))
    x_us, x_them = model.features(tiny_records(100))
    floats = model.forward(params, x_us.astype(np.float64), x_them.astype(np.float64)).y
    ints = model.integer_forward(model.quantise(params), x_us, x_them) / model.OUT_DIV
    assert np.max(np.abs(floats - ints)) < 0.1  # a tenth of a man


def test_the_label_blends_the_search_score_and_the_result() -> None:
    records = tiny_records(3)
    records["score"], records["result"], records["exact"] = (0, 400, 0), (0.0, 1.0, 1.0), (0, 0, 1)
    t = targets(records, 0.25, 200.0)
    assert t[0] == pytest.approx(0.25 * 0.5)
    assert t[1] == pytest.approx(0.25 * model.sigmoid(np.array(2.0)) + 0.75)
    assert t[2] == 1.0  # a table value is exact


def test_the_heldout_openings_never_reach_the_training_data(tmp_path: Path) -> None:
    heldout = load_ballots(HELDOUT_OPENINGS, final=True)[0]
    engine = Engine(hash_mb=1, book=None)
    # a self-play game that cannot avoid a held-out opening gives no positions
    assert data.selfplay_game(engine, heldout, seed=1, nodes=200, random_plies=0, game=0) == []
    # match games through a held-out opening are left out by the loader
    board = Board()
    for text in heldout:
        board.push_notation(text)
    pdn = tmp_path / "games.pdn"
    pdn.write_text(
        f'[Result "1-1"]\n{" ".join(heldout)} 1-1\n\n[Result "2-0"]\n11-15 22-18 15x22 2-0\n',
        encoding="utf-8",
    )
    records, left_out = data.pdn_records([str(pdn)], per_game=8, nodes=200, first_game=0)
    assert left_out == {"held-out opening": 1}
    held = board.fen()
    assert all(Board(_fen(r)).fen() != held for r in records)  # and no position of it slipped in


def _fen(row: np.void) -> str:
    def side(bits: int, kings: int) -> str:
        return ",".join(
            ("K" if kings >> s & 1 else "") + str(s + 1) for s in range(32) if bits >> s & 1
        )

    turn = "W" if int(row["stm"]) else "B"
    kings = int(row["kings"])
    return f"{turn}:W{side(int(row['white']), kings)}:B{side(int(row['black']), kings)}"


def test_self_play_positions_are_quiet_and_labelled_for_the_side_to_move() -> None:
    tasks = data.selfplay_tasks([("11-15", "23-19", "8-11")], 2, seed=3, nodes=300, random_plies=4)
    records = data.selfplay_records(tasks)
    assert len(records) > 20
    assert set(np.unique(records["game"]).tolist()) <= {0, 1}
    for row in records[:: max(1, len(records) // 15)]:
        board = Board(_fen(row))
        assert data.is_quiet(board)
    # both colours' points are the game's result seen from the side to move
    for game in (0, 1):
        rows = records[records["game"] == game]
        black = rows["result"][rows["stm"] == 0]
        white = rows["result"][rows["stm"] == 1]
        assert len(set(black.tolist())) == 1 and set((1 - white).tolist()) <= set(black.tolist())
    assert not any(passes_through_heldout(t[0]) for t in tasks)


def test_the_nnue_commands_gather_train_and_write_a_file_the_engine_reads(tmp_path: Path) -> None:
    positions, weights = tmp_path / "d.npy", tmp_path / "n.bin"
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        assert (
            main(["nnue", "data", "--games", "2", "--nodes", "200", "--output", str(positions)])
            == 0
        )
        assert (
            main(
                [
                    "nnue",
                    "train",
                    str(positions),
                    "--output",
                    str(weights),
                    "--epochs",
                    "2",
                    "--hidden",
                    "16",
                    "--batch",
                    "64",
                    "--checkpoint",
                    str(tmp_path / "c.npz"),
                ]
            )
            == 0
        )
        assert (
            main(["nnue", "export", str(tmp_path / "c.npz"), "--output", str(tmp_path / "e.bin")])
            == 0
        )
        assert main(["nnue", "check", str(weights)]) == 0
    assert (tmp_path / "e.bin").read_bytes() == weights.read_bytes()
    assert read_network(weights).hidden == 16
    assert "validation loss" in out.getvalue()
    assert Engine(hash_mb=1, evaluation=weights).evaluate(Board()) != 10**6


def test_a_match_refuses_a_bad_network_before_any_game(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"PCNN" + bytes(30))
    err = io.StringIO()
    import contextlib

    with contextlib.redirect_stderr(err):
        status = main(["match", "--eval-a", str(bad), "--games", "2", "--depth", "2"])
    assert status == 2
    assert f"--eval-a: {bad}: weights file of format version 0" in err.getvalue()


def test_a_match_plays_the_network_against_the_pattern_evaluation(tmp_path: Path) -> None:
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        status = main(
            ["match", "--eval-a", "nnue", "--eval-b", "pattern", "--games", "2", "--nodes", "300"]
        )
    assert status == 0
    assert "poolcheckers L10 (nnue) vs poolcheckers L10" in out.getvalue()


def test_the_training_positions_are_the_same_from_the_same_seed() -> None:
    tasks = data.selfplay_tasks([("9-13", "22-18", "10-14")], 2, seed=8, nodes=200, random_plies=3)
    first, again = data.selfplay_records(tasks), data.selfplay_records(tasks)
    assert len(first) > 10 and first.tobytes() == again.tobytes()


def test_nnue_train_without_numpy_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "numpy", None)
    argv = ["nnue", "train", str(tmp_path / "d.npy"), "--output", str(tmp_path / "n.bin")]
    assert main(argv) == EXIT_MISSING_EXTRA
    assert "training the network needs numpy, of the tooling extra" in capsys.readouterr().err
