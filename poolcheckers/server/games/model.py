"""The game model: a stored game and its flow (moves, draws, takeback, clocks,
outcome) as plain code over the rules library, without a database.

:class:`GameRec` is *the* record of a game (one field per column of ``games``, see
:data:`poolcheckers.server.database.engine.GAMES`), :class:`MoveRec` one stored ply, and
:class:`Loaded` a game with its moves and the :class:`~poolcheckers.Board` after them.
Every operation takes a :class:`Loaded` and the time, checks the request against the
rules (R16–R20) and returns a :class:`Change`: the new record, board and moves, which
the store then commits.  Nothing here reads or writes storage; moves are parsed and
checked by :meth:`poolcheckers.Board.parse_move`, the one rules authority.

>>> g = new_game(NewGame(mode="local", clock_initial=60, clock_increment=1), "id1", 0)
>>> loaded = Loaded(g, [], Board(g.start_fen))
>>> change = play(loaded, parse_move(loaded.board, "11-15"), 2_000)
>>> change.game.ply, change.game.black_ms, change.game.clock_running
(1, 60000, None)
>>> loaded = Loaded(change.game, change.moves, change.board)
>>> change = play(loaded, parse_move(loaded.board, "22-18"), 3_000)
>>> change.game.ply, change.game.white_ms, change.game.clock_running
(2, 60000, 'black')
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from poolcheckers import (
    STARTING_FEN,
    Board,
    Color,
    FenError,
    InvalidSquareError,
    MalformedMoveError,
    Move,
    MoveError,
    NotYourPieceError,
    Outcome,
    RuleSet,
    RuleSetError,
    Termination,
)
from poolcheckers.engine import DEFAULT_LEVEL
from poolcheckers.server import errors
from poolcheckers.server.games.flow import ABORTABLE_PLIES, abort_refusal, clock_runs
from poolcheckers.server.i18n import M_, Message
from poolcheckers.server.rulebook.model import rule_title
from poolcheckers.server.text import clean_text

#: The status and termination of a game aborted before both sides had moved (no result).
ABORTED = "aborted"
#: The termination of a tournament game ended by its event's no-show rule: a side did
#: not make its first move in time (status "aborted": no result for the game itself,
#: unrated; the event scores it as lost by the side to move, who never moved)
NO_SHOW = "no_show"
#: The PDN result of a game lost by forfeit, by the side that won (Black's score first, R3)
FORFEIT_RESULTS = {"black": "2-0", "white": "0-2"}


# ---------------------------------------------------------------- records
@dataclass
class GameRec:
    """One game as stored: one field per column of ``games``."""

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
    #: community: the accounts holding the seats (None: anonymous or the engine)
    black_user_id: str | None = None
    white_user_id: str | None = None
    rated: bool = False
    category: str | None = None
    days_per_move: int | None = None
    black_rating: int | None = None
    white_rating: int | None = None
    rematch_of: str | None = None
    #: game flow (migration 0003): the side offering a rematch, and the rematch's id
    rematch_offer: str | None = None
    rematch_id: str | None = None
    #: tournaments (migration 0006): the event whose game it is (no abort, no rematch)
    tournament_id: str | None = None
    #: an imported game's move tree (migration 0010): comments, NAGs, variations as
    #: :func:`poolcheckers.pdn.game_tree` gives them; None without any
    annotations: dict[str, Any] | None = None
    #: the archive's search (migration 0012): an imported game's players and event as
    #: its tags name them (a tournament game's event: its tournament's name, its Event
    #: tag too), and the day it was played (its Date tag; a site game's day of
    #: creation, filled in when stored)
    black_name: str | None = None
    white_name: str | None = None
    event: str | None = None
    played_on: str | None = None

    @classmethod
    def from_row(cls, row: Any) -> GameRec:
        """A record from a database row; text stored before lone surrogates were
        refused is read with U+FFFD in their place, so it can still be answered."""
        rec = cls(**dict(row))
        if rec.tags:
            rec.tags = {clean_text(str(k)): clean_text(str(v)) for k, v in rec.tags.items()}
        if rec.reason is not None:
            rec.reason = clean_text(rec.reason)
        return rec

    def values(self) -> dict[str, Any]:
        # a shallow copy: every game write runs this, and ``asdict``'s deep copy of
        # the nested tags and annotations cost more than the write's SQL
        values = {name: getattr(self, name) for name in _GAME_FIELDS}
        if values["played_on"] is None:
            values["played_on"] = day_of(self.created_ms)
        return values

    def copy(self) -> GameRec:
        return dataclasses.replace(self)

    @property
    def has_clock(self) -> bool:
        return self.clock_initial_ms is not None

    @property
    def is_correspondence(self) -> bool:
        """A correspondence game: ``days_per_move`` days for each move, no clock (R20)."""
        return self.days_per_move is not None and not self.has_clock

    @property
    def timed(self) -> bool:
        """Whether the side to move can lose on time: a clock or a move deadline."""
        return self.has_clock or self.is_correspondence

    def remaining_ms(self, color: str, now_ms: int) -> int:
        """Time left on ``color``'s clock at ``now_ms`` (may be negative: flag fallen)."""
        stored = self.black_ms if color == "black" else self.white_ms
        assert stored is not None
        if self.clock_running == color and self.turn_started_ms is not None:
            return stored - (now_ms - self.turn_started_ms)
        return stored

    def engine_to_move(self, board: Board) -> bool:
        return (
            self.mode == "engine"
            and self.status == "running"
            and self.engine_color == color_name(board.turn)
        )


