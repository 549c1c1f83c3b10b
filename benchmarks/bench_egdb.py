"""Speed of the endgame tables: building, and probing from C and from Python.

Builds the tables of up to ``--pieces`` pieces into a fresh directory (or
uses ``--dir``), then probes random positions of every stored material: the
native probe timed in C once the position's block is cached (median and
90th percentile over the positions), the first probe of a block (reading
and inflating it), and the Python API (``Tablebase.probe`` on a Board, cached, median) as
the ratio to the native probe in the same run.

    .venv/bin/python benchmarks/bench_egdb.py                 # build 4 pieces, probe
    .venv/bin/python benchmarks/bench_egdb.py --dir ~/.local/share/poolcheckers/egdb
    .venv/bin/python benchmarks/bench_egdb.py --plot benchmarks/results/egdb_probe.png
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from poolcheckers import Board
from poolcheckers.egdb import Tablebase, build, canonical, materials


def _random_position(material: tuple[int, int, int, int], rng: random.Random) -> Board:
    bm, bk, wm, _ = material
    while True:
        squares = rng.sample(range(1, 33), sum(material))
        b_men, b_kings = squares[:bm], squares[bm : bm + bk]
        w_men, w_kings = squares[bm + bk : bm + bk + wm], squares[bm + bk + wm :]
        if any(s > 28 for s in b_men) or any(s < 5 for s in w_men):
            continue  # R15: a man on its king row would be a king
        white = ",".join([str(s) for s in w_men] + [f"K{s}" for s in w_kings])
        black = ",".join([str(s) for s in b_men] + [f"K{s}" for s in b_kings])
        return Board(f"{rng.choice('BW')}:W{white}:B{black}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pieces", type=int, default=4, help="tables to build (default 4)")
    parser.add_argument("--dir", help="use the tables of this directory instead of building")
    parser.add_argument("--positions", type=int, default=2000, help="positions probed")
    parser.add_argument("--repeats", type=int, default=200, help="cached probes per position")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--plot", metavar="PNG", help="histograms of the probe times")
    args = parser.parse_args()

    if args.dir:
        directory = Path(args.dir).expanduser()
    else:
        directory = Path(tempfile.mkdtemp(prefix="bench_egdb_"))
        start = time.perf_counter()
        build(args.pieces, directory, threads=args.threads)
        seconds = time.perf_counter() - start
        size = sum(p.stat().st_size for p in directory.glob("*.pcdb"))
        print(f"build: up to {args.pieces} pieces in {seconds:.2f} s, {size / 2**20:.2f} MiB")
    tb = Tablebase(directory)
    rng = random.Random(2026)
    stored = [m for m in materials(tb.max_pieces) if canonical(m) in tb.materials]
    boards = [_random_position(rng.choice(stored), rng) for _ in range(args.positions)]

    first: list[float] = []
    cold = Tablebase(directory)  # its block cache is empty: first probes read and inflate
    for board in boards:
        t0 = time.perf_counter_ns()
        cold.probe(board)
        first.append(time.perf_counter_ns() - t0)
    native = tb.bench(boards, args.repeats)
    python: list[float] = []
    for board in boards:
        tb.probe(board)  # its block cached, as for the C figure
        t0 = time.perf_counter_ns()
        for _ in range(20):
            tb.probe(board)
        python.append((time.perf_counter_ns() - t0) / 20)
    python_ns = statistics.median(python)
    med = statistics.median(native)
    p90 = statistics.quantiles(native, n=10)[-1]
    print(f"tables: {len(tb.materials)} files of up to {tb.max_pieces} pieces in {directory}")
    print(f"probe from C, block cached: median {med:.0f} ns, 90% {p90:.0f} ns")
    print(
        "first probe of each position, empty cache (read and inflate a block, Python call): "
        f"median {statistics.median(first) / 1000:.1f} us"
    )
    print(
        f"Tablebase.probe(Board) from Python, cached: median {python_ns:.0f} ns "
        f"= x{python_ns / med:.1f} the C probe"
    )

    if args.plot:
        _plot(args.plot, native, first, python)


def _plot(path: str, native: list[float], first: list[float], python: list[float]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    top = max(max(first), max(python), max(native))
    bins = [10 * 1.15**i for i in range(200) if 10 * 1.15**i < top * 1.2]
    ax.hist(native, bins=bins, alpha=0.7, label="C probe, block cached")
    ax.hist(python, bins=bins, alpha=0.7, label="Tablebase.probe(Board), cached")
    ax.hist(first, bins=bins, alpha=0.7, label="first probe (read + inflate a block)")
    ax.set_xscale("log")
    ax.set_xlabel("nanoseconds per probe")
    ax.set_ylabel("positions")
    ax.set_title("Endgame table probes")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot: {path}")


if __name__ == "__main__":
    main()
