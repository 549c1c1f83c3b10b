"""Texel tuning pipeline: games, quiet positions, features, fit, the command."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from engine.helpers import random_games_pdn

from poolcheckers import Board
from poolcheckers.cli import main
from poolcheckers.engine import Engine, native_available
from poolcheckers.tooling import tune as texel
from poolcheckers.tooling.openings import (
    HELDOUT_OPENINGS,
    load_ballots,
    passes_through_heldout,
    random_start,
)

needs_engine = pytest.mark.skipif(not native_available(), reason="native core not built")


def test_best_k_recovers_the_scale_of_a_logistic_law() -> None:
    scores = np.linspace(-400, 400, 81)
    results = 1.0 / (1.0 + np.power(10.0, -0.8 * scores / 400.0))
    assert texel.best_k(scores, results) == pytest.approx(0.8, abs=1e-3)
    assert texel.mse(scores, results, 0.8) == pytest.approx(0.0, abs=1e-12)


def test_fit_recovers_weights_that_made_the_results() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(-3, 4, size=(4000, 2)).astype(np.float64)
    truth = np.array([60.0, 20.0])
    probability = 1.0 / (1.0 + np.power(10.0, -(x @ truth) / 400.0))
    results = probability  # expected results: the error's minimum is at the truth
    fitted = texel.fit(x, results, np.zeros(4000), np.array([30.0, 40.0]), steps=3000, rate=1.0)
    # K and the weights are fitted in turn from a wrong start: their product is what is known
    assert fitted.loss_after < fitted.loss_before
    ratio = fitted.weights[0] / fitted.weights[1]
    assert ratio == pytest.approx(3.0, rel=0.1)


def test_quiet_positions_skip_captures_and_label_the_side_to_move() -> None:
    # before 15x22 and 25x18 the side to move must capture (R11): those two are left out
    game = texel.SelfPlayGame(("11-15", "22-18", "15x22", "25x18", "9-13"), "0-2")
    positions = texel.quiet_positions([game], skip_plies=0)
    for board, points in positions:
        assert not board.legal_moves[0].is_capture  # R11: no capture pending
        assert points == (0.0 if board.turn.name_lower == "black" else 1.0)
    fens = [b.fen() for b, _ in positions]
    assert Board().fen() in fens and len(fens) == 3  # before plies 1, 2 and 5


def test_game_tasks_are_reproducible_from_the_seed() -> None:
    a = texel.game_tasks([("9-13",), ("11-15",)], 6, 3, 100, 2)
    assert a == texel.game_tasks([("9-13",), ("11-15",)], 6, 3, 100, 2)
    assert a != texel.game_tasks([("9-13",), ("11-15",)], 6, 4, 100, 2)


@needs_engine
def test_the_tuners_self_play_never_passes_through_a_heldout_opening() -> None:
    """The held-out openings are for final results: the random moves that start a
    self-play game are drawn again when they reach one."""
    line = load_ballots(HELDOUT_OPENINGS, final=True)[0]  # five plies
    before = Board()
    for text in line[:4]:
        before.push_notation(text)
    # seeds whose first random move from the line's fourth ply is its fifth
    reaching = [
        seed
        for seed in range(40)
        if before.notation(random.Random(seed).choice(before.legal_moves)) == line[4]
    ]
    assert reaching  # the test has games that would have reached it
    engine = Engine(hash_mb=1, evaluation="pattern")
    for seed in reaching[:2]:
        game = texel.play_game(engine, line[:4], seed, nodes=100, random_plies=1)
        assert game.moves[:4] == line[:4] and not passes_through_heldout(game.moves)
    # a line that is itself a held-out opening cannot be started from
    start = random_start(line, random.Random(1), 0)
    assert start is None


@needs_engine
def test_features_make_the_evaluation_linear_in_the_tuned_weights() -> None:
    engine = Engine(hash_mb=1, evaluation="pattern")  # the tuned weights are its
    tasks = texel.game_tasks([("11-15", "22-18", "15x22")], 2, 9, 300, 4)
    games = [texel.play_game(engine, *task) for task in tasks]
    assert texel.play_game(engine, *tasks[0]) == games[0]  # a game depends on its seed only
    boards = [b for b, _ in texel.quiet_positions(games, skip_plies=4)][:60]
    x, base = texel.feature_matrix(engine, boards)
    start = np.array([engine.weights[n] for n in texel.TUNED], dtype=np.float64)
    offset = base - x @ start
    other = start + np.arange(len(start)) * 3.0
    engine.set_weights({n: int(v) for n, v in zip(texel.TUNED, other, strict=True)})
    actual = np.array([engine.evaluate(b) for b in boards], dtype=np.float64)
    # exact but for the runaway term's rounding (an integer division by 7 per man)
    assert np.max(np.abs(offset + x @ other - actual)) <= 3


@needs_engine
def test_tune_command_writes_a_weights_file_the_engine_takes(tmp_path: Path) -> None:
    target = tmp_path / "w.json"
    assert main(["tune", "--games", "6", "--nodes", "300", "--steps", "50",
                 "--output", str(target)]) == 0  # fmt: skip
    weights = json.loads(target.read_text(encoding="utf-8"))
    assert set(weights) == set(texel.TUNED)
    Engine(hash_mb=1, weights=weights)  # every name and value is accepted
    assert main(["tune", "--games", "0", "--output", str(target)]) == 2
    assert main(["tune", "--output", str(tmp_path / "no" / "w.json")]) == 2


def test_quiet_for_both_sides_leaves_out_threatened_positions() -> None:
    # after 10-15 23-19 Black to move has no capture, but White would have 19x10
    game = texel.SelfPlayGame(("10-15", "23-19", "6-10"), "1-1")
    one_side = [b.fen() for b, _ in texel.quiet_positions([game], skip_plies=2)]
    both = [b.fen() for b, _ in texel.quiet_positions([game], skip_plies=2, both_sides=True)]
    assert len(one_side) == 1 and both == []


def test_l2_pulls_the_fit_towards_the_start() -> None:
    rng = np.random.default_rng(2)
    x = rng.integers(-3, 4, size=(3000, 2)).astype(np.float64)
    results = 1.0 / (1.0 + np.power(10.0, -(x @ np.array([60.0, 20.0])) / 400.0))
    start = np.array([40.0, 40.0])
    free = texel.fit(x, results, np.zeros(3000), start, steps=2000, rate=1.0)
    pulled = texel.fit(x, results, np.zeros(3000), start, steps=2000, rate=1.0, l2=0.5)
    assert np.abs(pulled.weights - start).sum() < np.abs(free.weights - start).sum()


def test_games_round_trip_through_a_file(tmp_path: Path) -> None:
    games = [texel.SelfPlayGame(("11-15", "22-18"), "1-1"), texel.SelfPlayGame((), "2-0")]
    path = tmp_path / "games.jsonl"
    texel.save_games(games, str(path))
    assert texel.load_games(str(path)) == games


def test_pdn_games_are_read_with_their_results_and_the_unusable_left_out(
    tmp_path: Path,
) -> None:
    path = tmp_path / "match.pdn"
    path.write_text(
        '[Result "2-0"]\n[Termination "White cannot move (R16)"]\n'
        "1. 11-15 22-18 2. 15x22 25x18 2-0\n\n"
        '[Result "0-2"]\n[Termination "time forfeit: Black\'s clock ran out"]\n'
        "1. 9-13 22-18 0-2\n\n"
        '[Result "1-1"]\n[FEN "B:W18,22:B9,10"]\n1. 10-14 1-1\n\n'
        '[Result "1-0"]\n1. 10-15 23-19 1-0\n\n'
        "1. 12-16 *\n",
        encoding="utf-8",
    )
    load = texel.games_from_pdn([str(path)])
    # a result on the board is kept (1-0 read as 2-0); a loss on time is no verdict
    # on the position, a set-up position is not where the pipeline replays from (R3)
    assert load.games == [
        texel.SelfPlayGame(("11-15", "22-18", "15x22", "25x18"), "2-0"),
        texel.SelfPlayGame(("10-15", "23-19"), "2-0"),
    ]
    assert load.left_out == {"lost on time": 1, "set-up position": 1, "unfinished": 1}


def test_holdout_keeps_each_opening_on_one_side_and_follows_the_seed() -> None:
    openings = [("9-13", "22-18", "5-9"), ("11-15", "23-19", "8-11"), ("10-14", "24-19", "7-10")]
    games = [
        texel.SelfPlayGame((*o, m), r)
        for o in openings * 4
        for m, r in (("19-15", "2-0"), ("18-14", "1-1"))
    ]
    fit_games, held = texel.holdout_split(games, 0.34, 7)
    assert len(fit_games) + len(held) == len(games) and held
    assert not {g.moves[:3] for g in fit_games} & {g.moves[:3] for g in held}
    assert texel.holdout_split(games, 0.34, 7) == (fit_games, held)
    with pytest.raises(ValueError, match="held-out fraction"):
        texel.holdout_split(games, 1.0, 7)


@needs_engine
def test_tune_command_fits_on_pdn_games_and_reports_the_held_out_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdn = tmp_path / "games.pdn"
    random_games_pdn(pdn, 12, 3)
    target = tmp_path / "w.json"
    argv = ["tune", "--load-pdn", str(pdn), "--holdout", "0.25", "--steps", "50",
            "--names", "king,centre", "--output", str(target)]  # fmt: skip
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "12 games from 1 PDN file(s), 9 fitted on" in text
    assert "held out: 3 games" in text
    assert set(json.loads(target.read_text(encoding="utf-8"))) == {"king", "centre"}
    assert main([*argv[:-2], "--load-games", str(pdn), "--output", str(target)]) == 2
    assert main(["tune", "--load-pdn", str(tmp_path / "none.pdn"), "--output", str(target)]) == 2
    assert main([*argv[:3], "--holdout", "1", "--output", str(target)]) == 2


@needs_engine
def test_the_tuner_refuses_an_engine_that_evaluates_with_a_network() -> None:
    with pytest.raises(ValueError, match="pattern evaluation, not nnue"):
        texel.feature_matrix(Engine(hash_mb=1, evaluation="nnue"), [Board()])
