"""``poolcheckers puzzles``: find pool puzzles in games, check a puzzle file, count it.

poolcheckers puzzles generate --out FILE [--puzzles N | --games N] [--seed S] [--jobs J]
                              [--pdn FILE ...] [--tables DIR]
poolcheckers puzzles check FILE [--unique all|N] [--json] [--plot PNG]

``generate`` plays the engine against itself from random openings (or reads the games
of PDN files: the site's archive as exported, any collection) and keeps the positions
where one move alone wins material, the game, or saves it (docs/PUZZLES.md).  It
writes each game's puzzles as it goes, with a state file beside the output
(``FILE.state.json``): run it again to resume where it stopped; the same seed and
settings give the same puzzles whatever the number of jobs.  ``check`` replays every
puzzle with the rules library, searches its solver moves again (all, or a sample) to
confirm that each is the only one that keeps the gain, and reports the themes and
ratings.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from poolcheckers.board import Board
from poolcheckers.cli import UsageError
from poolcheckers.commands.common import help_description, quiet_broken_pipe
from poolcheckers.egdb import Tablebase, TablebaseError
from poolcheckers.errors import PdnError
from poolcheckers.pdn import iter_games
from poolcheckers.puzzles.generate import Found, Generator, Settings, verify
from poolcheckers.puzzles.record import (
    Puzzle,
    PuzzleError,
    read_puzzles,
    replay,
    write_puzzles,
)

#: game seeds are spread from the run's seed (game n of seed s: s * SPREAD + n)
SPREAD = 1_000_003

_GENERATOR: list[Generator] = []
_SOURCES: list[list[tuple[str, str, list[str]]]] = []


def _tables(directory: str | None) -> Tablebase | None:
    if directory is None:
        return None
    try:
        return Tablebase(directory)
    except TablebaseError as error:
        raise UsageError(f"--tables {directory}: {error}") from None


def _start_worker(
    settings: Settings, tables: str | None, games: list[tuple[str, str, list[str]]]
) -> None:
    _GENERATOR.append(Generator(settings, _tables(tables)))
    _SOURCES.append(games)


def _one_game(task: tuple[int, int]) -> Found:
    """Game ``index`` (self-play from ``seed``, or the index-th game of the PDN files)."""
    seed, index = task
    generator = _GENERATOR[0]
    games = _SOURCES[0]
    if games:
        name, fen, notations = games[index]
        start = Board(fen)
        board = start.copy(stack=False)
        moves = [board.push_notation(n) for n in notations]
        return generator.game(start, moves, name)
    moves = generator.self_play(seed * SPREAD + index)
    return generator.game(Board(), moves, f"self-play {seed}:{index}")


def _pdn_games(paths: list[str]) -> list[tuple[str, str, list[str]]]:
    out: list[tuple[str, str, list[str]]] = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"--pdn {path}: {error}") from None
        skipped: list[PdnError] = []
        for game in iter_games(text, on_error=skipped.append):
            # a game of the site's archive (/api/export.pdn) is named by its id
            label = game.tags.get("GameId") or f"{Path(path).name}#{game.number}"
            out.append((label, game.start_fen, game.notations()))
        for bad in skipped[:5]:
            print(f"skipped: {bad}", file=sys.stderr)
    if not any(notations for _, _, notations in out):
        # an empty list would mean self-play: never instead of the files named
        raise UsageError(f"--pdn {' '.join(paths)}: no game with a move to read")
    return out


def _state_path(out: Path) -> Path:
    return out.with_name(out.name + ".state.json")


def _settings(args: argparse.Namespace) -> Settings:
    return Settings(nodes=args.nodes, scan_nodes=args.scan_nodes, margin=args.margin)


@quiet_broken_pipe
def generate(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    out = Path(args.out)
    settings = _settings(args)
    games = _pdn_games(args.pdn) if args.pdn else []
    state_file = _state_path(out)
    described = {
        "seed": args.seed,
        "settings": {k: getattr(settings, k) for k in ("nodes", "scan_nodes", "margin")},
        "pdn": args.pdn or [],
        "tables": args.tables is not None,
    }
    state: dict[str, Any] = {
        "next_game": 0,
        "positions": 0,
        "candidates": 0,
        "kept": 0,
        "duplicates": 0,
        "seconds": 0.0,
    }
    if state_file.exists() and out.exists():
        saved = json.loads(state_file.read_text(encoding="utf-8"))
        if saved.get("run") != described:
            raise UsageError(
                f"{out} was made with other settings ({saved.get('run')}): "
                "choose another --out or the same settings"
            )
        state.update(saved.get("counts", {}))
    elif out.exists():
        raise UsageError(f"{out} exists without its state file: choose another --out")
    seen = {p.fen for p in read_puzzles(out)} if out.exists() else set()
    last = len(games) if games else args.games
    target = args.puzzles
    began = time.monotonic()
    spent = float(state["seconds"])
    tasks = ((args.seed, i) for i in range(int(state["next_game"]), last))
    context = get_context("spawn")
    bar = tqdm(
        total=target or (last - int(state["next_game"])),
        initial=int(state["kept"]) if target else 0,
        unit="puzzle" if target else "game",
        file=sys.stderr,
        disable=None,
    )
    with ProcessPoolExecutor(
        args.jobs,
        mp_context=context,
        initializer=_start_worker,
        initargs=(settings, args.tables, games),
    ) as pool:
        for found in pool.map(_one_game, tasks, chunksize=1):
            fresh = [p for p in found.puzzles if p.fen not in seen]
            seen.update(p.fen for p in fresh)
            write_puzzles(out, fresh, append=True)
            state["next_game"] += 1
            state["positions"] += found.positions
            state["candidates"] += found.candidates
            state["kept"] += len(fresh)
            state["duplicates"] += len(found.puzzles) - len(fresh)
            state["seconds"] = round(spent + time.monotonic() - began, 1)
            state_file.write_text(
                json.dumps({"run": described, "counts": state}, indent=1), encoding="utf-8"
            )
            bar.update(len(fresh) if target else 1)
            bar.set_postfix(games=state["next_game"], kept=state["kept"])
            if target and state["kept"] >= target:
                pool.shutdown(wait=False, cancel_futures=True)
                break
    bar.close()
    print(
        f"games read {state['next_game']}, positions {state['positions']}, candidates "
        f"{state['candidates']}, puzzles kept {state['kept']} (duplicates dropped "
        f"{state['duplicates']}), {state['seconds']:.0f} s; written to {out}"
    )
    return 0


def _sample(puzzles: list[Puzzle], how: str, seed: int) -> list[Puzzle]:
    if how == "all":
        return puzzles
    if how == "none":
        return []
    try:
        n = int(how)
    except ValueError:
        raise UsageError(f"--unique must be all, none or a number, not {how!r}") from None
    return random.Random(seed).sample(puzzles, min(n, len(puzzles)))


def check_report(
    puzzles: list[Puzzle], unique: list[Puzzle], generator: Generator | None
) -> dict[str, Any]:
    """Rules problems, uniqueness problems and the distribution of a puzzle set."""
    rules_bad: list[str] = []
    failed: list[str] = []
    for puzzle in puzzles:
        try:
            replay(puzzle)
        except PuzzleError as error:
            rules_bad.append(str(error))
            failed.append(puzzle.id)
    unique_bad: list[str] = []
    if generator is not None:
        for puzzle in _progress(unique, "uniqueness"):
            problem = verify(generator, puzzle)
            if problem is not None:
                unique_bad.append(f"{puzzle.id}: {problem}")
                failed.append(puzzle.id)
    ratings = sorted(p.rating for p in puzzles)
    bands = Counter(f"{r // 200 * 200}-{r // 200 * 200 + 199}" for r in ratings)
    return {
        "puzzles": len(puzzles),
        "ids_unique": len({p.id for p in puzzles}) == len(puzzles),
        "rules_problems": rules_bad,
        "uniqueness_checked": len(unique),
        "uniqueness_problems": unique_bad,
        "failed_ids": sorted(set(failed)),
        "goals": dict(Counter(p.goal for p in puzzles).most_common()),
        "themes": dict(Counter(t for p in puzzles for t in p.themes).most_common()),
        "solver_moves": dict(sorted(Counter(p.solver_moves for p in puzzles).items())),
        "ratings": {
            "min": ratings[0] if ratings else None,
            "median": ratings[len(ratings) // 2] if ratings else None,
            "max": ratings[-1] if ratings else None,
            "bands": dict(sorted(bands.items(), key=lambda kv: int(kv[0].split("-")[0]))),
        },
    }


def _progress(items: list[Puzzle], desc: str) -> Iterator[Puzzle]:
    from tqdm import tqdm

    yield from tqdm(items, desc=desc, unit="puzzle", file=sys.stderr, disable=None)


@quiet_broken_pipe
def check(args: argparse.Namespace) -> int:
    if args.plot:  # before the minutes of checking, not at their end
        from poolcheckers.tooling import require_extra

        require_extra("matplotlib", purpose="puzzles check --plot")
    try:
        puzzles = list(read_puzzles(args.file))
    except (OSError, PuzzleError) as error:
        raise UsageError(f"{args.file}: {error}") from None
    unique = _sample(puzzles, args.unique, args.seed)
    generator = Generator(_settings(args), _tables(args.tables)) if unique else None
    report = check_report(puzzles, unique, generator)
    if args.plot:
        _plot(puzzles, args.plot)
    if args.keep:
        _keep(puzzles, set(report["failed_ids"]), Path(args.keep))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{report['puzzles']} puzzles; ids unique: {report['ids_unique']}")
        print(f"rules problems: {len(report['rules_problems'])}")
        print(
            f"uniqueness: {report['uniqueness_checked']} checked, "
            f"{len(report['uniqueness_problems'])} problems"
        )
        for line in report["rules_problems"][:10] + report["uniqueness_problems"][:10]:
            print("  " + line)
        print("goals: " + ", ".join(f"{k} {v}" for k, v in report["goals"].items()))
        print("themes: " + ", ".join(f"{k} {v}" for k, v in report["themes"].items()))
        print("solver moves: " + ", ".join(f"{k}: {v}" for k, v in report["solver_moves"].items()))
        r = report["ratings"]
        print(f"ratings: min {r['min']}, median {r['median']}, max {r['max']}")
        for band, n in r["bands"].items():
            print(f"  {band:>9} {n:5d} {'#' * max(1, n * 60 // max(1, report['puzzles']))}")
    bad = report["rules_problems"] or report["uniqueness_problems"] or not report["ids_unique"]
    return 1 if bad else 0


def _keep(puzzles: list[Puzzle], failed: set[str], out: Path) -> None:
    """``--keep``: the puzzles that passed, in their order, written beside ``out``
    and then moved onto it (``out`` may be the file checked)."""
    kept = [p for p in puzzles if p.id not in failed]
    partial = out.with_name(f".{out.name}.partial{out.suffix}")
    try:
        write_puzzles(partial, kept)
        os.replace(partial, out)
    except OSError as error:
        raise UsageError(f"--keep {out}: {error.strerror or error}") from None
    print(f"kept {len(kept)} of {len(puzzles)} puzzles in {out}", file=sys.stderr)


def _plot(puzzles: list[Puzzle], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.hist([p.rating for p in puzzles], bins=range(600, 2700, 100), color="#5b7f3a")
    left.set_title(f"Starting ratings of {len(puzzles)} puzzles")
    left.set_xlabel("rating")
    themes = Counter(t for p in puzzles for t in p.themes if not t.startswith("shot_"))
    names, counts = zip(*themes.most_common(14), strict=True) if themes else ((), ())
    right.barh(list(names)[::-1], list(counts)[::-1], color="#8a5a2b")
    right.set_title("Themes")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def register(subparsers: Any) -> None:
    """Add the ``puzzles`` sub-command."""
    parser = subparsers.add_parser(
        "puzzles",
        help="find puzzles in games; check a puzzle file",
        description=help_description(__doc__),
    )
    sub = parser.add_subparsers(dest="action", required=True)

    def search_options(p: argparse.ArgumentParser) -> None:
        defaults = Settings()
        p.add_argument(
            "--nodes",
            type=int,
            default=defaults.nodes,
            help="nodes of each solver move's two-line search (default %(default)s)",
        )
        p.add_argument(
            "--scan-nodes",
            type=int,
            default=defaults.scan_nodes,
            help="nodes of the scan of each game position (default %(default)s)",
        )
        p.add_argument(
            "--margin",
            type=int,
            default=defaults.margin,
            help="how much worse the second move must be, centi-men (default %(default)s)",
        )
        p.add_argument(
            "--tables",
            default=None,
            help="endgame tables' folder: exact lines where they cover the position",
        )
        p.add_argument("--seed", type=int, default=1, help="random seed (default %(default)s)")

    gen = sub.add_parser("generate", help="find puzzles in self-play or PDN games")
    gen.add_argument("--out", required=True, help="the JSON-lines file written (.gz: gzip)")
    gen.add_argument("--puzzles", type=int, default=None, help="stop once this many are kept")
    gen.add_argument(
        "--games", type=int, default=1000, help="self-play games to read (default %(default)s)"
    )
    gen.add_argument("--pdn", action="append", help="read the games of this PDN file instead")
    gen.add_argument(
        "--jobs",
        type=int,
        default=max(1, (os.cpu_count() or 1)),
        help="worker processes (default: the CPUs)",
    )
    search_options(gen)
    gen.set_defaults(func=generate)

    chk = sub.add_parser("check", help="check a puzzle file: rules, uniqueness, distribution")
    chk.add_argument("file")
    chk.add_argument(
        "--unique",
        default="all",
        help="puzzles whose uniqueness is searched again: all, none or N (a sample)",
    )
    chk.add_argument("--json", action="store_true", help="the report as JSON")
    chk.add_argument(
        "--keep",
        default=None,
        metavar="OUT",
        help="write the puzzles that passed every check to OUT (.gz: gzip; OUT may be "
        "the file checked): what is left of a set after a search change",
    )
    chk.add_argument("--plot", default=None, help="draw the ratings and themes to this PNG")
    search_options(chk)
    chk.set_defaults(func=check)