#: the columns of a game's row, in order
_GAME_FIELDS = tuple(f.name for f in dataclasses.fields(GameRec))


@dataclass
class MoveRec:
    """One stored ply: its notation, and the clocks and draw offer after it."""

    ply: int
    notation: str
    path: str
    color: str
    created_ms: int
    black_ms: int | None
    white_ms: int | None
    draw_offer: str | None
    version: int

    @classmethod
    def from_row(cls, row: Any) -> MoveRec:
        return cls(**{k: v for k, v in dict(row).items() if k != "game_id"})

    def values(self, game_id: str) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["game_id"] = game_id
        return d


@dataclass
class Loaded:
    """A game with its moves and the board after them."""

    game: GameRec
    moves: list[MoveRec]
    board: Board
    #: the last serialised state built, with the time it was built for
    memo: tuple[int, Any] | None = None


@dataclass
class Change:
    """A new state of a game to store: ``game`` (version bumped by the store), its
    moves, the moves to insert and, for a takeback, the first ply to delete."""

    game: GameRec
    board: Board
    moves: list[MoveRec]
    insert: list[MoveRec] = field(default_factory=list)
    delete_from: int | None = None
    #: a new game stored in the same transaction (a rematch)
    spawn: Loaded | None = None


@dataclass(frozen=True, kw_only=True)
class NewGame:
    """What a new game is made of (already type-checked by the request schema):
    keywords only, so that no caller depends on the order of the fields."""

    mode: Literal["engine", "local", "online"]
    rules: dict[str, Any] = field(default_factory=dict)
    fen: str | None = None
    level: int | None = None
    color: Literal["black", "white"] = "black"
    clock_initial: float | None = None
    clock_increment: float = 0.0


# ---------------------------------------------------------------- helpers
def color_name(color: Color) -> str:
    return "black" if color is Color.BLACK else "white"


def color_of(name: str) -> Color:
    return Color.BLACK if name == "black" else Color.WHITE


def other(name: str) -> str:
    return "white" if name == "black" else "black"


def outcome_reason(outcome: Outcome, board: Board) -> str:
    """The end of the game in words, citing the rule (R16..R20, §9): the library's words."""
    return board.outcome_reason(outcome) or outcome.reason(board.rules)


def parse_rules(options: dict[str, Any] | None) -> RuleSet:
    """The rule set of docs/RULES.md §9 options, or ``bad_request``."""
    try:
        return RuleSet.from_dict(options or {})
    except (RuleSetError, TypeError, ValueError) as exc:
        raise errors.bad_request(M_("invalid rules (docs/RULES.md §9): {exc}", exc=exc)) from None


@functools.lru_cache(maxsize=256)
def _set_up(fen: str, rules: RuleSet) -> Board:
    return Board(fen, rules=rules)


def board_at(fen: str, rules: RuleSet) -> Board:
    """A new board set up at ``fen`` (R5).  Reading a FEN costs a hundred times what
    copying a board does, and nearly every game starts from the same few positions:
    the boards read are kept (a few hundred) and copied."""
    return _set_up(fen, rules).copy()


def parse_board(fen: str | None, rules: RuleSet) -> Board:
    """The position of a FEN (R5; the start position when empty), or ``malformed``."""
    try:
        return board_at(fen.strip() if fen and fen.strip() else STARTING_FEN, rules)
    except FenError as exc:
        raise errors.malformed(M_("invalid FEN (R5): {exc}", exc=exc)) from None


