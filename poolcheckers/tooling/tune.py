"""Texel tuning: evaluation weights fitted to the results of the engine's own games.

The pipeline, reproducible from one seed:

1. **games** (:func:`play_games`): the engine plays itself from the balloted
   openings, each followed by a few random plies chosen by the seed, at a
   fixed node budget per move (node-limited searches are deterministic, and
   the table is cleared before each game, so a game depends only on its seed
   and opening, not on the process that played it);
2. **positions** (:func:`quiet_positions`): the positions of those games past
   the opening in which the side to move has no capture (R11: the static
   evaluation is what the search stands on there) and men are still on the
   board (the king endings are scored by rules, not weights), each labelled
   with the game's result for the side to move (1, ½, 0);
3. **features** (:func:`feature_matrix`): the evaluation is linear in the tuned
   weights on such positions, so each weight's column is measured from the
   native evaluation itself: ``(eval(w + δ·e_i) - eval(w)) / δ``;
4. **fit** (:func:`fit`): the logistic model ``P(win) = 1 / (1 + 10^(-K·eval/400))``
   — first ``K`` for the current weights, then the weights (a man stays 100,
   the unit) by gradient descent on the mean squared error of the results,
   as Texel's method does; the weights are rounded to whole centi-men.

>>> r = fit(np.array([[1.0], [-1.0], [0.0]]), np.array([1.0, 0.0, 0.5]),
...         np.zeros(3), np.array([50.0]), steps=200)
>>> bool(r.weights[0] > 50), r.loss_after <= r.loss_before
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from poolcheckers.board import Board
from poolcheckers.engine import Engine, Limit
from poolcheckers.fen import STARTING_FEN
from poolcheckers.pieces import Color
from poolcheckers.rules import RuleSet
from poolcheckers.tooling.openings import board_notations, opening_board, random_start

#: The weights the pipeline fits.  ``man`` is the unit (100) and stays; ``adv0``
#: (a man on its own back row) is the zero of the advancement scale, and a man
#: never stands on ``adv7`` (it is crowned there, R15).
TUNED: Final = (
    "king",
    "adv1",
    "adv2",
    "adv3",
    "adv4",
    "adv5",
    "adv6",
    "back_rank",
    "centre",
    "king_mobility",
    "long_diagonal",
    "runaway",
    "tempo",
)

#: The step of the finite differences (large, for the integer divisions inside).
DELTA: Final = 700

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SelfPlayGame:
    """A game of the pipeline: its moves (R4 notation) and the PDN result."""

    moves: tuple[str, ...]
    result: str


def _result_of(board: Board) -> str:
    outcome = board.outcome()
    assert outcome is not None
    return {Color.BLACK: "2-0", Color.WHITE: "0-2", None: "1-1"}[outcome.winner]


def play_game(
    engine: Engine, opening: Sequence[str], seed: int, nodes: int, random_plies: int
) -> SelfPlayGame:
    """One self-play game: ``opening``, ``random_plies`` random moves (``seed``;
    drawn again when they reach a held-out opening, and none at all when that
    cannot be avoided: :func:`~poolcheckers.tooling.openings.random_start`),
    then the engine with ``nodes`` nodes a move for both sides."""
    board = random_start(opening, random.Random(seed), random_plies)
    if board is None:
        board = opening_board(tuple(opening))  # the openings are ballots: never held out
    engine.clear()
    limit = Limit(nodes=nodes)
    while board.outcome() is None:
        board.push(engine.search(board, limit).move)
    return SelfPlayGame(board_notations(board), _result_of(board))


_WORKER: dict[str, Any] = {}


def _game_task(task: tuple[tuple[str, ...], int, int, int]) -> SelfPlayGame:
    if "engine" not in _WORKER:
        # the tuner fits the pattern evaluation's weights: its games are played with them
        _WORKER["engine"] = Engine(hash_mb=16, evaluation="pattern")
    opening, seed, nodes, random_plies = task
    return play_game(_WORKER["engine"], opening, seed, nodes, random_plies)


def game_tasks(
    openings: Sequence[Sequence[str]], games: int, seed: int, nodes: int, random_plies: int
) -> list[tuple[tuple[str, ...], int, int, int]]:
    """The (opening, seed, nodes, random plies) of each game, from one seed.

    >>> [t[0] for t in game_tasks([("9-13",), ("11-15",)], 3, 7, 100, 2)]
    [('9-13',), ('11-15',), ('9-13',)]
    """
    rng = random.Random(seed)
    return [
        (tuple(openings[i % len(openings)]), rng.randrange(2**31), nodes, random_plies)
        for i in range(games)
    ]


def play_games(
    tasks: Sequence[tuple[tuple[str, ...], int, int, int]],
    *,
    concurrency: int = 1,
    on_game: Callable[[SelfPlayGame], None] | None = None,
) -> list[SelfPlayGame]:
    """Play the games of ``tasks`` (in ``concurrency`` processes), in task order."""
    out: list[SelfPlayGame] = []
    if concurrency <= 1:
        for task in tasks:
            out.append(_game_task(task))
            if on_game is not None:
                on_game(out[-1])
        return out
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(concurrency) as pool:
        for game in pool.imap(_game_task, tasks, chunksize=4):
            out.append(game)
            if on_game is not None:
                on_game(game)
    return out


def _threatened(board: Board) -> bool:
    """Whether the side not to move would have a capture if it were its turn (R11)."""
    flipped = board.copy(stack=False)
    flipped.set_fen(("W" if board.turn is Color.BLACK else "B") + board.fen()[1:])
    legal = flipped.legal_moves
    return bool(legal) and legal[0].is_capture


def quiet_positions(
    games: Sequence[SelfPlayGame], skip_plies: int = 8, *, both_sides: bool = False
) -> list[tuple[Board, float]]:
    """Positions past ``skip_plies`` with no capture for the side to move (and with
    ``both_sides``, none for the other side either) and men on the board, each
    with the game's result for the side to move.

    >>> game = SelfPlayGame(("11-15", "22-18", "15x22", "25x18", "9-13"), "2-0")
    >>> [(b.fen(), r) for b, r in quiet_positions([game], skip_plies=3)]
    [('B:W18,21,23,24,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12', 1.0)]
    """
    out: list[tuple[Board, float]] = []
    for game in games:
        black_points = {"2-0": 1.0, "0-2": 0.0}.get(game.result, 0.5)
        board = Board()
        for ply, text in enumerate(game.moves):
            if ply >= skip_plies:
                legal = board.legal_moves
                men = (board.black | board.white) & ~board.kings
                quiet = legal and not legal[0].is_capture and men and board.outcome() is None
                if quiet and not (both_sides and _threatened(board)):
                    points = black_points if board.turn is Color.BLACK else 1.0 - black_points
                    out.append((board.copy(stack=False), points))
            board.push_notation(text)
    return out


def feature_matrix(
    engine: Engine,
    boards: Sequence[Board],
    names: Sequence[str] = TUNED,
    on_column: Callable[[str], None] | None = None,
) -> tuple[FloatArray, FloatArray]:
    """``(X, base)``: the evaluation's slope in each weight (columns in ``names``)
    and the evaluation with the engine's current weights, for each board.  The
    weights are the pattern evaluation's: an engine evaluating with a network is
    refused (its slopes would all be 0)."""
    if engine.evaluation != "pattern":
        raise ValueError(
            f"the weights are fitted on the pattern evaluation, not {engine.evaluation}"
        )
    weights = engine.weights
    base = np.array([engine.evaluate(b) for b in boards], dtype=np.float64)
    columns = []
    for name in names:
        engine.set_weights({name: weights[name] + DELTA})
        moved = np.array([engine.evaluate(b) for b in boards], dtype=np.float64)
        engine.set_weights({name: weights[name]})
        columns.append((moved - base) / DELTA)
        if on_column is not None:
            on_column(name)
    if not columns:
        return np.zeros((len(boards), 0)), base
    return np.stack(columns, axis=1), base


def _predict(scores: FloatArray, k: float) -> FloatArray:
    out: FloatArray = 1.0 / (1.0 + np.power(10.0, -k * scores / 400.0))
    return out


def mse(scores: FloatArray, results: FloatArray, k: float) -> float:
    """Texel's error: the mean squared difference of results and predictions."""
    return float(np.mean((results - _predict(scores, k)) ** 2))


