"""The shipped puzzle set (poolcheckers/data/puzzles.jsonl.gz, made by `poolcheckers
puzzles generate`): at least 2,000 puzzles, every one replayed by the rules library
(legal move by move, R4-R15, the game not over before its end, R16-R21), each line
ending on the solver's move, ids and positions unique, themes from the tagger's list,
ratings in range, a source for each; a sample searched again for uniqueness (the
whole set: `poolcheckers puzzles check`, figures in benchmarks/results/puzzles.json)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from poolcheckers.egdb import Tablebase
from poolcheckers.puzzles import Puzzle, replay, shipped_puzzles
from poolcheckers.puzzles.generate import Generator, Settings, verify
from poolcheckers.puzzles.themes import THEMES, tag

SAMPLE = 40


@pytest.fixture(scope="module")
def shipped() -> list[Puzzle]:
    return shipped_puzzles()


def test_the_package_ships_at_least_2000_puzzles_with_unique_ids_and_positions(
    shipped: list[Puzzle],
) -> None:
    assert len(shipped) >= 2000
    assert len({p.id for p in shipped}) == len(shipped)
    assert len({p.fen for p in shipped}) == len(shipped)


def test_every_shipped_puzzle_replays_by_the_rules_and_ends_on_the_solvers_move_R4_R16(
    shipped: list[Puzzle],
) -> None:
    for puzzle in shipped:
        start, line = replay(puzzle)
        assert len(line) % 2 == 1, puzzle.id
        assert set(puzzle.themes) <= set(THEMES) | {
            t for t in puzzle.themes if t.startswith("shot_")
        }, puzzle.id
        assert set(tag(start, line)) <= set(puzzle.themes), puzzle.id
        assert 600 <= puzzle.rating <= 2600 and puzzle.source, puzzle.id


def test_the_set_spans_goals_themes_and_ratings(shipped: list[Puzzle]) -> None:
    goals = Counter(p.goal for p in shipped)
    assert set(goals) == {"material", "win", "draw"}
    themes = Counter(t for p in shipped for t in p.themes)
    for theme in ("shot", "sacrifice", "forced_capture", "multi_jump", "king_row", "endgame"):
        assert themes[theme] >= 20, theme
    ratings = sorted(p.rating for p in shipped)
    assert ratings[len(ratings) // 10] < 1100 < 1300 < ratings[-len(ratings) // 10]


def test_a_sample_of_shipped_puzzles_is_unique_when_searched_again(
    shipped: list[Puzzle], tables4: Tablebase
) -> None:
    generator = Generator(Settings(), tables4)
    sample = random.Random(2026).sample(shipped, SAMPLE)
    problems = [f"{p.id}: {why}" for p in sample if (why := verify(generator, p)) is not None]
    assert not problems, problems
