"""In-memory form of a stored game and its JSON ``GameState`` (docs/CONTRACTS.md §3).

A :class:`GameRec` mirrors one row of ``games`` and a :class:`MoveRec` one row of
``moves``; :class:`Loaded` adds the :class:`~poolcheckers.Board` rebuilt by replaying
the moves from the start FEN.  :func:`base_state` turns it into the ``GameState``
JSON, without ``your_color`` (added per viewer by :func:`viewer_json`).

>>> viewer_json('{"id":"x"}', "black")
'{"your_color":"black","id":"x"}'
>>> viewer_json('{"id":"x"}', None)
'{"your_color":null,"id":"x"}'
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from poolcheckers import Board, Color, Outcome
from poolcheckers.rules import THREE_KINGS_MOVE_LIMIT

from .db import GameRow, MoveRow

GAME_FIELDS: tuple[str, ...] = tuple(c.name for c in GameRow.__table__.columns)
MOVE_FIELDS: tuple[str, ...] = tuple(
    c.name for c in MoveRow.__table__.columns if c.name != "game_id"
)


@dataclass
class GameRec:
    """One row of ``games`` (see :class:`poolcheckers.server.db.GameRow`)."""

    id: str
    mode: str
    status: str
    rules: dict[str, Any]
    start_fen: str
    level: int | None
    engine_color: str | None
    black_token_hash: str | None
    white_token_hash: str | None
    invite_hash: str | None
    clock_initial_ms: int | None
    clock_increment_ms: int | None
    black_ms: int | None
    white_ms: int | None
    clock_running: str | None
    turn_started_ms: int | None
    deadline_ms: int | None
    ply: int
    draw_offer: str | None
    termination: str | None
    winner: str | None
    result: str | None
    reason: str | None
    tags: dict[str, str] | None
    version: int
    created_ms: int
    updated_ms: int

    def values(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in GAME_FIELDS}

    def copy(self) -> GameRec:
        return dataclasses.replace(self)

    @property
    def has_clock(self) -> bool:
        return self.clock_initial_ms is not None

    def remaining_ms(self, color: str, now_ms: int) -> int:
        """Time left on ``color``'s clock at ``now_ms`` (may be negative: flag fallen)."""
        stored = self.black_ms if color == "black" else self.white_ms
        assert stored is not None
        if self.clock_running == color and self.turn_started_ms is not None:
            return stored - (now_ms - self.turn_started_ms)
        return stored


@dataclass
class MoveRec:
    """One row of ``moves``: the ply, its notation, and clocks/draw offer after it."""

    ply: int
    notation: str
    path: str
    color: str
    created_ms: int
    black_ms: int | None
    white_ms: int | None
    draw_offer: str | None
    version: int

    def values(self, game_id: str) -> dict[str, Any]:
        d = {f: getattr(self, f) for f in MOVE_FIELDS}
        d["game_id"] = game_id
        return d


@dataclass
class Loaded:
    """A game with its moves and the board after them."""

    game: GameRec
    moves: list[MoveRec]
    board: Board
    #: the last base state built, with the time it was built for
    memo: tuple[int, dict[str, Any]] | None = None


def color_name(color: Color) -> str:
    return "black" if color is Color.BLACK else "white"


def color_of(name: str) -> Color:
    return Color.BLACK if name == "black" else Color.WHITE


def other(name: str) -> str:
    return "white" if name == "black" else "black"


def outcome_reason(outcome: Outcome, board: Board) -> str:
    """The end of the game in words, citing the rule (R16..R20, §9): the library's words."""
    return board.outcome_reason(outcome) or outcome.reason(board.rules)


def _counters(board: Board) -> dict[str, Any]:
    return {
        "r18_plies": board.halfmove_clock,
        "r18_limit_plies": board.rules.king_only_limit_plies,
        "r19_moves": board.three_kings_count,
        "r19_active": board.three_kings_active,
        "r19_limit": THREE_KINGS_MOVE_LIMIT,
    }


def legal_moves_json(board: Board) -> list[dict[str, Any]]:
    """Each legal move with every path it can be walked by (R4) and the board after it."""
    work = board.copy(stack=False)
    out: list[dict[str, Any]] = []
    for m in board.legal_moves:
        work.push(m)
        after = work.squares()
        work.pop()
        out.append(
            {
                "notation": board.notation(m),
                "path": list(m.path),
                "paths": [list(p) for p in board.paths(m)],
                "captured": sorted(m.captured),
                "board_after": after,
            }
        )
    return out


def base_state(loaded: Loaded, now_ms: int) -> dict[str, Any]:
    """The ``GameState`` of ``loaded`` at ``now_ms``, without ``your_color``."""
    memo = loaded.memo
    if memo is not None and memo[0] == now_ms:
        return memo[1]
    state = _build_state(loaded, now_ms)
    loaded.memo = (now_ms, state)
    return state


def _build_state(loaded: Loaded, now_ms: int) -> dict[str, Any]:
    g = loaded.game
    board = loaded.board
    running = g.status == "running"
    last_move: dict[str, Any] | None = None
    if board.move_stack:
        m = board.move_stack[-1]
        last_move = {"path": list(m.path), "captured": sorted(m.captured)}
    outcome: dict[str, Any] | None = None
    if g.status == "finished":
        outcome = {
            "termination": g.termination,
            "winner": g.winner,
            "result": g.result,
            "reason": g.reason,
        }
    clock: dict[str, Any] | None = None
    if g.has_clock:
        clock = {
            "black": max(0, g.remaining_ms("black", now_ms)) / 1000,
            "white": max(0, g.remaining_ms("white", now_ms)) / 1000,
            "initial": (g.clock_initial_ms or 0) / 1000,
            "increment": (g.clock_increment_ms or 0) / 1000,
            "running": g.clock_running,
        }
    return {
        "id": g.id,
        "mode": g.mode,
        "status": g.status,
        "rules": g.rules,
        "rules_notes": board.rules.differences(),
        "start_fen": g.start_fen,
        "fen": board.fen(),
        "board": board.squares(),
        "turn": color_name(board.turn),
        "start_turn": color_name(board.start_turn),
        "ply": g.ply,
        "version": g.version,
        "moves": [m.notation for m in loaded.moves],
        "legal_moves": legal_moves_json(board) if running else [],
        "last_move": last_move,
        "outcome": outcome,
        "clock": clock,
        "counters": _counters(board),
        "draw_offer": g.draw_offer,
        "level": g.level,
        "engine_color": g.engine_color,
        "seats": {
            "black": g.black_token_hash is not None or g.engine_color == "black",
            "white": g.white_token_hash is not None or g.engine_color == "white",
        },
        "tags": g.tags or {},
    }


def dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


def viewer_json(base_json: str, your_color: str | None) -> str:
    """Insert ``your_color`` into a serialised base state (cheap per-viewer copies)."""
    return '{"your_color":' + json.dumps(your_color) + "," + base_json[1:]


def with_viewer(base: dict[str, Any], your_color: str | None) -> dict[str, Any]:
    d = dict(base)
    d["your_color"] = your_color
    return d
