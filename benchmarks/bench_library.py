#!/usr/bin/env python3
"""Speed of the poolcheckers rules library, side by side with py-draughts.

The peer is py-draughts 1.10.1, a pure-Python draughts library.  Its
``RussianBoard`` geometry with the Brazilian core and free capture choice
(``_legal_moves_from_core(CORE_BRAZILIAN, max_capture=False)``) plays pool
checkers: flying kings, men capturing backward, no crowning mid-capture, free
choice, R4 merging.  Its square index ``i`` is our square ``i + 1`` and its
bitboards use the same bits as ours.  The peer is never a dependency of this
project: it lives in a throwaway virtualenv (``/tmp/pdvenv`` by default, created
on first use) and runs in a subprocess that executes this same file with
``--worker peer``.

Figures, each the least CPU time (``time.process_time``: steady while other
work shares the machine) of ``--repeat`` runs of the same workload:

- ``legal moves``: full legal-move generation (Move objects) on the start
  position and 20 mid-game positions (kings, man and king captures), many calls;
- ``push+pop``: play and take back every legal move of each position;
- ``perft(7) start``: leaf count of the start position to 7 plies;
- ``perft(6) mid-game``: leaf count of each mid-game position to 6 plies.

Before timing, both sides must agree on every count: the legal moves of each
position (origin, destination, captured set), the position after each move,
and every perft figure.  Ratio = peer time / our time: above 1, ours is faster.

Usage::

    .venv/bin/python benchmarks/bench_library.py            # full run (~1 min)
    .venv/bin/python benchmarks/bench_library.py --quick    # smoke run
    .venv/bin/python benchmarks/bench_library.py --quick --no-peer
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

PEER_REQUIREMENT = "py-draughts==1.10.1"
DEFAULT_PEER_VENV = Path("/tmp/pdvenv")

START_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"

#: Mid-game positions from seeded random play (seeds 20261129 and 7 of
#: scripts kept in benchmarks/README.md): material within one piece, no
#: running R18/R19 counter.
MIDGAME_FENS: tuple[tuple[str, str], ...] = (
    ("man capture", "W:W13,22,25,26,27,28,31,32:B1,2,5,6,8,9,24"),
    ("man capture", "B:W11,19,24,26,27,29,30,32:B1,2,4,6,7,8,12,21"),
    ("man capture", "W:W18,21,23,26,27,29,30,31,32:B2,3,4,5,7,8,14,15,16"),
    ("man capture", "B:W13,15,21,24,25,26,28,29,30,31,32:B1,2,3,4,6,8,9,10,12,16,18"),
    ("man capture", "W:W20,23,24,29,32:B3,10,12,17,19"),
    ("kings", "W:WK1,22,23,26,29,31,32:B2,4,7,9,12,16,K30"),
    ("kings", "W:W13,K16,26,29,30,31:B3,4,K5,12,21"),
    ("kings", "W:WK1,23,24,29,32:B2,4,8,12,16,K21"),
    ("kings", "W:WK17,24,28,29,30,32:B4,5,6,13,K31"),
    ("kings", "B:W14,21,22,K25,27,29,30,31:B1,5,6,7,8,13,28"),
    ("kings", "W:W12,21,24,25,28,29,30,31:B3,4,5,6,7,11,15,K32"),
    ("king endgame", "W:WK2,10,13,25:B24,K26,K28"),
    ("king endgame", "B:WK2,13,17,21:B3,16,K31,K32"),
    ("king capture", "B:WK2,17,18,22,23,24,25,26,30:B1,3,7,8,10,11,12,13,K28"),
    ("king capture", "B:WK4,21,22,29:B1,2,6,14,K31"),
    ("king capture", "W:WK16,17,20,32:B4,8,23,K31"),
    ("quiet", "W:W16,18,24,25,27,29,30,31:B3,5,7,8,9,10,21"),
    ("quiet", "B:W17,21,24,25,27,28,29,32:B2,3,4,6,11,12,14,20"),
    ("quiet", "B:W15,24,25,26,27,31:B3,4,5,6,12,16"),
    ("quiet", "W:W12,13,21,24,26,29,31:B2,3,4,5,6,15"),
)
ALL_FENS: tuple[str, ...] = (START_FEN, *(fen for _, fen in MIDGAME_FENS))

#: Perft figures on which both libraries agreed, by depth: a run without the
#: peer (``--no-peer``) still checks its counts against them.
EXPECTED_PERFT_START: dict[int, int] = {5: 7482, 7: 190146}
# fmt: off
EXPECTED_PERFT_MID: dict[int, list[int]] = {
    3: [72, 21, 64, 71, 36, 973, 453, 702, 155, 205,
        492, 637, 312, 29, 110, 13, 304, 128, 312, 365],
    6: [10886, 6934, 19792, 21336, 2356, 302973, 133742, 172698, 47422, 24459,
        161296, 193672, 71057, 2518, 33945, 5408, 27700, 12581, 47587, 64698],
}
# fmt: on

#: A move as comparable data: (origin, destination, captured squares), our numbering.
MoveKey = tuple[int, int, tuple[int, ...]]
#: A position as comparable data: (black, white, kings, turn 0=Black 1=White).
PositionKey = tuple[int, int, int, int]


class Side:
    """What one library offers to the workloads."""

    name = ""

    def board(self, fen: str) -> Any:
        raise NotImplementedError

    def legal(self, board: Any) -> list[Any]:
        """A freshly generated list of legal moves (never a cached one)."""
        raise NotImplementedError

    def push(self, board: Any, move: Any) -> None:
        raise NotImplementedError

    def pop(self, board: Any) -> None:
        raise NotImplementedError

    def perft(self, board: Any, depth: int) -> int:
        raise NotImplementedError

    def move_key(self, move: Any) -> MoveKey:
        raise NotImplementedError

    def position_key(self, board: Any) -> PositionKey:
        raise NotImplementedError


class Ours(Side):
    name = "poolcheckers"

    def __init__(self) -> None:
        from poolcheckers import Board, perft
        from poolcheckers.movegen import generate

        self._board = Board
        self._perft = perft
        self._generate = generate

    def board(self, fen: str) -> Any:
        return self._board(fen)

    def legal(self, board: Any) -> list[Any]:
        # Board.legal_moves caches its list; the generator itself is timed here.
        if board.turn == 0:
            own, opp = board.black, board.white
        else:
            own, opp = board.white, board.black
        return self._generate(own, opp, board.kings, int(board.turn), board.rules)

    def push(self, board: Any, move: Any) -> None:
        board.push(move)

    def pop(self, board: Any) -> None:
        board.pop()

    def perft(self, board: Any, depth: int) -> int:
        return int(self._perft(board, depth))

    def move_key(self, move: Any) -> MoveKey:
        return (move.origin, move.destination, tuple(sorted(move.captured)))

    def position_key(self, board: Any) -> PositionKey:
        return (board.black, board.white, board.kings, int(board.turn))


class Peer(Side):
    name = "py-draughts"

    def __init__(self) -> None:
        from draughts.boards._core import CORE_BRAZILIAN
        from draughts.boards.russian import Board as RussianBoard
        from draughts.models import Color
        from loguru import logger

        logger.remove()  # the peer logs every board it creates

        class PoolBoard(RussianBoard):  # type: ignore[misc]
            """Pool checkers on py-draughts: Brazilian core, free capture choice."""

            @property
            def legal_moves(self) -> list[Any]:
                return self._legal_moves_from_core(CORE_BRAZILIAN, max_capture=False)  # type: ignore[no-any-return]

        self._cls = PoolBoard
        self._white = Color.WHITE

    def board(self, fen: str) -> Any:
        return self._cls.from_fen(fen)

    def legal(self, board: Any) -> list[Any]:
        return board.legal_moves  # type: ignore[no-any-return]

    def push(self, board: Any, move: Any) -> None:
        board.push(move)

    def pop(self, board: Any) -> None:
        board.pop()

    def perft(self, board: Any, depth: int) -> int:
        # The library's own way: legal_moves, push and pop, bulk-counted at the leaves.
        if depth == 0:
            return 1
        moves = board.legal_moves
        if depth == 1:
            return len(moves)
        total = 0
        push, pop, perft = board.push, board.pop, self.perft
        for move in moves:
            push(move)
            total += perft(board, depth - 1)
            pop()
        return total

    def core_perft(self, fen: str, depth: int) -> int:
        """Perft on the peer's move core alone: no Board, no Move objects.

        Context only, not one of the compared figures: ``gen_moves`` on the
        core's own bitboards, with a minimal apply written here.
        """
        from draughts.boards._core import CORE_BRAZILIAN

        geo = CORE_BRAZILIAN.geo
        bit, gen = geo.BIT, CORE_BRAZILIAN.gen_moves
        promo = (geo.PROMO_BLACK, geo.PROMO_WHITE)

        def play(men: int, kings: int, f: int, t: int, white: bool) -> tuple[int, int]:
            if kings & f:
                return men, (kings ^ f) | t
            if t & promo[white]:
                return men ^ f, kings | t
            return men ^ f ^ t, kings

        def walk(wm: int, wk: int, bm: int, bk: int, white: bool, depth: int) -> int:
            caps, quiets = gen(wm, wk, bm, bk, white, False)
            if depth == 1:
                return len(caps) if caps else len(quiets)
            total = 0
            moves = (
                [(p[0], p[-1], c) for p, c, _ in caps] if caps else [(a, b, ()) for a, b in quiets]
            )
            for a, b, cap in moves:
                gone = 0
                for c in cap:
                    gone |= bit[c]
                f, t = bit[a], bit[b]
                if white:
                    nwm, nwk = play(wm, wk, f, t, True)
                    total += walk(nwm, nwk, bm & ~gone, bk & ~gone, False, depth - 1)
                else:
                    nbm, nbk = play(bm, bk, f, t, False)
                    total += walk(wm & ~gone, wk & ~gone, nbm, nbk, True, depth - 1)
            return total

        b = self.board(fen)
        g = CORE_BRAZILIAN.to_ghost
        white = b.turn == self._white
        return walk(
            g(b.white_men), g(b.white_kings), g(b.black_men), g(b.black_kings), white, depth
        )

    def move_key(self, move: Any) -> MoveKey:
        return (
            move.square_list[0] + 1,
            move.square_list[-1] + 1,
            tuple(sorted(c + 1 for c in move.captured_list)),
        )

    def position_key(self, board: Any) -> PositionKey:
        return (
            board.black_men | board.black_kings,
            board.white_men | board.white_kings,
            board.black_kings | board.white_kings,
            1 if board.turn == self._white else 0,
        )


# --------------------------------------------------------------------- workloads
def _progress(iterable: Iterable[Any], desc: str, total: int, show: bool) -> Iterable[Any]:
    if not show:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False, file=sys.stderr)


def _best_of(repeat: int, run: Callable[[], object]) -> float:
    """The least CPU time of ``repeat`` runs: steady on a shared, busy machine."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def verify(side: Side, perft_start: int, perft_mid: int, show: bool) -> dict[str, Any]:
    """Every count both sides must agree on (not timed)."""
    legal: list[list[list[Any]]] = []
    after: list[list[list[int]]] = []
    for fen in ALL_FENS:
        board = side.board(fen)
        moves = side.legal(board)
        legal.append(sorted([list(k[:2]) + list(k[2]) for k in map(side.move_key, moves)]))
        positions = []
        for move in moves:
            side.push(board, move)
            positions.append(list(side.position_key(board)))
            side.pop(board)
        after.append(sorted(positions))
        if list(side.position_key(board)) != list(side.position_key(side.board(fen))):
            raise AssertionError(f"{side.name}: push/pop did not restore {fen}")
    perft_counts = [
        side.perft(side.board(fen), perft_mid)
        for fen in _progress(ALL_FENS[1:], f"{side.name} verify perft", len(ALL_FENS) - 1, show)
    ]
    return {
        "legal": legal,
        "after_push": after,
        "perft_start": side.perft(side.board(START_FEN), perft_start),
        "perft_mid": perft_counts,
        "depths": [perft_start, perft_mid],
    }


