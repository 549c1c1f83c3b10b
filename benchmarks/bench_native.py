"""Speed of the native core beside the pure-Python rules library.

Prints a table: perft from the start with the native core (depth 11 by
default) and with the library (depth 6 by default), the native perft at the
library's depth, leaves per second and their ratio per leaf; then the search
speed (nodes per second) and node signature over the bench positions.

    .venv/bin/python benchmarks/bench_native.py
    .venv/bin/python benchmarks/bench_native.py --native-depth 10 --python-depth 5
    .venv/bin/python benchmarks/bench_native.py --differential 1000   # perft 5 vs the library
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from poolcheckers import Board, perft
from poolcheckers.engine import (
    DEFAULT_BENCH_DEPTH,
    bench,
    native_available,
    perft_native,
)


def _timed_perft(fn: object, board: Board, depth: int, repeat: int = 1) -> tuple[int, float]:
    best = float("inf")
    leaves = 0
    for _ in range(repeat):
        start = time.perf_counter()
        leaves = fn(board, depth)  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return leaves, best


def _row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(
        c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
    )


def _random_position(rng: random.Random) -> Board:
    board = Board()
    for _ in range(rng.randrange(0, 70)):
        moves = board.legal_moves
        if not moves or board.is_game_over():
            break
        board.push(rng.choice(moves))
    return board


def _random_placement(rng: random.Random) -> Board:
    """Random pieces, king-heavy and crowded ones included (R9, R10, R14, R15)."""
    density = rng.choice([0.15, 0.3, 0.5])
    king_share = rng.choice([0.0, 0.3, 0.7, 1.0])
    sides: dict[str, list[str]] = {"B": [], "W": []}
    for square in range(1, 33):
        if rng.random() >= density:
            continue
        color = rng.choice("BW")
        row = (square - 1) // 4
        king = rng.random() < king_share or (color, row) in (("B", 7), ("W", 0))
        if len(sides[color]) < 12:
            sides[color].append(("K" if king else "") + str(square))
    return Board(f"{rng.choice('BW')}:W{','.join(sides['W'])}:B{','.join(sides['B'])}")


def differential(count: int, depth: int, seed: int, budget: int = 200_000) -> int:
    """Perft ``depth`` on ``count`` random positions (half reached by random play,
    half random placements), native against the library.  Where a placement's
    tree has more than ``budget`` leaves the depth is lowered for both."""
    rng = random.Random(seed)
    mismatches = 0
    leaves = 0
    t_native = t_python = 0.0
    for i in range(count):
        board = _random_position(rng) if i % 2 == 0 else _random_placement(rng)
        d = depth
        while d > 1 and perft_native(board, d) > budget:
            d -= 1
        start = time.perf_counter()
        n = perft_native(board, d)
        t_native += time.perf_counter() - start
        start = time.perf_counter()
        p = perft(board, d)
        t_python += time.perf_counter() - start
        leaves += p
        if n != p:
            mismatches += 1
            print(f"MISMATCH {board.fen()} depth {d}: native {n}, library {p}")
        if (i + 1) % 100 == 0:
            print(f"  {i + 1}/{count} positions, {mismatches} mismatches", flush=True)
    print(
        f"differential perft {depth}: {count} positions, {leaves} leaves, "
        f"{mismatches} mismatches; native {t_native:.2f} s, library {t_python:.2f} s "
        f"(x{t_python / t_native:.0f})"
    )
    return mismatches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--native-depth", type=int, default=11)
    parser.add_argument("--python-depth", type=int, default=6)
    parser.add_argument("--bench-depth", type=int, default=DEFAULT_BENCH_DEPTH)
    parser.add_argument("--repeat", type=int, default=3, help="best of N native perft runs")
    parser.add_argument("--differential", type=int, default=0, metavar="N")
    parser.add_argument("--differential-depth", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    if not native_available():
        print("the native core is not built: run `make setup`", file=sys.stderr)
        return 2

    start = Board()
    n_deep, t_deep = _timed_perft(perft_native, start, args.native_depth, args.repeat)
    n_same, t_same = _timed_perft(perft_native, start, args.python_depth, args.repeat)
    n_py, t_py = _timed_perft(perft, start, args.python_depth)
    if n_same != n_py:
        print(f"perft {args.python_depth} differs: native {n_same}, library {n_py}")
        return 1
    widths = [34, 12, 10, 14, 10]
    print(_row(["perft from the start", "leaves", "seconds", "leaves/s", "ratio"], widths))
    rate_py = n_py / t_py
    for label, n, t in [
        (f"native perft {args.native_depth}", n_deep, t_deep),
        (f"native perft {args.python_depth}", n_same, t_same),
        (f"library perft {args.python_depth} (pure Python)", n_py, t_py),
    ]:
        rate = n / t
        print(_row([label, str(n), f"{t:.3f}", f"{rate:,.0f}", f"x{rate / rate_py:,.0f}"], widths))

    result = bench(args.bench_depth)
    print()
    print(f"search bench: depth {result.depth}, nodes {result.nodes} (signature), ", end="")
    print(f"{result.time:.3f} s, {result.nps:,.0f} nodes/s")

    if args.differential:
        print()
        if differential(args.differential, args.differential_depth, args.seed):
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
