"""SPRT of the working tree's engine against the frozen baseline (or itself).

Builds the baseline of ``benchmarks/baseline.py`` (commit 4e48133 by default)
from git, then runs ``poolcheckers match --sprt`` with A = this tree's engine
in the match processes and B = the baseline's ``poolcheckers hub``; the
summary, the games and the plot go to ``benchmarks/results/sprt_<name>.*``:

    nice -n 10 .venv/bin/python benchmarks/sprt.py --name lmr --elo 0 10 --time 0.05
    nice -n 10 .venv/bin/python benchmarks/sprt.py --name eval --elo 0 10 --nodes 100000 \\
        --commit 0f3a28d                 # against an earlier commit, at fixed nodes
    nice -n 10 .venv/bin/python benchmarks/sprt.py --name final --elo 0 10 --time 0.1 \\
        --games 400 --no-sprt          # a fixed-length match

Everything after ``--`` is passed on to ``poolcheckers match`` (e.g.
``-- --threads-a 2``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shlex
import sys
from pathlib import Path
from typing import TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent))

from baseline import BASELINE_COMMIT, build, hub_command

from poolcheckers.cli import main as cli_main

RESULTS = Path(__file__).resolve().parent / "results"


class _Tee(io.TextIOBase):
    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
            stream.flush()
        return len(text)


def main(argv: list[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in arguments:
        cut = arguments.index("--")
        arguments, extra = arguments[:cut], arguments[cut + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", required=True, help="name of the test (result file names)")
    parser.add_argument("--elo", nargs=2, type=float, default=[0.0, 10.0], metavar=("E0", "E1"))
    parser.add_argument("--time", type=float, default=0.05, help="seconds per move")
    parser.add_argument(
        "--nodes", type=int, help="nodes per move instead of --time (independent of the load)"
    )
    parser.add_argument("--games", type=int, help="at most this many games")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--commit", default=BASELINE_COMMIT, help="the baseline commit")
    parser.add_argument(
        "--candidate",
        metavar="COMMIT",
        help="A is this commit, built like the baseline and run as a Hub engine "
        "(default: the working tree's engine, in the match processes)",
    )
    parser.add_argument("--no-sprt", action="store_true", help="a fixed match of --games")
    args = parser.parse_args(arguments)
    directory = build(args.commit)
    RESULTS.mkdir(exist_ok=True)
    stem = RESULTS / f"sprt_{args.name}"
    name_a = "poolcheckers (working tree)"
    side_a: list[str] = []
    if args.candidate:
        side_a = ["--hub-a", shlex.join(hub_command(build(args.candidate)))]
        name_a = f"candidate {args.candidate}"
    match_args = [
        "match",
        *side_a,
        "--hub-b",
        shlex.join(hub_command(directory)),
        "--name-a",
        name_a,
        "--name-b",
        f"baseline {args.commit}",
        *(["--nodes", str(args.nodes)] if args.nodes else ["--time", str(args.time)]),
        "--concurrency",
        str(args.concurrency),
        "--pdn",
        str(stem.with_suffix(".pdn")),
        "--plot",
        str(stem.with_suffix(".png")),
    ]
    if not args.no_sprt:
        match_args += ["--sprt", str(args.elo[0]), str(args.elo[1])]
    if args.games is not None:
        match_args += ["--games", str(args.games)]
    match_args += extra
    log = stem.with_suffix(".txt")
    with log.open("w", encoding="utf-8") as handle:
        handle.write(f"$ poolcheckers {shlex.join(match_args)}\n")
        with contextlib.redirect_stdout(_Tee(sys.stdout, handle)):
            status = cli_main(match_args)
    print(f"summary saved to {log}")
    return status


if __name__ == "__main__":
    sys.exit(main())