def parse_move(board: Board, text: str) -> Move:
    """The legal move ``text`` names (R4), or ``malformed`` / ``illegal_move``."""
    try:
        return board.parse_move(text)
    except (MalformedMoveError, InvalidSquareError) as exc:
        words = Message.beside(
            str(exc),
            "{move} is not a move as written on this site: like 11-15, 15x22 or 9x18x27 (R4)",
            move=repr(text),
        )
        raise errors.malformed(words) from None
    except MoveError as exc:
        raise errors.ApiError(400, "illegal_move", move_refused(text, exc)) from None


def not_your_turn(turn: str, seat: str) -> Message:
    """A move from the seat whose turn it is not (the colours said as words)."""
    english = f"it is {turn}'s turn; this seat plays {seat}"
    if turn == "black":
        return Message.beside(english, "it is Black's turn; this seat plays White")
    return Message.beside(english, "it is White's turn; this seat plays Black")


def move_refused(text: str, error: MoveError) -> Message:
    """The rules library's refusal of ``text`` (its English as it is), said in other
    languages by the rule it cites: the rule's name on the rules page."""
    if isinstance(error, NotYourPieceError):
        return Message.beside(str(error), "{move}: that piece is not yours to move", move=text)
    cited = re.search(r"\bR\d{1,2}\b", str(error))
    rule_id = cited.group(0) if cited else ""
    title = rule_title(rule_id)
    if title is None:
        return Message.beside(str(error), "{move} is not a legal move here", move=text)
    return Message.beside(
        str(error),
        "{move} is not a legal move here: see the rule “{rule}” ({rule_id})",
        move=text,
        rule=M_(title),
        rule_id=rule_id,
    )


def replay(game: GameRec, moves: list[MoveRec]) -> Board:
    """The board after the start FEN and every stored move (each checked again)."""
    board = board_at(game.start_fen, RuleSet.from_dict(game.rules))
    for m in moves:
        board.push(board.parse_move(m.path))
    return board


def require_running(game: GameRec) -> None:
    if game.status != "running":
        raise errors.game_over(M_("game {id} is over: {reason}", id=game.id, reason=game.reason))


def awaiting_player(game: GameRec) -> bool:
    """An online game with a seat nobody holds yet (by a token or an account)."""
    black = game.black_token_hash or game.black_user_id  # a token or an account seat
    white = game.white_token_hash or game.white_user_id
    return game.mode == "online" and (black is None or white is None)


def require_opponent_seated(game: GameRec) -> None:
    """An online game starts only when the invited player has joined."""
    if awaiting_player(game):
        raise errors.conflict(M_("the game starts when the invited player joins"))


# ---------------------------------------------------------------- clocks (R20)
#: one day, in milliseconds (correspondence deadlines)
DAY_MS = 86_400_000


def settle_clock(game: GameRec, now: int) -> None:
    """Charge the running side for the time since its turn started; stop the clock
    (a correspondence game has no time to charge: its deadline just goes)."""
    if game.has_clock and game.clock_running is not None and game.turn_started_ms is not None:
        spent = now - game.turn_started_ms
        if game.clock_running == "black":
            game.black_ms = max(0, (game.black_ms or 0) - spent)
        else:
            game.white_ms = max(0, (game.white_ms or 0) - spent)
    game.clock_running = None
    game.turn_started_ms = None
    game.deadline_ms = None


def start_clock(game: GameRec, color: str, now: int) -> None:
    """Start ``color``'s clock, unless that side has not moved yet: each side's clock
    starts with its first move (as lichess), so nothing runs before ply 2
    (:func:`poolcheckers.server.games.flow.clock_runs`).

    A correspondence game gives ``color`` ``days_per_move`` days from now for this
    move (the deadline is set again after every move, as lichess), under the same
    rule: no deadline before each side has made its first move."""
    if not game.timed or not clock_runs(game.ply):
        return
    game.clock_running = color
    game.turn_started_ms = now
    if game.is_correspondence:
        game.deadline_ms = now + (game.days_per_move or 0) * DAY_MS
        return
    remaining = game.black_ms if color == "black" else game.white_ms
    game.deadline_ms = now + (remaining or 0)


def finish(game: GameRec, board: Board, outcome: Outcome, reason: str | None = None) -> None:
    game.status = "finished"
    game.termination = outcome.termination.value
    game.winner = color_name(outcome.winner) if outcome.winner is not None else None
    game.result = outcome.result()
    game.reason = reason or outcome_reason(outcome, board)
    game.draw_offer = None
    game.clock_running = None
    game.turn_started_ms = None
    game.deadline_ms = None


