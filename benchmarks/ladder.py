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
the pentanomial pair statistics (:func:`poolcheckers.engine.sprt.estimate`);
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
    .venv/bin/python benchmarks/ladder.py --merge benchmarks/results/ladder_t14b.json \\
        benchmarks/results/ladder_t14b_10v9.json --name ladder_t14b_1to10
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import multiprocessing
import os
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

import poolcheckers
from poolcheckers import Board, Move
from poolcheckers.commands.match import (
    DEFAULT_BALLOTS,
    EnginePlayer,
    GameData,
    load_ballots,
    play_pair,
    points_of_a,
    wilson_bound,
)
from poolcheckers.engine import LEVELS, Limit, level_limit, level_move_time, open_engine
from poolcheckers.engine.sprt import Pentanomial, estimate, logistic_elo
from poolcheckers.rules import RuleSet

RESULTS = Path(__file__).resolve().parent / "results"
Z_95 = 1.959964
#: the interval half-width given to a step without spread when its steps are summed
_UNBOUNDED = math.inf


class RandomPlayer:
    """Uniformly random legal moves: what a level must never play like."""

    name = "random mover"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, board: Board) -> Move:
        return self._rng.choice(board.legal_moves)


def _limit(level: int, scale: float, top_nodes: int | None) -> Limit:
    """The per-move limit of ``level`` as the web app gives it (scaled)."""
    if level == 10 and top_nodes is not None:
        return Limit(nodes=top_nodes)
    return level_limit(level, move_time=round(level_move_time(level) * scale, 6))


def _describe_limit(level: int, scale: float, top_nodes: int | None) -> str:
    if level == 10 and top_nodes is not None:
        return f"{top_nodes} nodes"
    if level == 10:
        return f"{level_move_time(level) * scale:g} s"
    return f"depth {LEVELS[level].depth} (≤ {level_move_time(level) * scale:g} s)"


def _player(level: int, scale: float, top_nodes: int | None) -> Any:
    if level == 0:
        return RandomPlayer()
    return EnginePlayer(open_engine(64), _limit(level, scale, top_nodes), level, f"level {level}")


def use_table(table: dict[str, dict[str, Any]] | None) -> None:
    """Play a candidate table instead of the shipped one (levels 1-9 only; in place,
    so that the engine sees it too): ``{"3": {"depth": 4, "noise": 30, ...}}``."""
    for key, fields in (table or {}).items():
        level = int(key)
        if not 1 <= level <= 9:
            raise SystemExit(f"--table: level {key} is not one of 1..9 (10 is the full engine)")
        LEVELS[level] = replace(LEVELS[level], **fields)


_WORKER: dict[str, Any] = {}


def _init_worker(
    upper: int, lower: int, scale: float, top_nodes: int | None, table: dict[str, Any] | None
) -> None:
    use_table(table)
    _WORKER["a"] = _player(upper, scale, top_nodes)
    _WORKER["b"] = _player(lower, scale, top_nodes)


def _pair(opening: tuple[str, ...]) -> list[GameData]:
    return play_pair(_WORKER["a"], _WORKER["b"], opening, RuleSet())


@dataclass
class Step:
    """A match of level ``upper`` (A) against level ``lower`` (0: the random mover)."""

    upper: int
    lower: int
    games: int
    limits: str = ""
    pair_points: list[float] = field(default_factory=list)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    plies: int = 0
    seconds: float = 0.0
    reasons: dict[str, int] = field(default_factory=dict)
    #: the two levels' definitions as played (a resumed run keeps a step only if they hold)
    played: list[dict[str, Any]] = field(default_factory=list)
    #: when it started (UTC) and the 1-minute load average at its start and end
    when: str = ""
    load: list[float] = field(default_factory=list)
    #: the engine's commit that played it ("": not recorded, runs before steps kept it)
    commit: str = ""
    #: the engine that played it, :func:`_engine_tree` ("": runs before it was recorded)
    engine_tree: str = ""
    #: the run file ``--merge`` took it from ("": played in the run of this file)
    source: str = ""

    @property
    def on_ladder(self) -> bool:
        """A step of the ladder: a level against the level just below it."""
        return self.lower >= 1 and self.upper == self.lower + 1

    @property
    def title(self) -> str:
        below = "random" if self.lower == 0 else str(self.lower)
        return f"{self.upper} v {below}"

    def elo(self) -> tuple[float, float, float]:
        """Gap, 95 % low and high; a perfect (null) score: the Wilson bound and ±inf."""
        p = Pentanomial.from_pairs(self.pair_points)
        e = estimate(p)
        if p.pair_variance == 0.0 and p.score in (0.0, 1.0):
            bound = wilson_bound(p.games)
            if p.score == 1.0:
                return math.inf, logistic_elo(bound), math.inf
            return -math.inf, -math.inf, logistic_elo(1.0 - bound)
        return e.elo, e.elo_low, e.elo_high

    def sigma(self) -> float:
        """Standard error of the gap in Elo (half the 95 % interval / 1.96)."""
        _, low, high = self.elo()
        return (high - low) / (2 * Z_95) if math.isfinite(high - low) else _UNBOUNDED


