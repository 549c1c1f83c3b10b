"""The Python face of the native core (``poolcheckers._core``), contract §2.

Positions go to the core as bitboards (bit ``s-1`` is square ``s``, R2) and
moves come back as (origin, destination, captured squares); they are turned
into members of :attr:`Board.legal_moves` here.  Searching and perft run
without the GIL, so other Python threads keep running.

>>> from poolcheckers import Board
>>> native_available()
True
>>> perft_native(Board(), 5)
7482
>>> engine = Engine(hash_mb=4)
>>> result = engine.search(Board(), Limit(depth=4))
>>> result.move in Board().legal_moves
True
"""

from __future__ import annotations

import importlib
import math
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from poolcheckers.board import Board
from poolcheckers.fen import write as write_fen
from poolcheckers.move import Move
from poolcheckers.rules import RuleSet

from .levels import LEVELS, Level, check_level, choose_index
from .nnue import DEFAULT_EVALUATION
from .timeman import clock_shares

__all__ = [
    "DEFAULT_BENCH_DEPTH",
    "BenchResult",
    "Engine",
    "EngineUnavailable",
    "Limit",
    "NativeMove",
    "SearchResult",
    "bench",
    "bench_positions",
    "default_weights",
    "native_available",
    "native_legal_moves",
    "perft_divide_native",
    "perft_native",
]

#: the longest time a limit may give (the native core counts in int64 nanoseconds)
MAX_SECONDS = 1e8

#: the weakest level that plays from the opening book: the full engine only.  Levels 1-9
#: vary already (softmax; noise at 1-8) and their opening mistakes are their level (the
#: ladder measures them without the book); level 10 would repeat its games: the book
#: varies them
BOOK_MIN_LEVEL = 10


def _default_book() -> Any:
    from .book import default_book

    return default_book()


#: the most search threads an engine takes
MAX_THREADS = 64

#: the most lines a multi-PV search gives
MAX_MULTIPV = 8

#: depth of :func:`bench` when none is given (about half a second here)
DEFAULT_BENCH_DEPTH = 12


def _load_core() -> Any:
    try:
        return importlib.import_module("poolcheckers._core")
    except ImportError:
        return None


_CORE: Any = _load_core()


class EngineUnavailable(RuntimeError):
    """The native engine ``poolcheckers._core`` is not built, so nothing can search.

    The rules library, the web app's local and online games and the commands
    that need no engine still work (see docs/COMMANDS.md).
    """


#: What :class:`EngineUnavailable` says: the engine is missing and how to get it.
NOT_BUILT_MESSAGE = (
    "the native engine is not built (the C extension poolcheckers._core is missing: "
    "install a C compiler and reinstall poolcheckers, or run `make setup`)"
)


def native_available() -> bool:
    """Whether the compiled core can be used.

    >>> isinstance(native_available(), bool)
    True
    """
    return _CORE is not None


def _core() -> Any:
    if _CORE is None:
        raise EngineUnavailable(NOT_BUILT_MESSAGE)
    return _CORE


def native_rules(rules: RuleSet) -> tuple[bool, bool, int, bool]:
    """The rule options as the native core takes them (search and endgame tables alike).

    >>> native_rules(RuleSet())
    (False, False, 25, False)
    """
    return (
        rules.crown_during_capture == "stop",
        rules.three_kings_limit_result == "loss",
        rules.king_only_move_limit,
        rules.repetition_draw,
    )


def _position(board: Board) -> tuple[int, int, int, int]:
    return board.black, board.white, board.kings, int(board.turn)


class NativeMove(NamedTuple):
    """A move as the native generator sees it: origin, destination, captured squares."""

    origin: int
    destination: int
    captured: frozenset[int]


def _squares(mask: int) -> frozenset[int]:
    return frozenset(s for s in range(1, 33) if mask >> (s - 1) & 1)


def _move_key(move: Move) -> tuple[int, int, int]:
    return move.origin, move.destination, move.captured_mask


def _lookup(board: Board) -> dict[tuple[int, int, int], Move]:
    return {_move_key(m): m for m in board.legal_moves}


def _library_move(board: Board, native: tuple[int, int, int]) -> Move:
    move = _lookup(board).get((native[0], native[1], native[2]))
    if move is None:
        raise RuntimeError(
            f"the native core returned {native[0]}-{native[1]} capturing "
            f"{sorted(_squares(native[2]))}, which is not a legal move in {board.fen()} "
            "(the two generators disagree: please report this position)"
        )
    return move