def flag(loaded: Loaded, now: int) -> Change | None:
    """The game lost on time (R20) if the running side's flag has fallen, else None."""
    g = loaded.game
    if g.status != "running" or g.clock_running is None:
        return None
    if g.is_correspondence:
        if g.deadline_ms is None or now < g.deadline_ms:
            return None  # the move's deadline has not passed
    elif g.remaining_ms(g.clock_running, now) > 0:
        return None
    loser = g.clock_running
    game = g.copy()
    settle_clock(game, now)
    finish(game, loaded.board, Outcome(Termination.TIME, color_of(other(loser))))
    return Change(game, loaded.board, loaded.moves)


# ---------------------------------------------------------------- creation
def blank_record(game_id: str, mode: str, rules: RuleSet, start_fen: str, now: int) -> GameRec:
    """A running game at ply 0: no seats, no clock, no outcome."""
    return GameRec(
        id=game_id,
        mode=mode,
        status="running",
        rules=rules.to_dict(),
        start_fen=start_fen,
        level=None,
        engine_color=None,
        black_token_hash=None,
        white_token_hash=None,
        invite_hash=None,
        clock_initial_ms=None,
        clock_increment_ms=None,
        black_ms=None,
        white_ms=None,
        clock_running=None,
        turn_started_ms=None,
        deadline_ms=None,
        ply=0,
        draw_offer=None,
        termination=None,
        winner=None,
        result=None,
        reason=None,
        tags=None,
        version=1,
        created_ms=now,
        updated_ms=now,
    )


def already_decided(board: Board) -> str | None:
    """Why a start position leaves no game to play, or None.  Besides a side to move
    that cannot (R16), a side with no pieces at all: whatever its opponent plays, it
    cannot move when its turn comes, so the game would only show "your turn" for a
    result already known.

    >>> already_decided(Board("B:W:B1"))
    'White has no pieces: it loses as soon as its turn comes (R16)'
    >>> already_decided(Board("W:W32:B27,28,23"))
    'White has no legal move (R16)'
    >>> already_decided(Board()) is None
    True
    """
    reason = board.outcome_reason()
    if reason is not None:
        return reason
    for color in Color:
        if not board.pieces(color):
            name = color.name.capitalize()
            return f"{name} has no pieces: it loses as soon as its turn comes (R16)"
    return None


def new_game(spec: NewGame, game_id: str, now: int) -> GameRec:
    """A new running game (no seats yet: see :mod:`poolcheckers.server.games.seats`)."""
    rules = parse_rules(spec.rules)
    board = parse_board(spec.fen, rules)
    decided = already_decided(board)
    if decided is not None:
        raise errors.bad_request(
            M_(
                "the position is already decided: {decided}; set up pieces that can play",
                decided=decided,
            )
        )
    game = blank_record(game_id, spec.mode, rules, board.fen(), now)
    if spec.mode == "engine":
        game.level = spec.level or DEFAULT_LEVEL
        game.engine_color = other(spec.color)
    if spec.clock_initial is not None:
        game.clock_initial_ms = game.black_ms = game.white_ms = round(spec.clock_initial * 1000)
        game.clock_increment_ms = round(spec.clock_increment * 1000)
    return game  # no clock runs before each side has moved (start_clock)


@dataclass(frozen=True, slots=True)
class GameFilter:
    """What the archive asks for: every field narrows the list (None or empty: any).

    ``player`` and ``event`` match a part of the name, in any case (an account's
    username, or the name an imported game's tags give; the event of a tournament's
    game is the tournament's name); ``result`` is ``2-0``,
    ``0-2``, ``1-1`` or ``unfinished`` (no result, or ``*``); ``date_from`` and
    ``date_to`` bound the day played (``YYYY-MM-DD``, both included); ``account`` and
    ``ids`` together are "my games": the account's seats and the games whose ids the
    browser holds seat tokens of.
    """

    status: str | None = None
    mode: str | None = None
    player: str = ""
    event: str = ""
    result: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    mine: bool = False
    account: str | None = None
    ids: tuple[str, ...] = ()


def day_of(ms: int) -> str:
    """The UTC day of an instant, as the archive searches it (``YYYY-MM-DD``)."""
    moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d")


def pdn_day(date: str | None) -> str | None:
    """The day of a PDN ``Date`` tag (``2026.11.14``) as ``YYYY-MM-DD``; an unknown month
    or day (``2026.??.??``) counts from the first, so that a search by year finds it;
    None without a year.

    >>> pdn_day("2026.11.14"), pdn_day("1998.??.??"), pdn_day("????.??.??"), pdn_day("x")
    ('2026-11-14', '1998-01-01', None, None)
    """
    match = re.fullmatch(r"\s*(\d{4})[.\-/](\d{2}|\?\?)[.\-/](\d{2}|\?\?)\s*", date or "")
    if match is None:
        return None
    year, month, day = match.groups()
    month = month if month.isdigit() and 1 <= int(month) <= 12 else "01"
    day = day if day.isdigit() and 1 <= int(day) <= 31 else "01"
    return f"{year}-{month}-{day}"


