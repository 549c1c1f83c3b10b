"""The playing levels: a table that climbs from a beginner to the full engine
(measured by ``benchmarks/ladder.py``, docs/ENGINE.md "Levels: the ladder")."""

from __future__ import annotations

import itertools
import random

from hypothesis import given
from hypothesis import strategies as st

from poolcheckers import Board
from poolcheckers.engine import LEVELS, MAX_LEVEL, MIN_LEVEL, Engine, Level, Limit
from poolcheckers.engine.levels import choose_index

WEAK = [LEVELS[n] for n in range(MIN_LEVEL, MAX_LEVEL)]  # levels 1..9


def test_the_table_is_levels_one_to_ten_each_under_its_number() -> None:
    assert sorted(LEVELS) == list(range(1, 11))
    assert all(spec.level == n for n, spec in LEVELS.items())


def test_level_ten_alone_is_the_full_engine() -> None:
    top = LEVELS[MAX_LEVEL]
    assert top.full_strength
    assert (top.depth, top.noise, top.temperature, top.margin) == (0, 0, 0.0, 0)
    assert not any(spec.full_strength for spec in WEAK)


def test_each_level_is_at_least_as_strong_as_the_one_below_in_every_parameter() -> None:
    for lower, upper in itertools.pairwise(WEAK):
        assert upper.depth >= lower.depth, (lower, upper)
        assert upper.noise <= lower.noise, (lower, upper)
        assert upper.temperature <= lower.temperature, (lower, upper)
        assert upper.margin <= lower.margin, (lower, upper)
        stronger = (
            upper.depth > lower.depth,
            upper.noise < lower.noise,
            upper.temperature < lower.temperature,
            upper.margin < lower.margin,
        )
        assert any(stronger), f"level {upper.level} plays like level {lower.level}"


def test_weak_levels_cap_the_depth_and_choose_among_near_best_moves() -> None:
    for spec in WEAK:
        assert spec.depth >= 1
        assert spec.temperature > 0 and spec.margin > 0
        assert spec.noise >= 0


def test_level_one_never_gives_up_more_than_a_man_and_a_half_for_a_whim() -> None:
    # The margin bounds what a level may throw away against its own best
    # score: a beginner's slips, never a random move (a man is 100 centi-men).
    assert LEVELS[MIN_LEVEL].margin <= 150


def _play(black: object, white: object, seed: int) -> Board:
    rng = random.Random(seed)
    board = Board()
    while board.outcome() is None and len(board.move_stack) < 300:
        player = black if board.turn.name_lower == "black" else white
        if player == "random":
            board.push(rng.choice(board.legal_moves))
        else:
            assert isinstance(player, Engine)
            board.push(player.search(board.copy(), Limit(time=5.0), level=MIN_LEVEL).move)
    return board


def test_level_one_beats_a_player_of_random_legal_moves() -> None:
    # A beginner, not a random mover: level 1 wins such games with either colour.
    for seed in range(4):
        engine = Engine(hash_mb=1, seed=seed)
        engine_black = seed % 2 == 0
        board = _play(engine, "random", seed) if engine_black else _play("random", engine, seed)
        outcome = board.outcome()
        assert outcome is not None and outcome.winner is not None, board.fen()
        assert (outcome.winner.name_lower == "black") == engine_black, board.fen()


@given(
    st.lists(st.integers(-3000, 3000), min_size=1, max_size=12),
    st.sampled_from(sorted(LEVELS)),
    st.integers(0, 2**32),
)
def test_choose_index_keeps_to_the_margin(scores: list[int], level: int, seed: int) -> None:
    spec: Level = LEVELS[level]
    index = choose_index(scores, spec, random.Random(seed))
    assert scores[index] >= max(scores) - spec.margin
    if spec.full_strength:
        assert scores[index] == max(scores)
