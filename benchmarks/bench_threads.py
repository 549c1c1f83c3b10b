"""Time to depth with N threads beside one thread (lazy SMP), in one run.

Each round searches four opening positions (the start and three with a man or
two of each side out of its starting square: king endings are solved too fast
to tell) to ``--depth`` with a fresh engine, once with one thread and once with
``--threads`` threads, alternately, so that both see the same load.  The
figure is the ratio of the summed times (best of the rounds for each, and the
median of the rounds, which a busy machine moves less) and the nodes of the
threaded search (all threads) beside the single-threaded one.  Lazy SMP pays
when the helpers' table entries let the search finish a depth sooner: the
ratio is below 1.

Time to depth understates lazy SMP (the helpers also widen the search), so
``--time`` adds the other view: the same time per position for both, and the
depth each reaches (summed over the positions; a threaded search answers with
the deepest depth any thread completed).

    .venv/bin/python benchmarks/bench_threads.py --depth 17 --threads 2 --rounds 3 --time 0.5

The search's strength with threads is measured by matches (``poolcheckers
match --threads-a 2``, docs/ENGINE.md); this says whether the table is shared
well.  The machine's load matters: a second thread needs a second free core.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from tqdm import tqdm

from poolcheckers import Board
from poolcheckers.engine import Engine, Limit, make_limit

#: The start and three early-opening positions (a man or two out of its starting square).
POSITIONS = (
    "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,15",
    "B:W17,21,22,23,24,25,26,27,28,29,30,31:B1,2,3,4,5,6,7,8,9,10,11,15",
    "W:W18,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,10,11,12,14",
)


def run(threads: int, limit: Limit, hash_mb: int) -> tuple[float, int, int]:
    """Seconds, nodes and summed depth of searching every position with ``threads``."""
    seconds, nodes, depth = 0.0, 0, 0
    for fen in POSITIONS:
        engine = Engine(hash_mb=hash_mb, threads=threads)
        start = time.perf_counter()
        info = engine.search(Board(fen), limit)
        seconds += time.perf_counter() - start
        nodes += info.nodes
        depth += info.depth
    return seconds, nodes, depth


def rounds(
    threads: int, limit: Limit, count: int, hash_mb: int, desc: str
) -> dict[int, list[tuple[float, int, int]]]:
    """``count`` rounds of one thread then ``threads`` threads, alternately."""
    results: dict[int, list[tuple[float, int, int]]] = {1: [], threads: []}
    with tqdm(total=2 * count, desc=desc, unit="set") as bar:
        for _ in range(count):
            for n in (1, threads):
                results[n].append(run(n, limit, hash_mb))
                bar.update(1)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hash", type=int, default=64, help="MiB")
    parser.add_argument(
        "--time", type=float, default=0.0, help="also search each position this long (seconds)"
    )
    args = parser.parse_args(argv)
    n = args.threads
    depth = rounds(n, make_limit(depth=args.depth), args.rounds, args.hash, "to depth")
    timed = (
        rounds(n, make_limit(time=args.time), args.rounds, args.hash, "fixed time")
        if args.time > 0
        else None
    )
    load = os.getloadavg()[0]
    print(f"depth {args.depth}, {len(POSITIONS)} positions, {args.rounds} rounds, "
          f"load average {load:.1f}")  # fmt: skip
    (t1, n1, _), (tn, nn, _) = min(depth[1]), min(depth[n])
    m1 = statistics.median(r[0] for r in depth[1])
    mn = statistics.median(r[0] for r in depth[n])
    print(f"1 thread:   best {t1:7.2f} s  median {m1:7.2f} s  {n1:>12,} nodes")
    print(f"{n} threads: best {tn:7.2f} s  median {mn:7.2f} s  {nn:>12,} nodes (all threads)")
    print(f"time to depth, {n} threads / 1: best {tn / t1:.2f}, median {mn / m1:.2f}")
    if timed is not None:
        for k in (1, n):
            depths = [r[2] for r in timed[k]]
            nodes = statistics.median(r[1] for r in timed[k])
            print(f"{args.time} s a position, {k} thread(s): depth summed over the positions "
                  f"{depths}, median {statistics.median(depths)}, "
                  f"median nodes {nodes:,.0f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