def native_legal_moves(board: Board) -> list[NativeMove]:
    """The native generator's legal moves of ``board`` (for differential tests).

    >>> from poolcheckers import Board
    >>> sorted(m.origin * 100 + m.destination for m in native_legal_moves(Board()))[:3]
    [913, 914, 1014]
    """
    raw = _core().legal_moves(*_position(board), rules=native_rules(board.rules))
    return [NativeMove(o, d, _squares(c)) for o, d, c in raw]


def perft_native(board: Board, depth: int) -> int:
    """Number of move paths of ``depth`` plies (duplicates dropped, R4), natively.

    >>> from poolcheckers import Board
    >>> [perft_native(Board(), d) for d in range(1, 5)]
    [7, 49, 302, 1469]
    """
    if not isinstance(depth, int) or isinstance(depth, bool) or not 0 <= depth <= 30:
        raise ValueError(f"perft depth must be an int in 0..30, not {depth!r}")
    return int(_core().perft(*_position(board), depth, rules=native_rules(board.rules)))


def perft_divide_native(board: Board, depth: int) -> list[tuple[Move, int]]:
    """Perft of each legal move of ``board`` (``depth`` counts the move itself).

    >>> from poolcheckers import Board
    >>> sum(n for _, n in perft_divide_native(Board(), 3))
    302
    """
    if not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= 30:
        raise ValueError(f"perft divide depth must be an int in 1..30, not {depth!r}")
    raw = _core().perft_divide(*_position(board), depth, rules=native_rules(board.rules))
    return [(_library_move(board, (o, d, c)), int(n)) for o, d, c, n in raw]


