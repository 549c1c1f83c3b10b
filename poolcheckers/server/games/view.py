"""What a client sees of a game or a position: the ``GameState`` and ``PositionInfo``
schemas (docs/CONTRACTS.md §3) built from the library's board.

:func:`base_state` is the state without ``your_color``; :func:`base_json` serialises
it once per change, and :func:`viewer_json` adds ``your_color`` per viewer (cheap
copies for every WebSocket subscriber).  The models are built with
``model_construct``: the values come from the library and the store, not from a
client, so they are not validated again.

>>> viewer_json('{"id":"x"}', "black")
'{"your_color":"black","id":"x"}'
>>> viewer_json('{"id":"x"}', None)
'{"your_color":null,"id":"x"}'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from poolcheckers import Board, Color, FenError
from poolcheckers.board import move_number
from poolcheckers.engine import tables_line, tables_view
from poolcheckers.rules import THREE_KINGS_MOVE_LIMIT
from poolcheckers.server.api.schemas import (
    ClockInfo,
    CorrespondenceInfo,
    Counters,
    GameState,
    LastMove,
    LegalMove,
    OutcomeInfo,
    PositionInfo,
    Seats,
    TablebaseInfo,
)
from poolcheckers.server.games.flow import can_abort
from poolcheckers.server.games.model import GameRec, Loaded, color_name, outcome_reason


@lru_cache(maxsize=1024)
def _start_turn(start_fen: str) -> Color:
    try:
        return Board(start_fen).turn
    except FenError:
        return Color.BLACK


def full_moves(start_fen: str, plies: int) -> int:
    """How many moves ``plies`` plies from ``start_fen`` are, as PDN numbers them: a
    move is Black's turn and White's reply (R3), so ``1. 11-15 23-19`` is one move and
    a line from White's turn, ``1... 22-17 2. 1-5``, is two.  This is the number
    (:attr:`Board.move_number`) of the last move played, 0 before any.

    >>> full_moves("B:W21,22:B1,2", 2), full_moves("B:W21,22:B1,2", 3)
    (1, 2)
    >>> full_moves("W:W21,22:B1,2", 2), full_moves("W:W21,22:B1,2", 0)
    (2, 0)
    """
    if plies <= 0:
        return 0
    return move_number(_start_turn(start_fen), plies - 1)


def seats_taken(g: GameRec) -> Seats:
    """Which seats a player (by a token or an account) or the engine holds."""
    return Seats.model_construct(
        black=g.black_token_hash is not None
        or g.black_user_id is not None
        or g.engine_color == "black",
        white=g.white_token_hash is not None
        or g.white_user_id is not None
        or g.engine_color == "white",
    )


def legal_moves(board: Board) -> list[LegalMove]:
    """Each legal move with every path it can be walked by (R4) and the board after it."""
    work = board.copy(stack=False)
    out = []
    for m in board.legal_moves:
        work.push(m)
        after = work.squares()
        work.pop()
        out.append(
            LegalMove.model_construct(
                notation=board.notation(m),
                path=list(m.path),
                paths=[list(p) for p in board.paths(m)],
                captured=sorted(m.captured),
                board_after=after,
            )
        )
    return out


def last_move(board: Board) -> LastMove | None:
    if not board.move_stack:
        return None
    m = board.move_stack[-1]
    return LastMove.model_construct(path=list(m.path), captured=sorted(m.captured))


def counters(board: Board) -> Counters:
    return Counters.model_construct(
        r18_plies=board.halfmove_clock,
        r18_limit_plies=board.rules.king_only_limit_plies,
        r19_moves=board.three_kings_count,
        r19_active=board.three_kings_active,
        r19_limit=THREE_KINGS_MOVE_LIMIT,
    )


def base_state(loaded: Loaded, now_ms: int) -> GameState:
    """The ``GameState`` of ``loaded`` at ``now_ms``, without ``your_color``."""
    g = loaded.game
    board = loaded.board
    outcome = None
    if g.status != "running":  # finished, or aborted (termination "aborted", no result)
        outcome = OutcomeInfo.model_construct(
            termination=g.termination,
            winner=g.winner,
            result=g.result,
            reason=g.reason,
        )
    clock = None
    if g.has_clock:
        clock = ClockInfo.model_construct(
            black=max(0, g.remaining_ms("black", now_ms)) / 1000,
            white=max(0, g.remaining_ms("white", now_ms)) / 1000,
            initial=(g.clock_initial_ms or 0) / 1000,
            increment=(g.clock_increment_ms or 0) / 1000,
            running=g.clock_running,
        )
    corr = None
    if g.is_correspondence:
        deadline = g.deadline_ms if g.status == "running" else None
        corr = CorrespondenceInfo.model_construct(
            days=g.days_per_move,
            deadline=None if deadline is None else deadline / 1000,
            left=None if deadline is None else max(0, deadline - now_ms) / 1000,
            running=g.clock_running if deadline is not None else None,
        )
    return GameState.model_construct(
        id=g.id,
        mode=g.mode,
        status=g.status,
        rules=g.rules,
        rules_notes=board.rules.differences(),
        start_fen=g.start_fen,
        fen=board.fen(),
        board=board.squares(),
        turn=color_name(board.turn),
        start_turn=color_name(board.start_turn),
        ply=g.ply,
        version=g.version,
        moves=[m.notation for m in loaded.moves],
        legal_moves=legal_moves(board) if g.status == "running" else [],
        last_move=last_move(board),
        outcome=outcome,
        clock=clock,
        correspondence=corr,
        counters=counters(board),
        draw_offer=g.draw_offer,
        can_abort=g.tournament_id is None and can_abort(g.ply, finished=g.status != "running"),
        rematch_offer=g.rematch_offer,
        rematch_game=g.rematch_id,
        level=g.level,
        engine_color=g.engine_color,
        seats=seats_taken(g),
        tags=g.tags or {},
        rated=g.rated,
        category=g.category,
        annotations=g.annotations,
    )


def base_json(loaded: Loaded, now_ms: int) -> str:
    """:func:`base_state` as JSON without ``your_color`` (memoised per time)."""
    memo = loaded.memo
    if memo is not None and memo[0] == now_ms:
        text: str = memo[1]
        return text
    text = base_state(loaded, now_ms).model_dump_json(exclude={"your_color"})
    loaded.memo = (now_ms, text)
    return text


def viewer_json(base: str, your_color: str | None) -> str:
    """Insert ``your_color`` into a serialised base state."""
    return '{"your_color":' + json.dumps(your_color) + "," + base[1:]


def _tablebase(board: Board) -> TablebaseInfo | None:
    """Endgame tables' values of the position and its moves, when files cover it."""
    info = tables_view(board)
    if info is None:
        return None
    # a won or lost position's line to the end (a draw has no end to show)
    decided = info.get("value") != "draw" and board.outcome() is None
    walked = tables_line(board) if decided else None
    if walked is not None:
        info = {**info, "line": walked[0], "win_in": walked[1]}
    return TablebaseInfo.model_validate(info)


