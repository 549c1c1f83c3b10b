"""Training positions of the network: quiet positions with a search score and a result.

Three sources, each reproducible from one seed:

* **self-play** (:func:`selfplay_records`): the engine plays itself at a small node
  budget per move from the balloted openings (never a held-out one), each followed
  by random plies chosen by the seed; every quiet position met gets the score of
  the search that chose its move (side to move's view) and the game's result;
* **match games** (:func:`pdn_records`): the games of ``match --pdn`` read by the
  tuner's loader (which leaves out held-out openings, games lost on time and the
  like); a few quiet positions of each game, each scored by a shallow search;
* **endgame tables** (:func:`table_records`): random positions of the materials the
  tables hold, labelled with their exact value (win 1, draw ½, loss 0).

A position is *quiet* when neither side has a capture (R11): the static evaluation
is what the search stands on there, and a pending capture is the search's business,
not the network's.  The records are a structured numpy array (:data:`RECORD`) saved
as ``.npy``; the label the network learns is a blend of the two columns, chosen at
training time (:func:`poolcheckers.tooling.nnue.train.targets`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from poolcheckers.board import Board
from poolcheckers.engine import Engine, Limit
from poolcheckers.engine.core import _core
from poolcheckers.pieces import Color
from poolcheckers.tooling.openings import random_start

#: One training position: the public bitboards (bit s-1 = square s, R2), the side to
#: move (0 Black, 1 White), the search score (centi-men, side to move's view, clipped
#: to +-SCORE_CLIP), the result for the side to move (1, 0.5, 0), whether the result
#: is exact (a table value: the score column is then not used), the source (SOURCES)
#: and the game the position comes from (positions of one game go to the same side of
#: the validation split).
RECORD: Final = np.dtype(
    [
        ("black", "<u4"),
        ("white", "<u4"),
        ("kings", "<u4"),
        ("stm", "u1"),
        ("score", "<i2"),
        ("result", "<f4"),
        ("exact", "u1"),
        ("source", "u1"),
        ("game", "<i4"),
    ]
)

#: The ``source`` column: self-play, match games, endgame tables.
SOURCES: Final = ("selfplay", "pdn", "tables")

#: Search scores beyond this are clipped (mate scores and won endings alike).
SCORE_CLIP: Final = 3000

Records = npt.NDArray[np.void]
Row = tuple[int, int, int, int, int, float, int, int, int]


def _has_capture(black: int, white: int, kings: int, turn: int) -> bool:
    moves = _core().legal_moves(black, white, kings, turn)
    return bool(moves) and moves[0][2] != 0


def is_quiet(board: Board) -> bool:
    """Whether neither side has a capture in ``board`` (R11), which is not over.

    >>> is_quiet(Board()), is_quiet(Board("B:W18:B14")), is_quiet(Board("W:W18:B14"))
    (True, False, False)
    """
    if board.outcome() is not None:
        return False
    turn = int(board.turn)
    return not _has_capture(board.black, board.white, board.kings, turn) and not _has_capture(
        board.black, board.white, board.kings, 1 - turn
    )


def _clip(score: int) -> int:
    return max(-SCORE_CLIP, min(SCORE_CLIP, score))


def _black_points(result: str) -> float:
    return {"2-0": 1.0, "0-2": 0.0}.get(result, 0.5)


def _row(board: Board, score: int, black_points: float, source: int, game: int) -> Row:
    points = black_points if board.turn is Color.BLACK else 1.0 - black_points
    return (
        board.black,
        board.white,
        board.kings,
        int(board.turn),
        _clip(score),
        points,
        0,
        source,
        game,
    )


def to_records(rows: Sequence[Row]) -> Records:
    """The rows as a :data:`RECORD` array."""
    return np.array(list(rows), dtype=RECORD)


# ---------------------------------------------------------------- self-play
def selfplay_game(
    engine: Engine, opening: Sequence[str], seed: int, nodes: int, random_plies: int, game: int
) -> list[Row]:
    """One self-play game's quiet positions: ``opening``, then ``random_plies`` random
    moves (``seed``; drawn again when they pass through a held-out opening, and no
    game at all when that cannot be avoided), then the engine at ``nodes`` nodes a
    move for both sides; each quiet position is labelled with its search's score."""
    board = random_start(opening, random.Random(seed), random_plies)
    if board is None:
        return []
    engine.clear()
    limit = Limit(nodes=nodes)
    seen: list[tuple[Board, int]] = []
    while board.outcome() is None:
        result = engine.search(board, limit)
        if is_quiet(board):
            seen.append((board.copy(stack=False), result.score))
        board.push(result.move)
    outcome = board.outcome()
    assert outcome is not None
    black_points = {Color.BLACK: 1.0, Color.WHITE: 0.0, None: 0.5}[outcome.winner]
    return [_row(b, s, black_points, 0, game) for b, s in seen]


