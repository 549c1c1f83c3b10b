"""The ladder of levels: each level against the one below it, as the web app plays them.

For each level L from ``--low`` to ``--high`` (default 2..10), level L plays
level L-1 over the balloted openings in game pairs (each opening with both
colours; ``poolcheckers/data/ballots.txt`` from its first line).  Each side
plays as the web app and ``poolcheckers play`` play it: the limit of
:func:`poolcheckers.engine.level_limit` (0.1 s a level, times
``--time-scale``; levels 1-9 also cap their depth, so their games do not
depend on the machine's load, level 10's do), or with ``--top-nodes N``
level 10 searches a fixed N nodes a move instead of its time.

Each step's Elo gap (upper minus lower) comes with its 95 % interval from
the pentanomial pair statistics (:func:`poolcheckers.tooling.sprt.estimate`);
a perfect score has no spread, so its gap is only bounded below (Wilson's
95 % bound on the score).  The ladder's Elo of a level is the sum of the
steps below it (level 1: 0), its interval the steps' standard errors added
in quadrature (the steps are independent matches).  ``--cross 1-5,5-10``
adds direct matches over longer spans to check those sums, and
``--random-check N`` plays level 1 against a player that picks uniformly
random legal moves (a beginner's level must still beat it).

Results (``--name``, default ``ladder``): ``benchmarks/results/<name>.json``
(written after every step, with the machine's load), ``<name>.md`` (the
table) and ``<name>.png`` (ladder Elo per level with error bars; with
``--compare OTHER.json`` the other ladder too).  ``--replot RUN.json`` redoes
only the table and plot of a run.

``--resume`` keeps the finished steps of the run ``--name`` that the same
engine played with the same levels, limits and games, and plays the others.
The engine is named by the git ids of what decides how the levels play: the
trees of ``poolcheckers/`` and ``native/`` and the build script ``setup.py``
with its compiler flags (``engine_tree`` of the run
and of each step; the ``commit`` beside it is for people): a rebase changes
the commit but not the trees, so a rebased engine keeps its steps.  Uncommitted
changes to those paths (untracked files too) mark the id with ``+``,
as they mark the commit: the trees at HEAD do not describe the files played,
so a step is kept only if neither its run nor this one had such changes (nor
ran outside git: ``unknown``).  Steps of files from before the tree ids were
recorded are compared by the commit that played them.

``--merge A.json B.json ...`` plays no games: it writes the steps of those
runs (cross-checks and random check included) as one run ``--name``
(required), so that a ladder measured in parts gets its sums.  Each step
keeps its own limits, start, load, commit and engine tree and names its
``source`` file; the runs' own fields (command, times, cores, commit, table
of levels) are listed under ``sources``.  A step found in two of the runs, a
ladder with a missing step and a file that is not a ladder run are refused::

    nice -n 10 .venv/bin/python benchmarks/ladder.py --games-low 100 --games-high 40 \\
        --cross 1-5,5-10 --random-check 40
    .venv/bin/python benchmarks/ladder.py --replot benchmarks/results/ladder.json \\
        --compare benchmarks/results/ladder_before.json
    .venv/bin/python benchmarks/ladder.py --merge benchmarks/results/ladder_low.json \\
        benchmarks/results/ladder_10v9.json --name ladder_1to10
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tqdm import tqdm

import poolcheckers
from poolcheckers.engine import LEVELS
from poolcheckers.tooling.ladder import (
    RunError,
    Step,
    describe_limit,
    merge_runs,
    play_step,
    read_run,
    report,
    use_table,
)
from poolcheckers.tooling.openings import DEFAULT_BALLOTS, load_ballots
from poolcheckers.tooling.plots import plot_ladder as plot
from poolcheckers.tooling.stats import format_elo

RESULTS = Path(__file__).resolve().parent / "results"


def _spans(text: str) -> list[tuple[int, int]]:
    out = []
    for part in filter(None, text.split(",")):
        low, high = sorted(int(v) for v in part.split("-"))
        if not (1 <= low < high <= 10):
            raise SystemExit(f"--cross: {part!r} is not two levels 1..10, e.g. 1-5")
        out.append((high, low))
    return out


#: the paths whose files decide how the levels play: the engine of a step (setup.py
#: holds the compiler's flags, which decide how fast the native core searches)
ENGINE_PATHS = ("poolcheckers", "native", "setup.py")


#: the checkout of the package played (where git is asked about the engine)
ROOT = Path(poolcheckers.__file__).resolve().parent.parent


def _git(*args: str) -> str:
    """The output of ``git args`` in :data:`ROOT`."""
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def _dirty() -> bool:
    """Whether the working tree has changes (untracked files too) under :data:`ENGINE_PATHS`."""
    return bool(_git("status", "--porcelain", "--", *ENGINE_PATHS))


def _commit() -> str:
    """The engine's commit, for people (``+`` when the tree has changes under
    :data:`ENGINE_PATHS`; ``unknown`` outside git)."""
    try:
        return _git("rev-parse", "--short", "HEAD") + ("+" if _dirty() else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _engine_tree() -> str:
    """The engine's identity for ``--resume``: the git ids of :data:`ENGINE_PATHS`
    at HEAD (``poolcheckers:<id> native:<id> setup.py:<id>``), which a rebase does
    not change.  Like :func:`_commit`, ``+`` when the working tree has changes under
    them (the ids then do not describe the files played) and ``unknown`` outside git."""
    try:
        ids = _git("rev-parse", *(f"HEAD:{p}" for p in ENGINE_PATHS)).split()
        dirty = _dirty()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return " ".join(f"{p}:{i}" for p, i in zip(ENGINE_PATHS, ids, strict=True)) + (
        "+" if dirty else ""
    )


def _trusted(engine: str) -> bool:
    """Whether an engine id names the files played: recorded, in git and clean."""
    return engine not in ("", "unknown") and not engine.endswith("+")


def same_engine(old: dict[str, Any], before: dict[str, Any], data: dict[str, Any]) -> bool:
    """Whether the step ``old`` of the earlier run ``before`` was played by the engine
    of the run ``data``: the same :func:`_engine_tree`, neither side with changes."""
    if old.get("engine_tree"):
        return _trusted(data["engine_tree"]) and old["engine_tree"] == data["engine_tree"]
    # A file from before the tree ids were recorded: the commit that played the step
    # (its run's, if the step has none) against this run's, as ladder.py compared
    # them then, except that a tree with changes is not trusted here either.
    played_by = old.get("commit") or before.get("commit", "")
    return _trusted(data["commit"]) and played_by == data["commit"]


def _played(level: int, args: argparse.Namespace) -> dict[str, Any]:
    """What a level played in a step: its definition and per-move limit."""
    if level == 0:
        return {"level": 0, "random": True}
    return {
        **asdict(LEVELS[level]),
        "limit": describe_limit(level, args.time_scale, args.top_nodes),
    }


def _games_of(step: tuple[int, int], args: argparse.Namespace) -> int:
    upper, lower = step
    for item in args.step_games:
        key, _, value = item.partition("=")
        if key == f"{upper}v{lower}":
            return int(value)
    if lower == 0:
        return int(args.random_check)
    return int(args.games_high if upper == 10 else args.games_low)


def _write_report(data: dict[str, Any], path: Path, compare: dict[str, Any] | None) -> None:
    """Write the table and the plot of a run beside its JSON ``path``, and print the table."""
    path.with_suffix(".md").write_text(report(data), encoding="utf-8")
    plot(data, path.with_suffix(".png"), compare)
    print(report(data))


def _merge(files: Sequence[str], out: Path, command: str, compare: dict[str, Any] | None) -> int:
    """``--merge``: the runs ``files`` as one run ``out`` (JSON, table and plot)."""
    if any(out.resolve() == Path(f).resolve() for f in files):
        raise RunError(f"--merge: {out} is one of the runs to merge; give another --name")
    data = merge_runs([(f, read_run(Path(f))) for f in files], out.stem, command)
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(data, indent=1), encoding="utf-8")
    _write_report(data, out, compare)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-low", type=int, default=100, help="games a step below 10")
    parser.add_argument("--games-high", type=int, default=40, help="games of steps with 10")
    parser.add_argument(
        "--step-games", nargs="*", default=[], metavar="UvL=N", help="e.g. 10v9=60 5v4=200"
    )
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--time-scale", type=float, default=1.0, help="times each level's time")
    parser.add_argument("--top-nodes", type=int, help="level 10: fixed nodes/move, not time")
    parser.add_argument("--low", type=int, default=2, help="first level played against L-1")
    parser.add_argument("--high", type=int, default=10)
    parser.add_argument("--cross", default="", help="direct matches, e.g. 1-5,5-10")
    parser.add_argument("--random-check", type=int, default=0, help="games of 1 v random")
    parser.add_argument("--ballots", default=str(DEFAULT_BALLOTS))
    parser.add_argument("--name", help="result file names (default ladder; --merge needs one)")
    parser.add_argument("--table", metavar="FILE.json", help="a candidate table of levels 1-9")
    parser.add_argument("--resume", action="store_true", help="keep the finished steps of --name")
    parser.add_argument("--results", default=str(RESULTS), help="directory of the result files")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--replot", metavar="RUN.json", help="only redo the table and plot")
    only.add_argument(
        "--merge", nargs="+", metavar="RUN.json", help="one run of these runs' steps, no games"
    )
    parser.add_argument("--compare", metavar="OTHER.json", help="plot another ladder too")
    args = parser.parse_args(argv)
    command = " ".join(["benchmarks/ladder.py", *(sys.argv[1:] if argv is None else argv)])
    try:
        compare = read_run(Path(args.compare)) if args.compare else None
        if args.replot:
            _write_report(read_run(Path(args.replot)), Path(args.replot), compare)
            return 0
        if args.merge:
            if args.name is None:
                parser.error("--merge: give the merged run a --name")
            return _merge(args.merge, Path(args.results) / f"{args.name}.json", command, compare)
    except RunError as exc:
        parser.error(str(exc))
    args.name = args.name or "ladder"
    plan = [(level, level - 1) for level in range(args.low, args.high + 1)]
    plan += _spans(args.cross)
    if args.random_check:
        plan.append((1, 0))
    openings = load_ballots(args.ballots)
    table = json.loads(Path(args.table).read_text()) if args.table else None
    try:
        use_table(table)
    except RunError as exc:
        parser.error(str(exc))
    results = Path(args.results)
    results.mkdir(exist_ok=True)
    out = results / args.name
    done: dict[tuple[int, int], dict[str, Any]] = {}
    before: dict[str, Any] = {}
    if args.resume and out.with_suffix(".json").exists():
        before = json.loads(out.with_suffix(".json").read_text())
        done = {(s["upper"], s["lower"]): s for s in before["steps"]}
    data: dict[str, Any] = {
        "name": args.name,
        "command": command,
        "started": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"),
        "cpus": os.cpu_count(),
        "commit": _commit(),
        "engine_tree": _engine_tree(),
        "load_start": os.getloadavg()[0],
        "levels": {str(k): asdict(v) for k, v in LEVELS.items()},
        "table": args.table,
        "steps": [],
    }
    if done:
        data["resumed"] = (
            f"steps of the same engine and levels kept from the run of {before['started']}"
        )
    steps = [
        Step(u, lo, 2 * (_games_of((u, lo), args) // 2),
             describe_limit(u, args.time_scale, args.top_nodes))
        for u, lo in plan
    ]  # fmt: skip
    for step in steps:
        step.played = [_played(step.upper, args), _played(step.lower, args)]
        step.commit = data["commit"]
        step.engine_tree = data["engine_tree"]
    kept = [
        s
        for s in steps
        if (old := done.get((s.upper, s.lower))) is not None
        and old["games"] == s.games
        and old.get("played") == s.played
        and same_engine(old, before, data)
    ]
    with tqdm(
        total=sum(s.games for s in steps if s not in kept), desc="ladder", unit="game"
    ) as bar:
        for step in steps:
            if step in kept:
                old = done[(step.upper, step.lower)]
                # A step kept by its commit (an older file) was played by this engine:
                # its record gets the commit and tree id that it lacks.
                data["steps"].append(
                    {
                        **old,
                        "commit": old.get("commit") or before.get("commit", ""),
                        "engine_tree": old.get("engine_tree") or data["engine_tree"],
                    }
                )
                continue
            play_step(step, openings, args.concurrency, args.time_scale, args.top_nodes, bar, table)
            data["steps"].append(asdict(step))
            data["load_end"] = os.getloadavg()[0]
            out.with_suffix(".json").write_text(json.dumps(data, indent=1), encoding="utf-8")
            gap, low, high = step.elo()
            tqdm.write(
                f"{step.title}: +{step.wins} ={step.draws} -{step.losses}, Elo {format_elo(gap)} "
                f"[{format_elo(low)}, {format_elo(high)}] in {step.seconds:.0f} s"
            )
    data["finished"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M")
    data["load_end"] = os.getloadavg()[0]
    out.with_suffix(".json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    _write_report(data, out.with_suffix(".json"), compare)
    return 0


if __name__ == "__main__":
    sys.exit(main())
