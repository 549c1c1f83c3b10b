"""Time to depth with N threads beside one thread (lazy SMP), in one run.

Each round searches the same early-game positions (the positions after the
balloted 3-ply openings, every k-th of ``poolcheckers/data/ballots.txt``;
positions with a single legal move are left out, a forced move starts no
helper) with a fresh engine, once with one thread and once with
``--threads`` threads, alternately, so that both see the same load.

The search has no depth limit: it is stopped from its progress callback once
``--depth`` is complete, and the time of each finished depth is recorded.  (A
search *limited* to a depth would understate lazy SMP: a helper that reaches
the limit first has nothing left to do and stops, so the last depth is
finished by one thread alone.  That is how this benchmark measured before
2 Dec 2026; the figures it gave then are biased against threads.)

The figures: the ratio of the summed times to ``--depth`` (best of the
rounds for each side, and the ratio of the medians, which a busy machine
moves less), the nodes of all threads beside one thread's, and per depth the
median over positions and rounds of the ratio N threads / 1 thread of the
time at which that depth finished.  Lazy SMP pays when the ratio is below 1.

Time to depth understates lazy SMP (the helpers also widen the search), so
``--time`` adds the other view: the same time per position for both, and the
depth each reaches (summed over the positions; a threaded search answers with
the deepest depth any thread completed).

    .venv/bin/python benchmarks/bench_threads.py --depth 17 --threads 2 --rounds 3 --time 0.1

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
from dataclasses import dataclass, field

from tqdm import tqdm

from poolcheckers import Board
from poolcheckers.engine import Engine, SearchResult, make_limit
from poolcheckers.tooling.openings import DEFAULT_BALLOTS, load_ballots

#: a bound the depth-stopped searches never reach (they are stopped at --depth)
_NO_LIMIT_SECONDS = 600.0


def positions(count: int) -> list[Board]:
    """``count`` positions after balloted openings, spread over the ballot file."""
    openings = load_ballots(DEFAULT_BALLOTS)
    step = max(1, len(openings) // count)
    boards: list[Board] = []
    for opening in openings[::step]:
        board = Board()
        for move in opening:
            board.push_notation(move)
        if len(board.legal_moves) > 1:
            boards.append(board)
        if len(boards) == count:
            break
    return boards


@dataclass
class Run:
    """One pass over the positions with one thread count."""

    seconds: float = 0.0  # summed time to --depth (or to the search's end, if sooner)
    nodes: int = 0
    depth: int = 0  # summed depth (the fixed-time view)
    #: per position, the time each depth finished at
    finished: list[dict[int, float]] = field(default_factory=list)


def search_to_depth(
    board: Board, threads: int, depth: int, hash_mb: int
) -> tuple[float, int, dict[int, float]]:
    """Seconds to ``depth`` (or to the search's end, if sooner: a proven result),
    nodes, and the time each depth finished at; no depth limit, see above.  With
    threads the main thread may take over a helper's deeper depth and skip
    ``depth``: the time is then that of the first depth reported beyond it."""
    engine = Engine(hash_mb=hash_mb, threads=threads)
    times: dict[int, float] = {}
    start = time.perf_counter()

    def on_info(result: SearchResult) -> None:
        times[result.depth] = time.perf_counter() - start
        if result.depth >= depth:
            engine.stop()

    info = engine.search(board, make_limit(time=_NO_LIMIT_SECONDS), on_info=on_info)
    reached = [t for d, t in times.items() if d >= depth]
    return min(reached, default=time.perf_counter() - start), info.nodes, times


def to_depth(boards: list[Board], threads: int, depth: int, hash_mb: int) -> Run:
    """Search every board until ``depth`` is complete."""
    run = Run()
    for board in boards:
        seconds, nodes, times = search_to_depth(board, threads, depth, hash_mb)
        run.seconds += seconds
        run.nodes += nodes
        run.finished.append(times)
    return run


def fixed_time(boards: list[Board], threads: int, seconds: float, hash_mb: int) -> Run:
    """Search every board ``seconds``; the depths reached."""
    run = Run()
    for board in boards:
        engine = Engine(hash_mb=hash_mb, threads=threads)
        start = time.perf_counter()
        info = engine.search(board, make_limit(time=seconds))
        run.seconds += time.perf_counter() - start
        run.nodes += info.nodes
        run.depth += info.depth
    return run


def depth_ratios(one: list[Run], many: list[Run], depths: range) -> dict[int, float]:
    """Per depth, the median over positions and rounds of N threads' time / one thread's."""
    ratios: dict[int, list[float]] = {d: [] for d in depths}
    for r1, rn in zip(one, many, strict=True):
        for t1, tn in zip(r1.finished, rn.finished, strict=True):
            for d in depths:
                if d in t1 and d in tn and t1[d] > 0:
                    ratios[d].append(tn[d] / t1[d])
    return {d: statistics.median(v) for d, v in ratios.items() if v}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--positions", type=int, default=24, help="balloted openings searched")
    parser.add_argument("--hash", type=int, default=64, help="MiB")
    parser.add_argument(
        "--time", type=float, default=0.0, help="also search each position this long (seconds)"
    )
    args = parser.parse_args(argv)
    if args.threads < 2 or args.depth < 1 or args.rounds < 1 or args.positions < 1:
        parser.error("--threads must be at least 2; --depth, --rounds, --positions at least 1")
    n = args.threads
    boards = positions(args.positions)
    runs: dict[int, list[Run]] = {1: [], n: []}
    timed: dict[int, list[Run]] = {1: [], n: []}
    passes = 2 * args.rounds * (2 if args.time > 0 else 1)
    with tqdm(total=passes, desc="rounds (1 thread, then threads)", unit="pass") as bar:
        for _ in range(args.rounds):
            for k in (1, n):
                runs[k].append(to_depth(boards, k, args.depth, args.hash))
                bar.update(1)
            if args.time > 0:
                for k in (1, n):
                    timed[k].append(fixed_time(boards, k, args.time, args.hash))
                    bar.update(1)
    load = os.getloadavg()[0]
    print(f"depth {args.depth}, {len(boards)} positions, {args.rounds} rounds, "
          f"load average {load:.1f}")  # fmt: skip
    t1 = min(r.seconds for r in runs[1])
    tn = min(r.seconds for r in runs[n])
    m1 = statistics.median(r.seconds for r in runs[1])
    mn = statistics.median(r.seconds for r in runs[n])
    n1 = statistics.median(r.nodes for r in runs[1])
    nn = statistics.median(r.nodes for r in runs[n])
    print(f"1 thread:   best {t1:7.2f} s  median {m1:7.2f} s  {n1:>14,.0f} nodes (median)")
    print(f"{n} threads: best {tn:7.2f} s  median {mn:7.2f} s  {nn:>14,.0f} nodes (all threads)")
    print(f"time to depth, {n} threads / 1: best {tn / t1:.2f}, median {mn / m1:.2f}")
    per_depth = depth_ratios(runs[1], runs[n], range(max(1, args.depth - 5), args.depth + 1))
    print("per depth, median of the positions' ratios: "
          + ", ".join(f"{d}: {r:.2f}" for d, r in per_depth.items()))  # fmt: skip
    if args.time > 0:
        for k in (1, n):
            depths = [r.depth for r in timed[k]]
            nodes = statistics.median(r.nodes for r in timed[k])
            print(f"{args.time} s a position, {k} thread(s): depth summed over the positions "
                  f"{depths}, median {statistics.median(depths)}, "
                  f"median nodes {nodes:,.0f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