def check_expected(counts: dict[str, Any]) -> list[str]:
    """The perft counts that differ from the stored, peer-verified figures."""
    start_depth, mid_depth = counts["depths"]
    bad = []
    if counts["perft_start"] != EXPECTED_PERFT_START.get(start_depth, counts["perft_start"]):
        bad.append("perft_start")
    if counts["perft_mid"] != EXPECTED_PERFT_MID.get(mid_depth, counts["perft_mid"]):
        bad.append("perft_mid")
    return bad


def measure(side: Side, args: argparse.Namespace, show: bool) -> dict[str, Any]:
    """Verification counts and the time of each figure for one side."""
    quick = args.quick
    perft_start = 5 if quick else 7
    perft_mid = 3 if quick else 6
    legal_rounds = 5 if quick else 200
    push_rounds = 5 if quick else 200
    repeat = 1 if quick else args.repeat

    counts = verify(side, perft_start, perft_mid, show)
    boards = [side.board(fen) for fen in ALL_FENS]
    move_lists = [side.legal(b) for b in boards]
    n_moves = sum(len(m) for m in move_lists)

    def legal_run() -> None:
        legal = side.legal
        for _ in range(legal_rounds):
            for board in boards:
                legal(board)

    def push_run() -> None:
        push, pop = side.push, side.pop
        for _ in range(push_rounds):
            for board, moves in zip(boards, move_lists, strict=True):
                for move in moves:
                    push(board, move)
                    pop(board)

    def perft_start_run() -> None:
        side.perft(side.board(START_FEN), perft_start)

    def perft_mid_run() -> None:
        for fen in _progress(
            ALL_FENS[1:], f"{side.name} perft({perft_mid})", len(ALL_FENS) - 1, show
        ):
            side.perft(side.board(fen), perft_mid)

    times = {
        "legal": _best_of(repeat, legal_run),
        "push": _best_of(repeat, push_run),
        "perft_start": _best_of(repeat, perft_start_run),
        "perft_mid": _best_of(repeat, perft_mid_run),
    }
    work = {
        "legal": legal_rounds * len(boards),
        "push": push_rounds * n_moves,
        "perft_start": counts["perft_start"],
        "perft_mid": sum(counts["perft_mid"]),
    }
    labels = {
        "legal": ("legal moves", "calls"),
        "push": ("push+pop", "moves"),
        "perft_start": (f"perft({perft_start}) start", "leaves"),
        "perft_mid": (f"perft({perft_mid}) mid-game x{len(ALL_FENS) - 1}", "leaves"),
    }
    result: dict[str, Any] = {
        "name": side.name,
        "counts": counts,
        "times": times,
        "work": work,
        "labels": labels,
    }
    if isinstance(side, Peer):
        core_count = side.core_perft(START_FEN, perft_start)
        if core_count != counts["perft_start"]:
            raise AssertionError(f"peer core perft {core_count} != {counts['perft_start']}")
        result["core_perft_start"] = _best_of(
            repeat, lambda: side.core_perft(START_FEN, perft_start)
        )
    return result


