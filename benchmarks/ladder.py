"""The ladder of levels: each level against the one below it.

For each level L from 2 to 10, ``poolcheckers match --level-a L --level-b L-1``
over the balloted openings (pairs, both colours), every move at the time of
the stronger level (``level_move_time``: 0.1 s a level; levels 1-9 also cap
their depth, so they usually answer sooner).  The Elo gap of each step comes
with its 95 % interval (pentanomial, see ``poolcheckers.engine.sprt``); the
ladder's Elo is the sum of the steps from level 1 (0).  Results go to
``benchmarks/results/ladder.md``:

    nice -n 10 .venv/bin/python benchmarks/ladder.py --games 40 --concurrency 2
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
from pathlib import Path

from poolcheckers.cli import main as cli_main
from poolcheckers.engine import level_move_time

RESULTS = Path(__file__).resolve().parent / "results"

_ELO = re.compile(r"Elo ([+-][\d.]+|[+-]inf) \[([+-][\d.]+|[+-]inf), ([+-][\d.]+|[+-]inf)\]")
_WDL = re.compile(r"\+(\d+) =(\d+) -(\d+)")


def step(level: int, games: int, concurrency: int, scale: float) -> tuple[str, str]:
    """One match of ``level`` against ``level - 1``: its summary and W/D/L + Elo."""
    seconds = level_move_time(level) * scale
    args = ["match", "--level-a", str(level), "--level-b", str(level - 1),
            "--time", f"{seconds:g}", "--games", str(games),
            "--concurrency", str(concurrency)]  # fmt: skip
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        cli_main(args)
    text = buffer.getvalue()
    return text, f"{level} v {level - 1} at {seconds:g} s/move"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games a step (pairs: even)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--time-scale", type=float, default=1.0, help="times the level's time")
    parser.add_argument("--low", type=int, default=2, help="first level to test against L-1")
    parser.add_argument("--high", type=int, default=10)
    args = parser.parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    rows = [
        "| step | W | D | L | Elo (95 %) | ladder Elo of the upper level |",
        "|---|---|---|---|---|---|",
    ]
    total = 0.0
    for level in range(args.low, args.high + 1):
        text, title = step(level, args.games, args.concurrency, args.time_scale)
        print(text, flush=True)
        wdl = _WDL.search(text)
        elo = _ELO.search(text)
        if not (wdl and elo):
            rows.append(f"| {title} | ? | ? | ? | (no result) | |")
            continue
        value = float(elo.group(1))
        total += value
        rows.append(
            f"| {title} | {wdl.group(1)} | {wdl.group(2)} | {wdl.group(3)} | "
            f"{elo.group(1)} [{elo.group(2)}, {elo.group(3)}] | {total:+.0f} |"
        )
    table = "\n".join(rows)
    print(table)
    (RESULTS / "ladder.md").write_text(
        "# Ladder of levels (benchmarks/ladder.py)\n\n"
        f"`{' '.join(sys.argv)}`; level 1 is 0 Elo.\n\n{table}\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