_WORKER: dict[str, Any] = {}


def _engine(evaluation: str) -> Engine:
    """The worker's engine with ``evaluation`` (one per process and evaluation)."""
    if evaluation not in _WORKER:
        _WORKER[evaluation] = Engine(hash_mb=16, book=None, evaluation=evaluation)
    engine: Engine = _WORKER[evaluation]
    return engine


SelfPlayTask = tuple[tuple[str, ...], int, int, int, int, str]


def _selfplay_task(task: SelfPlayTask) -> list[Row]:
    opening, seed, nodes, random_plies, game, evaluation = task
    return selfplay_game(_engine(evaluation), opening, seed, nodes, random_plies, game)


def selfplay_tasks(
    openings: Sequence[Sequence[str]],
    games: int,
    seed: int,
    nodes: int,
    random_plies: int,
    evaluation: str = "pattern",
) -> list[SelfPlayTask]:
    """The (opening, seed, nodes, random plies, game number, evaluation) of each game,
    from one seed (``evaluation``: the engine's, e.g. a network of the previous round).

    >>> [t[0] for t in selfplay_tasks([("9-13",), ("11-15",)], 3, 7, 100, 2)]
    [('9-13',), ('11-15',), ('9-13',)]
    """
    rng = random.Random(seed)
    return [
        (
            tuple(openings[i % len(openings)]),
            rng.randrange(2**31),
            nodes,
            random_plies,
            i,
            evaluation,
        )
        for i in range(games)
    ]


def _run(
    func: Callable[[Any], list[Row]],
    tasks: Sequence[Any],
    concurrency: int,
    on_task: Callable[[], None] | None,
) -> list[Row]:
    """The rows of every task, in task order (so the result depends on the seed only)."""
    rows: list[Row] = []

    def results() -> Iterator[list[Row]]:
        if concurrency <= 1:
            yield from map(func, tasks)
            return
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(concurrency) as pool:
            yield from pool.imap(func, tasks, chunksize=2)

    for part in results():
        rows.extend(part)
        if on_task is not None:
            on_task()
    return rows


def selfplay_records(
    tasks: Sequence[SelfPlayTask],
    *,
    concurrency: int = 1,
    on_game: Callable[[], None] | None = None,
) -> Records:
    """The quiet positions of the self-play games of ``tasks``."""
    return to_records(_run(_selfplay_task, tasks, concurrency, on_game))


# ---------------------------------------------------------------- match games
def _pdn_task(task: tuple[tuple[str, ...], str, int, int, int, str]) -> list[Row]:
    moves, result, per_game, nodes, game, evaluation = task
    engine = _engine(evaluation)
    board = Board()
    quiet: list[Board] = []
    for ply, text in enumerate(moves):
        if ply >= 4 and is_quiet(board):
            quiet.append(board.copy(stack=False))
        board.push_notation(text)
    rng = random.Random(game)
    chosen = sorted(rng.sample(range(len(quiet)), min(per_game, len(quiet))))
    rows = []
    for i in chosen:
        engine.clear()
        score = engine.search(quiet[i], Limit(nodes=nodes)).score
        rows.append(_row(quiet[i], score, _black_points(result), 1, game))
    return rows


