"""A seven-piece material built in slices on a Dask cluster of two 8 GB workers, checked
against the one-machine build (docs/EGDB.md, "7 pieces on a cluster").

6 kings v 1 man (41 M states, 28 men configurations, 7 progress values) needs 6 kings v
1 king (kings only: one task) and the six-piece 5 kings v 1 king and 5 kings v 1 man, on top
of the <= 5-piece set (``--base``, copied, never written).  The four materials are built

* on one machine: ``poolcheckers.egdb.build(7, DIR, only=[...])`` in a process of its own
  (``--threads``), its wall time, CPU time and peak memory measured;
* on ``LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="8GB")``:
  ``build_distributed(..., slice_states=N)``, every material with men of more than N states
  in slices; each task's worker, wall and CPU time, each worker's CPU time and peak memory
  (getrusage in the worker).

Then the files of the two builds are compared byte for byte and the cluster's are verified
(every state re-derived from its successors).  Last, the whole seven-piece set on N machines
is estimated from the rates measured here (``estimate``: the plan of every seven-piece task,
its duration at the measured rates, a greedy schedule of each dependency level on the
workers; ``--estimate-only PATH`` redoes it from an earlier run's JSON).

    nice -n 10 .venv/bin/python benchmarks/egdb_slices_demo.py --base /tmp/eg5 \\
        --json benchmarks/results/egdb_slices_demo.json
"""

from __future__ import annotations

import argparse
import heapq
import importlib
import json
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from tqdm import tqdm

from poolcheckers.egdb import (
    Material,
    dependency_levels,
    file_stem,
    index_size,
    material_name,
    slice_plan,
    successors,
    verify,
)
from poolcheckers.egdb.distributed import Task, build_distributed, plan
from poolcheckers.rules import RuleSet

#: 5K v 1K, 5K v 1M, 6K v 1K, 6K v 1M: the last built in slices
MATERIALS: list[Material] = [(0, 5, 0, 1), (0, 5, 1, 0), (0, 6, 0, 1), (0, 6, 1, 0)]

#: the one-machine build, in a process of its own for its peak memory
CHILD = """
import json, resource, sys, time
from poolcheckers.egdb import build
directory, threads = sys.argv[1], int(sys.argv[2])
only = [tuple(m) for m in json.loads(sys.argv[3])]
start = time.perf_counter()
build(7, directory, threads=threads, only=only)
wall = time.perf_counter() - start
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime,
                  "peak_mib": ru.ru_maxrss / 1024}))
"""