def imported_game(
    board: Board,
    tags: dict[str, str],
    result: str,
    game_id: str,
    now: int,
    annotations: dict[str, Any] | None = None,
) -> tuple[GameRec, list[MoveRec]]:
    """A game read from PDN as a finished record (mode ``imported``, no seats), with
    its move tree when it has comments, NAGs or variations."""
    played = list(board.move_stack)
    start = board.copy()
    for _ in played:
        start.pop()
    game = blank_record(game_id, "imported", board.rules, start.fen(), now)
    game.status = "finished"
    game.ply = len(played)
    game.winner = {"2-0": "black", "0-2": "white"}.get(result)
    game.result = result
    game.reason = (
        f"Imported game, result {result}" if result != "*" else "Imported game, unfinished (*)"
    )
    game.tags = tags
    game.annotations = annotations
    game.black_name = tags.get("Black")
    game.white_name = tags.get("White")
    game.event = tags.get("Event")
    game.played_on = pdn_day(tags.get("Date")) or day_of(now)
    outcome = board.outcome()
    if outcome is not None and outcome.result() == result:
        game.termination = outcome.termination.value
        game.reason = outcome_reason(outcome, board)
    moves: list[MoveRec] = []
    for i, mv in enumerate(played):
        mover = color_name(start.turn)
        moves.append(
            MoveRec(i, start.notation(mv), mv.full_notation(), mover, now, None, None, None, 1)
        )
        start.push(mv)
    return game, moves


def join(loaded: Loaded, token_hash: str, now: int) -> Change:
    """The invited player takes the free seat of an online game; its clock starts."""
    g = loaded.game
    if g.black_token_hash is not None and g.white_token_hash is not None:
        raise errors.conflict(M_("both seats of this game are taken"))
    require_running(g)
    game = g.copy()
    if game.white_token_hash is None:
        game.white_token_hash = token_hash
    else:
        game.black_token_hash = token_hash
    return Change(game, loaded.board, loaded.moves)  # the clock waits for the moves


# ---------------------------------------------------------------- moves
def play(loaded: Loaded, mv: Move, now: int) -> Change:
    """The change of playing the legal move ``mv`` (clock, increment, end of game)."""
    g = loaded.game
    board = loaded.board.copy()
    mover = color_name(board.turn)
    notation = board.notation(mv)
    board.push(mv)
    game = g.copy()
    if game.has_clock and clock_runs(g.ply):  # a side's first move is free (no increment)
        settle_clock(game, now)
        inc = game.clock_increment_ms or 0
        if mover == "black":
            game.black_ms = (game.black_ms or 0) + inc
        else:
            game.white_ms = (game.white_ms or 0) + inc
    game.ply = g.ply + 1
    if game.draw_offer is not None and game.draw_offer != mover:
        game.draw_offer = None  # moving declines the opponent's offer (R17)
    outcome = board.outcome()
    if outcome is not None:
        finish(game, board, outcome)
    else:
        start_clock(game, color_name(board.turn), now)
    rec = MoveRec(
        g.ply,
        notation,
        mv.full_notation(),
        mover,
        now,
        game.black_ms,
        game.white_ms,
        game.draw_offer,
        0,
    )
    return Change(game, board, [*loaded.moves, rec], insert=[rec])


def player_move(loaded: Loaded, seat: str, text: str, ply: int, now: int) -> Change | Loaded:
    """A player's move ``text`` at ``ply``: the change, or, for a retry of the move
    already stored at ``ply`` (same move, same seat), the game as it was right after
    it (answered again, nothing played)."""
    g = loaded.game
    if ply < g.ply:
        return retried(loaded, seat, text, ply)
    require_running(g)
    if ply > g.ply:
        raise errors.stale_ply(
            M_("ply {ply} is ahead of the game, which is at ply {ply2}", ply=ply, ply2=g.ply)
        )
    turn = color_name(loaded.board.turn)
    if seat not in ("both", turn):
        raise errors.forbidden(not_your_turn(turn, seat))
    require_opponent_seated(g)
    return play(loaded, parse_move(loaded.board, text), now)