# --------------------------------------------------------------------- peer process
def ensure_peer_python(venv: Path) -> Path:
    """The peer's interpreter, creating its throwaway virtualenv if missing."""
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import draughts"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    print(f"creating {venv} with {PEER_REQUIREMENT} (never a project dependency)", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", PEER_REQUIREMENT, "tqdm"], check=True
    )
    return python


def run_peer(args: argparse.Namespace) -> dict[str, Any]:
    python = ensure_peer_python(Path(args.peer_venv))
    cmd = [str(python), os.path.abspath(__file__), "--worker", "peer", "--repeat", str(args.repeat)]
    if args.quick:
        cmd.append("--quick")
    if args.no_progress:
        cmd.append("--no-progress")
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    result: dict[str, Any] = json.loads(out)
    return result


# --------------------------------------------------------------------- report
def compare_counts(ours: dict[str, Any], peer: dict[str, Any]) -> list[str]:
    """The names of the counts on which the two sides disagree."""
    return [key for key in ours["counts"] if ours["counts"][key] != peer["counts"][key]]


def _cell(seconds: float, work: int, unit: str) -> str:
    return f"{seconds:7.3f} s {work / seconds / 1000:7.1f}k {unit[:1]}/s"


def table(ours: dict[str, Any], peer: dict[str, Any] | None) -> str:
    """Figure, our time and rate, the peer's, and the ratio peer time / our time."""
    head = f"{'figure':<28} {'ours':>22} {'peer':>22} {'ratio':>7}"
    lines = [head, "-" * len(head)]
    for key, (label, unit) in ours["labels"].items():
        work = ours["work"][key]
        mine = _cell(ours["times"][key], work, unit)
        theirs = _cell(peer["times"][key], work, unit) if peer else "-"
        ratio = f"{peer['times'][key] / ours['times'][key]:6.2f}x" if peer else "-"
        lines.append(f"{label:<28} {mine:>22} {theirs:>22} {ratio:>7}")
    if peer and "core_perft_start" in peer:
        label, unit = ours["labels"]["perft_start"]
        work, seconds = ours["work"]["perft_start"], ours["times"]["perft_start"]
        core = peer["core_perft_start"]
        lines.append(
            f"{label + ', peer core*':<28} {_cell(seconds, work, unit):>22} "
            f"{_cell(core, work, unit):>22} {core / seconds:6.2f}x"
        )
        lines.append("* context, not a library figure: py-draughts' move core (gen_moves) on its")
        lines.append("  own bitboards with an apply written here, no Board/Move objects")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small workloads: a smoke run")
    parser.add_argument("--no-peer", action="store_true", help="measure poolcheckers only")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per figure (best kept)")
    parser.add_argument("--peer-venv", default=str(DEFAULT_PEER_VENV), help="the peer's venv")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--worker", choices=["ours", "peer"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    show = not args.no_progress

    if args.worker:
        side: Side = Peer() if args.worker == "peer" else Ours()
        json.dump(measure(side, args, show), sys.stdout)
        return 0

    try:
        peer = None if args.no_peer else run_peer(args)
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"the peer could not run ({error}); --no-peer measures ours alone", file=sys.stderr)
        return 2
    ours = measure(Ours(), args, show)
    print(table(ours, peer))
    status = 0
    bad = check_expected(ours["counts"])
    if bad:
        print(f"MISMATCH with the stored perft figures on: {', '.join(bad)}")
        status = 1
    if peer is not None:
        bad = compare_counts(ours, peer)
        if bad:
            print(f"MISMATCH with the peer on: {', '.join(bad)}")
            status = 1
        else:
            print("counts agree: legal moves, positions after each move, perft")
    elif not status:
        print("perft counts agree with the stored figures (no peer run)")
    if args.json:
        Path(args.json).write_text(json.dumps({"ours": ours, "peer": peer}, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
