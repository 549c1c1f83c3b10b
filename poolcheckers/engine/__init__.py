"""The engine's Python face (CONTRACTS.md §2): the one place that the Hub loop,
the commands and the web app use the engine through.

It owns the playing levels (:mod:`~poolcheckers.engine.levels`), search limits
(:mod:`~poolcheckers.engine.limits`), opening an engine
(:mod:`~poolcheckers.engine.factory`), search information for people ("win in
N" counted in the winner's moves, :mod:`~poolcheckers.engine.format`) and the
draw-acceptance policy (:mod:`~poolcheckers.engine.policy`).  The native search
itself is :mod:`~poolcheckers.engine.core`.  Everything here imports without the
native core; what needs it raises :class:`EngineUnavailable`.

>>> from poolcheckers import Board
>>> from poolcheckers.engine import accepts_draw, level_limit, make_limit, open_engine, win_in
>>> engine = open_engine(hash_mb=4)
>>> level_limit(3)  # 0.1 s a level; levels 1-9 also cap the depth in the search
Limit(time=0.3, depth=None, nodes=None, clock=None, increment=0.0)
>>> engine.search(Board(), level_limit(3), level=3).move in Board().legal_moves
True
>>> board = Board("B:WK29:BK1,K2,K3,K4")  # Black wins in 2 moves: 1-15 29x8 3x12
>>> result = engine.search(board, make_limit(depth=6))
>>> result.mate_in, win_in(result)  # plies as the engine counts them, moves for people
(3, 2)
>>> accepts_draw(Board(), board.turn, None)  # never in the opening
False
"""

from .core import (
    DEFAULT_BENCH_DEPTH,
    NOT_BUILT_MESSAGE,
    BenchResult,
    Engine,
    EngineUnavailable,
    Limit,
    NativeMove,
    SearchResult,
    bench,
    bench_positions,
    default_weights,
    native_available,
    native_legal_moves,
    perft_divide_native,
    perft_native,
)
from .factory import (
    DEFAULT_HASH_MB,
    MAX_HASH_MB,
    check_hash_mb,
    load_weights,
    open_engine,
    require_native,
)
from .format import (
    CENTI_MEN_PER_MAN,
    format_nps,
    format_score,
    info_fields,
    mate_in_moves,
    pv_notation,
    score_in_men,
    win_in,
)
from .levels import (
    DEFAULT_LEVEL,
    LEVELS,
    MAX_LEVEL,
    MIN_LEVEL,
    Level,
    check_level,
    level_move_time,
)
from .limits import MAX_DEPTH, MAX_NODES, MAX_SECONDS, level_limit, make_limit
from .nnue import DEFAULT_EVALUATION, EVALUATIONS, NetworkError
from .policy import (
    DRAW_SEARCH_TIME,
    DrawDecision,
    Phase,
    accepts_draw,
    decide_draw,
    draw_decision,
    draw_search_needed,
    game_phase,
    is_dead_draw,
)
from .protocols import EngineLike, SearchInfo
from .tables import (
    default_tables_directory,
    describe_tables,
    open_tables,
    search_table_hits,
    table_hits,
    tables_best_move,
    tables_directory,
    tables_line,
    tables_move_values,
    tables_view,
)

__all__ = [
    "CENTI_MEN_PER_MAN",
    "DEFAULT_BENCH_DEPTH",
    "DEFAULT_EVALUATION",
    "DEFAULT_HASH_MB",
    "DEFAULT_LEVEL",
    "DRAW_SEARCH_TIME",
    "EVALUATIONS",
    "LEVELS",
    "MAX_DEPTH",
    "MAX_HASH_MB",
    "MAX_LEVEL",
    "MAX_NODES",
    "MAX_SECONDS",
    "MIN_LEVEL",
    "NOT_BUILT_MESSAGE",
    "BenchResult",
    "DrawDecision",
    "Engine",
    "EngineLike",
    "EngineUnavailable",
    "Level",
    "Limit",
    "NativeMove",
    "NetworkError",
    "Phase",
    "SearchInfo",
    "SearchResult",
    "accepts_draw",
    "bench",
    "bench_positions",
    "check_hash_mb",
    "check_level",
    "decide_draw",
    "default_tables_directory",
    "default_weights",
    "describe_tables",
    "draw_decision",
    "draw_search_needed",
    "format_nps",
    "format_score",
    "game_phase",
    "info_fields",
    "is_dead_draw",
    "level_limit",
    "level_move_time",
    "load_weights",
    "make_limit",
    "mate_in_moves",
    "native_available",
    "native_legal_moves",
    "open_engine",
    "open_tables",
    "perft_divide_native",
    "perft_native",
    "pv_notation",
    "require_native",
    "score_in_men",
    "search_table_hits",
    "table_hits",
    "tables_best_move",
    "tables_directory",
    "tables_line",
    "tables_move_values",
    "tables_view",
    "win_in",
]