def pdn_records(
    paths: Sequence[str],
    *,
    per_game: int,
    nodes: int,
    first_game: int,
    max_games: int | None = None,
    seed: int = 0,
    concurrency: int = 1,
    on_game: Callable[[], None] | None = None,
    on_total: Callable[[int], None] | None = None,
    evaluation: str = "pattern",
) -> tuple[Records, dict[str, int]]:
    """``per_game`` quiet positions of each game of the PDN ``paths`` (at most
    ``max_games`` games, chosen by ``seed``), each scored by a search of ``nodes``
    nodes; and the games left out by the loader, by reason."""
    from poolcheckers.tooling.tune import games_from_pdn

    load = games_from_pdn(paths)
    games = list(load.games)
    if max_games is not None and max_games < len(games):
        games = random.Random(seed).sample(games, max_games)
    if on_total is not None:
        on_total(len(games))
    tasks = [
        (g.moves, g.result, per_game, nodes, first_game + i, evaluation)
        for i, g in enumerate(games)
    ]
    return to_records(_run(_pdn_task, tasks, concurrency, on_game)), load.left_out


# ---------------------------------------------------------------- endgame tables
def random_placement(rng: random.Random, men: tuple[int, int], kings: tuple[int, int]) -> Board:
    """A random board with ``men`` and ``kings`` of (Black, White) and a random side to
    move; no man stands on its own king row (R15: it would have been crowned)."""
    while True:
        squares = rng.sample(range(1, 33), sum(men) + sum(kings))
        black_men, rest = squares[: men[0]], squares[men[0] :]
        white_men, rest = rest[: men[1]], rest[men[1] :]
        if any(s >= 29 for s in black_men) or any(s <= 4 for s in white_men):
            continue
        black_kings, white_kings = rest[: kings[0]], rest[kings[0] :]

        def side(m: list[int], k: list[int]) -> str:
            return ",".join([str(s) for s in m] + [f"K{s}" for s in k])

        turn = rng.choice("BW")
        return Board(f"{turn}:W{side(white_men, white_kings)}:B{side(black_men, black_kings)}")


#: Materials sampled from the tables: (Black men, White men), (Black kings, White kings).
TABLE_MATERIALS: Final = (
    ((1, 1), (0, 0)),
    ((2, 1), (0, 0)),
    ((1, 2), (0, 0)),
    ((2, 2), (0, 0)),
    ((1, 0), (0, 1)),
    ((0, 1), (1, 0)),
    ((2, 1), (0, 1)),
    ((1, 2), (1, 0)),
    ((1, 1), (1, 0)),
    ((1, 1), (0, 1)),
    ((3, 1), (0, 0)),
    ((1, 3), (0, 0)),
)


def table_records(
    tables: Any,
    count: int,
    seed: int,
    first_game: int,
    on_position: Callable[[], None] | None = None,
) -> Records:
    """``count`` quiet random positions with men of :data:`TABLE_MATERIALS` that
    ``tables`` (a :class:`~poolcheckers.egdb.Tablebase`) covers, each with its exact
    value under fresh counts."""
    rng = random.Random(seed)
    rows: list[Row] = []
    tries = 0
    while len(rows) < count and tries < 50 * count:
        tries += 1
        men, kings = TABLE_MATERIALS[rng.randrange(len(TABLE_MATERIALS))]
        board = random_placement(rng, men, kings)
        if not is_quiet(board):
            continue
        probe = tables.probe(board)
        if probe is None:
            continue
        points = {"win": 1.0, "draw": 0.5, "loss": 0.0}[probe.fresh_value]
        black_points = points if board.turn is Color.BLACK else 1.0 - points
        row = _row(board, 0, black_points, 2, first_game + len(rows))
        rows.append((*row[:6], 1, *row[7:]))
        if on_position is not None:
            on_position()
    return to_records(rows)


def save_records(records: Records, path: str) -> None:
    """The records as a ``.npy`` file (a structured array: plain numpy, no pickle)."""
    with open(path, "wb") as handle:
        np.save(handle, records, allow_pickle=False)


def load_records(path: str) -> Records:
    """Records written by :func:`save_records`; ValueError when the file holds another array."""
    data: Records = np.load(path, allow_pickle=False)
    if data.dtype != RECORD:
        raise ValueError(f"{path}: not training positions of the network (dtype {data.dtype})")
    return data