def _usage() -> dict[str, float]:
    """Run in a worker: its CPU seconds and peak resident memory so far."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return {"cpu_s": ru.ru_utime + ru.ru_stime, "peak_mib": ru.ru_maxrss / 1024}


def _copy_base(base: Path, target: Path) -> None:
    target.mkdir(parents=True)
    for path in base.glob("*.pcdb"):
        shutil.copy(path, target / path.name)


def _files(directory: Path) -> dict[str, int]:
    return {file_stem(m): (directory / (file_stem(m) + ".pcdb")).stat().st_size for m in MATERIALS}


def single(directory: Path, threads: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(directory), str(threads), json.dumps(MATERIALS)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    result["threads"] = threads
    return result


def cluster(directory: Path, slice_states: int, memory_limit: str) -> dict[str, Any]:
    dd: Any = importlib.import_module("dask.distributed")  # the 'distributed' extra, untyped

    tasks = plan([[m] for m in MATERIALS], slice_states=slice_states)
    with (
        dd.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address=None,
        ) as lc,
        dd.Client(lc) as client,
    ):
        before = client.run(_usage)
        start = time.perf_counter()
        ran = build_distributed(
            7,
            directory,
            RuleSet.apca(),
            client,
            threads=1,
            slice_states=slice_states,
            only=MATERIALS,
        )
        wall = time.perf_counter() - start
        after = client.run(_usage)
        limits = {
            addr: int(w["memory_limit"]) for addr, w in client.scheduler_info()["workers"].items()
        }
    memory = {t.name: t.memory for lv in tasks for chain in lv for step in chain for t in step}
    records: list[dict[str, Any]] = sorted(
        (
            {
                "task": r.name,
                "worker": r.worker,
                "seconds": round(r.seconds, 3),
                "cpu_s": round(r.cpu_seconds, 3),
                "memory_stated_mib": round(memory[r.name] / 2**20, 1),
            }
            for r in ran
        ),
        key=lambda r: str(r["task"]),
    )
    workers = {
        addr: {
            "cpu_s": round(after[addr]["cpu_s"] - before[addr]["cpu_s"], 2),
            "peak_mib": round(after[addr]["peak_mib"], 1),
            "memory_limit_gb": limits[addr] / 1e9,
            "tasks": sum(1 for r in records if r["worker"] == addr),
        }
        for addr in after
    }
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(sum(w["cpu_s"] for w in workers.values()), 2),
        "tasks": len(ran),
        "slices": sum(1 for r in ran if ".p" in r.name),
        "workers": workers,
        "task_log": records,
    }


def _schedule(chains: list[list[list[float]]], workers: int) -> float:
    """Wall time of one dependency level: chains of steps of task durations (a step starts
    when the one before it is done), on ``workers`` workers, the task with the longest rest
    of its chain first."""
    crit = [[sum(max(step) for step in chain[k:]) for k in range(len(chain))] for chain in chains]
    ready: list[tuple[float, int, int, float]] = []
    left = [0] * len(chains)

    def release(c: int, k: int) -> None:
        left[c] = len(chains[c][k])
        for d in chains[c][k]:
            heapq.heappush(ready, (-crit[c][k], c, k, d))

    for c in range(len(chains)):
        release(c, 0)
    now, idle = 0.0, workers
    running: list[tuple[float, int, int]] = []
    while ready or running:
        while ready and idle:
            _, c, k, d = heapq.heappop(ready)
            heapq.heappush(running, (now + d, c, k))
            idle -= 1
        now, c, k = heapq.heappop(running)
        idle += 1
        left[c] -= 1
        if left[c] == 0 and k + 1 < len(chains[c]):
            release(c, k + 1)
    return now


def _inflate_rate(path: Path) -> float:
    """Bytes of codes a second that reading a table file inflates (zlib, one thread): every
    task first reads its successor tables whole."""
    data = path.read_bytes()
    nblocks, ntab = struct.unpack_from("<II", data, 36)
    offsets = struct.unpack_from(f"<{(nblocks + 1) * ntab}Q", data, 64)
    base = 64 + 8 * len(offsets)
    start, total = time.process_time(), 0
    for i in range(len(offsets) - 1):
        if i % (nblocks + 1) != nblocks:
            total += len(zlib.decompress(data[base + offsets[i] : base + offsets[i + 1]]))
    return total / (time.process_time() - start)


def estimate(result: dict[str, Any], slice_states: int) -> dict[str, Any]:
    """The whole seven-piece set from the rates of this run (one thread a task): a task
    takes the time to inflate its successor tables plus its states at the measured rate."""
    # CPU seconds: the machine this ran on is shared, its wall times are not the work
    log: dict[str, float] = {r["task"]: float(r["cpu_s"]) for r in result["cluster"]["task_log"]}
    men, kings = MATERIALS[-1], MATERIALS[2]
    pieces = [s for g in slice_plan(men, result["slice_states"]) for s in g]
    rate_men = sum(s.states for s in pieces) / sum(log[s.name] for s in pieces)
    rate_kings = index_size(kings) / log[file_stem(kings)]
    rate_merge = index_size(men) / log[file_stem(men) + ".merge"]
    seven = [level for level in dependency_levels(7) if sum(level[0]) == 7]
    tasks = plan(seven, slice_states=slice_states)
    states = sum(index_size(m) for level in seven for m in level)

    inflate = float(result["inflate_bytes_per_s"])
    read = {
        m: sum(index_size(x) for x in successors(m)) / inflate for level in seven for m in level
    }

    def seconds(t: Task) -> float:
        if t.kind == "merge":
            return index_size(t.material) / rate_merge
        if t.piece is not None:
            return read[t.material] + t.piece.states / rate_men
        rate = rate_kings if t.material[0] + t.material[2] == 0 else rate_men
        return read[t.material] + index_size(t.material) / rate

    durations = [
        [[[seconds(t) for t in step] for step in chain] for chain in level] for level in tasks
    ]
    cpu = sum(d for lv in durations for ch in lv for st in ch for d in st)
    biggest = max((t for lv in tasks for ch in lv for st in ch for t in st), key=lambda t: t.memory)
    per_state = result["bytes_per_state"]
    # slice files live until their material's merge: at most a level's sliced materials
    slice_disk = max(
        sum(sum(t.piece.states for st in ch for t in st if t.piece) for ch in lv) for lv in tasks
    )
    rows = []
    for cores in (2, 8):
        for machines in (1, 4, 8, 16):
            wall = sum(_schedule(lv, machines * cores) for lv in durations)
            rows.append(
                {
                    "machines": machines,
                    "cores": cores,
                    "workers": machines * cores,
                    "wall_h": round(wall / 3600, 2),
                    "memory_per_machine_gb": 8 * cores,
                }
            )
    return {
        "states": states,
        "materials": sum(len(level) for level in seven),
        "levels": len(seven),
        "slice_states": slice_states,
        "tasks": sum(len(st) for lv in tasks for ch in lv for st in ch),
        "rate_men_per_s": round(rate_men),
        "rate_kings_per_s": round(rate_kings),
        "rate_merge_per_s": round(rate_merge),
        "inflate_bytes_per_s": round(inflate),
        "cpu_h": round(cpu / 3600, 2),
        "critical_path_h": round(sum(_schedule(lv, 10**6) for lv in durations) / 3600, 3),
        "largest_task": {"task": biggest.name, "memory_gb": round(biggest.memory / 1e9, 2)},
        "disk_files_gb": round(states * per_state / 1e9, 2),
        "disk_slice_files_gb": round(slice_disk / 1e9, 2),
        "table": rows,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="/tmp/eg5", help="the <= 5-piece set (read only)")
    ap.add_argument("--dir", help="work directory (default: a new temporary one, removed)")
    ap.add_argument("--slice-states", type=int, default=3_000_000, help="states per slice")
    ap.add_argument("--memory-limit", default="8GB", help="each worker's memory limit")
    ap.add_argument("--threads", type=int, default=2, help="threads of the one-machine build")
    ap.add_argument("--json", metavar="PATH", help="write the results here")
    ap.add_argument(
        "--estimate-slice-states",
        type=int,
        nargs="+",
        default=[100_000_000, 20_000_000],
        help="the slices of the estimated seven-piece build (states; one estimate each)",
    )
    ap.add_argument("--estimate-only", metavar="PATH", help="only redo the estimate of a run")
    args = ap.parse_args(argv)
    if args.estimate_only:
        earlier: dict[str, Any] = json.loads(Path(args.estimate_only).read_text())
        earlier["estimate"] = [estimate(earlier, n) for n in args.estimate_slice_states]
        if args.json:
            Path(args.json).write_text(json.dumps(earlier, indent=1) + "\n")
        print(json.dumps(earlier["estimate"], indent=1))
        return 0
    work = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="egdb_slices_"))
    one, many = work / "single", work / "cluster"
    _copy_base(Path(args.base), one)
    _copy_base(Path(args.base), many)
    steps = ["one machine", "cluster", "compare", "verify"]
    result: dict[str, Any] = {
        "materials": [
            {
                "material": material_name(m),
                "file": file_stem(m) + ".pcdb",
                "states": index_size(m),
                "slices": (
                    sum(len(g) for g in slice_plan(m, args.slice_states))
                    if m[0] + m[2] and index_size(m) > args.slice_states
                    else 0
                ),
            }
            for m in MATERIALS
        ],
        "slice_states": args.slice_states,
        "cpus": os.cpu_count(),
        "load_average_before": os.getloadavg(),
    }
    with tqdm(total=len(steps), desc="egdb slices demo", unit="step", file=sys.stderr) as bar:
        bar.set_postfix_str(steps[0])
        result["single"] = single(one, args.threads)
        bar.update(1)
        bar.set_postfix_str(steps[1])
        result["cluster"] = cluster(many, args.slice_states, args.memory_limit)
        bar.update(1)
        bar.set_postfix_str(steps[2])
        sizes = _files(many)
        same = {
            name: (one / (name + ".pcdb")).read_bytes() == (many / (name + ".pcdb")).read_bytes()
            for name in sizes
        }
        result["files"] = {
            name: {"bytes": size, "identical_to_one_machine": same[name]}
            for name, size in sizes.items()
        }
        result["bytes_per_state"] = sum(sizes.values()) / sum(index_size(m) for m in MATERIALS)
        # the slice files of 6K v 1M at their largest: its every configuration, uncompressed
        plan = slice_plan(MATERIALS[-1], args.slice_states)
        result["slice_files_bytes"] = sum(s.states + 64 for g in plan for s in g)
        result["inflate_bytes_per_s"] = round(_inflate_rate(many / "egdb_0601.pcdb"))
        bar.update(1)
        bar.set_postfix_str(steps[3])
        start = time.perf_counter()
        checked = verify(many, RuleSet.apca(), 7, threads=args.threads, only=MATERIALS)
        result["verify"] = {
            "wall_s": round(time.perf_counter() - start, 2),
            "tables": len(checked),
            "bad_states": sum(r.bad for r in checked),
        }
        bar.update(1)
    result["load_average_after"] = os.getloadavg()
    result["estimate"] = [estimate(result, n) for n in args.estimate_slice_states]
    text = json.dumps(result, indent=1)
    if args.json:
        Path(args.json).write_text(text + "\n")
    print(text)
    if not args.dir:
        shutil.rmtree(work)
    ok = all(same.values()) and result["verify"]["bad_states"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
