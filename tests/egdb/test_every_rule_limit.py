"""The tables under every R18 limit from 1 to 25 moves and both R19 options, exactly.

Every one of the 7,413,212 positions of up to 4 pieces (both sides to move,
3 kings v 1 king included) is compared with the layered full-state solver
(layered.py: the state is the position, the R18 plies h and the R19 moves c)
under ``king_only_move_limit`` = 1..25 and ``three_kings_limit_result`` =
draw and loss: the value and DTZ with fresh counts, and the value the probe
gives for running counts (every h from 0 to 2L + 1, in 3 kings v 1 king with
every c from 0 to 13, on a share of the positions that moves with h and c).
Below a limit of 13 moves R18 ends 3 kings v 1 king before R19 does.
The layered solver itself is checked against solver.py's plain minimax.

A test run checks the limits of SAMPLE_LIMITS under both options; ``make
verify-tables`` (POOLCHECKERS_EVERY_LIMIT=1) checks all 25.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from poolcheckers import Board
from poolcheckers.egdb import Tablebase, build
from poolcheckers.rules import RuleSet

from .conftest import NativeProbe, Tables, native_probe
from .layered import LayeredSolver, Material, Phases, build_phases, strong_side
from .solver import Solver

pytestmark = pytest.mark.slow
Ints = npt.NDArray[np.int64]
#: the limits every test run checks: both ends, the 10 of the R18-before-R19 example, both
#: sides of 13 moves (below it R18 ends 3 kings v 1 king before R19 does) and APCA's 25
SAMPLE_LIMITS = (1, 10, 12, 13, 25)
#: all 25 limits take a quarter of an hour of one core: ``make verify-tables`` sets this
EVERY_LIMIT = os.environ.get("POOLCHECKERS_EVERY_LIMIT") == "1"
#: every (three_kings_limit_result, king_only_move_limit) checked, in the order run: the
#: solver goes on from the limit before (layered.py)
OPTIONS = [
    (result, limit)
    for result in ("draw", "loss")
    for limit in (range(1, 26) if EVERY_LIMIT else SAMPLE_LIMITS)
]
#: share of the positions whose running counts are checked (1 in STRIDE for each h, c)
STRIDE = 16
ALL_POSITIONS = 7_413_212
_PHASES: list[dict[Material, Phases]] = []
_SOLVER: dict[str, LayeredSolver] = {}


def _phases() -> dict[Material, Phases]:
    if not _PHASES:
        _PHASES.append(build_phases(4, RuleSet.apca()))
    return _PHASES[0]


def _solver(result: str) -> LayeredSolver:
    if result not in _SOLVER:
        _SOLVER.clear()  # one option's layers at a time (memory)
        _SOLVER[result] = LayeredSolver(_phases(), result == "loss")
    return _SOLVER[result]


def _rules(result: str, limit: int) -> RuleSet:
    return RuleSet.from_options(
        [f"king_only_move_limit={limit}", f"three_kings_limit_result={result}"]
    )


def _probe(probe: NativeProbe, ph: Phases, rows: Ints, h: int, c: int) -> npt.NDArray[np.int16]:
    """The native probe of positions ``rows`` with counts h and c: n x (fresh, dtz, value, b)."""
    n = len(rows)

    def col(a: npt.NDArray[np.uint64] | Ints) -> npt.NDArray[np.uint32]:
        return np.ascontiguousarray(a, dtype=np.uint32)

    raw = probe.probe_many(
        col(ph.black[rows]),
        col(ph.white[rows]),
        col(ph.kings[rows]),
        col(ph.turn[rows]),
        col(np.full(n, h)),
        col(np.full(n, c)),
    )
    out: npt.NDArray[np.int16] = np.frombuffer(raw, dtype=np.int16).reshape(n, 4)
    return out


def _describe(ph: Phases, i: int) -> str:
    def squares(mask: int) -> str:
        kings = int(ph.kings[i])
        return ",".join(
            ("K" if kings >> (s - 1) & 1 else "") + str(s)
            for s in range(1, 33)
            if mask >> (s - 1) & 1
        )

    return f"{'BW'[int(ph.turn[i])]}:W{squares(int(ph.white[i]))}:B{squares(int(ph.black[i]))}"


def _counts(material: Material, limit: int) -> Iterator[tuple[int, int]]:
    """The (h, c) checked under running counts: every h to one past the R18 end, and in
    3 kings v 1 king every c to the R19 end."""
    for h in range(2 * limit + 2):
        for c in range(14) if strong_side(material) is not None else (0,):
            yield h, c


@pytest.mark.parametrize("result, limit", OPTIONS)
def test_every_position_under_every_limit(tmp_path: Path, result: str, limit: int) -> None:
    """R16, R18, R19 (both options), R21: the tables built under each limit agree with
    the full-state solver on every position, fresh and under running counts."""
    rules = _rules(result, limit)
    build(4, tmp_path, rules, threads=1)
    probe = native_probe(tmp_path)
    solver = _solver(result)
    solver.solve(limit)
    checked = 0
    bad: list[str] = []
    for material, ph in solver.phases.items():
        n = len(ph.black)
        rows = np.arange(n)
        value, dtz = solver.fresh[material]
        got = _probe(probe, ph, rows, 0, 0)
        want_dtz = np.where(value == 0, -1, dtz.astype(np.int16))
        wrong = (got[:, 0] != value) | (got[:, 1] != want_dtz) | (got[:, 2] != value)
        for i in np.flatnonzero(wrong)[:5].tolist():
            bad.append(
                f"{_describe(ph, i)}: solver {(int(value[i]), int(want_dtz[i]))}, "
                f"tables {tuple(got[i, :3].tolist())}"
            )
        checked += n
        for k, (h, c) in enumerate(_counts(material, limit)):
            sample = rows[(rows + k) % STRIDE == 0]
            want, _ = solver.values(
                material, sample, np.full(len(sample), h), np.full(len(sample), c)
            )
            running = _probe(probe, ph, sample, h, c)[:, 2]
            for i in np.flatnonzero(running != want)[:3].tolist():
                bad.append(
                    f"{_describe(ph, int(sample[i]))} h={h} c={c}: solver {int(want[i])}, "
                    f"tables {int(running[i])}"
                )
    assert checked == ALL_POSITIONS
    assert bad == [], f"{rules.name}: {len(bad)} disagreements: {bad[:20]}"


#: the 4-piece materials whose values R19 reaches: 3 kings v 1 king and the crownings into it
R19_MATERIALS = [(0, 3, 0, 1), (1, 2, 0, 1), (1, 0, 0, 3)]


@pytest.mark.parametrize(
    "result, limit, only",
    [
        ("draw", 1, None),
        ("loss", 1, R19_MATERIALS),
        ("draw", 2, R19_MATERIALS),
        ("loss", 2, R19_MATERIALS),
    ],
)
def test_the_layered_solver_is_the_minimax_solver(
    result: str, limit: int, only: list[Material] | None
) -> None:
    """The layered solver (layers of plies left) against solver.py's memoised minimax over
    (position, h, c) on a sample of 4-piece positions: of every material under a 1-move R18
    limit, of those R19 reaches under both of its options and a 2-move limit, 3 kings v 1
    king with both counts running (R19 ending first at c = 11, 12, R18 at h = 2L - 1).
    Minimax from a position with men solves every position it can reach: a few each."""
    rules = _rules(result, limit)
    layered = LayeredSolver(_phases(), result == "loss")
    layered.solve(limit)
    minimax = Solver(rules)
    rng = random.Random(limit * 2 + (result == "loss"))
    r19_counts = ((0, 0), (1, 0), (0, 12), (1, 11), (2 * limit - 1, 12), (0, 13))
    for material, ph in layered.phases.items():
        if sum(material) < 4 or (only is not None and material not in only):
            continue
        r19 = strong_side(material) is not None
        for i in rng.sample(
            range(len(ph.black)), 40 if r19 else 3 if material[0] + material[2] else 10
        ):
            pos = (int(ph.black[i]), int(ph.white[i]), int(ph.kings[i]), int(ph.turn[i]))
            for h, c in r19_counts if r19 else ((0, 0), (1, 0)):
                v, d = layered.values(material, np.array([i]), np.array([h]), np.array([c]))
                got = (int(v[0]), None if v[0] == 0 else int(d[0]))
                assert got == minimax.solve(pos, h, c), (_describe(ph, i), h, c)


def test_r18_ends_three_kings_against_one_before_r19(tables: Tables) -> None:
    """R18 before R19: under a 10-move limit the lone king to move in B:WK2,K4,K25:BK10,
    lost in 21 plies under the APCA limits (R19), is drawn: R18 ends the game after 20
    plies without a capture.  Under the APCA limits the running counts do the same."""
    fen = "B:WK2,K4,K25:BK10"
    apca = Tablebase(tables(3, RuleSet.apca(), ((0, 3, 0, 1),)))
    lost = apca.probe(Board(fen))
    assert lost is not None and (lost.value, lost.dtz) == ("loss", 21)
    # 50 - 30 = 20 plies of R18 left: fewer than the 21 the win needs
    late = apca.probe(Board(fen + ":H30"))
    assert late is not None and (late.value, late.fresh_value) == ("draw", "loss")
    for result in ("draw", "loss"):
        rules = _rules(result, 10)
        tb = Tablebase(tables(3, rules, ((0, 3, 0, 1),)))
        drawn = tb.probe(Board(fen, rules=rules))
        assert drawn is not None and (drawn.value, drawn.dtz, drawn.fresh_value) == (
            "draw",
            None,
            "draw",
        )


def test_tables_are_built_for_their_limit_not_corrected_from_another(tables: Tables) -> None:
    """The R18 limit decides values past the next zeroing ply: in W:W5:BK2,K13,K20
    White's man must crown (5-1), a loss in 1 under the APCA limits, since Black then wins
    3 kings v 1 king in 22 plies, within R19's count.  Under a 10-move limit R18 draws that
    phase after 20 plies, so the crowning draws.  A DTZ of 1 fits in 20 plies: correcting
    the APCA tables' answer by the R18 budget would keep the loss; only tables built under
    the 10-move limit know that the position is drawn."""
    fen, crowned = "W:W5:BK2,K13,K20", "B:WK1:BK2,K13,K20"
    extra = ((0, 3, 0, 1), (0, 3, 1, 0))
    apca = Tablebase(tables(3, RuleSet.apca(), extra))
    lost, after = apca.probe(Board(fen)), apca.probe(Board(crowned))
    assert lost is not None and (lost.value, lost.dtz) == ("loss", 1)
    assert after is not None and after.value == "win" and after.dtz is not None
    assert after.dtz == 22  # more than R18 leaves under a 10-move limit (20 plies)
    rules = _rules("draw", 10)
    ten = Tablebase(tables(3, rules, extra))
    for position in (fen, crowned):
        drawn = ten.probe(Board(position, rules=rules))
        assert drawn is not None and (drawn.value, drawn.fresh_value) == ("draw", "draw")
    assert apca.probe(Board(fen, rules=rules)) is None  # files of another limit answer nothing