def position_info(board: Board) -> PositionInfo:
    """The analysis board's view of a position: legal moves, counters, outcome."""
    outcome = board.outcome()
    replay = Board(board.start_fen, rules=board.rules)
    notations = []
    for m in board.move_stack:
        notations.append(replay.notation(m))
        replay.push(m)
    return PositionInfo.model_construct(
        fen=board.fen(),
        board=board.squares(),
        start_fen=board.start_fen,
        turn=color_name(board.turn),
        start_turn=color_name(board.start_turn),
        ply=board.ply,
        rules=board.rules.to_dict(),
        rules_notes=board.rules.differences(),
        moves=notations,
        line=Board(board.start_fen, rules=board.rules).variation_notation(board.move_stack),
        legal_moves=legal_moves(board),
        last_move=last_move(board),
        outcome=(
            OutcomeInfo.model_construct(
                termination=outcome.termination.value,
                winner=color_name(outcome.winner) if outcome.winner is not None else None,
                result=outcome.result(),
                reason=outcome_reason(outcome, board),
            )
            if outcome
            else None
        ),
        counters=counters(board),
        tablebase=_tablebase(board),
    )


@dataclass
class View:
    """A game as one viewer sees it at one time: ``seat`` is the viewer's seat."""

    loaded: Loaded
    now: int
    seat: str | None = None

    def base_json(self) -> str:
        return base_json(self.loaded, self.now)

    def json(self) -> str:
        """The viewer's ``GameState`` as JSON."""
        return viewer_json(self.base_json(), self.seat)

    def state(self) -> GameState:
        state = base_state(self.loaded, self.now)
        state.your_color = self.seat  # type: ignore[assignment]
        return state
