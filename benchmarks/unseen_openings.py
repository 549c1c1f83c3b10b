"""Openings that no game of the given PDN files reached: a test set for a fit.

An evaluation fitted on the games of the SPRT matches (``tune --load-pdn``)
has seen the positions those games went through, and the matches that test
it start from the same 154 balloted openings.  This script draws openings of
``--plies`` plies (default 5) that none of those games reached at that ply,
so a match from them (``poolcheckers match --ballots FILE``) measures the fit
on positions it was not fitted on.

Every legal line of ``--plies`` plies from the start is enumerated; lines
whose position was reached by a game of ``--pdn`` after the same number of
plies, or that transpose into a position already taken, are left out; the
rest are shuffled by ``--seed`` and searched to ``--depth`` with a fresh
table, and the first ``--count`` within ``--margin`` centi-men of equality
are written in the ballot file format::

    .venv/bin/python benchmarks/unseen_openings.py --pdn benchmarks/results/sprt_*.pdn \\
        --output benchmarks/results/openings_unseen5.txt

Positions of the opening book (``--book``, the shipped one by default) are left
out too.  The held-out openings of final results
(``poolcheckers/data/openings_heldout.txt``) were made by it, away from every
game of the project's matches, the book and the earlier unseen set::

    .venv/bin/python benchmarks/unseen_openings.py --pdn benchmarks/results/*.pdn \\
        --avoid benchmarks/results/openings_unseen5.txt --seed 2 --held-out \\
        --output poolcheckers/data/openings_heldout.txt
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from tqdm import tqdm

from poolcheckers import Board
from poolcheckers.engine import Engine, Limit
from poolcheckers.engine.book import Book, default_book
from poolcheckers.pdn import read_file
from poolcheckers.pieces import Color
from poolcheckers.tooling.openings import enumerate_lines, load_ballots, opening_board


def reached(paths: list[str], plies: int) -> set[str]:
    """The positions (FEN) the games of ``paths`` reached after ``plies`` plies."""
    seen: set[str] = set()
    for path in tqdm(paths, desc="games", unit="file", file=sys.stderr, disable=None):
        for game in read_file(path):
            moves = game.moves
            if len(moves) < plies:
                continue
            board = Board(game.start_fen)
            for move in moves[:plies]:
                board.push(move)
            seen.add(board.fen())
    return seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdn", nargs="+", required=True, help="the games to stay away from")
    parser.add_argument("--plies", type=int, default=5)
    parser.add_argument("--count", type=int, default=154)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--margin", type=int, default=30, help="largest |score|, centi-men")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", required=True)
    parser.add_argument("--book", help="a book whose positions to avoid (default: shipped)")
    parser.add_argument("--avoid", nargs="*", default=[], help="ballot files to avoid")
    parser.add_argument(
        "--held-out", action="store_true", help="say in the header that these are held out"
    )
    args = parser.parse_args(argv)

    seen = reached(args.pdn, args.plies)
    book = Book.load(args.book) if args.book else default_book()
    booked = set(book.entries) if book is not None else set()
    for path in args.avoid:
        seen.update(opening_board(o).fen() for o in load_ballots(path, final=True))
    taken: set[str] = set()
    candidates: list[tuple[tuple[str, ...], str]] = []
    for line in enumerate_lines(args.plies):
        board = Board()
        for text in line:
            board.push_notation(text)
        fen = board.fen()
        if fen in seen or fen in booked or fen in taken or board.outcome() is not None:
            continue
        taken.add(fen)
        candidates.append((line, fen))
    random.Random(args.seed).shuffle(candidates)

    engine = Engine()
    kept: list[tuple[str, ...]] = []
    with tqdm(total=args.count, desc="sound", unit="opening", file=sys.stderr, disable=None) as bar:
        for line, fen in candidates:
            if len(kept) == args.count:
                break
            board = Board(fen)
            engine.clear()
            result = engine.search(board, Limit(depth=args.depth))
            black_view = result.score if board.turn is Color.BLACK else -result.score
            if abs(black_view) <= args.margin and result.mate_in is None:
                kept.append(line)
                bar.update(1)
    header = [
        f"# {len(kept)} openings of {args.plies} plies (APCA rules) that no game of "
        f"{len(args.pdn)} PDN file(s) reached after {args.plies} plies ({len(seen)} positions).",
        f"# Made by benchmarks/unseen_openings.py --plies {args.plies} --seed {args.seed} "
        f"--depth {args.depth} --margin {args.margin}: of {len(candidates)} unseen distinct lines,",
        f"# shuffled, the first within ±{args.margin / 100:.2f} men at depth {args.depth}"
        f" (none of {len(booked)} book positions, nor of {len(args.avoid)} avoided file(s)).",
    ]
    if args.held_out:
        header.insert(
            0,
            "# HELD OUT for final results (match --held-out): no tuning, book building "
            "or test of a change may use these openings (poolcheckers.tooling.openings).",
        )
    output = Path(args.output)
    output.write_text("\n".join(header + [" ".join(line) for line in kept]) + "\n", "utf-8")
    print(f"{len(kept)} openings written to {output} ({len(candidates)} unseen lines)")
    return 0 if len(kept) == args.count else 1


if __name__ == "__main__":
    sys.exit(main())
