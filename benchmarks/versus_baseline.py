"""Speed of the working tree's native core beside the frozen baseline's.

Both are measured in the same run, alternately (baseline, tree, baseline,
tree, …), each in its own process so that neither shares caches with the
other: perft(11) from the start (one thread, bulk counting, no hash) and
``bench`` (fixed depth over the bench positions: its node count is the
search's signature, its speed the nodes per second).  The best of
``--repeat`` runs is kept (the machine is shared: the least disturbed run is
the truest), as wall time and as the process's CPU time (which other
processes disturb less: on a loaded machine compare the CPU figures).  The
CPU figure of ``bench`` includes the start of the search (the hash table's
allocation); "search alone" times only the searches of the bench positions
(the native searcher's ``search`` at the bench depth on a 16 MB table cleared
before each, as ``bench`` does: the same nodes), by CPU time.
The baseline is built from git by ``benchmarks/baseline.py``.

    nice -n 10 .venv/bin/python benchmarks/versus_baseline.py --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from baseline import BASELINE_COMMIT, build

ROOT = Path(__file__).resolve().parent.parent

_PROBE = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import poolcheckers
assert poolcheckers.__file__.startswith(sys.argv[1]), poolcheckers.__file__
from poolcheckers import Board
from poolcheckers import _core
from poolcheckers.engine import bench, perft_native
depth = int(sys.argv[2])
start, cpu = time.perf_counter(), time.process_time()
leaves = perft_native(Board(), depth)
perft_seconds, perft_cpu = time.perf_counter() - start, time.process_time() - cpu
cpu = time.process_time()
b = bench(int(sys.argv[3]))
bench_cpu = time.process_time() - cpu
# The searches alone: the bench positions on a 16 MB table cleared before each
# (as bench does), CPU time of the native searches only (the core's own call:
# the Python engine around it costs about half a millisecond a search).
searcher = _core.Searcher(16)
search_nodes, search_cpu = 0, 0.0
for black, white, kings, turn in _core.bench_positions():
    searcher.clear()
    cpu = time.process_time()
    search_nodes += searcher.search(black, white, kings, turn, 0, 0, depth=int(sys.argv[3]))[2]
    search_cpu += time.process_time() - cpu
print(json.dumps({"leaves": leaves, "perft": perft_seconds, "perft_cpu": perft_cpu,
                  "nodes": b.nodes, "bench": b.time, "nps": b.nps,
                  "nps_cpu": b.nodes / bench_cpu, "search_nodes": search_nodes,
                  "nps_search": search_nodes / search_cpu}))
"""


def measure(directory: Path, perft_depth: int, bench_depth: int) -> dict[str, float]:
    """One perft and one bench of the package in ``directory``, in a new process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(directory), str(perft_depth), str(bench_depth)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    result: dict[str, float] = json.loads(out)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--perft-depth", type=int, default=11)
    parser.add_argument("--bench-depth", type=int, default=12)
    parser.add_argument("--commit", default=BASELINE_COMMIT)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    from tqdm import tqdm

    sides = {"baseline " + args.commit: build(args.commit), "working tree": ROOT}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    with tqdm(total=args.repeat * len(sides), desc="runs", file=sys.stderr, disable=None) as bar:
        for _ in range(args.repeat):
            for name, directory in sides.items():
                runs[name].append(measure(directory, args.perft_depth, args.bench_depth))
                bar.update(1)
    load = os.getloadavg()[0]
    print(f"best of {args.repeat} alternate runs, load average {load:.1f} at the end")
    print(f"| measure | {' | '.join(sides)} | ratio (tree / baseline) |")
    print("|---|---|---|---|")
    best = {name: _best(r) for name, r in runs.items()}
    base, tree = (best[name] for name in sides)
    print(
        f"| perft({args.perft_depth}) leaves | {int(base['leaves']):,} | {int(tree['leaves']):,} "
        "| — |"
    )
    print(
        f"| perft({args.perft_depth}) seconds | {base['perft']:.3f} | {tree['perft']:.3f} "
        f"| {tree['perft'] / base['perft']:.2f} |"
    )
    print(
        f"| perft({args.perft_depth}) CPU seconds | {base['perft_cpu']:.3f} | "
        f"{tree['perft_cpu']:.3f} | {tree['perft_cpu'] / base['perft_cpu']:.2f} |"
    )
    print(
        f"| bench {args.bench_depth} nodes (signature) | {int(base['nodes']):,} | "
        f"{int(tree['nodes']):,} | {tree['nodes'] / base['nodes']:.2f} |"
    )
    print(
        f"| bench nodes/s | {base['nps'] / 1e6:.2f} M | {tree['nps'] / 1e6:.2f} M "
        f"| {tree['nps'] / base['nps']:.2f} |"
    )
    print(
        f"| bench nodes/CPU s | {base['nps_cpu'] / 1e6:.2f} M | {tree['nps_cpu'] / 1e6:.2f} M "
        f"| {tree['nps_cpu'] / base['nps_cpu']:.2f} |"
    )
    print(
        f"| search alone nodes | {int(base['search_nodes']):,} | {int(tree['search_nodes']):,} "
        "| — |"
    )
    print(
        f"| search alone nodes/CPU s | {base['nps_search'] / 1e6:.2f} M | "
        f"{tree['nps_search'] / 1e6:.2f} M | {tree['nps_search'] / base['nps_search']:.2f} |"
    )
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "load": load}, indent=1), encoding="utf-8")
    return 0


def _best(runs: list[dict[str, float]]) -> dict[str, float]:
    return {
        "leaves": runs[0]["leaves"],
        "perft": min(r["perft"] for r in runs),
        "perft_cpu": min(r["perft_cpu"] for r in runs),
        "nodes": runs[0]["nodes"],
        "search_nodes": runs[0]["search_nodes"],
        "nps": max(r["nps"] for r in runs),
        "nps_cpu": max(r["nps_cpu"] for r in runs),
        "nps_search": max(r["nps_search"] for r in runs),
    }


if __name__ == "__main__":
    sys.exit(main())
