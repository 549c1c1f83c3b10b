"""Playing and showing perfect endgames from the tables.

``move_values`` gives every legal move's value under the running counts
(after the move the board's counts run on: R18 plies, R19 moves), the value
that the engine, the analysis and the game review use; ``best`` picks a move
that keeps the position's value: for a win the shortest conversion (fewest
plies to the next capture or man move, which then starts a new won phase),
for a loss the longest.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from poolcheckers.board import Board
from poolcheckers.egdb import (
    ProbeResult,
    Tablebase,
    Value,
    default_directory,
    open_default,
    search_hits,
)
from poolcheckers.move import Move
from poolcheckers.rules import RuleSet

#: engine score of a table win in n plies: PC_EGDB_WIN - n (native/egdb_search.h)
EGDB_WIN_SCORE = 20000
_FLIP: dict[Value, Value] = {"win": "loss", "loss": "win", "draw": "draw"}
_RANK: dict[Value, int] = {"win": 2, "draw": 1, "loss": 0}


@dataclass(frozen=True)
class MoveValue:
    """A legal move, the mover's value after it (running counts), and its plies to conversion."""

    move: Move
    value: Value
    dtz: int | None

    def to_json(self, board: Board) -> dict[str, object]:
        return {"move": board.notation(self.move), "value": self.value, "dtz": self.dtz}


def move_values(tb: Tablebase, board: Board) -> list[MoveValue] | None:
    """Every legal move's value for the side to move, or None when the tables do not cover
    the board or one of its successors."""
    if tb.probe(board) is None:
        return None
    out: list[MoveValue] = []
    for move in board.legal_moves:
        child = board.copy()
        child.push(move)
        result = tb.probe(child)
        if result is None:
            return None
        value = _FLIP[result.value]
        zeroing = move.is_capture or not board.kings & (1 << (move.origin - 1))
        if value == "draw":
            dtz = None
        elif zeroing:
            dtz = 1
        else:
            dtz = None if result.dtz is None else result.dtz + 1
        out.append(MoveValue(move, value, dtz))
    return out


def best(values: list[MoveValue]) -> MoveValue:
    """The move that keeps the value: a win by the shortest conversion, a loss by the longest."""

    def key(mv: MoveValue) -> tuple[int, int]:
        d = mv.dtz if mv.dtz is not None else 0
        return (_RANK[mv.value], -d if mv.value == "win" else d)

    return max(values, key=key)


def conversion_line(tb: Tablebase, board: Board, max_plies: int = 200) -> list[Move]:
    """The moves of perfect play up to and including the next zeroing ply (or the game's end)."""
    b = board.copy()
    line: list[Move] = []
    while len(line) < max_plies and b.legal_moves and not b.is_game_over():
        values = move_values(tb, b)
        if values is None:
            break
        mv = best(values)
        line.append(mv.move)
        zeroing = mv.move.is_capture or not b.kings & (1 << (mv.move.origin - 1))
        b.push(mv.move)
        if zeroing:
            break
    return line


def score_of(result: ProbeResult) -> int:
    """Engine score (centi-men scale) of a probed value: a win in n plies is 20000 - n."""
    if result.value == "draw":
        return 0
    n = result.dtz or 0
    return EGDB_WIN_SCORE - n if result.value == "win" else -(EGDB_WIN_SCORE - n)


_ACTIVE: list[Tablebase] = []


def _activate(tb: Tablebase | None) -> Tablebase | None:
    """Let the native search probe ``tb`` (and no other tables)."""
    if _ACTIVE and _ACTIVE[0] is not tb:
        _ACTIVE.pop().use_in_search(False)
    if tb is not None and not _ACTIVE:
        tb.use_in_search(True)
        _ACTIVE.append(tb)
    return tb


def engine_tablebase(rules: RuleSet) -> Tablebase | None:
    """The tables the engine uses for boards under ``rules``, or None.

    The directory is :func:`default_directory` (``$POOLCHECKERS_EGDB_DIR`` when set);
    ``POOLCHECKERS_EGDB=off`` turns them off.  Without files the engine works
    as it always did.  The tables returned are the ones the native search probes.
    """
    if os.environ.get("POOLCHECKERS_EGDB", "").lower() in ("off", "0", "no"):
        return _activate(None)
    directory = str(default_directory())
    tb = open_default(directory) if Path(directory).is_dir() else None
    if tb is None or not tb.matches(rules):
        return _activate(None)
    return _activate(tb)


def table_move(board: Board) -> tuple[MoveValue, list[MoveValue], list[Move]] | None:
    """For the engine's root: the value-keeping move, every move's value, and for a win the
    conversion line; None without tables for the board."""
    tb = engine_tablebase(board.rules)
    if tb is None:
        return None
    _START[0] = search_hits()
    values = move_values(tb, board)
    if not values:
        return None
    chosen = best(values)
    line = conversion_line(tb, board) if chosen.value == "win" else [chosen.move]
    return chosen, values, line or [chosen.move]


_START = [0]


def hits_this_search(board: Board) -> int | None:
    """Table probes of the native search since the engine's last search began (None when the
    engine has no tables for the board's rules).  Touches no file: cheap enough per info line."""
    if not _ACTIVE or not _ACTIVE[0].matches(board.rules):
        return None
    return search_hits() - _START[0]


def describe(board: Board) -> str | None:
    """``tablebase: win, conversion in 7 plies`` (or draw, loss) when the tables cover the board."""
    tb = engine_tablebase(board.rules)
    result = tb.probe(board) if tb is not None else None
    if result is None:
        return None
    text = f"tablebase: {result.value}"
    if result.value != "draw" and result.dtz is not None:
        text += f", conversion in {result.dtz} plies"
    if result.value != result.fresh_value:
        text += f" (the counts turn a {result.fresh_value} into a {result.value})"
    return text


def release_engine_tables() -> None:
    """Stop the native search from probing any tables (until the next engine search)."""
    _activate(None)


def tablebase_info(board: Board) -> dict[str, object] | None:
    """The analysis board's view: the position's value under its running counts, DTZ, fresh
    value, and every legal move's value and plies to conversion (None without tables)."""
    tb = engine_tablebase(board.rules)
    result = tb.probe(board) if tb is not None else None
    if tb is None or result is None:
        return None
    values = move_values(tb, board) or []
    return {
        **result.to_json(),
        "moves": [mv.to_json(board) for mv in values],
    }
