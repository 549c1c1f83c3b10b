"""Every position of 3 kings v 1 king under the APCA limits, against a layered solver.

R19 from fresh counts: the three-king side must capture the lone king with
one of its next 13 moves (the count starts with its first move, so 25 plies
when it is to move, 26 when the lone king is).  The solver plays the king
phase forward from each fresh position over the full state — the position
and the number k of plies played, which fixes both counts (h = k; c = the
three-king side's moves among them) — by backward induction over k, with
NumPy for speed: terminal positions per R16 (no move loses, first), R19
(c = 13: a draw, or with the "loss" option a loss for the three-king side),
R18 (h = 2L: a draw); zeroing moves (captures: into 2 kings v 1 king, or of
the lone king) are valued by the fresh value of the position they reach (2 v 1
from the ≤ 3-piece tables, themselves checked position by position in
test_solver_compare.py; the lone king captured: a win).  The moves come from
the rules library.  DTZ as docs/EGDB.md defines it: the winner's fastest move that keeps
the win, the loser's slowest, a zeroing ply counting 1, a game end 0.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from poolcheckers import movegen
from poolcheckers.egdb import Tablebase
from poolcheckers.rules import RuleSet

from .conftest import NativeProbe, Tables, native_probe
from .solver import Pos, positions

pytestmark = pytest.mark.slow
STRONG = 0  # Black holds the three kings in material (0, 3, 0, 1)


Ints = npt.NDArray[np.int64]
#: positions, CSR offsets, child indices, zeroing children
Graph = tuple[list[Pos], Ints, Ints, list[Pos]]
_GRAPH: list[Graph] = []


def _graph() -> Graph:
    """Positions; per position its moves as CSR offsets and child indices (-1: a capture,
    whose position is in the list of zeroing children, in order)."""
    if _GRAPH:
        return _GRAPH[0]
    rules = RuleSet.apca()  # the moves do not depend on the R18/R19 options
    pos = list(positions((0, 3, 0, 1)))
    index = {p: i for i, p in enumerate(pos)}
    offsets = [0]
    child: list[int] = []
    zeroing: list[Pos] = []
    for black, white, kings, turn in pos:
        own, opp = (black, white) if turn == 0 else (white, black)
        for move in movegen.generate(own, opp, kings, turn, rules):
            own2, opp2, kings2, _ = movegen.apply(own, opp, kings, turn, move)
            b2, w2 = (own2, opp2) if turn == 0 else (opp2, own2)
            if move.captured:  # a zeroing ply (no men here)
                child.append(-1)
                zeroing.append((b2, w2, kings2, 1 - turn))
            else:
                child.append(index[(b2, w2, kings2, 1 - turn)])
        offsets.append(len(child))
    graph: Graph = (
        pos,
        np.array(offsets, dtype=np.int64),
        np.array(child, dtype=np.int64),
        zeroing,
    )
    _GRAPH.append(graph)
    return graph


def _solve(
    rules: RuleSet, probe: NativeProbe, root_turn: int, keep: tuple[int, ...] = ()
) -> tuple[Ints, Ints, dict[int, Ints]]:
    """Value and DTZ of every position with ``root_turn`` to move and fresh counts, and the
    values of the layers ``keep`` (k plies into the phase: h = k, c = the strong side's
    moves among them)."""
    pos, offsets, child, zeroing_children = _graph()
    n = len(pos)
    big = 10**6
    limit = 2 * rules.king_only_move_limit
    loss_option = rules.three_kings_limit_result == "loss"
    turn = np.array([p[3] for p in pos], dtype=np.int8)
    # the mover's fresh value after each capture: the lone king taken wins; else 2 v 1
    zero_value = np.zeros(len(child), dtype=np.int64)
    zero_value[child < 0] = [
        1 if not (w if t == 1 else b) else -probe.probe(b, w, k, t, 0, 0)[0]
        for b, w, k, t in zeroing_children
    ]
    counts = np.diff(offsets)
    has_moves = counts > 0
    starts = offsets[:-1][has_moves]
    zeroing = child < 0
    safe = np.where(zeroing, 0, child)
    value = np.zeros(n, dtype=np.int64)  # layer k + 1
    dtz = np.zeros(n, dtype=np.int64)
    kept: dict[int, Ints] = {}
    for k in range(26, -1, -1):
        strong_moves = (k + 1) // 2 if root_turn == STRONG else k // 2
        if strong_moves >= 13 or k >= limit:  # R19 / R18 end the game here
            new_value = np.zeros(n, dtype=np.int64)
            if strong_moves >= 13 and loss_option:
                new_value = np.where(turn == STRONG, -1, 1)
            new_dtz = np.zeros(n, dtype=np.int64)
        else:
            v = np.where(zeroing, zero_value, -value[safe])
            plies = np.where(zeroing, 1, 1 + dtz[safe])
            best = np.full(n, -1, dtype=np.int64)
            best[has_moves] = np.maximum.reduceat(v, starts)
            fastest = np.full(n, big, dtype=np.int64)
            fastest[has_moves] = np.minimum.reduceat(np.where(v == 1, plies, big), starts)
            slowest = np.zeros(n, dtype=np.int64)
            slowest[has_moves] = np.maximum.reduceat(plies, starts)
            new_value = best
            new_dtz = np.where(best == 1, fastest, np.where(best == -1, slowest, 0))
        # R16 first (R21): no legal move loses, in 0 plies, even where a count ends
        value = np.where(has_moves, new_value, -1)
        dtz = np.where(has_moves, new_dtz, 0)
        if k in keep:
            kept[k] = value
    return value, dtz, kept


@pytest.mark.parametrize("result", ["draw", "loss"])
def test_every_three_kings_position(tables: Tables, result: str) -> None:
    rules = RuleSet.from_options([f"three_kings_limit_result={result}"])
    probe = native_probe(tables(3, rules, ((0, 3, 0, 1),)))
    pos = _graph()[0]
    seen = {1: 0, 0: 0, -1: 0}
    layers = (7, 16, 21, 24, 25)
    for root_turn in (0, 1):
        value, dtz, kept = _solve(rules, probe, root_turn, layers)
        for i, (black, white, kings, turn) in enumerate(pos):
            if turn != root_turn:
                continue
            fresh, cdtz, *_ = probe.probe(black, white, kings, turn, 0, 0)
            want = (int(value[i]), int(dtz[i]) if value[i] != 0 else -1)
            assert (fresh, cdtz) == want, (pos[i], (fresh, cdtz), want)
            seen[fresh] += 1
        # running counts: the state k plies into a phase that began with root_turn to move
        for k in layers:
            c = (k + 1) // 2 if root_turn == STRONG else k // 2
            stm = root_turn if k % 2 == 0 else 1 - root_turn
            for i in range(0, len(pos), 7):  # every 7th position
                black, white, kings, turn = pos[i]
                if turn == stm:
                    got = probe.probe(black, white, kings, turn, k, c)[2]
                    assert got == int(kept[k][i]), (pos[i], k, c)
    assert seen[1] and seen[0] and seen[-1]


def test_the_second_distance_is_stored(tables: Tables) -> None:
    """With the "loss" option every fresh draw of 3 kings v 1 king has its B within the count."""
    from poolcheckers import Board

    rules = RuleSet.from_options(["three_kings_limit_result=loss"])
    tb = Tablebase(tables(3, rules, ((0, 3, 0, 1),)))
    draws = 0

    def squares(mask: int) -> str:
        return ",".join(f"K{s}" for s in range(1, 33) if mask >> (s - 1) & 1)

    for black, white, _, turn in _graph()[0][::97]:
        fen = f"{'BW'[turn]}:W{squares(white)}:B{squares(black)}"
        result = tb.probe(Board(fen, rules=rules))
        assert result is not None
        if result.fresh_value == "draw":
            draws += 1
            budget = 25 if turn == STRONG else 26
            assert result.draw_distance is not None and result.draw_distance <= budget
    assert draws > 0
    apca = Tablebase(tables(3, RuleSet.apca(), ((0, 3, 0, 1),)))
    result = apca.probe(Board("W:WK3,K7,K10:BK32"))
    assert result is not None and result.draw_distance is None
