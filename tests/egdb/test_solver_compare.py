"""Every stored position of up to 3 pieces against the slow full-state solver.

The solver (solver.py) plays the game over the whole state (pieces, side to
move, R18 plies, R19 moves) by plain minimax; the tables hold the value and
DTZ with fresh counts and give the value under running counts.  Small king
move limits (R18) keep the solver fast and put the R18 budget in play
everywhere; 3 kings v 1 king (R19) is checked near the end of its count.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from poolcheckers.egdb import materials
from poolcheckers.rules import RuleSet

from .conftest import Tables, native_probe
from .solver import Solver, positions

pytestmark = pytest.mark.slow
#: every position of 3 black kings v 1 white king, both sides to move
THREE_V_ONE = list(positions((0, 3, 0, 1)))


def _mismatches(
    directory: Path, rules: RuleSet, pieces: int, running: bool
) -> tuple[int, list[str]]:
    probe = native_probe(directory)
    solver = Solver(rules)
    checked = 0
    bad: list[str] = []
    for material in materials(pieces):
        for pos in positions(material):
            black, white, kings, turn = pos
            value, dtz = solver.solve(pos)
            fresh, cdtz, *_ = probe.probe(black, white, kings, turn, 0, 0)
            got = (fresh, None if cdtz < 0 else cdtz)
            checked += 1
            if got != (value, dtz):
                bad.append(f"{material} {pos}: solver {(value, dtz)}, tables {got}")
            if running:
                for h in range(1, 2 * rules.king_only_move_limit + 1):
                    want, _ = solver.solve(pos, h, 0)
                    if probe.probe(black, white, kings, turn, h, 0)[2] != want:
                        bad.append(f"{material} {pos} h={h}: solver {want}")
    return checked, bad


@pytest.mark.parametrize(
    "options, running",
    [
        (["king_only_move_limit=2"], True),
        (["king_only_move_limit=1", "crown_during_capture=stop"], False),
    ],
)
def test_every_position_of_three_pieces(tables: Tables, options: list[str], running: bool) -> None:
    """R16, R18, R21 and R15/§9 crowning: value and DTZ of all 399,040 positions."""
    rules = RuleSet.from_options(options)
    checked, bad = _mismatches(tables(3, rules), rules, 3, running)
    assert checked == 399040
    assert bad == []


@pytest.mark.parametrize("result", ["draw", "loss"])
def test_three_kings_against_one_near_the_end_of_the_count(tables: Tables, result: str) -> None:
    """R19 (and its "loss" option): 3 kings v 1 king with the count nearly run out.

    With king_only_move_limit=2 and c = 11 or 12 the R19 count ends before R18
    (the "loss" option's case where a king given up into 2 kings v 1 king saves
    the game), with c = 10 R18 ends first; h = 1 shortens R18 further.
    """
    rules = RuleSet.from_options(["king_only_move_limit=2", f"three_kings_limit_result={result}"])
    probe = native_probe(tables(3, rules, ((0, 3, 0, 1),)))
    solver = Solver(rules)
    rng = random.Random(19)
    sample = rng.sample(THREE_V_ONE, 150)
    seen = {"win": 0, "draw": 0, "loss": 0}
    names = {1: "win", 0: "draw", -1: "loss"}
    for i, (black, white, kings, turn) in enumerate(sample):
        strong_to_move = turn == 0
        for h, c in ((0, 12), (1, 12), (0, 11), (0, 10), (3, 12)):
            if c == 11 and (not strong_to_move or i >= 40):
                continue  # 3-4 plies of solver search: kept to a few positions
            want, _ = solver.solve((black, white, kings, turn), h, c)
            got = probe.probe(black, white, kings, turn, h, c)[2]
            assert got == want, ((black, white, kings, turn), h, c)
            seen[names[want]] += 1
    assert all(seen.values()), seen  # every outcome occurs in the sample


def test_three_kings_against_one_fresh_sample(tables: Tables) -> None:
    """Fresh values and DTZ of 3 kings v 1 king under a 1-move R18 limit (2 plies)."""
    rules = RuleSet.from_options(["king_only_move_limit=1", "three_kings_limit_result=loss"])
    probe = native_probe(tables(3, rules, ((0, 3, 0, 1),)))
    solver = Solver(rules)
    for pos in random.Random(7).sample(THREE_V_ONE, 100):
        fresh, dtz, *_ = probe.probe(*pos, 0, 0)
        assert (fresh, None if dtz < 0 else dtz) == solver.solve(pos), pos


def test_two_kings_against_two_sample(tables: Tables) -> None:
    """A 4-piece material that is its own mirror (both sides to move in one file), R18 small."""
    limit = 1
    rules = RuleSet.from_options([f"king_only_move_limit={limit}"])
    probe = native_probe(tables(3, rules, ((0, 2, 0, 2),)))
    solver = Solver(rules)
    pool = list(positions((0, 2, 0, 2)))
    for pos in random.Random(limit).sample(pool, 150):
        fresh, dtz, *_ = probe.probe(*pos, 0, 0)
        assert (fresh, None if dtz < 0 else dtz) == solver.solve(pos), pos
