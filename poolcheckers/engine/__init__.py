"""The engine: the native search core seen from Python (contract §2).

>>> from poolcheckers import Board
>>> from poolcheckers.engine import Engine, Limit
>>> result = Engine(hash_mb=4).search(Board(), Limit(depth=3))
>>> result.depth
3
"""

from .core import (
    DEFAULT_BENCH_DEPTH,
    BenchResult,
    Engine,
    Limit,
    NativeMove,
    NativeUnavailableError,
    SearchResult,
    bench,
    bench_positions,
    default_weights,
    native_available,
    native_legal_moves,
    perft_divide_native,
    perft_native,
)
from .levels import LEVELS, Level

__all__ = [
    "DEFAULT_BENCH_DEPTH",
    "LEVELS",
    "BenchResult",
    "Engine",
    "Level",
    "Limit",
    "NativeMove",
    "NativeUnavailableError",
    "SearchResult",
    "bench",
    "bench_positions",
    "default_weights",
    "native_available",
    "native_legal_moves",
    "perft_divide_native",
    "perft_native",
]