def best_k(scores: FloatArray, results: FloatArray) -> float:
    """The scale ``K`` of the logistic model that fits ``scores`` best (golden section).

    >>> s = np.array([100.0, -100.0, 300.0, -300.0]); r = np.array([0.64, 0.36, 0.85, 0.15])
    >>> 0.5 < best_k(s, r) < 1.5
    True
    """
    lo, hi = 0.01, 10.0
    g = (5**0.5 - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    for _ in range(80):
        if mse(scores, results, a) < mse(scores, results, b):
            hi, b = b, a
            a = hi - g * (hi - lo)
        else:
            lo, a = a, b
            b = lo + g * (hi - lo)
    return (lo + hi) / 2


@dataclass(frozen=True)
class FitResult:
    """Fitted weights (in the order of the columns), the scale ``K`` and the errors."""

    weights: FloatArray
    k: float
    loss_before: float
    loss_after: float


def _adam(
    params: FloatArray,
    gradient: Callable[[FloatArray], FloatArray],
    steps: int,
    rate: float,
    on_step: Callable[[int, float], None] | None,
    loss: Callable[[FloatArray], float],
) -> FloatArray:
    """``steps`` Adam steps of about ``rate`` from ``params`` (changed in place and
    returned); ``on_step(t, loss(params))`` every 100 steps and at the last."""
    m = np.zeros_like(params)
    v = np.zeros_like(params)
    b1, b2, eps = 0.9, 0.999, 1e-12
    for t in range(1, steps + 1):
        g = gradient(params)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        params -= rate * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
        if on_step is not None and (t % 100 == 0 or t == steps):
            on_step(t, loss(params))
    return params


def fit(
    x: FloatArray,
    results: FloatArray,
    offset: FloatArray,
    start: FloatArray,
    *,
    steps: int = 3000,
    rate: float = 0.5,
    l2: float = 0.0,
    on_step: Callable[[int, float], None] | None = None,
) -> FitResult:
    """Weights ``w`` minimising Texel's error of ``offset + x @ w`` (Adam steps of
    about ``rate`` centi-men), ``K`` fitted first for ``start`` and then kept;
    ``l2`` adds ``l2 · mean(((w - start) / 100)²)``, a pull towards the start."""
    k = best_k(offset + x @ start, results)
    before = mse(offset + x @ start, results, k)
    c = k * np.log(10.0) / 400.0

    def gradient(w: FloatArray) -> FloatArray:
        p = _predict(offset + x @ w, k)
        # d/dw mean((r - p)^2) = mean(-2 (r - p) p (1 - p) c x)
        g: FloatArray = ((-2.0 * (results - p) * p * (1.0 - p) * c)[:, None] * x).mean(axis=0)
        g += l2 * 2.0 * (w - start) / (100.0 * 100.0 * len(w))
        return g

    w = _adam(
        start.astype(np.float64).copy(), gradient, steps, rate,
        on_step, lambda w: mse(offset + x @ w, results, k),
    )  # fmt: skip
    after = mse(offset + x @ np.round(w), results, k)
    return FitResult(np.round(w), k, before, after)


#: The configurations of a pattern window: 8 squares, each empty, an own man or
#: one of the other side's (native/patterns.h).
PATTERN_CONFIGS: Final = 3**8

#: Window sets the pipeline fits: ``(row, k)`` of each 4x4 window, named from the
#: side it is seen from (rows from its own back row, squares ``k`` and ``k + 1``
#: of each row).  ``quadrants`` tiles the board with 4 windows; ``overlap`` lays
#: 9 windows two rows and one square apart.
WINDOW_SETS: Final[dict[str, tuple[tuple[int, int], ...]]] = {
    "quadrants": ((0, 0), (0, 2), (4, 0), (4, 2)),
    "overlap": tuple((r, k) for r in (0, 2, 4) for k in (0, 1, 2)),
}

IntArray = npt.NDArray[np.int64]


def window_squares(row: int, k: int, color: Color) -> tuple[int, ...]:
    """The squares (R2) of the 8 cells of window ``(row, k)`` seen from ``color``:
    cell ``2a + b`` is square ``4(row + a) + k + b + 1`` for Black and the square
    turned half round (``33 - s``) for White.

    >>> window_squares(0, 0, Color.BLACK), window_squares(0, 0, Color.WHITE)
    ((1, 2, 5, 6, 9, 10, 13, 14), (32, 31, 28, 27, 24, 23, 20, 19))
    """
    if not (0 <= row <= 4 and 0 <= k <= 2):
        raise ValueError(f"a window's row is 0-4 and its k 0-2, not ({row}, {k})")
    black = tuple(4 * (row + a) + k + b + 1 for a in range(4) for b in range(2))
    return black if color is Color.BLACK else tuple(33 - s for s in black)


def pattern_index(board: Board, row: int, k: int, color: Color) -> int:
    """The configuration of window ``(row, k)`` seen from ``color``, square by square:
    the sum over its cells ``i`` of ``3^i`` times 0 (empty or a king), 1 (a man of
    ``color``) or 2 (a man of the other side).

    >>> pattern_index(Board(), 0, 0, Color.BLACK), pattern_index(Board(), 4, 0, Color.BLACK)
    (364, 6552)
    """
    own = board.black if color is Color.BLACK else board.white
    other = board.white if color is Color.BLACK else board.black
    index = 0
    for i, square in enumerate(window_squares(row, k, color)):
        bit = 1 << (square - 1)
        if not board.kings & bit:
            index += 3**i * (1 if own & bit else 2 if other & bit else 0)
    return index


def pattern_indices(
    black: npt.NDArray[np.uint32],
    white: npt.NDArray[np.uint32],
    kings: npt.NDArray[np.uint32],
    windows: Sequence[tuple[int, int]],
) -> tuple[IntArray, IntArray]:
    """``(for Black, for White)``: each position's configuration of each window
    (``[positions, windows]``) seen from each colour, from the 32-bit bitboards
    (bit ``s - 1`` is square ``s``): :func:`pattern_index` for many positions.

    >>> b, w, k = (np.array([v], dtype=np.uint32) for v in (0xFFF, 0xFFF00000, 0))
    >>> [a.tolist() for a in pattern_indices(b, w, k, WINDOW_SETS["quadrants"])]
    [[[364, 364, 6552, 6552]], [[364, 364, 6552, 6552]]]
    """
    men = {
        Color.BLACK: (black & ~kings).astype(np.int64),
        Color.WHITE: (white & ~kings).astype(np.int64),
    }
    out = []
    for color in (Color.BLACK, Color.WHITE):
        own, other = men[color], men[color.opponent]
        index = np.zeros((len(black), len(windows)), dtype=np.int64)
        for j, (row, k) in enumerate(windows):
            for i, square in enumerate(window_squares(row, k, color)):
                shift = square - 1
                index[:, j] += 3**i * (((own >> shift) & 1) + 2 * ((other >> shift) & 1))
        out.append(index)
    return out[0], out[1]


def pattern_features(
    boards: Sequence[Board], windows: Sequence[tuple[int, int]]
) -> tuple[IntArray, IntArray]:
    """``(plus, minus)``: each board's table entries (``window · 6561 + configuration``)
    of the side to move's windows and of the other side's; the pattern term of
    the evaluation is ``table[plus].sum() - table[minus].sum()`` (native/patterns.h)."""
    black = np.array([b.black for b in boards], dtype=np.uint32)
    white = np.array([b.white for b in boards], dtype=np.uint32)
    kings = np.array([b.kings for b in boards], dtype=np.uint32)
    turn = np.array([int(b.turn) for b in boards], dtype=np.int64)
    return pattern_features_of(black, white, kings, turn, windows)


def pattern_features_of(
    black: npt.NDArray[np.uint32],
    white: npt.NDArray[np.uint32],
    kings: npt.NDArray[np.uint32],
    turn: npt.NDArray[np.int64],
    windows: Sequence[tuple[int, int]],
) -> tuple[IntArray, IntArray]:
    """:func:`pattern_features` from bitboards and the side to move (0 Black, 1 White)."""
    for_black, for_white = pattern_indices(black, white, kings, windows)
    offsets = np.arange(len(windows), dtype=np.int64) * PATTERN_CONFIGS
    black_moves = (turn == int(Color.BLACK))[:, None]
    plus = np.where(black_moves, for_black, for_white) + offsets
    minus = np.where(black_moves, for_white, for_black) + offsets
    return plus, minus


#: Pieces on a full board: with two phases the opening table's share is pieces / 24.
FULL_BOARD: Final = 24


def piece_counts(boards: Sequence[Board]) -> IntArray:
    """The number of pieces (men and kings, both sides) of each board."""
    return np.array([(b.black | b.white).bit_count() for b in boards], dtype=np.int64)


def phased(
    plus: IntArray, minus: IntArray, pieces: IntArray, phases: int
) -> tuple[IntArray, IntArray, FloatArray | None]:
    """The entries and weights of a table of ``phases`` (1 or 2) phases, the
    opening's first: with two, each window's entry in both, weighed by the
    opening's share ``min(pieces, 24) / 24`` and the ending's (the rest).

    >>> p, m, c = phased(np.array([[3]]), np.array([[5]]), np.array([18]), 2)
    >>> p.tolist(), m.tolist(), c.tolist()
    ([[3, 6564]], [[5, 6566]], [[0.75, 0.25]])
    """
    if phases == 1:
        return plus, minus, None
    if phases != 2:
        raise ValueError(f"a pattern table has 1 or 2 phases, not {phases}")
    size = plus.shape[1] * PATTERN_CONFIGS
    share = (np.minimum(pieces, FULL_BOARD) / FULL_BOARD)[:, None]
    coef: FloatArray = np.concatenate(
        [np.repeat(share, plus.shape[1], 1), np.repeat(1.0 - share, plus.shape[1], 1)], axis=1
    )
    return np.concatenate([plus, plus + size], 1), np.concatenate([minus, minus + size], 1), coef


def native_pattern_scores(
    table: FloatArray, plus: IntArray, minus: IntArray, pieces: IntArray, phases: int
) -> IntArray:
    """The native core's pattern term (side to move's view) of a whole-number table,
    exactly: each phase's sum, blended in whole numbers rounding towards 0 as C
    divides (native/patterns.h).  ``plus`` and ``minus`` of one phase."""
    whole = np.asarray(table, dtype=np.int64).reshape(phases, -1)
    sums = [w[plus].sum(axis=1) - w[minus].sum(axis=1) for w in whole]
    if phases == 1:
        out: IntArray = sums[0]
        return out
    share = np.minimum(pieces, FULL_BOARD)
    mixed = sums[0] * share + sums[1] * (FULL_BOARD - share)
    out = np.sign(mixed) * (np.abs(mixed) // FULL_BOARD)
    return out


def pattern_scores(
    table: FloatArray, plus: IntArray, minus: IntArray, coef: FloatArray | None = None
) -> FloatArray:
    """The pattern term of each position (side to move's view) for a flat ``table``;
    ``coef`` (``[positions, entries]``, e.g. a phase's share) weighs the entries."""
    if coef is None:
        out: FloatArray = table[plus].sum(axis=1) - table[minus].sum(axis=1)
    else:
        out = ((table[plus] - table[minus]) * coef).sum(axis=1)
    return out


@dataclass(frozen=True)
class PatternFit:
    """Scalar weights and the flat pattern table fitted together, ``K`` and the errors."""

    weights: FloatArray
    table: FloatArray
    k: float
    loss_before: float
    loss_after: float


def fit_patterns(
    x: FloatArray,
    results: FloatArray,
    offset: FloatArray,
    start: FloatArray,
    plus: IntArray,
    minus: IntArray,
    size: int,
    *,
    steps: int = 3000,
    rate: float = 0.5,
    l2: float = 0.0,
    pattern_l2: float = 1.0,
    coef: FloatArray | None = None,
    on_step: Callable[[int, float], None] | None = None,
) -> PatternFit:
    """Regularised logistic regression of the results on the evaluation
    ``offset + x @ w + pattern_scores(t, plus, minus)``: the scalar weights ``w``
    (from ``start``, pulled to it by ``l2`` as in :func:`fit`) and the pattern
    table ``t`` of ``size`` entries (from 0, pulled to 0 by ``pattern_l2 · q ·
    sum(t²) / positions``, ``q`` the error's curvature in the score of a position
    predicted at ½: as if each entry had ``pattern_l2`` more positions, drawn
    at 0), minimising Texel's error at the ``K`` of ``start`` by
    Adam steps of about ``rate`` centi-men.  The sparse products are gathers and
    ``bincount`` (each position has a fixed number of entries); ``coef`` weighs
    each position's entries (as in :func:`pattern_scores`).

    >>> plus, minus = np.array([[0], [1]] * 50), np.array([[1], [0]] * 50)
    >>> r = fit_patterns(np.zeros((100, 0)), np.array([0.9, 0.1] * 50), np.zeros(100),
    ...                  np.zeros(0), plus, minus, 2, steps=300, rate=2.0)
    >>> bool(r.table[0] > r.table[1]), r.loss_after < r.loss_before
    (True, True)
    """
    n = len(results)
    k = best_k(offset + x @ start, results)
    before = mse(offset + x @ start, results, k)
    params = np.concatenate([start.astype(np.float64), np.zeros(size)])
    nw = len(start)
    c = k * np.log(10.0) / 400.0
    curvature = (0.25 * c) ** 2  # the error's curvature in a score, a position at p = 1/2
    flat_plus, flat_minus = plus.ravel(), minus.ravel()
    per = plus.shape[1]

    def scores(p: FloatArray) -> FloatArray:
        return offset + x @ p[:nw] + pattern_scores(p[nw:], plus, minus, coef)

    def gradient(params: FloatArray) -> FloatArray:
        pred = _predict(scores(params), k)
        d = -2.0 * (results - pred) * pred * (1.0 - pred) * c / n  # d error / d score
        g = np.empty_like(params)
        g[:nw] = d @ x + l2 * 2.0 * (params[:nw] - start) / (100.0 * 100.0 * max(nw, 1))
        spread = np.repeat(d, per) if coef is None else (d[:, None] * coef).ravel()
        g[nw:] = np.bincount(flat_plus, weights=spread, minlength=size)
        g[nw:] -= np.bincount(flat_minus, weights=spread, minlength=size)
        g[nw:] += pattern_l2 * 2.0 * curvature * params[nw:] / n
        return g

    params = _adam(params, gradient, steps, rate, on_step, lambda p: mse(scores(p), results, k))
    rounded = np.round(params)
    return PatternFit(rounded[:nw], rounded[nw:], k, before, mse(scores(rounded), results, k))


def save_pattern_table(
    path: str, windows: Sequence[tuple[int, int]], table: FloatArray, about: str, phases: int = 1
) -> None:
    """The pattern data file: windows, phases, one list of 6561 weights per phase and
    window (the opening's windows first), and ``about`` (how it was made);
    scripts/gen_pattern_table.py turns it into C."""
    import json

    rows = np.asarray(table, dtype=np.float64).reshape(phases * len(windows), PATTERN_CONFIGS)
    data = {
        "about": about,
        "windows": [list(w) for w in windows],
        "phases": phases,
        "weights": [[int(v) for v in row] for row in rows],
    }
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(data, separators=(",", ":")) + "\n")


@dataclass(frozen=True)
class PatternTable:
    """A pattern data file: its windows, phases, flat table and how it was made."""

    windows: tuple[tuple[int, int], ...]
    phases: int
    table: FloatArray
    about: str


def load_pattern_table(path: str) -> PatternTable:
    """The pattern data file at ``path``; a malformed file raises ``ValueError``
    naming what is wrong."""
    import json

    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    windows = tuple((int(r), int(k)) for r, k in data["windows"])
    if not windows:
        raise ValueError(f"{path}: no windows")
    for row, k in windows:
        window_squares(row, k, Color.BLACK)  # checks the range
        if (4 - row, 2 - k) not in windows:
            # the native core looks each region up once, as Black's window and White's
            raise ValueError(
                f"{path}: window ({row}, {k}) without ({4 - row}, {2 - k}), the same "
                "squares seen from the other side"
            )
    phases = int(data.get("phases", 1))
    if phases not in (1, 2):
        raise ValueError(f"{path}: a pattern table has 1 or 2 phases, not {phases}")
    weights = data["weights"]
    if len(weights) != phases * len(windows) or any(len(w) != PATTERN_CONFIGS for w in weights):
        raise ValueError(
            f"{path}: need {PATTERN_CONFIGS} weights for each of {len(windows)} windows "
            f"in {phases} phase(s)"
        )
    table = np.array(weights, dtype=np.float64).ravel()
    if np.any(np.abs(table) > 16000):
        raise ValueError(f"{path}: a weight is beyond +-16000 (the C tables are 16-bit)")
    return PatternTable(windows, phases, table, str(data.get("about", "")))


def save_games(games: Sequence[SelfPlayGame], path: str) -> None:
    """The games as JSON lines: ``{"moves": [...], "result": "2-0"}``."""
    import json

    with open(path, "w", encoding="utf-8") as handle:
        for game in games:
            handle.write(json.dumps({"moves": list(game.moves), "result": game.result}) + "\n")


def load_games(path: str) -> list[SelfPlayGame]:
    """Games written by :func:`save_games`."""
    import json

    with open(path, encoding="utf-8") as handle:
        return [
            SelfPlayGame(tuple(d["moves"]), str(d["result"]))
            for d in (json.loads(line) for line in handle if line.strip())
        ]


#: The results a game of the pipeline may have (PDN, R16-R21): Black won, White won, drawn.
DECIDED: Final = ("2-0", "0-2", "1-1")


@dataclass(frozen=True)
class PdnLoad:
    """The games :func:`games_from_pdn` took, and how many it left out and why."""

    games: list[SelfPlayGame]
    left_out: dict[str, int]


def games_from_pdn(paths: Sequence[str]) -> PdnLoad:
    """The games of PDN files (e.g. the games of ``match --pdn``) as pipeline games.

    A game is taken when it starts from the start position (R3), is played
    under the APCA rules (the positions are replayed with them) and ends in a
    result reached on the board (2-0, 0-2 or 1-1: R16-R21); games lost on
    time (a ``Termination`` tag saying ``time forfeit``), unfinished games
    (``*``), games from a set-up position and games through a held-out opening
    (:data:`~poolcheckers.tooling.openings.HELDOUT_OPENINGS`, kept for final
    results) are left out and counted.  A
    file that cannot be read or holds a bad game raises ``OSError`` or
    :class:`~poolcheckers.errors.PdnError`.

    >>> import tempfile, os
    >>> text = ('[Result "2-0"]\\n1. 11-15 22-18 2. 15x22 2-0\\n'
    ...         '[Result "*"]\\n1. 9-13 *\\n')
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "g.pdn")
    ...     _ = open(path, "w", encoding="utf-8").write(text)
    ...     load = games_from_pdn([path])
    >>> load.games, load.left_out
    ([SelfPlayGame(moves=('11-15', '22-18', '15x22'), result='2-0')], {'unfinished': 1})
    """
    from poolcheckers.pdn import read_file
    from poolcheckers.tooling.openings import passes_through_heldout

    apca = RuleSet.apca()
    games: list[SelfPlayGame] = []
    left_out: dict[str, int] = {}
    for path in paths:
        for game in read_file(path):
            result = game.normalized_result
            termination = game.tags.get("Termination", "").lower()
            if game.start_fen != STARTING_FEN:
                reason = "set-up position"
            elif game.rules != apca:
                reason = "other rules"
            elif result not in DECIDED:
                reason = "unfinished"
            elif "time forfeit" in termination:
                reason = "lost on time"
            elif passes_through_heldout(moves := tuple(game.notations())):
                reason = "held-out opening"
            else:
                games.append(SelfPlayGame(moves, result))
                continue
            left_out[reason] = left_out.get(reason, 0) + 1
    return PdnLoad(games, left_out)


def holdout_split(
    games: Sequence[SelfPlayGame], fraction: float, seed: int, opening_plies: int = 3
) -> tuple[list[SelfPlayGame], list[SelfPlayGame]]:
    """``(fit, held out)``: about ``fraction`` of the games held out for measuring
    the fit, chosen by ``seed``.  Games that begin with the same
    ``opening_plies`` moves (the two colours of a ballot, R3's three-move
    openings) go to the same side, so that no opening is in both.

    >>> games = [SelfPlayGame(("9-13", "22-18", m), "1-1") for m in ("5-9", "11-15")]
    >>> games += [SelfPlayGame(("11-15", "23-19", "8-11"), "2-0")]
    >>> fit_games, held = holdout_split(games, 0.5, 1)
    >>> sorted(len(g) for g in (fit_games, held)), len(fit_games + held)
    ([1, 2], 3)
    >>> holdout_split(games, 0.0, 1)[1]
    []
    """
    if not 0.0 <= fraction < 1.0:
        raise ValueError(f"the held-out fraction must be in [0, 1), not {fraction}")
    keys = sorted({g.moves[:opening_plies] for g in games})
    random.Random(seed).shuffle(keys)
    held = set(keys[: round(fraction * len(keys))])
    return (
        [g for g in games if g.moves[:opening_plies] not in held],
        [g for g in games if g.moves[:opening_plies] in held],
    )


__all__ = [
    "DECIDED",
    "DELTA",
    "FULL_BOARD",
    "PATTERN_CONFIGS",
    "TUNED",
    "WINDOW_SETS",
    "FitResult",
    "PatternFit",
    "PatternTable",
    "PdnLoad",
    "SelfPlayGame",
    "best_k",
    "feature_matrix",
    "fit",
    "fit_patterns",
    "game_tasks",
    "games_from_pdn",
    "holdout_split",
    "load_games",
    "load_pattern_table",
    "mse",
    "native_pattern_scores",
    "pattern_features",
    "pattern_features_of",
    "pattern_index",
    "pattern_indices",
    "pattern_scores",
    "phased",
    "piece_counts",
    "play_game",
    "play_games",
    "quiet_positions",
    "save_games",
    "save_pattern_table",
    "window_squares",
]