def retried(loaded: Loaded, seat: str, text: str, ply: int) -> Loaded:
    """The game right after the move stored at ``ply``, if ``text`` is that move by
    the same seat (an idempotent retry), else ``stale_ply``."""
    g = loaded.game
    stored = loaded.moves[ply]
    board = loaded.board.copy()
    for _ in range(g.ply - ply):
        board.pop()
    try:
        mv: Move | None = board.parse_move(text)
    except MoveError:
        mv = None
    played = board.parse_move(stored.path)
    if mv is None or mv != played or seat not in ("both", stored.color):
        raise errors.stale_ply(
            M_(
                "ply {ply} is already played ({notation}); the game is at ply {ply2}",
                ply=ply,
                notation=stored.notation,
                ply2=g.ply,
            )
        )
    board.push(played)
    game = g.copy()
    game.ply = ply + 1
    game.version = stored.version
    game.draw_offer = stored.draw_offer
    game.black_ms, game.white_ms = stored.black_ms, stored.white_ms
    game.status, game.termination, game.winner = "running", None, None
    game.result = game.reason = None
    game.clock_running = game.turn_started_ms = game.deadline_ms = None
    outcome = board.outcome()
    if outcome is not None:
        finish(game, board, outcome)
    else:
        start_clock(game, color_name(board.turn), stored.created_ms)
    return Loaded(game, loaded.moves[: ply + 1], board)


def engine_move(loaded: Loaded, ply: int, path: str, now: int) -> Change | None:
    """The engine's move found for ``ply``; None if the game moved on meanwhile."""
    if loaded.game.ply != ply or not loaded.game.engine_to_move(loaded.board):
        return None
    return play(loaded, parse_move(loaded.board, path), now)


# ---------------------------------------------------------------- game actions
def require_both_moved_in_event(game: GameRec, what: Literal["resign", "draw"]) -> None:
    """A tournament game cannot be resigned nor drawn by agreement before both sides
    have moved: with no move played there is nothing to score, and a pair agreeing a
    result at once would farm the event's points.  The game goes on; a side that does
    not make its first move in time loses by the event's no-show rule."""
    if game.tournament_id is None or game.ply >= ABORTABLE_PLIES:
        return
    if what == "resign":
        raise errors.conflict(
            M_(
                "a tournament game can be resigned only once both sides have moved (R20): "
                "play on; a side that does not make its first move in time loses by forfeit"
            )
        )
    raise errors.conflict(
        M_(
            "a draw can be offered or agreed in a tournament game only once both sides "
            "have moved (R17): play on; a side that does not make its first move in time "
            "loses by forfeit"
        )
    )


def resign(loaded: Loaded, side: str, now: int) -> Change:
    """``side`` resigns (R20); in a tournament game, only once both sides have moved."""
    require_running(loaded.game)
    require_both_moved_in_event(loaded.game, "resign")
    game = loaded.game.copy()
    settle_clock(game, now)
    if loaded.game.rated and loaded.game.ply < ABORTABLE_PLIES:
        # a rated game nobody has played yet has no result to rate: resigning at
        # once is how two accounts would farm a rating (casual games keep theirs)
        end_unplayed(
            game, f"{side.capitalize()} resigned before both sides had moved: aborted, no result"
        )
    else:
        finish(game, loaded.board, Outcome(Termination.RESIGNATION, color_of(other(side))))
    return Change(game, loaded.board, loaded.moves)


def offer_draw(loaded: Loaded, side: str, now: int) -> Change:
    """``side`` offers a draw (R17); offering while the opponent's offer stands accepts it.
    In a tournament game, only once both sides have moved."""
    require_running(loaded.game)
    require_opponent_seated(loaded.game)
    require_both_moved_in_event(loaded.game, "draw")
    game = loaded.game.copy()
    if game.draw_offer == other(side):
        settle_clock(game, now)
        finish(game, loaded.board, Outcome(Termination.AGREEMENT, None))
    elif game.draw_offer == side:
        english = f"{side} has already offered a draw (R17)"
        if side == "black":
            raise errors.conflict(Message.beside(english, "Black has already offered a draw (R17)"))
        raise errors.conflict(Message.beside(english, "White has already offered a draw (R17)"))
    else:
        game.draw_offer = side
    return Change(game, loaded.board, loaded.moves)


