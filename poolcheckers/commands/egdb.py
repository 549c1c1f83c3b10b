"""``poolcheckers egdb``: build, probe, verify and count the endgame tables (docs/EGDB.md).

poolcheckers egdb build --pieces 4 [--dir DIR] [--rules OPTION=VALUE ...]
poolcheckers egdb build --pieces 7 --dir /shared --scheduler tcp://HOST:8786 --slice-states N
poolcheckers egdb probe --fen "W:WK3,K7,K10:BK32" [--json]
poolcheckers egdb probe --fen - < positions.txt      (one FEN a line, one answer a line)
poolcheckers egdb verify [--pieces N]
poolcheckers egdb stats [--pieces N] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from poolcheckers.board import Board
from poolcheckers.cli import UsageError, add_rules_argument
from poolcheckers.commands.common import (
    EngineUnavailable,
    help_description,
    quiet_broken_pipe,
    tolerate_bad_bytes,
)
from poolcheckers.egdb import (
    Tablebase,
    TablebaseError,
    build,
    canonical,
    default_directory,
    dependency_levels,
    material_name,
    materials,
    stats,
    verify,
)
from poolcheckers.errors import PoolCheckersError, RuleSetError
from poolcheckers.rules import RuleSet


def _rules(args: argparse.Namespace) -> RuleSet:
    try:
        return RuleSet.from_options(args.rules)
    except RuleSetError as exc:
        raise UsageError(str(exc)) from None


def _directory(args: argparse.Namespace) -> Path:
    return Path(args.dir) if args.dir else default_directory()


class _Bar:
    """A tqdm bar over states, fed by the native progress callback."""

    def __init__(self, desc: str) -> None:
        from tqdm import tqdm

        self.bar = tqdm(desc=desc, unit="pos", unit_scale=True, file=sys.stderr, disable=None)

    def __call__(self, done: int, total: int, material: str) -> None:
        if self.bar.total != total:
            self.bar.total = total
        if material:
            self.bar.set_postfix_str(material, refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        self.bar.close()


def _build(args: argparse.Namespace, out: TextIO) -> int:
    rules = _rules(args)
    if not 2 <= args.pieces <= 8:
        raise UsageError(f"--pieces must be 2..8, not {args.pieces}")
    if not 1 <= args.threads <= 16:
        raise UsageError(f"--threads must be 1..16, not {args.threads}")
    if (args.slice_states is not None or args.slice_all) and not args.scheduler:
        raise UsageError("--slice-states and --slice-all cut the tasks of --scheduler")
    if args.slice_states is not None and args.slice_states < 1:
        raise UsageError(f"--slice-states must be positive, not {args.slice_states}")
    directory = _directory(args)
    start = time.perf_counter()
    if args.scheduler:
        from poolcheckers.egdb.distributed import build_distributed

        try:
            build_distributed(
                args.pieces,
                directory,
                rules,
                args.scheduler,
                threads=args.threads,
                slice_states=args.slice_states,
                slice_all=args.slice_all,
            )
        except TablebaseError as exc:
            raise UsageError(str(exc)) from None
    else:
        bar = _Bar(f"egdb build {args.pieces}")
        try:
            build(args.pieces, directory, rules, threads=args.threads, progress=bar)
        except TablebaseError as exc:
            raise UsageError(str(exc)) from None
        finally:
            bar.close()
    elapsed = time.perf_counter() - start
    stored = [m for level in dependency_levels(args.pieces) for m in level]
    size = sum((directory / f"egdb_{''.join(map(str, m))}.pcdb").stat().st_size for m in stored)
    print(
        f"built {len(stored)} tables of up to {args.pieces} pieces ({rules.name}) in {directory}: "
        f"{size / 2**20:.2f} MiB, {elapsed:.1f} s",
        file=out,
    )
    return 0


def _open(args: argparse.Namespace, rules: RuleSet) -> Tablebase:
    try:
        tb = Tablebase(_directory(args))
    except TablebaseError as exc:
        raise UsageError(f"{exc} (build them with: poolcheckers egdb build --pieces N)") from None
    if not tb.matches(rules):
        raise UsageError(
            f"the tables in {tb.directory} were built under {tb.rules.name}, not {rules.name}: "
            "pass the same --rules"
        )
    return tb


def _answer(tb: Tablebase, fen: str, rules: RuleSet, as_json: bool) -> tuple[str, bool]:
    """One output line for a FEN and whether the position was covered."""
    board = Board.from_fen(fen, rules=rules)
    result = tb.probe(board)
    if result is None:
        pieces = (board.black | board.white).bit_count()
        reason = f"not in the tables ({pieces} pieces; the files hold up to {tb.max_pieces})"
        return ("null" if as_json else reason), False
    if as_json:
        return json.dumps(result.to_json()), True
    dtz = "" if result.dtz is None else f", conversion in {result.dtz} plies"
    running = (
        "" if result.value == result.fresh_value else f" (with fresh counts: {result.fresh_value})"
    )
    return f"tablebase: {result.value}{running}{dtz}", True


def _probe(args: argparse.Namespace, out: TextIO) -> int:
    rules = _rules(args)
    tb = _open(args, rules)
    if args.fen != "-":
        try:
            line, covered = _answer(tb, args.fen, rules, args.json)
        except PoolCheckersError as exc:
            raise UsageError(str(exc)) from None
        print(line, file=out)
        return 0 if covered else 1
    tolerate_bad_bytes()
    for raw in sys.stdin:
        fen = raw.strip()
        if not fen:
            continue
        try:
            line, _ = _answer(tb, fen, rules, args.json)
        except PoolCheckersError as exc:
            line = json.dumps({"error": str(exc)}) if args.json else f"error: {exc}"
        print(line, file=out, flush=False)
    out.flush()
    return 0


def _verify(args: argparse.Namespace, out: TextIO) -> int:
    directory = _directory(args)
    rules = _rules(args) if args.rules else None
    bar = _Bar("egdb verify")
    try:
        results = verify(directory, rules, args.pieces, threads=args.threads, progress=bar)
    except TablebaseError as exc:
        raise UsageError(str(exc)) from None
    finally:
        bar.close()
    bad = 0
    for r in results:
        if r.bad:
            bad += 1
            what = "missing" if r.bad < 0 else f"{r.bad} states disagree with their successors"
            print(f"{material_name(r.material)}: {what}", file=out)
            if r.detail:
                print(r.detail.rstrip(), file=out)
    print(f"verified {len(results)} tables: {len(results) - bad} consistent, {bad} not", file=out)
    return 0 if bad == 0 else 1


def _stats(args: argparse.Namespace, out: TextIO) -> int:
    directory = _directory(args)
    rules = _rules(args) if args.rules else None
    rows: list[dict[str, Any]] = []
    try:
        for material in materials(args.pieces):
            if not (directory / f"egdb_{''.join(map(str, canonical(material)))}.pcdb").exists():
                continue
            black, _ = stats(material, directory, rules)
            rows.append(
                {
                    "material": material_name(material),
                    "wins": black.wins,
                    "draws": black.draws,
                    "losses": black.losses,
                    "longest_win": black.longest_win,
                    "longest_loss": black.longest_loss,
                }
            )
    except TablebaseError as exc:
        raise UsageError(str(exc)) from None
    if not rows:
        raise UsageError(f"no endgame table files (egdb_*.pcdb) in {directory}")
    if args.json:
        print(json.dumps(rows, indent=1), file=out)
        return 0
    print("Black to move (its mirror is White to move); fresh counts", file=out)
    print(f"{'material':<14}{'wins':>10}{'draws':>10}{'losses':>10}  longest DTZ", file=out)
    for r in rows:
        longest = max(
            (x for x in (r["longest_win"], r["longest_loss"]) if x is not None), default=None
        )
        print(
            f"{r['material']:<14}{r['wins']:>10}{r['draws']:>10}{r['losses']:>10}  "
            f"{'-' if longest is None else longest}",
            file=out,
        )
    return 0


@quiet_broken_pipe
def run(args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    from poolcheckers.engine import native_available

    if not native_available():
        raise EngineUnavailable(
            "the endgame tables need the native core poolcheckers._core, which is not built "
            "(install a C compiler and reinstall, or run: make setup)"
        )
    action = {"build": _build, "probe": _probe, "verify": _verify, "stats": _stats}[args.action]
    return action(args, out)


def register(subparsers: Any) -> None:
    """Add the ``egdb`` sub-command."""
    parser = subparsers.add_parser(
        "egdb",
        help="endgame tables: build, probe, verify, stats",
        description=help_description(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--dir", help=f"directory of the tables (default: {default_directory()})")
        add_rules_argument(p, "rule options of docs/RULES.md §9, e.g. king_only_move_limit=15")

    b = actions.add_parser("build", help="solve every material of up to N pieces")
    common(b)
    b.add_argument("--pieces", type=int, required=True, help="largest number of pieces (2..8)")
    b.add_argument("--threads", type=int, default=2, help="threads (default 2)")
    b.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the materials as tasks on this Dask distributed scheduler (extra 'distributed')",
    )
    b.add_argument(
        "--slice-states",
        type=int,
        metavar="N",
        help="with --scheduler: build a material with men of more than N states in slices of "
        "at most N states (one progress value or part of one; docs/EGDB.md)",
    )
    b.add_argument(
        "--slice-all",
        action="store_true",
        help="with --scheduler: build every material with men in slices",
    )
    p = actions.add_parser("probe", help="value, DTZ and fresh value of positions")
    common(p)
    p.add_argument("--fen", required=True, help="a FEN (R5, with :H/:C counts), or - for stdin")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    v = actions.add_parser("verify", help="re-derive every stored position from its successors")
    common(v)
    v.add_argument("--pieces", type=int, default=8, help="largest material to check")
    v.add_argument("--threads", type=int, default=2, help="threads (default 2)")
    s = actions.add_parser("stats", help="wins, draws, losses and longest DTZ of every material")
    common(s)
    s.add_argument("--pieces", type=int, default=8, help="largest material to list")
    s.add_argument("--json", action="store_true", help="JSON rows")
    parser.set_defaults(func=run)
