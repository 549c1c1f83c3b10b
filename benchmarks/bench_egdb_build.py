"""Speed of building the endgame tables: this checkout against a baseline commit, in one run.

Each side builds into a directory of its own, in a process of its own (the
baseline from the repository's history, as ``baseline.py`` builds it): first
the whole set of up to ``--base-pieces`` pieces, then each of ``--materials``
on top of it, one build per material, or with ``--top N`` every material of N
pieces in one build (as ``poolcheckers egdb build --pieces N`` does on top of
a smaller set).  Every step reports its wall time, CPU time and the process's
peak memory; the ratio is baseline over this checkout.  At the end the tables
of the two sides are compared value by value (the files may be compressed
differently; the codes inside must be the same).

    .venv/bin/python benchmarks/bench_egdb_build.py    # <= 5 pieces, 3K v 3K, 3K v 1M2K
    .venv/bin/python benchmarks/bench_egdb_build.py --threads 2 --top 6 --no-baseline
    .venv/bin/python benchmarks/bench_egdb_build.py --json out.json --plot out.png
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import baseline

from poolcheckers.egdb import canonical, materials

REPO = Path(__file__).resolve().parent.parent
#: main before the generator was sped up
DEFAULT_BASELINE = "5ad0046"
#: 3 kings v 3 kings (kings only, one men configuration), then 3 kings v a man and 2 kings
#: (which crowns into the first)
DEFAULT_MATERIALS = ["0303", "0312"]

#: run in a fresh process with the package of argv[1] first on the path
CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
import poolcheckers
assert poolcheckers.__file__.startswith(sys.argv[1]), poolcheckers.__file__
from poolcheckers.egdb import build
pieces, directory, threads = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
only = [tuple(m) for m in json.loads(sys.argv[5])] or None
start = time.perf_counter()
build(pieces, directory, threads=threads, only=only)
wall = time.perf_counter() - start
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "peak_mib": ru.ru_maxrss / 1024}))
"""


def _material(name: str) -> tuple[int, int, int, int]:
    if len(name) != 4 or not name.isdigit():
        raise SystemExit(f"--materials: {name!r} is not a material like 0303 (bm bk wm wk)")
    bm, bk, wm, wk = (int(c) for c in name)
    return (bm, bk, wm, wk)


def _step(
    source: Path, pieces: int, directory: Path, threads: int, only: list[tuple[int, int, int, int]]
) -> dict[str, float]:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(source),
            str(pieces),
            str(directory),
            str(threads),
            json.dumps(only),
        ],
        check=True,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def _codes(path: Path) -> list[bytes]:
    """The codes of a table file, block by block inflated (the file format of egdb_io.c)."""
    data = path.read_bytes()
    blocks, tables = struct.unpack_from("<II", data, 36)
    offsets = struct.unpack_from(f"<{(blocks + 1) * tables}Q", data, 64)
    base = 64 + 8 * len(offsets)
    out = []
    for t in range(tables):
        o = offsets[t * (blocks + 1) : (t + 1) * (blocks + 1)]
        inflated = (zlib.decompress(data[base + o[i] : base + o[i + 1]]) for i in range(blocks))
        out.append(b"".join(inflated))
    return out


def compare(a: Path, b: Path) -> tuple[int, list[str]]:
    """Tables compared and the names of those whose codes differ (or are missing in b)."""
    names = sorted(p.name for p in a.glob("*.pcdb"))
    differ = [n for n in names if not (b / n).exists() or _codes(a / n) != _codes(b / n)]
    return len(names), differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="commit to compare with")
    parser.add_argument("--no-baseline", action="store_true", help="time this checkout only")
    parser.add_argument("--base-pieces", type=int, default=5)
    parser.add_argument("--materials", default=",".join(DEFAULT_MATERIALS))
    parser.add_argument("--top", type=int, help="build every material of this many pieces at once")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--base-dir", type=Path, help="copy this <= base-pieces set instead of building it"
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument("--plot", type=Path)
    args = parser.parse_args(argv)

    if args.top:
        tops = sorted({canonical(m) for m in materials(args.top) if sum(m) == args.top})
        steps: list[tuple[str, int, list[tuple[int, int, int, int]]]] = [
            (f"all {args.top}-piece ({len(tops)})", args.top, tops)
        ]
    else:
        names = [m for m in args.materials.split(",") if m]
        steps = [(n, sum(_material(n)), [_material(n)]) for n in names]
    if not args.base_dir:
        steps.insert(0, (f"<= {args.base_pieces} pieces", args.base_pieces, []))

    sides: list[tuple[str, Path]] = [("this checkout", REPO)]
    if not args.no_baseline:
        print(f"building the baseline {args.baseline} ...", file=sys.stderr)
        sides.insert(0, (f"baseline {args.baseline}", baseline.build(args.baseline)))

    from tqdm import tqdm

    work = Path(tempfile.mkdtemp(prefix="egdb-build-bench-"))
    results: dict[str, list[dict[str, Any]]] = {}
    try:
        with tqdm(total=len(sides) * len(steps), desc="egdb builds", unit="step") as bar:
            for label, source in sides:
                directory = work / label.split()[0]
                if args.base_dir:
                    shutil.copytree(args.base_dir, directory)
                directory.mkdir(exist_ok=True)
                rows = []
                for name, pieces, only in steps:
                    bar.set_postfix_str(f"{label}: {name}")
                    row = {"step": name, **_step(source, pieces, directory, args.threads, only)}
                    rows.append(row)
                    bar.update(1)
                results[label] = rows
        print(f"threads {args.threads}; seconds (wall / CPU), peak memory of the build process")
        labels = list(results)
        for i, (name, _, _) in enumerate(steps):
            cells = [
                f"{label}: {r['wall']:7.1f} / {r['cpu']:7.1f} s, {r['peak_mib']:6.0f} MiB"
                for label in labels
                for r in [results[label][i]]
            ]
            ratio = ""
            if len(labels) == 2:
                old, new = results[labels[0]][i], results[labels[1]][i]
                ratio = f"  x{old['wall'] / new['wall']:.2f} wall"
                ratio += f", x{old['cpu'] / new['cpu']:.2f} CPU"
            print(f"{name:>22}  " + "   ".join(cells) + ratio)
        same: tuple[int, list[str]] | None = None
        if len(labels) == 2:
            same = compare(work / labels[0].split()[0], work / labels[1].split()[0])
            print(f"tables compared: {same[0]}, with different values: {same[1] or 'none'}")
        if args.json:
            payload = {"threads": args.threads, "results": results}
            if same:
                payload["compared"] = {"tables": same[0], "differ": same[1]}
            args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        if args.plot:
            _plot(results, args.plot, args.threads)
        return 1 if same and same[1] else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _plot(results: dict[str, list[dict[str, Any]]], path: Path, threads: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(results)
    steps = [r["step"] for r in results[labels[0]]]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    width = 0.8 / len(labels)
    for k, label in enumerate(labels):
        xs = [i + k * width for i in range(len(steps))]
        ax.bar(xs, [r["cpu"] for r in results[label]], width, label=label)
    ax.set_xticks([i + width * (len(labels) - 1) / 2 for i in range(len(steps))], steps)
    ax.set_ylabel("CPU seconds")
    ax.set_title(f"Building the endgame tables ({threads} thread{'s' if threads > 1 else ''})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