def answer_draw(loaded: Loaded, seat: str | None, accept: bool, now: int) -> Change:
    """Accept or decline the standing draw offer (R17); ``seat`` None is the engine."""
    g = loaded.game
    require_running(g)
    if g.draw_offer is None:
        raise errors.conflict(M_("there is no draw offer to answer (R17)"))
    if seat is None:
        if g.mode != "engine" or g.engine_color != other(g.draw_offer):
            raise errors.conflict(M_("no draw offer to the engine"))
    elif seat not in ("both", other(g.draw_offer)):
        english = f"{g.draw_offer} cannot answer its own draw offer"
        if g.draw_offer == "black":
            raise errors.forbidden(
                Message.beside(english, "Black cannot answer its own draw offer")
            )
        raise errors.forbidden(Message.beside(english, "White cannot answer its own draw offer"))
    if accept:
        require_both_moved_in_event(g, "draw")
    game = g.copy()
    if accept and g.rated and g.ply < ABORTABLE_PLIES:
        settle_clock(game, now)
        end_unplayed(game, "Draw agreed before both sides had moved: aborted, no result")
    elif accept:
        settle_clock(game, now)
        finish(game, loaded.board, Outcome(Termination.AGREEMENT, None))
    else:
        game.draw_offer = None
    return Change(game, loaded.board, loaded.moves)


def takeback(loaded: Loaded, seat: str, now: int) -> Change:
    """Against the engine: undo the human's last move and every engine reply after it;
    on one screen: undo the last move.  A finished game stays finished: its result is
    never erased (analyse it, or start a game from its position, instead)."""
    g = loaded.game
    if g.mode not in ("engine", "local"):
        raise errors.conflict(M_("takeback is only available against the engine or on one screen"))
    if g.status != "running":
        raise errors.game_over(
            M_(
                "game {id} is over ({reason}): a finished game is kept as it ended",
                id=g.id,
                reason=g.reason,
            )
        )
    moves = loaded.moves
    n = len(moves)
    if g.mode == "engine":
        while n > 0 and moves[n - 1].color != seat:
            n -= 1  # engine replies after the human's last move
    if n == 0:
        raise errors.conflict(M_("you have no move to take back"))
    n -= 1  # the last move (the human's own, against the engine)
    game = g.copy()
    settle_clock(game, now)
    game.status = "running"
    game.termination = game.winner = game.result = game.reason = None
    game.draw_offer = None
    game.ply = n
    kept = moves[:n]
    board = replay(game, kept)
    start_clock(game, color_name(board.turn), now)
    return Change(game, board, kept, delete_from=n)


# ---------------------------------------------------------------- abort, rematch
def abort(loaded: Loaded, side: str, now: int) -> Change:
    """``side`` aborts the game while a side has not yet moved (before ply 2): no
    result, unrated; also cancels an online game nobody joined."""
    g = loaded.game
    refusal = abort_refusal(g.ply, finished=g.status != "running")
    if refusal is None and g.tournament_id is not None:
        refusal = M_(
            "a tournament game cannot be aborted: make your first move (a side that does "
            "not move in time loses by forfeit); once both sides have moved, you may resign"
        )
    if refusal is not None:
        if g.status != "running":
            raise errors.game_over(M_("game {id} is over: {refusal}", id=g.id, refusal=refusal))
        raise errors.conflict(refusal)
    game = g.copy()
    settle_clock(game, now)
    if awaiting_player(g):
        end_unplayed(game, f"Cancelled by {side.capitalize()}: nobody joined")
    else:
        end_unplayed(game, f"Aborted by {side.capitalize()} before both sides had moved: no result")
    return Change(game, loaded.board, loaded.moves)


@dataclass(frozen=True, slots=True)
class IdleLimits:
    """How long a running game may wait for a move before the sweep closes it.

    ``first_move_ms``: an online game with a clock whose first move (of either side)
    never comes is aborted after it (a correspondence game after its days per move);
    ``abandon_ms``: any game without a running clock (engine, one screen, unlimited,
    an invitation nobody took) is closed after that long without a move.
    """

    first_move_ms: int = 60_000
    abandon_ms: int = 30 * 86_400_000


