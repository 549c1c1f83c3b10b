"""Time to depth with N threads beside one thread (lazy SMP), in one run.

Each round searches four opening positions (the start and three with a man or
two of each side out of its starting square: king endings are solved too fast
to tell) to ``--depth`` with a fresh engine, once with one thread and once with
``--threads`` threads, alternately, so that both see the same load.  The
figure is the ratio of the summed times (best of the rounds for each) and the
nodes of the threaded search (all threads) beside the single-threaded one.
Lazy SMP pays when the helpers' table entries let the main thread finish a
depth sooner: the ratio is below 1.

    nice .venv/bin/python benchmarks/bench_threads.py --depth 16 --threads 2 --rounds 3

The search's strength with threads is measured by matches (``poolcheckers
match --threads-a 2``, docs/ENGINE.md); this says whether the table is shared
well.  The machine's load matters: a second thread needs a second free core.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from tqdm import tqdm

from poolcheckers import Board
from poolcheckers.engine import Engine, make_limit

#: The start and three early-opening positions (a man or two out of its starting square).
POSITIONS = (
    "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,15",
    "B:W17,21,22,23,24,25,26,27,28,29,30,31:B1,2,3,4,5,6,7,8,9,10,11,15",
    "W:W18,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,10,11,12,14",
)


def run(threads: int, depth: int, hash_mb: int) -> tuple[float, int]:
    """Seconds and nodes to search every position to ``depth`` with ``threads``."""
    seconds, nodes = 0.0, 0
    for fen in POSITIONS:
        engine = Engine(hash_mb=hash_mb, threads=threads)
        start = time.perf_counter()
        info = engine.search(Board(fen), make_limit(depth=depth))
        seconds += time.perf_counter() - start
        nodes += info.nodes
    return seconds, nodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hash", type=int, default=64, help="MiB")
    args = parser.parse_args(argv)
    best: dict[int, tuple[float, int]] = {}
    with tqdm(total=2 * args.rounds, desc="searches", unit="set") as bar:
        for _ in range(args.rounds):
            for threads in (1, args.threads):
                seconds, nodes = run(threads, args.depth, args.hash)
                if threads not in best or seconds < best[threads][0]:
                    best[threads] = (seconds, nodes)
                bar.update(1)
    (t1, n1), (tn, nn) = best[1], best[args.threads]
    load = os.getloadavg()[0]
    print(f"depth {args.depth}, {len(POSITIONS)} positions, best of {args.rounds}, "
          f"load average {load:.1f}")  # fmt: skip
    print(f"1 thread:   {t1:7.2f} s  {n1:>12,} nodes")
    print(f"{args.threads} threads: {tn:7.2f} s  {nn:>12,} nodes (all threads)")
    print(f"time to depth, {args.threads} threads / 1: {tn / t1:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