def play_step(
    step: Step,
    openings: Sequence[tuple[str, ...]],
    concurrency: int,
    scale: float,
    top_nodes: int | None,
    bar: Any,
    table: dict[str, Any] | None = None,
) -> None:
    """Play the pairs of ``step`` in ``concurrency`` processes, counting as they end."""
    tasks = [tuple(openings[n % len(openings)]) for n in range(step.games // 2)]
    context = multiprocessing.get_context("spawn")
    start = time.perf_counter()
    step.when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M")
    step.load = [os.getloadavg()[0]]
    with context.Pool(
        concurrency, _init_worker, (step.upper, step.lower, scale, top_nodes, table)
    ) as pool:
        for games in pool.imap_unordered(_pair, tasks, chunksize=1):
            pair = 0.0
            for moves, result, reason, a_black, _ in games:
                points = points_of_a(result, a_black)
                pair += points
                step.wins += points == 1.0
                step.draws += points == 0.5
                step.losses += points == 0.0
                step.plies += len(moves)
                step.reasons[reason] = step.reasons.get(reason, 0) + 1
            step.pair_points.append(pair)
            bar.update(len(games))
            bar.set_postfix_str(f"{step.title}: +{step.wins} ={step.draws} -{step.losses}")
    step.seconds = time.perf_counter() - start
    step.load.append(os.getloadavg()[0])


def _fmt(value: float) -> str:
    return f"{value:+.0f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def ladder_elo(steps: Sequence[Step]) -> dict[int, tuple[float, float, bool]]:
    """Ladder Elo of each level (level of the first step's lower end: 0), its
    standard error and whether it is only a lower bound (a perfect step below)."""
    out: dict[int, tuple[float, float, bool]] = {}
    chain = sorted((s for s in steps if s.on_ladder), key=lambda s: s.upper)
    if not chain:
        return out
    total, variance, bounded = 0.0, 0.0, False
    out[chain[0].lower] = (0.0, 0.0, False)
    for step in chain:
        gap, low, _ = step.elo()
        if math.isfinite(gap):
            total += gap
            variance += step.sigma() ** 2
        else:
            total += low
            bounded = True
        out[step.upper] = (total, math.sqrt(variance), bounded)
    return out


def _step_row(step: Step) -> str:
    gap, low, high = step.elo()
    games = len(step.pair_points) * 2
    if math.isinf(gap):
        elo = f"> {_fmt(low)} (perfect score; Wilson 95 %)"
    else:
        elo = f"{_fmt(gap)} [{_fmt(low)}, {_fmt(high)}]"
    plies = step.plies / games if games else 0.0
    load = "–".join(f"{v:.1f}" for v in step.load)
    return (
        f"| {step.title} | {step.limits} | {games} | {step.wins} / {step.draws} / "
        f"{step.losses} | {Pentanomial.from_pairs(step.pair_points)} | {elo} | {plies:.0f} | "
        f"{step.when[11:] or '?'} ({load or '?'}) |"
    )


_LOAD_NOTE = (
    "other jobs shared the cores; levels 1-9 cap their depth and seldom reach their time, "
    "so it is level 10's play that depends on the load"
)


def _run_line(run: dict[str, Any]) -> str:
    """When and where a run (not a merge) was played."""
    return (
        f"Run {run['started']} to {run.get('finished', '(unfinished)')} UTC on "
        f"{run['cpus']} cores; load average (1 min) {run['load_start']:.2f} at the start, "
        f"{run.get('load_end', float('nan')):.2f} at the end"
    )


def _levels_table(levels: dict[str, dict[str, Any]]) -> list[str]:
    return [
        "| level | depth | noise | temperature | margin |",
        "|---|---|---|---|---|",
        *(
            f"| {k} | {v['depth'] or 'full'} | {v['noise']} | {v['temperature']:g} | "
            f"{v['margin']} |"
            for k, v in sorted(levels.items(), key=lambda kv: int(kv[0]))
        ),
    ]


def _sources_lines(data: dict[str, Any], steps: Sequence[Step]) -> list[str]:
    """The runs a merged file was made of, each with its steps and record."""
    lines = [
        f"Merged from {len(data['sources'])} runs; each step keeps the commit, limits, start "
        f"and load of its own run ({_LOAD_NOTE}):",
        "",
    ]
    for src in data["sources"]:
        titles = ", ".join(s.title for s in steps if s.source == src["file"]) or "no steps"
        resumed = f" Resumed: the {src['resumed']}." if src.get("resumed") else ""
        lines.append(
            f"- `{src['file']}` ({src['name']}, commit {src.get('commit') or 'not recorded'}): "
            f"{titles}. {_run_line(src)}. Command: `{src['command']}`.{resumed}"
        )
    return lines


def report(data: dict[str, Any]) -> str:
    """The Markdown of a ladder run or of a merge of runs (its JSON ``data``)."""
    steps = [Step(**s) for s in data["steps"]]
    chain = [s for s in steps if s.on_ladder and s.pair_points]
    others = [s for s in steps if s not in chain and s.pair_points]
    cumulative = ladder_elo(chain)
    if "sources" in data:
        header = _sources_lines(data, steps)
    else:
        header = [f"{_run_line(data)} ({_LOAD_NOTE})."]
        if data.get("resumed"):
            header.append(
                f"Resumed: the {data['resumed']}; each step's start and load are its own."
            )
    lines = [
        f"# Ladder of levels ({data['name']})",
        "",
        f"Command: `{data['command']}`",
        "",
        *header,
        "",
        "Elo gap: upper level minus lower, from the pentanomial pair statistics, 95 % "
        "interval. Ladder Elo: sum of the gaps from level "
        f"{chain[0].lower if chain else 1} (0); ± is 1.96 standard errors added in "
        "quadrature over the steps.",
        "",
        "| step | per move (upper) | games | W / D / L (upper) | pentanomial "
        "[LL, LD, DD+WL, WD, WW] | Elo gap (95 %) | plies/game | start (load) | "
        "ladder Elo of the upper level (± 95 %) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in chain:
        elo, sigma, bounded = cumulative[s.upper]
        value = f"≥ {_fmt(elo)}" if bounded else f"{_fmt(elo)} ± {Z_95 * sigma:.0f}"
        lines.append(f"{_step_row(s)} {value} |")
    if "levels" in data:
        lines += [
            "",
            "The levels played (`poolcheckers.engine.LEVELS`; level 10: the full engine):",
            "",
            *_levels_table(data["levels"]),
        ]
    else:  # a merge of runs whose tables differ: each run's own
        for src in data["sources"]:
            lines += [
                "",
                f"The levels of the run `{src['file']}` (`poolcheckers.engine.LEVELS`; "
                "level 10: the full engine):",
                "",
                *_levels_table(src["levels"]),
            ]
    if others:
        lines += [
            "",
            "Cross-checks (direct matches; the ladder's sum over the same span beside them):",
            "",
            "| match | per move (upper) | games | W / D / L (upper) | pentanomial | "
            "Elo (95 %) | plies/game | start (load) | ladder sum (± 95 %) |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for s in others:
            ladder = "n/a"
            if s.lower in cumulative and s.upper in cumulative:
                hi, lo = cumulative[s.upper], cumulative[s.lower]
                spread = Z_95 * math.sqrt(hi[1] ** 2 - lo[1] ** 2)
                sign = "≥ " if hi[2] or lo[2] else ""
                ladder = f"{sign}{_fmt(hi[0] - lo[0])} ± {spread:.0f}"
            lines.append(f"{_step_row(s)} {ladder} |")
    ends = sorted({r for s in steps for r in s.reasons})
    if ends:
        lines += ["", "How the games ended: " + ", ".join(
            f"{r} {sum(s.reasons.get(r, 0) for s in steps)}" for r in ends
        ) + "."]  # fmt: skip
    return "\n".join(lines) + "\n"


def plot(data: dict[str, Any], path: Path, compare: dict[str, Any] | None) -> None:
    """Ladder Elo per level with 95 % error bars (and another ladder's, dashed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    for run, style in ((compare, "--"), (data, "-")):
        if run is None:
            continue
        chain = [Step(**s) for s in run["steps"]]
        chain = [s for s in chain if s.on_ladder and s.pair_points]
        cumulative = ladder_elo(chain)
        levels = sorted(cumulative)
        elo = [cumulative[v][0] for v in levels]
        err = [Z_95 * cumulative[v][1] for v in levels]
        left.errorbar(levels, elo, yerr=err, fmt="o" + style, capsize=3, label=run["name"])
        gaps = [s.elo() for s in chain]
        right.errorbar(
            [s.upper - 0.5 for s in chain],
            [g[0] if math.isfinite(g[0]) else g[1] for g in gaps],
            yerr=[
                [g[0] - g[1] if math.isfinite(g[0]) else 0.0 for g in gaps],
                [g[2] - g[0] if math.isfinite(g[2]) else 0.0 for g in gaps],
            ],
            fmt="s" + style,
            capsize=3,
            label=run["name"],
        )
    left.set_xlabel("level")
    left.set_ylabel("ladder Elo (level 1 = 0)")
    left.set_title("Elo of each level, 95 % interval")
    right.set_xlabel("step (between levels)")
    right.set_ylabel("Elo gap upper − lower")
    right.set_title("Elo gap of each step, 95 % interval")
    for ax in (left, right):
        ax.set_xticks(range(1, 11))
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


class RunError(ValueError):
    """A run file that cannot be read or merged (the message names the file)."""


#: what :func:`report` reads of a run, and of a merge of runs
_RUN_FIELDS = ("name", "command", "started", "cpus", "load_start", "levels", "steps")
_MERGE_FIELDS = ("name", "command", "sources", "steps")


def read_run(path: Path) -> dict[str, Any]:
    """The JSON of a ladder run (or of a merge of runs), checked to be one."""
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunError(f"{path}: cannot read it as JSON: {exc}") from None
    if not isinstance(run, dict):
        raise RunError(f"{path}: not a ladder run (not a JSON object)")
    needed = _MERGE_FIELDS if "sources" in run else _RUN_FIELDS
    if missing := [k for k in needed if k not in run]:
        raise RunError(f"{path}: not a ladder run (no {', '.join(missing)})")
    if not isinstance(run["steps"], list):
        raise RunError(f"{path}: not a ladder run (its steps are not a list)")
    for n, step in enumerate(run["steps"], 1):
        try:
            Step(**step)
        except TypeError as exc:
            raise RunError(f"{path}: not a ladder run (step {n}: {exc})") from None
        if not (isinstance(step["upper"], int) and isinstance(step["lower"], int)):
            raise RunError(f"{path}: not a ladder run (step {n}: its levels are not numbers)")
    return run


def merge_runs(
    runs: Sequence[tuple[str, dict[str, Any]]], name: str, command: str
) -> dict[str, Any]:
    """One run of the steps of ``runs`` (a file name and its :func:`read_run` each).

    Each step records its ``source`` file and its run's ``commit`` and ``engine_tree``
    (if the step has none of its own); the fields of each run (command, times, cores,
    load, commit, engine tree, table, resumption) are kept in ``sources``, its table of
    levels at the top only if all the runs played the same one.  A merged
    file given again counts as its runs.  A step in two runs is refused (there is no
    rule to pick one result, and the sums would count both), and so is a ladder with a
    gap (its sums would pass over the missing step).  The steps come as a run has them:
    the ladder's from the lowest up, then the cross-checks and the random check.
    """
    sources: list[dict[str, Any]] = []
    steps: list[tuple[Step, dict[str, Any]]] = []
    where: dict[tuple[int, int], str] = {}
    for file, run in runs:
        if "sources" in run:
            top = {"levels": run["levels"]} if "levels" in run else {}
            sources += [{**src, **top} for src in run["sources"]]
        else:
            sources.append({"file": file, **{k: v for k, v in run.items() if k != "steps"}})
        for s in run["steps"]:
            record = {**s, "source": s.get("source") or file}
            record["commit"] = s.get("commit") or run.get("commit", "")
            record["engine_tree"] = s.get("engine_tree") or run.get("engine_tree", "")
            step = Step(**record)
            key = (step.upper, step.lower)
            if key in where:
                place = f"twice in {file}" if where[key] == file else f"in {where[key]} and {file}"
                raise RunError(f"step {step.title} is {place}")
            where[key] = file
            steps.append((step, record))
    ladder = {s.upper for s, _ in steps if s.on_ladder}
    if gaps := [
        u for u in range(min(ladder, default=0), max(ladder, default=0)) if u not in ladder
    ]:
        missing = ", ".join(f"{u} v {u - 1}" for u in gaps)
        raise RunError(f"the merged ladder has a gap: no step {missing}")
    steps.sort(key=lambda sr: (0, sr[0].upper) if sr[0].on_ladder else (1, 0))
    data: dict[str, Any] = {
        "name": name,
        "command": command,
        "merged": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"),
    }
    levels = [src.get("levels") for src in sources]
    if levels and all(v == levels[0] for v in levels):
        data["levels"] = levels[0]
        sources = [{k: v for k, v in src.items() if k != "levels"} for src in sources]
    return {**data, "sources": sources, "steps": [record for _, record in steps]}


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
        "limit": _describe_limit(level, args.time_scale, args.top_nodes),
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
    use_table(table)
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
             _describe_limit(u, args.time_scale, args.top_nodes))
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
                f"{step.title}: +{step.wins} ={step.draws} -{step.losses}, Elo {_fmt(gap)} "
                f"[{_fmt(low)}, {_fmt(high)}] in {step.seconds:.0f} s"
            )
    data["finished"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M")
    data["load_end"] = os.getloadavg()[0]
    out.with_suffix(".json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    _write_report(data, out.with_suffix(".json"), compare)
    return 0


if __name__ == "__main__":
    sys.exit(main())