def span(ms: int) -> str:
    """A duration in words, in the largest unit that says it exactly: "60 seconds",
    "1 minute", "2 hours", "30 days" (the game page says them again in its language).

    >>> span(60_000), span(180_000), span(86_400_000), span(90 * 60_000), span(1_500)
    ('1 minute', '3 minutes', '1 day', '90 minutes', '1 second')
    """
    seconds = ms // 1000
    for unit, size in (("day", 86_400), ("hour", 3_600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'' if n == 1 else 's'}"
    return f"{seconds} second{'' if seconds == 1 else 's'}"


def idle_end(loaded: Loaded, now: int, limits: IdleLimits) -> Change | None:
    """The game closed for waiting too long (no result, never rated), or None.

    >>> g = blank_record("g1", "engine", RuleSet.apca(), STARTING_FEN, 0)
    >>> loaded = Loaded(g, [], Board())
    >>> idle_end(loaded, 29 * 86_400_000, IdleLimits()) is None
    True
    >>> idle_end(loaded, 30 * 86_400_000, IdleLimits()).game.reason
    'Abandoned: no move for 30 days; closed without a result'
    """
    g = loaded.game
    if g.status != "running" or g.tournament_id is not None:
        return None
    idle = now - g.updated_ms
    if g.mode == "online" and not awaiting_player(g) and g.ply < ABORTABLE_PLIES:
        if g.is_correspondence:
            limit = (g.days_per_move or 1) * 86_400_000
        elif g.has_clock:
            limit = limits.first_move_ms
        else:
            limit = limits.abandon_ms
        if idle < limit:
            return None
        game = g.copy()
        settle_clock(game, now)
        end_unplayed(game, f"Aborted: no first move within {span(limit)}; no result")
        return Change(game, loaded.board, loaded.moves)
    if g.clock_running is not None and (g.has_clock or g.deadline_ms is not None):
        return None  # the flag decides (R20)
    if idle < limits.abandon_ms:
        return None
    game = g.copy()
    settle_clock(game, now)
    end_unplayed(game, f"Abandoned: no move for {span(limits.abandon_ms)}; closed without a result")
    return Change(game, loaded.board, loaded.moves)


def end_unplayed(game: GameRec, why: str) -> None:
    """End ``game``, in which a side has not moved yet, as aborted: no result, never
    rated (a resignation or a draw before both sides moved ends the same way)."""
    game.status = ABORTED
    game.termination = ABORTED
    game.winner = None
    game.result = "*"
    game.reason = why
    game.draw_offer = None
    game.clock_running = None
    game.turn_started_ms = None
    game.deadline_ms = None
    game.invite_hash = None  # a cancelled invitation cannot be taken any more


def end_no_show(game: GameRec, why: str, winner: str | None = None) -> None:
    """End the tournament game ``game`` by its event's no-show rule: the side to move
    has not made its first move in time.  Stored as :data:`NO_SHOW`, so that the event
    scores a forfeit only for a game this rule ended.  ``winner``: the side that moved,
    in an event that scores the forfeit (a round robin, a Swiss event): the game keeps
    the forfeit's result so that its page, its PDN and its player's pages say who won;
    its status stays ``aborted`` (no game was played: never rated).  None in an arena,
    which scores the game for nobody."""
    end_unplayed(game, why)
    game.termination = NO_SHOW
    if winner is not None:
        game.winner = winner
        game.result = FORFEIT_RESULTS[winner]


def rematch(
    loaded: Loaded, seat: str, side: str, new: Callable[[GameRec], GameRec]
) -> Change | None:
    """``side`` asks for a rematch of the game that is over.  Online, it is an offer
    until the opponent asks too; against the engine or on one screen, the new game,
    built by ``new`` from this one, starts at once.  None when nothing changes
    (already offered, already started)."""
    g = loaded.game
    if g.status == "running":
        raise errors.conflict(M_("a rematch is for a game that is over: finish or abort it first"))
    if g.mode == "imported":
        raise errors.conflict(M_("an imported game has no players to play a rematch"))
    if g.tournament_id is not None:
        raise errors.conflict(M_("a tournament game has no rematch: the event pairs the next one"))
    if g.rematch_id is not None or g.rematch_offer == side:
        return None  # asked again (a retry, or both at once): the answer says where it is
    if awaiting_player(g):
        raise errors.conflict(M_("nobody joined this game: there is no one to play a rematch"))
    game = g.copy()
    if g.mode == "online" and seat != "both" and g.rematch_offer != other(side):
        game.rematch_offer = side
        return Change(game, loaded.board, loaded.moves)
    spawned = new(g)
    game.rematch_offer = None
    game.rematch_id = spawned.id
    spawn = Loaded(spawned, [], replay(spawned, []))
    return Change(game, loaded.board, loaded.moves, spawn=spawn)


def decline_rematch(loaded: Loaded) -> Change:
    """Decline the opponent's rematch offer, or withdraw one's own."""
    g = loaded.game
    if g.rematch_offer is None:
        if g.rematch_id is not None:
            raise errors.conflict(
                M_("the rematch has started: game {rematch_id}", rematch_id=g.rematch_id)
            )
        raise errors.conflict(M_("there is no rematch offer to decline"))
    game = g.copy()
    game.rematch_offer = None
    return Change(game, loaded.board, loaded.moves)