@dataclass(frozen=True)
class Limit:
    """When a search stops.

    ``time``: seconds for this move; ``clock`` and ``increment``: the game
    clock of the side to move (the engine budgets a share of it); ``depth``
    in plies; ``nodes``.  With no limit at all the search runs until
    :meth:`Engine.stop` (or its maximum depth).

    >>> Limit(time=0.5).time
    0.5
    >>> Limit(depth=-1)
    Traceback (most recent call last):
    ...
    ValueError: Limit.depth must be a positive int, not -1
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    clock: float | None = None
    increment: float = 0.0

    def __post_init__(self) -> None:
        for name in ("time", "clock", "increment"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"Limit.{name} must be a number of seconds, not {value!r}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"Limit.{name} must be a finite number >= 0, not {value!r}")
            if value > MAX_SECONDS:
                raise ValueError(
                    f"Limit.{name} must be at most {MAX_SECONDS:.0e} seconds, not {value!r}"
                )
        for name in ("depth", "nodes"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Limit.{name} must be a positive int, not {value!r}")
        if self.depth is not None and self.depth > 100:
            raise ValueError(f"Limit.depth must be at most 100, not {self.depth!r}")

    def budget(self) -> float:
        """Seconds the engine may spend on this move (the hard stop); 0 means
        no time limit.

        With a clock: the hard share of :func:`~poolcheckers.engine.timeman.clock_shares`
        (by default three times the :meth:`soft_budget`, never more than a
        third of what is left), at most ``time`` when that is given too.

        >>> Limit(clock=60.0, increment=1.0).budget()
        8.25
        >>> Limit(time=0.5, clock=10.0).budget()
        0.5
        >>> Limit(time=0.5).budget()
        0.5
        """
        budget = 0.0
        if self.clock is not None:
            budget = clock_shares(self.clock, self.increment)[1]
        if self.time is not None:
            budget = min(budget, float(self.time)) if budget > 0 else float(self.time)
        if (self.clock is not None or self.time is not None) and budget < 1e-6:
            budget = 1e-6  # a bound of 0 would mean no time limit
        return round(budget, 6)

    def soft_budget(self) -> float:
        """Seconds after which no new depth is begun (0: a fixed time per
        move, which the engine searches to :meth:`budget`: time left over is
        lost).  With a clock: the soft share of
        :func:`~poolcheckers.engine.timeman.clock_shares` (by default what is
        left shared over 30 moves plus three quarters of the increment, at
        most a fifth of what is left), at most half of ``time``; the engine
        goes past it (up to :meth:`budget`) while its best move keeps changing
        and stops sooner when it has stood for several depths.

        >>> Limit(clock=60.0, increment=1.0).soft_budget()
        2.75
        >>> Limit(time=0.5).soft_budget()
        0.0
        """
        if self.clock is None:
            return 0.0
        soft = clock_shares(self.clock, self.increment)[0]
        if self.time is not None:
            soft = min(soft, 0.5 * float(self.time))
        return round(max(soft, 1e-6), 6)


@dataclass(frozen=True)
class SearchResult:
    """The outcome of a search.

    ``score`` is in centi-men from the side to move's point of view (a man is
    100); ``mate_in`` is the number of plies to a forced win (positive) or
    loss (negative) when the search proved one, else ``None``.
    """

    move: Move
    score: int
    pv: list[Move]
    depth: int
    nodes: int
    time: float
    mate_in: int | None
    #: multi-PV: the best lines (move, score, pv, mate_in; depth, nodes and time
    #: of the whole search), best first; the first is this result's own line.
    #: Empty unless the search asked for more than one line.
    lines: tuple[SearchResult, ...] = ()

    @property
    def nps(self) -> float:
        """Nodes per second of this search.

        >>> from poolcheckers import Board
        >>> SearchResult(Board().legal_moves[0], 0, [], 1, 500, 0.25, None).nps
        2000.0
        """
        return self.nodes / self.time if self.time > 0 else 0.0


@dataclass(frozen=True)
class BenchResult:
    """Nodes searched over the bench positions (a signature of the search), time and speed."""

    nodes: int
    time: float
    nps: float
    depth: int


def default_weights() -> dict[str, int]:
    """The default evaluation weights of the native core (all in centi-men).

    >>> w = default_weights()
    >>> w["man"], w["king"] > w["man"]
    (100, True)
    """
    return dict(_core().default_weights())


def bench_positions() -> list[Board]:
    """The fixed bench positions, as boards.

    >>> len(bench_positions()) >= 10
    True
    """
    boards = []
    for black, white, kings, turn in _core().bench_positions():
        board = Board.empty()
        board.set_fen(write_fen(turn=turn, black=black, white=white, kings=kings))
        boards.append(board)
    return boards


def bench(
    depth: int | None = None, evaluation: str | os.PathLike[str] = DEFAULT_EVALUATION
) -> BenchResult:
    """Search every bench position to ``depth`` plies with a fresh hash table,
    with ``evaluation`` (see :attr:`Engine.evaluation`).

    The node total is a signature of the search: it changes when the search
    or the evaluation changes, and not between runs.

    >>> bench(4).nodes == bench(4).nodes
    True
    """
    from poolcheckers.engine.nnue import NetworkError, network_path, read_network

    d = DEFAULT_BENCH_DEPTH if depth is None else depth
    if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 40:
        raise ValueError(f"bench depth must be an int in 1..40, not {depth!r}")
    path = network_path(evaluation)
    if path is None:
        nodes, seconds = _core().bench(d)
    else:
        network = read_network(path)
        try:
            nodes, seconds = _core().bench(d, network.data)
        except ValueError as exc:
            raise NetworkError(f"{network.path}: {exc}") from None
    return BenchResult(int(nodes), float(seconds), nodes / seconds if seconds > 0 else 0.0, d)


InfoCallback = Callable[[SearchResult], object]


def _mate_in(score: int) -> int | None:
    """Plies to a proven win (positive) or loss (negative), from a native score.

    >>> _mate_in(29995), _mate_in(-29994), _mate_in(120)
    (5, -6, None)
    """
    mate, bound = _core().MATE, _core().MATE_BOUND
    if abs(score) <= bound:
        return None
    plies = int(mate - abs(score))
    return plies if score > 0 else -plies


class Engine:
    """The native search engine.

    ``rules``: when given, boards searched must use the same rule set (docs/RULES.md
    §9); by default the engine follows each board's rules.  ``weights``:
    evaluation weights to change (see :func:`default_weights`).  ``seed``
    makes the weaker levels' choices reproducible.  ``evaluation``: see
    :attr:`evaluation`; by default the shipped network, or the pattern evaluation
    when ``weights`` are given (they are its weights).

    >>> from poolcheckers import Board
    >>> engine = Engine(hash_mb=4)
    >>> board = Board("B:W14:B9")
    >>> result = engine.search(board, Limit(depth=3))
    >>> str(result.move), result.mate_in
    ('9x18', 1)
    """

    def __init__(
        self,
        hash_mb: int = 64,
        rules: RuleSet | None = None,
        weights: Mapping[str, int] | None = None,
        seed: int | None = None,
        threads: int = 1,
        book: Any = "default",
        evaluation: str | os.PathLike[str] | None = None,
    ) -> None:
        if isinstance(hash_mb, bool) or not isinstance(hash_mb, int) or not 1 <= hash_mb <= 16384:
            raise ValueError(f"hash_mb must be an int in 1..16384, not {hash_mb!r}")
        self._searcher: Any = _core().Searcher(hash_mb)
        self.hash_mb = hash_mb
        self._threads = 1
        self.threads = threads
        #: the opening book played from at levels BOOK_MIN_LEVEL and up (None: none);
        #: "default" is the book shipped in the package
        self.book: Any = _default_book() if book == "default" else book
        self.rules = rules
        self._last_rules: RuleSet | None = None
        self._rng = random.Random(seed)
        if weights:
            self.set_weights(weights)
        self._evaluation = "pattern"
        #: the network's weights while the evaluation is a network (a level measured
        #: on the pattern evaluation searches without it and puts it back)
        self._network: bytes | None = None
        if evaluation is None:  # weights given are the pattern evaluation's
            evaluation = "pattern" if weights else DEFAULT_EVALUATION
        if evaluation != "pattern":
            self.set_evaluation(evaluation)

    # ------------------------------------------------------------ threads
    @property
    def threads(self) -> int:
        """Search threads (lazy SMP: helpers share the hash table).  ``bench``
        and fixed-node searches stay deterministic with one thread only.

        >>> engine = Engine(hash_mb=1, threads=2)
        >>> engine.threads
        2
        >>> engine.threads = 0
        Traceback (most recent call last):
        ...
        ValueError: threads must be an int in 1..64, not 0
        """
        return self._threads

    @threads.setter
    def threads(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_THREADS:
            raise ValueError(f"threads must be an int in 1..{MAX_THREADS}, not {value!r}")
        self._searcher.set_threads(value)
        self._threads = value

    # ------------------------------------------------------------ weights
    @property
    def weights(self) -> dict[str, int]:
        """The current evaluation weights.

        >>> Engine(hash_mb=1).weights == default_weights()
        True
        """
        return dict(self._searcher.get_weights())

    def set_weights(self, weights: Mapping[str, int]) -> None:
        """Change some weights of the pattern evaluation (and the levels' noise);
        unknown names raise ``ValueError``.  A network evaluation does not read them.

        >>> engine = Engine(hash_mb=1)
        >>> engine.set_weights({"king": 150})
        >>> engine.weights["king"]
        150
        """
        self._searcher.set_weights(dict(weights))
        self._searcher.clear()

    # ------------------------------------------------------------ evaluation
    @property
    def evaluation(self) -> str:
        """The evaluation searches use: ``"nnue"`` (the network shipped in the
        package, the default), ``"pattern"`` or the path of a network weights file.
        Levels 1-9 search with it too, unless their table names the pattern
        evaluation (:class:`~poolcheckers.engine.levels.Level`).

        >>> Engine(hash_mb=1).evaluation
        'nnue'
        """
        return self._evaluation

    def set_evaluation(self, evaluation: str | os.PathLike[str]) -> None:
        """Evaluate with ``evaluation`` (see :attr:`evaluation`).  A weights file that
        cannot be used raises :class:`~poolcheckers.engine.nnue.NetworkError` naming
        the file and the problem, and the engine keeps its evaluation.

        >>> engine = Engine(hash_mb=1, evaluation="pattern")
        >>> engine.set_evaluation("no/such/net.bin")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        poolcheckers.engine.nnue.NetworkError: no/such/net.bin: cannot read the network weights ...
        >>> engine.evaluation
        'pattern'
        """
        from poolcheckers.engine.nnue import NetworkError, network_path, read_network

        path = network_path(evaluation)
        data: bytes | None = None
        if path is not None:
            network = read_network(path)
            data = network.data
            try:
                self._searcher.set_network(data)
            except ValueError as exc:
                raise NetworkError(f"{network.path}: {exc}") from None
        else:
            self._searcher.set_network(None)
        self._network = data
        self._evaluation = os.fspath(evaluation)
        self._searcher.clear()

    def evaluate(self, board: Board) -> int:
        """Static evaluation of ``board``, centi-men from the side to move's view.

        >>> from poolcheckers import Board
        >>> Engine(hash_mb=1).evaluate(Board("B:W:BK1,2")) > 200
        True
        """
        rules = self._rules_for(board)
        return int(
            self._searcher.evaluate(
                *_position(board),
                board.halfmove_clock,
                board.three_kings_count,
                native_rules(rules),
            )
        )

    def clear(self) -> None:
        """Forget the hash table and move-ordering statistics.

        After it, a fixed-depth search counts the same nodes as on a new engine:

        >>> from poolcheckers import Board
        >>> engine = Engine(hash_mb=1)
        >>> first = engine.search(Board(), Limit(depth=5)).nodes
        >>> engine.clear()
        >>> engine.search(Board(), Limit(depth=5)).nodes == first
        True
        """
        self._searcher.clear()

    def stop(self) -> None:
        """Stop a running search (from another thread); it returns its best move so far.

        Without a running search it does nothing:

        >>> import threading
        >>> from poolcheckers import Board
        >>> engine = Engine(hash_mb=1)
        >>> engine.stop()
        >>> timer = threading.Timer(0.1, engine.stop)
        >>> timer.start()
        >>> engine.search(Board(), Limit(depth=90)).move in Board().legal_moves
        True
        >>> timer.join()
        """
        self._searcher.stop()

    # ------------------------------------------------------------ search
    def _rules_for(self, board: Board) -> RuleSet:
        if not isinstance(board, Board):
            raise TypeError(f"the engine searches a poolcheckers.Board, not {type(board).__name__}")
        if self.rules is not None and board.rules != self.rules:
            raise ValueError(
                f"the board plays under rules {board.rules.name!r} but this engine was made "
                f"for {self.rules.name!r} (docs/RULES.md §9)"
            )
        return board.rules

    def _args(self, board: Board) -> tuple[Any, ...]:
        rules = self._rules_for(board)
        if rules != self._last_rules:
            # scores learnt under other rules (§9) must not be reused
            if self._last_rules is not None:
                self._searcher.clear()
            self._last_rules = rules
        history = [(b, w, k, int(t)) for b, w, k, t in board.reversible_history()]
        return (
            *_position(board),
            board.halfmove_clock,
            board.three_kings_count,
            history,
            native_rules(rules),
        )

    def _result(
        self,
        board: Board,
        depth: int,
        score: int,
        nodes: int,
        secs: float,
        pv: list[Any],
        lines: list[Any] | None = None,
        multipv: int = 1,
    ) -> SearchResult:
        moves = self._pv_moves(board, pv)
        more: tuple[SearchResult, ...] = ()
        if multipv > 1 and lines:
            more = tuple(
                SearchResult(m[0], int(s), m, depth, nodes, secs, _mate_in(int(s)))
                for s, line in lines
                if (m := self._pv_moves(board, line))
            )
        return SearchResult(moves[0], score, moves, depth, nodes, secs, _mate_in(score), more)

    @staticmethod
    def _pv_moves(board: Board, pv: list[Any]) -> list[Move]:
        moves: list[Move] = [_library_move(board, (pv[0][0], pv[0][1], pv[0][2]))]
        b = board.copy()
        b.push(moves[0])
        for raw in pv[1:]:
            # a later PV move is only information: cut the PV where it stops being legal
            move = _lookup(b).get((raw[0], raw[1], raw[2]))
            if move is None:
                break
            moves.append(move)
            b.push(move)
        return moves

    def search(
        self,
        board: Board,
        limit: Limit | None = None,
        on_info: InfoCallback | None = None,
        level: int | None = None,
        multipv: int = 1,
    ) -> SearchResult:
        """Search ``board`` and return the best move found with its score and PV.

        ``on_info`` is called with a :class:`SearchResult` after every finished
        depth.  ``level`` 1..10 plays weaker (see :mod:`poolcheckers.engine.levels`);
        ``None`` is full strength.  ``multipv`` > 1 (at full strength) also
        gives the best ``multipv`` lines in :attr:`SearchResult.lines`, best
        first.  Raises ``ValueError`` when the side to move has no legal move (R16).

        >>> from poolcheckers import Board
        >>> three = Engine(hash_mb=1).search(Board(), Limit(depth=6), multipv=3)
        >>> len(three.lines), three.lines[0].move == three.move
        (3, True)
        >>> len({line.move for line in three.lines})
        3
        >>> three.lines[0].score >= three.lines[1].score >= three.lines[2].score
        True

        >>> from poolcheckers import Board
        >>> board = Board("W:WK22,K14,K9:B3,K32")
        >>> result = Engine(hash_mb=1).search(board, Limit(depth=8))
        >>> result.mate_in, [str(m) for m in result.pv][:1]
        (5, ['9-5'])
        >>> weak = Engine(hash_mb=1, seed=3).search(Board(), Limit(time=1), level=2)
        >>> weak.move in Board().legal_moves
        True
        """
        self._rules_for(board)
        if limit is not None and not isinstance(limit, Limit):
            raise TypeError(
                f"limit must be a poolcheckers.engine.Limit, not {type(limit).__name__}"
            )
        if not board.legal_moves:
            raise ValueError(
                f"{board.turn.name_lower} has no legal move in {board.fen()}: "
                "the game is over (R16)"
            )
        lim = limit if limit is not None else Limit()
        if (
            isinstance(multipv, bool)
            or not isinstance(multipv, int)
            or not 1 <= multipv <= MAX_MULTIPV
        ):
            raise ValueError(f"multipv must be an int in 1..{MAX_MULTIPV}, not {multipv!r}")
        if level is not None:
            check_level(level)
            if level >= BOOK_MIN_LEVEL and self.book is not None and multipv == 1:
                start = time.perf_counter()
                move = self.book.choose(board, self._rng)
                if move is not None:  # a book move: no search; the score and depth of its build
                    score = dict(self.book.moves(board)).get(move, 0)
                    depth = self.book.info.get("depth", 0)
                    played = SearchResult(
                        move, score, [move], depth if isinstance(depth, int) else 0, 0,
                        time.perf_counter() - start, None,
                    )  # fmt: skip
                    if on_info is not None:
                        on_info(played)
                    return played
            if not LEVELS[level].full_strength:
                return self._search_level(board, lim, LEVELS[level], on_info)
        args = self._args(board)
        from poolcheckers.egdb.play import table_move  # endgame tables, docs/EGDB.md

        table = table_move(board)
        if table is not None and table[0].value == "win" and multipv == 1:  # fastest conversion
            won = SearchResult(
                table[0].move, 20000 - (table[0].dtz or 0), table[2], 1, 0, 0.0, None
            )
            if on_info is not None:
                on_info(won)
            return won

        def callback(info: tuple[int, int, int, float, list[Any], list[Any]]) -> bool:
            if on_info is not None:
                on_info(self._result(board, *info, multipv=multipv))
            return False

        depth, score, nodes, secs, pv, lines = self._searcher.search(
            *args,
            depth=lim.depth or 0,
            nodes=lim.nodes or 0,
            time=lim.budget(),
            soft_time=lim.soft_budget(),
            callback=callback if on_info is not None else None,
            multipv=multipv,
        )
        found = self._result(board, depth, score, nodes, secs, pv, lines, multipv)
        if table is not None and all(
            v.move != found.move or v.value != table[0].value for v in table[1]
        ):
            return SearchResult(table[0].move, 0, [table[0].move], depth, nodes, secs, None)
        return found

    def _search_level(
        self, board: Board, lim: Limit, spec: Level, on_info: InfoCallback | None
    ) -> SearchResult:
        start = time.perf_counter()
        depth = spec.depth if lim.depth is None else min(spec.depth, lim.depth)
        saved = self.weights
        noisy = {"noise": spec.noise, "noise_seed": self._rng.randrange(100_000)}
        self._searcher.set_weights(noisy)
        # a level's noise, margin and depth were measured on the evaluation it names
        swap = self._network is not None and not spec.network
        if swap:
            self._searcher.set_network(None)
        self._searcher.clear()
        try:
            nodes, scored = self._searcher.root_scores(
                *self._args(board), depth=depth, time=lim.budget()
            )
        finally:
            self._searcher.set_weights({k: saved[k] for k in noisy})
            if swap:
                self._searcher.set_network(self._network)
            self._searcher.clear()
        index = choose_index([s for _, s in scored], spec, self._rng)
        raw, score = scored[index]
        move = _library_move(board, raw)
        elapsed = time.perf_counter() - start
        result = SearchResult(move, int(score), [move], depth, int(nodes), elapsed, _mate_in(score))
        if on_info is not None:
            on_info(result)
        return result
