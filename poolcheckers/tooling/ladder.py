"""The ladder of levels: each level against the one below it, as the web app plays them.

A step is a match of level L (A) against level L-1 in game pairs over the
balloted openings (level 0: a player that picks random legal moves).  Each
side plays as the web app and ``poolcheckers play`` play it: the limit of
:func:`poolcheckers.engine.level_limit`, its time scaled, or a fixed number
of nodes a move at level 10.  A step's Elo gap comes with its 95 % interval
from the pentanomial pair statistics (:func:`poolcheckers.tooling.sprt.estimate`);
a perfect score has no spread, so its gap is only bounded below (Wilson's
95 % bound).  The ladder Elo of a level is the sum of the gaps below it, its
interval the steps' standard errors added in quadrature (the steps are
independent matches).

A run is kept as JSON (:func:`read_run`); runs measured in parts are joined
by :func:`merge_runs` and tabled by :func:`report`.  ``benchmarks/ladder.py``
is the script that plays, resumes, merges and plots runs.
"""

from __future__ import annotations

import datetime
import json
import math
import multiprocessing
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from poolcheckers.board import Board
from poolcheckers.engine import LEVELS, Limit, level_limit, level_move_time, open_engine
from poolcheckers.move import Move
from poolcheckers.rules import RuleSet
from poolcheckers.tooling.games import EnginePlayer, points_of_a
from poolcheckers.tooling.pool import GameData, play_pair
from poolcheckers.tooling.sprt import Pentanomial, estimate
from poolcheckers.tooling.stats import Z_95, format_elo, logistic_elo, wilson_bound

#: the interval half-width given to a step without spread when its steps are summed
_UNBOUNDED = math.inf


class RandomPlayer:
    """Uniformly random legal moves: what a level must never play like."""

    name = "random mover"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, board: Board) -> Move:
        return self._rng.choice(board.legal_moves)


def level_limit_scaled(level: int, scale: float, top_nodes: int | None) -> Limit:
    """The per-move limit of ``level`` as the web app gives it (scaled)."""
    if level == 10 and top_nodes is not None:
        return Limit(nodes=top_nodes)
    return level_limit(level, move_time=round(level_move_time(level) * scale, 6))


def describe_limit(level: int, scale: float, top_nodes: int | None) -> str:
    if level == 10 and top_nodes is not None:
        return f"{top_nodes} nodes"
    if level == 10:
        return f"{level_move_time(level) * scale:g} s"
    return f"depth {LEVELS[level].depth} (≤ {level_move_time(level) * scale:g} s)"


def level_player(level: int, scale: float, top_nodes: int | None) -> Any:
    if level == 0:
        return RandomPlayer()
    return EnginePlayer(
        open_engine(64), level_limit_scaled(level, scale, top_nodes), level, f"level {level}"
    )


def use_table(table: dict[str, dict[str, Any]] | None) -> None:
    """Play a candidate table instead of the shipped one (levels 1-9 only; in place,
    so that the engine sees it too): ``{"3": {"depth": 4, "noise": 30, ...}}``.
    A level outside 1-9 is a :class:`RunError`."""
    for key, fields in (table or {}).items():
        level = int(key)
        if not 1 <= level <= 9:
            raise RunError(f"--table: level {key} is not one of 1..9 (10 is the full engine)")
        LEVELS[level] = replace(LEVELS[level], **fields)


_WORKER: dict[str, Any] = {}


def _init_worker(
    upper: int, lower: int, scale: float, top_nodes: int | None, table: dict[str, Any] | None
) -> None:
    use_table(table)
    _WORKER["a"] = level_player(upper, scale, top_nodes)
    _WORKER["b"] = level_player(lower, scale, top_nodes)


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
        elo = f"> {format_elo(low)} (perfect score; Wilson 95 %)"
    else:
        elo = f"{format_elo(gap)} [{format_elo(low)}, {format_elo(high)}]"
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


def _evaluation(level: dict[str, Any]) -> str:
    """What a level evaluates with (runs before levels could name it: pattern)."""
    if not level["depth"]:
        return "the engine's"
    return "network" if level.get("network") else "pattern"


def _levels_table(levels: dict[str, dict[str, Any]]) -> list[str]:
    return [
        "| level | depth | noise | temperature | margin | evaluation |",
        "|---|---|---|---|---|---|",
        *(
            f"| {k} | {v['depth'] or 'full'} | {v['noise']} | {v['temperature']:g} | "
            f"{v['margin']} | {_evaluation(v)} |"
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
        value = f"≥ {format_elo(elo)}" if bounded else f"{format_elo(elo)} ± {Z_95 * sigma:.0f}"
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
                ladder = f"{sign}{format_elo(hi[0] - lo[0])} ± {spread:.0f}"
            lines.append(f"{_step_row(s)} {ladder} |")
    ends = sorted({r for s in steps for r in s.reasons})
    if ends:
        lines += ["", "How the games ended: " + ", ".join(
            f"{r} {sum(s.reasons.get(r, 0) for s in steps)}" for r in ends
        ) + "."]  # fmt: skip
    return "\n".join(lines) + "\n"


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
