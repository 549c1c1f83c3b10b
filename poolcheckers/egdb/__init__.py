"""Endgame databases: every position with few pieces solved exactly (docs/EGDB.md).

Values are for the side to move under the rule book with every end rule
(R16, R18, R19, R21).  ``fresh_value`` and ``dtz`` are those of the position
with fresh counts (R18 plies and R19 moves at zero, as just after a capture);
``value`` is the result under the board's running counts
(``board.halfmove_clock``, ``board.three_kings_count``).

>>> import tempfile
>>> from poolcheckers import Board
>>> from poolcheckers.egdb import Tablebase, build
>>> directory = tempfile.mkdtemp()
>>> build(2, directory)
>>> tb = Tablebase(directory)
>>> tb.probe(Board("B:WK32:BK1"))
ProbeResult(value='draw', dtz=None, fresh_value='draw')
>>> tb.probe(Board("W:W23:B18"))          # White's man must capture (R11): a win in 1
ProbeResult(value='win', dtz=1, fresh_value='win')
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from poolcheckers.board import Board
from poolcheckers.engine.core import native_rules
from poolcheckers.rules import RuleSet

__all__ = [
    "EGDB_MAX_LIMIT",
    "Material",
    "ProbeResult",
    "SideStats",
    "Slice",
    "Tablebase",
    "TablebaseError",
    "Value",
    "VerifyResult",
    "build",
    "build_slice",
    "build_sliced",
    "canonical",
    "default_directory",
    "dependency_levels",
    "file_stem",
    "index_size",
    "material_name",
    "materials",
    "merge_slices",
    "open_default",
    "probe_position",
    "search_hits",
    "slice_plan",
    "stats",
    "successors",
    "verify",
]

Value = Literal["win", "draw", "loss"]
#: (black men, black kings, white men, white kings)
Material = tuple[int, int, int, int]
#: the largest king_only_move_limit the files hold (DTZ is one byte, R18)
EGDB_MAX_LIMIT = 63
_VALUES: dict[int, Value] = {1: "win", 0: "draw", -1: "loss"}
ProgressCallback = Callable[[int, int, str], None]


class TablebaseError(Exception):
    """The tables cannot be built, read or used (the message says why)."""


def _core() -> Any:
    try:
        return importlib.import_module("poolcheckers._core")
    except ImportError as exc:  # pragma: no cover - the native core is part of every install
        raise TablebaseError(
            "endgame tables need the native core poolcheckers._core: run `make setup`"
        ) from exc


def default_directory() -> Path:
    """``$POOLCHECKERS_EGDB_DIR`` when set, else ``$XDG_DATA_HOME/poolcheckers/egdb``
    (beside the game database ``games.sqlite3``): the one setting the commands, the
    engine and the web app find the tables by."""
    chosen = os.environ.get("POOLCHECKERS_EGDB_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "poolcheckers" / "egdb"


def materials(pieces: int) -> list[Material]:
    """Every material of 2..``pieces`` pieces with a piece on each side, both orientations.

    >>> materials(2)
    [(0, 1, 0, 1), (0, 1, 1, 0), (1, 0, 0, 1), (1, 0, 1, 0)]
    """
    out: list[Material] = []
    for total in range(2, pieces + 1):
        for bm in range(total + 1):
            for bk in range(total + 1 - bm):
                for wm in range(total + 1 - bm - bk):
                    wk = total - bm - bk - wm
                    if bm + bk and wm + wk:
                        out.append((bm, bk, wm, wk))
    return sorted(out)


def canonical(material: Material) -> Material:
    """The orientation a material is stored in (its mirror swaps the colours)."""
    bm, bk, wm, wk = material
    mirror = (wm, wk, bm, bk)
    key = (bm + bk, bk, bm)
    mkey = (wm + wk, wk, wm)
    return material if key >= mkey else mirror


def material_name(material: Material) -> str:
    """A readable name: ``2K v 1K``, ``1M1K v 1M``.

    >>> material_name((0, 3, 0, 1)), material_name((1, 1, 1, 0))
    ('3K v 1K', '1M1K v 1M')
    """
    bm, bk, wm, wk = material

    def side(m: int, k: int) -> str:
        return (f"{m}M" if m else "") + (f"{k}K" if k else "")

    return f"{side(bm, bk)} v {side(wm, wk)}"


def file_stem(material: Material) -> str:
    """``egdb_0301`` for 3 black kings v 1 white king."""
    return "egdb_" + "".join(str(n) for n in material)


def dependency_levels(pieces: int) -> list[list[Material]]:
    """The stored materials of up to ``pieces`` pieces in groups that can be built at once.

    A capture leads to fewer pieces, a crowning (R15) to fewer men: group
    ``(pieces, men)`` depends only on the groups before it.
    """
    stored = sorted({canonical(m) for m in materials(pieces)})
    keys = sorted({(sum(m), m[0] + m[2]) for m in stored})
    return [[m for m in stored if (sum(m), m[0] + m[2]) == key] for key in keys]


def _check_limit(rules: RuleSet) -> None:
    if rules.king_only_move_limit > EGDB_MAX_LIMIT:
        raise TablebaseError(
            f"king_only_move_limit={rules.king_only_move_limit}: the tables hold limits up to "
            f"{EGDB_MAX_LIMIT} moves (R18; the distance is one byte)"
        )


def build(
    pieces: int,
    directory: str | Path | None = None,
    rules: RuleSet | None = None,
    *,
    threads: int = 2,
    progress: ProgressCallback | None = None,
    only: Iterable[Material] | None = None,
) -> None:
    """Build every material of up to ``pieces`` pieces (or the materials ``only``).

    Materials are solved in dependency order; tables they need that are not
    being built are read from ``directory`` (they must be there).  ``progress``
    is called about ten times a second with (states done, states in all, material).
    """
    rules = rules if rules is not None else RuleSet.apca()
    _check_limit(rules)
    if not 2 <= pieces <= 8:
        raise TablebaseError(f"--pieces must be 2..8, not {pieces}")
    path = Path(directory) if directory is not None else default_directory()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TablebaseError(f"cannot create the directory {path}: {exc.strerror}") from None
    todo = list(only) if only is not None else materials(pieces)
    try:
        _core().egdb_build(str(path), native_rules(rules), todo, threads, progress)
    except RuntimeError as exc:
        raise TablebaseError(str(exc)) from None


def index_size(material: Material) -> int:
    """States of a material's index, both sides to move (``EgIndex`` in native/egdb.h): men
    configurations C(28, bm)·C(28, wm) times 2 sides times the king placements."""
    bm, bk, wm, wk = material
    kp = math.comb(32 - bm - wm, bk) * math.comb(32 - bm - wm - bk, wk)
    return math.comb(28, bm) * math.comb(28, wm) * 2 * kp


def successors(material: Material) -> list[Material]:
    """The stored materials one move of ``material`` leads to, which a build of it reads
    whole: the mover keeps its men or crowns one, the opponent loses any of its men and
    kings (captures), as the native generator loads them."""
    bm, bk, wm, wk = material
    out: set[Material] = set()
    for own_m, own_k, opp_m, opp_k, black in ((bm, bk, wm, wk, True), (wm, wk, bm, bk, False)):
        movers = [(own_m, own_k)] + ([(own_m - 1, own_k + 1)] if own_m else [])
        for mm, mk in movers:
            for a in range(opp_m + 1):
                for b in range(opp_k + 1):
                    if a + b:
                        out.add(canonical((mm, mk, a, b) if black else (a, b, mm, mk)))
    out.discard(canonical(material))
    return sorted(out)


@dataclass(frozen=True)
class Slice:
    """Part of a material's build: the men configurations ``first`` .. ``first + count - 1``
    of one progress value (docs/EGDB.md, "7 pieces on a cluster")."""

    material: Material
    progress: int
    first: int
    count: int
    #: its own states (``count`` configurations of 2·kp states)
    states: int
    #: the states of progress + 1 it reads (man moves), 0 for the highest progress
    input_states: int

    @property
    def name(self) -> str:
        """``egdb_0610.p3.0``, the stem of its slice file."""
        return f"{file_stem(self.material)}.p{self.progress}.{self.first}"

    def memory(self) -> int:
        """Bytes a worker holds to solve it: a code and a move counter per own state, the
        codes of progress + 1, the successor tables whole, and the configuration list."""
        bm, _, wm, _ = self.material
        bookkeeping = 16 * math.comb(28, bm) * math.comb(28, wm) + 160 * self.count
        read = sum(index_size(m) for m in successors(self.material))
        return 2 * self.states + self.input_states + read + bookkeeping


def slice_plan(material: Material, max_states: int | None = None) -> list[list[Slice]]:
    """The slices of a stored material with men, by progress value, highest first: each
    progress value cut into parts of at most ``max_states`` states (at least one
    configuration each; None: one slice per progress value).  The slices of one progress
    value are independent; each needs every slice of the progress value before it."""
    material = canonical(material)
    if material[0] + material[2] == 0:
        raise TablebaseError(
            f"{material_name(material)} has no men: one configuration, built whole, not in slices"
        )
    kp, groups = _core().egdb_slice_groups(material)
    per_config = 2 * int(kp)
    step = None if max_states is None else max(1, max_states // per_config)
    plan: list[list[Slice]] = []
    above = 0
    for progress, n in groups:
        size = int(n) if step is None else step
        plan.append(
            [
                Slice(
                    material,
                    int(progress),
                    first,
                    min(size, int(n) - first),
                    min(size, int(n) - first) * per_config,
                    above,
                )
                for first in range(0, int(n), size)
            ]
        )
        above = int(n) * per_config
    return plan


def _slice_call(call: Callable[[], None]) -> None:
    try:
        call()
    except FileNotFoundError as exc:
        raise TablebaseError(str(exc)) from None
    except (RuntimeError, ValueError) as exc:
        raise TablebaseError(str(exc)) from None


def build_slice(
    piece: Slice, directory: str | Path, rules: RuleSet | None = None, *, threads: int = 1
) -> None:
    """Solve one slice from the files in ``directory`` (the other materials' tables and the
    slice files of progress + 1) and write its slice file there."""
    rules = rules if rules is not None else RuleSet.apca()
    _check_limit(rules)
    _slice_call(
        lambda: _core().egdb_solve_slice(
            str(directory),
            native_rules(rules),
            piece.material,
            piece.progress,
            piece.first,
            piece.count,
            threads,
        )
    )


def merge_slices(
    material: Material,
    directory: str | Path,
    rules: RuleSet | None = None,
    *,
    threads: int = 1,
    remove: bool = True,
) -> None:
    """Write a material's table file from its slice files (the bytes :func:`build` writes);
    then delete the slice files unless ``remove`` is false."""
    rules = rules if rules is not None else RuleSet.apca()
    _check_limit(rules)
    material = canonical(material)
    _slice_call(
        lambda: _core().egdb_merge_slices(str(directory), native_rules(rules), material, threads)
    )
    if remove:
        for path in Path(directory).glob(f"{file_stem(material)}.p*.slice"):
            path.unlink()


def build_sliced(
    material: Material,
    directory: str | Path,
    rules: RuleSet | None = None,
    *,
    max_states: int | None = None,
    threads: int = 2,
) -> int:
    """Build one material with men slice by slice in this process, then merge; the tables it
    depends on must be in ``directory``.  Returns the number of slices."""
    plan = slice_plan(material, max_states)
    for group in plan:
        for piece in group:
            build_slice(piece, directory, rules, threads=threads)
    merge_slices(material, directory, rules, threads=threads)
    return sum(len(group) for group in plan)


@dataclass(frozen=True)
class VerifyResult:
    """One material re-derived from its successors: ``bad`` states disagree (-1: missing)."""

    material: Material
    bad: int
    detail: str


def verify(
    directory: str | Path | None = None,
    rules: RuleSet | None = None,
    pieces: int = 8,
    *,
    threads: int = 2,
    progress: ProgressCallback | None = None,
    only: Iterable[Material] | None = None,
) -> list[VerifyResult]:
    """Re-derive every stored state of the files of up to ``pieces`` pieces (or of the
    materials ``only``)."""
    path = Path(directory) if directory is not None else default_directory()
    if rules is None:
        rules = Tablebase(path).rules
    _check_limit(rules)
    stored = sorted({canonical(m) for m in (materials(pieces) if only is None else only)})
    present = [m for m in stored if (path / (file_stem(m) + ".pcdb")).exists()]
    if not present:
        raise TablebaseError(f"no endgame table files in {path}")
    raw = _core().egdb_verify(str(path), native_rules(rules), present, threads, progress)
    by_name = {file_stem(m)[5:]: m for m in present}
    return [VerifyResult(by_name[name], int(bad), str(text)) for name, bad, text in raw]


@dataclass(frozen=True)
class SideStats:
    """Positions of a material with one side to move, fresh counts."""

    wins: int
    draws: int
    losses: int
    longest_win: int | None
    longest_loss: int | None


def stats(
    material: Material, directory: str | Path | None = None, rules: RuleSet | None = None
) -> tuple[SideStats, SideStats]:
    """Wins, draws, losses and longest DTZ of a stored material: (Black to move, White to move)."""
    path = Path(directory) if directory is not None else default_directory()
    rules = rules if rules is not None else Tablebase(path).rules
    try:
        raw = _core().egdb_stats(str(path), native_rules(rules), canonical(material))
    except FileNotFoundError as exc:
        raise TablebaseError(str(exc)) from None
    sides = [
        SideStats(int(w), int(d), int(lo), None if lw < 0 else int(lw), None if ll < 0 else int(ll))
        for w, d, lo, lw, ll in raw
    ]
    if canonical(material) != material:  # the mirror: colours swapped
        sides.reverse()
    return sides[0], sides[1]


@dataclass(frozen=True)
class ProbeResult:
    """``value`` under the running counts; ``fresh_value`` and ``dtz`` with fresh counts."""

    value: Value
    dtz: int | None
    fresh_value: Value
    #: 3 kings v 1 king under three_kings_limit_result=loss: B, the fewest plies in which the
    #: three-king side forces a zeroing ply that is at least a draw for it (None elsewhere)
    draw_distance: int | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "dtz": self.dtz, "fresh_value": self.fresh_value}


def probe_position(board: Board) -> tuple[int, int, int, int, int, int]:
    """What the native probe takes of a position, one argument each (one column each
    of ``probe_many``): black, white, kings, turn, R18 plies, R19 moves."""
    return (
        board.black,
        board.white,
        board.kings,
        int(board.turn),
        board.halfmove_clock,
        board.three_kings_count,
    )


class Tablebase:
    """The table files of a directory (raises :class:`TablebaseError` if there are none)."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_directory()
        try:
            self._probe: Any = _core().EgdbProbe(str(self.directory))
        except FileNotFoundError as exc:
            raise TablebaseError(str(exc)) from None
        crown_stop, tk_loss, limit = self._probe.rules()
        self.rules = RuleSet(
            crown_during_capture="stop" if crown_stop else "pass",
            three_kings_limit_result="loss" if tk_loss else "draw",
            king_only_move_limit=int(limit),
        )
        self.max_pieces: int = int(self._probe.max_pieces)
        self._matches: dict[RuleSet, bool] = {}
        self.materials: list[Material] = [tuple(m) for m in self._probe.materials()]

    def matches(self, rules: RuleSet) -> bool:
        """Whether positions under ``rules`` can be probed (repetition_draw changes no value)."""
        known = self._matches.get(rules)
        if known is None:
            known = self._matches[rules] = native_rules(rules)[:3] == native_rules(self.rules)[:3]
        return known

    def probe(self, board: Board) -> ProbeResult | None:
        """The board's value, or None when no file covers it or its rules differ."""
        if not self.matches(board.rules):
            return None
        if (board.black | board.white).bit_count() > self.max_pieces:
            return None
        raw = self._probe.probe(*probe_position(board))
        if raw is None:
            return None
        fresh, dtz, value, b = raw
        return ProbeResult(
            _VALUES[value], None if dtz < 0 else int(dtz), _VALUES[fresh], None if b < 0 else b
        )

    def bench(self, positions: Sequence[Board], repeats: int = 100) -> list[float]:
        """Nanoseconds per probe of each position once its block is cached (timed in C)."""
        raw = [(b.black, b.white, b.kings, int(b.turn)) for b in positions]
        return [float(x) for x in self._probe.bench(raw, repeats)]

    def use_in_search(self, on: bool = True) -> None:
        """Let the native search probe these files (exact scores under the running counts)."""
        self._probe.use_in_search(on)


def search_hits() -> int:
    """Table probes answered inside the native search since the start of the process."""
    return int(_core().egdb_search_hits())


_DEFAULT: dict[str, Tablebase | None] = {}


def open_default(directory: str | Path | None = None) -> Tablebase | None:
    """The tables of ``directory`` (default: :func:`default_directory`), or None if there are
    none; opened once per process."""
    path = str(Path(directory) if directory is not None else default_directory())
    if path not in _DEFAULT:
        try:
            _DEFAULT[path] = Tablebase(path)
        except TablebaseError:
            _DEFAULT[path] = None
    return _DEFAULT[path]
