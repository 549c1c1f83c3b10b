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
``--compare OTHER.json`` the other ladder too)::

    nice -n 10 .venv/bin/python benchmarks/ladder.py --games-low 100 --games-high 40 \\
        --cross 1-5,5-10 --random-check 40
    .venv/bin/python benchmarks/ladder.py --replot benchmarks/results/ladder.json \\
        --compare benchmarks/results/ladder_before.json
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


def report(data: dict[str, Any]) -> str:
    """The Markdown of a ladder run (its JSON ``data``)."""
    steps = [Step(**s) for s in data["steps"]]
    chain = [s for s in steps if s.on_ladder and s.pair_points]
    others = [s for s in steps if s not in chain and s.pair_points]
    cumulative = ladder_elo(chain)
    lines = [
        f"# Ladder of levels ({data['name']})",
        "",
        f"Command: `{data['command']}`",
        "",
        f"Run {data['started']} to {data.get('finished', '(unfinished)')} UTC on "
        f"{data['cpus']} cores; load average (1 min) {data['load_start']:.2f} at the start, "
        f"{data.get('load_end', float('nan')):.2f} at the end (other jobs shared the cores; "
        "levels 1-9 cap their depth and seldom reach their time, so it is level 10's play "
        "that depends on the load).",
        *(
            [f"Resumed: the {data['resumed']}; each step's start and load are its own."]
            if data.get("resumed")
            else []
        ),
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
    lines += [
        "",
        "The levels played (`poolcheckers.engine.LEVELS`; level 10: the full engine):",
        "",
        "| level | depth | noise | temperature | margin |",
        "|---|---|---|---|---|",
        *(
            f"| {k} | {v['depth'] or 'full'} | {v['noise']} | {v['temperature']:g} | "
            f"{v['margin']} |"
            for k, v in sorted(data["levels"].items(), key=lambda kv: int(kv[0]))
        ),
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


def _spans(text: str) -> list[tuple[int, int]]:
    out = []
    for part in filter(None, text.split(",")):
        low, high = sorted(int(v) for v in part.split("-"))
        if not (1 <= low < high <= 10):
            raise SystemExit(f"--cross: {part!r} is not two levels 1..10, e.g. 1-5")
        out.append((high, low))
    return out


def _commit() -> str:
    """The engine's commit (``+`` when the tree has changes): a resumed run keeps
    only the steps played by the same engine."""
    root = Path(poolcheckers.__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "poolcheckers", "native"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty else "")  # fmt: skip


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
    parser.add_argument("--name", default="ladder", help="result file names")
    parser.add_argument("--table", metavar="FILE.json", help="a candidate table of levels 1-9")
    parser.add_argument("--resume", action="store_true", help="keep the finished steps of --name")
    parser.add_argument("--results", default=str(RESULTS), help="directory of the result files")
    parser.add_argument("--replot", metavar="RUN.json", help="only redo the table and plot")
    parser.add_argument("--compare", metavar="OTHER.json", help="plot another ladder too")
    args = parser.parse_args(argv)
    compare = json.loads(Path(args.compare).read_text()) if args.compare else None
    if args.replot:
        run = json.loads(Path(args.replot).read_text())
        path = Path(args.replot)
        path.with_suffix(".md").write_text(report(run), encoding="utf-8")
        plot(run, path.with_suffix(".png"), compare)
        print(report(run))
        return 0
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
        "command": " ".join(["benchmarks/ladder.py", *(sys.argv[1:] if argv is None else argv)]),
        "started": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"),
        "cpus": os.cpu_count(),
        "commit": _commit(),
        "load_start": os.getloadavg()[0],
        "levels": {str(k): asdict(v) for k, v in LEVELS.items()},
        "table": args.table,
        "steps": [],
    }
    if done:
        data["resumed"] = (
            f"steps whose levels did not change kept from the run of {before['started']}"
        )
    steps = [
        Step(u, lo, 2 * (_games_of((u, lo), args) // 2),
             _describe_limit(u, args.time_scale, args.top_nodes))
        for u, lo in plan
    ]  # fmt: skip
    for step in steps:
        step.played = [_played(step.upper, args), _played(step.lower, args)]
    kept = [
        s
        for s in steps
        if (old := done.get((s.upper, s.lower))) is not None
        and old["games"] == s.games
        and old.get("played") == s.played
        and before.get("commit") == data["commit"]
    ]
    with tqdm(
        total=sum(s.games for s in steps if s not in kept), desc="ladder", unit="game"
    ) as bar:
        for step in steps:
            if step in kept:
                data["steps"].append(done[(step.upper, step.lower)])
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
    out.with_suffix(".md").write_text(report(data), encoding="utf-8")
    plot(data, out.with_suffix(".png"), compare)
    print(report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
