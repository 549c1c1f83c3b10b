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
from poolcheckers.fen import STARTING_FEN
from poolcheckers.pieces import Color
from poolcheckers.rules import RuleSet

from .core import Engine, Limit

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
    """One self-play game: ``opening``, ``random_plies`` random moves (``seed``),
    then the engine with ``nodes`` nodes a move for both sides."""
    rng = random.Random(seed)
    board = Board()
    for text in opening:
        board.push_notation(text)
    for _ in range(random_plies):
        if board.outcome() is not None:
            break
        board.push(rng.choice(board.legal_moves))
    engine.clear()
    limit = Limit(nodes=nodes)
    while board.outcome() is None:
        board.push(engine.search(board, limit).move)
    replay = Board()
    notations = []
    for move in board.move_stack:
        notations.append(replay.notation(move))
        replay.push(move)
    return SelfPlayGame(tuple(notations), _result_of(board))


_WORKER: dict[str, Any] = {}


def _game_task(task: tuple[tuple[str, ...], int, int, int]) -> SelfPlayGame:
    if "engine" not in _WORKER:
        _WORKER["engine"] = Engine(hash_mb=16)
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
    and the evaluation with the engine's current weights, for each board."""
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
    w = start.astype(np.float64).copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    b1, b2, eps = 0.9, 0.999, 1e-12
    c = k * np.log(10.0) / 400.0
    for t in range(1, steps + 1):
        p = _predict(offset + x @ w, k)
        # d/dw mean((r - p)^2) = mean(-2 (r - p) p (1 - p) c x)
        g = ((-2.0 * (results - p) * p * (1.0 - p) * c)[:, None] * x).mean(axis=0)
        g += l2 * 2.0 * (w - start) / (100.0 * 100.0 * len(w))
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w -= rate * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
        if on_step is not None and (t % 100 == 0 or t == steps):
            on_step(t, mse(offset + x @ w, results, k))
    after = mse(offset + x @ np.round(w), results, k)
    return FitResult(np.round(w), k, before, after)


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
    (``*``) and games from a set-up position are left out and counted.  A
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
            else:
                games.append(SelfPlayGame(tuple(game.notations()), result))
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
    "TUNED",
    "FitResult",
    "PdnLoad",
    "SelfPlayGame",
    "best_k",
    "feature_matrix",
    "fit",
    "game_tasks",
    "games_from_pdn",
    "holdout_split",
    "load_games",
    "mse",
    "play_game",
    "play_games",
    "quiet_positions",
    "save_games",
]
