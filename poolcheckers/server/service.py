"""The game service: every change to a game, validated and stored (synchronous).

Each operation reads the game, checks it (the server never trusts the client: every
move is validated by :class:`poolcheckers.Board`), and stores the change in one
transaction: ``UPDATE games ... WHERE version = <read version>`` (compare-and-set)
plus, for a move, an ``INSERT`` into ``moves`` whose primary key ``(game_id, ply)``
refuses a second move for the same ply.  Only after the commit is the change answered
and broadcast, so a move is durable before it is acknowledged, and two moves racing
for one ply (in one process or in several) have exactly one winner.

The methods are blocking (SQLAlchemy sync API): the web layer calls them in worker
threads.  Within one process, operations on one game are serialised by a lock; a
per-process cache keeps the rebuilt board of recently used games, valid while the
stored ``version`` is unchanged.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import (
    Connection,
    Engine,
    Table,
    bindparam,
    delete,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError

from poolcheckers import (
    STARTING_FEN,
    AmbiguousMoveError,
    Board,
    FenError,
    InvalidSquareError,
    MalformedMoveError,
    Move,
    MoveError,
    Outcome,
    RuleSet,
    RuleSetError,
    Termination,
)

from . import errors
from .clock import Clock, SystemClock
from .db import PG_CHANNEL, Base, GameRow, MoveRow
from .errors import ApiError
from .state import (
    GameRec,
    Loaded,
    MoveRec,
    base_state,
    color_name,
    color_of,
    other,
    outcome_reason,
)

T = TypeVar("T")

GAMES: Table = Base.metadata.tables[GameRow.__tablename__]
MOVES: Table = Base.metadata.tables[MoveRow.__tablename__]
# statements built once (SQLAlchemy caches their compiled form)
SELECT_GAME = select(GAMES).where(GAMES.c.id == bindparam("b_id"))
SELECT_MOVES = select(MOVES).where(MOVES.c.game_id == bindparam("b_id")).order_by(MOVES.c.ply)
SELECT_NEWER_MOVES = (
    select(MOVES)
    .where(MOVES.c.game_id == bindparam("b_id"), MOVES.c.version > bindparam("b_version"))
    .order_by(MOVES.c.ply)
)
UPDATE_GAME = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("b_id"), GAMES.c.version == bindparam("b_old"))
    .values({c.name: bindparam("v_" + c.name) for c in GAMES.c if c.name != "id"})
)
MODES = ("engine", "local", "online")
#: Terminations decided by the board (a takeback against the engine may reopen them).
BOARD_TERMINATIONS = frozenset({"no_moves", "move_limit", "three_kings", "repetition"})
MAX_CLOCK_S = 24 * 3600


def hash_token(token: str) -> str:
    """SHA-256 of a seat or invitation token: only hashes are stored.

    >>> len(hash_token("abc"))
    64
    """
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


class _Conflict(Exception):
    """The compare-and-set lost against a concurrent change: reload and retry."""


@dataclass
class Change:
    """A new state of a game to store: ``game`` (version already bumped), moves to
    insert and, for a takeback, the first ply to delete."""

    game: GameRec
    board: Board
    moves: list[MoveRec]
    insert: list[MoveRec] = field(default_factory=list)
    delete_from: int | None = None


@dataclass
class Committed:
    """What a successful change produced: the game, its base state, and hints for the
    web layer (whether the engine is to move now)."""

    loaded: Loaded
    state: dict[str, Any]
    engine_to_move: bool


ChangeHook = Callable[[Committed], None]


@dataclass
class CreateRequest:
    mode: str
    rules: dict[str, Any]
    fen: str | None
    level: int | None
    color: str
    clock_initial: float | None
    clock_increment: float


class GameService:
    """Creates games and applies moves and game actions, with storage in ``db``."""

    def __init__(
        self,
        db: Engine,
        clock: Clock | None = None,
        *,
        engine_available: Callable[[], bool] = lambda: False,
        cache_size: int = 4096,
    ) -> None:
        self.db = db
        self.clock: Clock = clock or SystemClock()
        self.engine_available = engine_available
        self.is_postgres = db.dialect.name == "postgresql"
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()
        self._locks = [threading.Lock() for _ in range(64)]
        self.on_change: ChangeHook | None = None

    # ------------------------------------------------------------------ plumbing
    def _lock_for(self, game_id: str) -> threading.Lock:
        return self._locks[hash(game_id) % len(self._locks)]

    def _cache_get(self, game_id: str) -> Loaded | None:
        with self._cache_lock:
            loaded = self._cache.get(game_id)
            if loaded is not None:
                self._cache.move_to_end(game_id)
            return loaded

    def _cache_put(self, loaded: Loaded) -> None:
        with self._cache_lock:
            self._cache[loaded.game.id] = loaded
            self._cache.move_to_end(loaded.game.id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _cache_drop(self, game_id: str) -> None:
        with self._cache_lock:
            self._cache.pop(game_id, None)

    @staticmethod
    def replay(game: GameRec, moves: list[MoveRec]) -> Board:
        """Rebuild the board: the start FEN, then every stored move, each re-validated."""
        board = Board(game.start_fen, rules=RuleSet.from_dict(game.rules))
        for m in moves:
            board.push(board.parse_move(m.path))
        return board

    def _load(self, conn: Connection, game_id: str) -> Loaded:
        row = conn.execute(SELECT_GAME, {"b_id": game_id}).mappings().first()
        if row is None:
            raise errors.not_found(game_id)
        cached = self._cache_get(game_id)
        if cached is not None and cached.game.version == row["version"]:
            return cached
        game = GameRec(**dict(row))
        if cached is not None and cached.game.version < game.version:
            newer = self._load_newer(conn, cached, game)
            if newer is not None:
                self._cache_put(newer)
                return newer
        move_rows = conn.execute(SELECT_MOVES, {"b_id": game_id}).mappings()
        moves = [MoveRec(**{k: v for k, v in m.items() if k != "game_id"}) for m in move_rows]
        if len(moves) != game.ply or any(m.version > game.version for m in moves):
            # the two reads saw different commits (READ COMMITTED): read again
            raise _Conflict
        loaded = Loaded(game, moves, self.replay(game, moves))
        self._cache_put(loaded)
        return loaded

    def _load_newer(self, conn: Connection, cached: Loaded, game: GameRec) -> Loaded | None:
        """Bring a cached game up to date by playing only the moves stored since
        (changes made by another process); None when that is not possible (a takeback
        rewrote earlier plies): then the game is replayed from the start."""
        rows = conn.execute(
            SELECT_NEWER_MOVES, {"b_id": game.id, "b_version": cached.game.version}
        ).mappings()
        new = [MoveRec(**{k: v for k, v in m.items() if k != "game_id"}) for m in rows]
        first = len(cached.moves)
        if game.ply != first + len(new) or any(
            m.ply != first + i or m.version > game.version for i, m in enumerate(new)
        ):
            return None
        if not new:
            return Loaded(game, cached.moves, cached.board)
        board = cached.board.copy()
        for m in new:
            board.push(board.parse_move(m.path))
        return Loaded(game, [*cached.moves, *new], board)

    def _store(self, conn: Connection, old_version: int, change: Change) -> None:
        g = change.game
        params = {"v_" + k: v for k, v in g.values().items() if k != "id"}
        params["b_id"] = g.id
        params["b_old"] = old_version
        res = conn.execute(UPDATE_GAME, params)
        if res.rowcount != 1:
            raise _Conflict
        if change.delete_from is not None:
            conn.execute(
                delete(MOVES).where(MOVES.c.game_id == g.id, MOVES.c.ply >= change.delete_from)
            )
        if change.insert:
            try:
                conn.execute(insert(MOVES), [m.values(g.id) for m in change.insert])
            except IntegrityError as exc:
                raise _Conflict from exc
        if self.is_postgres:
            conn.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": PG_CHANNEL, "payload": f"{g.id}:{g.version}"},
            )

    def _run(
        self,
        game_id: str,
        op: Callable[[Loaded, int], Change | None],
        answer: Callable[[Loaded, int], T],
        *,
        optimistic: bool = False,
    ) -> T:
        """Run ``op`` on the current game, store its change (if any) and answer.

        Before ``op``, a fallen flag ends the game (R20): checked on every request.
        On a lost compare-and-set, everything is re-read and ``op`` runs again.

        ``optimistic``: first try ``op`` on the cached game without reading the
        stored version; a change is still stored by compare-and-set (so a stale
        cache only costs a retry), and an answer without a change (an error, a
        retried move) is only given after re-running on a freshly read game.
        """
        unverified = optimistic
        for _attempt in range(8):
            committed: list[Committed] = []
            flagged = False
            try:
                with self._lock_for(game_id):
                    try:
                        with self.db.begin() as conn:
                            now = self.clock.now_ms()
                            cached = self._cache_get(game_id) if unverified else None
                            unverified = False
                            loaded = cached if cached is not None else self._load(conn, game_id)
                            flag = self._flag_change(loaded, now)
                            if flag is not None:
                                # stored on its own, even if ``op`` then fails (game over)
                                self._apply(conn, loaded, flag, now, committed)
                                flagged = True
                            else:
                                try:
                                    result = op(loaded, now)
                                except ApiError:
                                    if cached is not None:
                                        raise _Conflict from None  # decide on fresh data
                                    raise
                                if isinstance(result, Change):
                                    loaded = self._apply(conn, loaded, result, now, committed)
                                elif cached is not None:
                                    raise _Conflict  # answer from fresh data
                                value = answer(loaded, now)
                    except (ApiError, _Conflict):
                        raise  # the cached snapshots stay valid: _load catches up
                    except BaseException:
                        self._cache_drop(game_id)
                        raise
                    for c in committed:
                        self._cache_put(c.loaded)
            except _Conflict:
                continue
            for c in committed:
                self._notify(c)
            if flagged:
                continue
            return value
        raise errors.conflict("too many concurrent changes to this game; try again")

    def _apply(
        self,
        conn: Connection,
        loaded: Loaded,
        change: Change,
        now: int,
        committed: list[Committed],
    ) -> Loaded:
        old_version = loaded.game.version
        change.game.version = old_version + 1
        change.game.updated_ms = now
        for m in change.insert:
            m.version = change.game.version
        self._store(conn, old_version, change)
        new = Loaded(change.game, change.moves, change.board)
        g = new.game
        engine_turn = (
            g.mode == "engine"
            and g.status == "running"
            and g.engine_color == color_name(new.board.turn)
        )
        committed.append(Committed(new, base_state(new, now), engine_turn))
        return new

    def _notify(self, c: Committed) -> None:
        if self.on_change is not None:
            self.on_change(c)

    # ------------------------------------------------------------------ clocks
    def _flag_change(self, loaded: Loaded, now: int) -> Change | None:
        g = loaded.game
        if g.status != "running" or g.clock_running is None:
            return None
        if g.remaining_ms(g.clock_running, now) > 0:
            return None
        loser = g.clock_running
        game = g.copy()
        self._settle_clock(game, now)
        self._finish(game, loaded.board, Outcome(Termination.TIME, color_of(other(loser))))
        return Change(game, loaded.board, loaded.moves)

    @staticmethod
    def _settle_clock(game: GameRec, now: int) -> None:
        """Charge the running side for the time since its turn started; stop the clock."""
        if game.clock_running is not None and game.turn_started_ms is not None:
            spent = now - game.turn_started_ms
            if game.clock_running == "black":
                game.black_ms = max(0, (game.black_ms or 0) - spent)
            else:
                game.white_ms = max(0, (game.white_ms or 0) - spent)
        game.clock_running = None
        game.turn_started_ms = None
        game.deadline_ms = None

    @staticmethod
    def _start_clock(game: GameRec, color: str, now: int) -> None:
        if not game.has_clock:
            return
        game.clock_running = color
        game.turn_started_ms = now
        remaining = game.black_ms if color == "black" else game.white_ms
        game.deadline_ms = now + (remaining or 0)

    @staticmethod
    def _finish(game: GameRec, board: Board, outcome: Outcome, reason: str | None = None) -> None:
        game.status = "finished"
        game.termination = outcome.termination.value
        game.winner = color_name(outcome.winner) if outcome.winner is not None else None
        game.result = outcome.result()
        game.reason = reason or outcome_reason(outcome, board)
        game.draw_offer = None
        game.clock_running = None
        game.turn_started_ms = None
        game.deadline_ms = None

    # ------------------------------------------------------------------ seats
    @staticmethod
    def viewer(game: GameRec, token: str | None) -> str | None:
        """The seat a token holds in this game: "black", "white", "both" or None."""
        if not token:
            return None
        h = hash_token(token)
        black = game.black_token_hash is not None and hmac.compare_digest(h, game.black_token_hash)
        white = game.white_token_hash is not None and hmac.compare_digest(h, game.white_token_hash)
        if black and white:
            return "both"
        if black:
            return "black"
        if white:
            return "white"
        raise errors.forbidden(f"this token holds no seat in game {game.id}")

    def seat(self, game_id: str, token: str | None) -> str | None:
        """The seat ``token`` holds in ``game_id`` (seats never change once taken)."""
        cached = self._cache_get(game_id)
        if cached is not None:
            with contextlib.suppress(ApiError):
                return self.viewer(cached.game, token)
        return self.viewer(self.loaded(game_id).game, token)  # fresh: a seat may be new

    def _seat(self, game: GameRec, token: str) -> str:
        seat = self.viewer(game, token)
        if seat is None:
            raise errors.forbidden("a seat token is required")
        return seat

    # ------------------------------------------------------------------ create / join
    def create(self, req: CreateRequest) -> tuple[Committed, str, str | None]:
        """Create a game; returns it, the creator's token and the invitation token."""
        if req.mode not in MODES:
            raise errors.bad_request(f"mode must be one of {', '.join(MODES)}, not {req.mode!r}")
        if req.color not in ("black", "white"):
            raise errors.bad_request(f"color must be 'black' or 'white', not {req.color!r}")
        try:
            rules = RuleSet.from_dict(req.rules)
        except (RuleSetError, TypeError, ValueError) as exc:
            raise errors.bad_request(f"invalid rules (RULES.md §9): {exc}") from None
        fen = req.fen.strip() if req.fen else STARTING_FEN
        try:
            board = Board(fen, rules=rules)
        except FenError as exc:
            raise errors.malformed(f"invalid FEN (R5): {exc}") from None
        if board.is_game_over():
            raise errors.bad_request("the position is already decided: no game to play")
        level: int | None = None
        engine_color: str | None = None
        if req.mode == "engine":
            if not self.engine_available():
                raise ApiError(
                    503, "engine_unavailable", "the engine (native core) is not available"
                )
            level = 5 if req.level is None else req.level
            if not 1 <= level <= 10:
                raise errors.bad_request(f"level must be 1..10, not {level}")
            engine_color = other(req.color)
        initial_ms: int | None = None
        increment_ms: int | None = None
        if req.clock_initial is not None:
            if not 0 < req.clock_initial <= MAX_CLOCK_S:
                raise errors.bad_request(f"clock.initial must be in (0, {MAX_CLOCK_S}] seconds")
            if not 0 <= req.clock_increment <= 3600:
                raise errors.bad_request("clock.increment must be in [0, 3600] seconds")
            initial_ms = round(req.clock_initial * 1000)
            increment_ms = round(req.clock_increment * 1000)
        token = new_token()
        invite = new_token() if req.mode == "online" else None
        now = self.clock.now_ms()
        game = GameRec(
            id=secrets.token_urlsafe(9),
            mode=req.mode,
            status="running",
            rules=rules.to_dict(),
            start_fen=board.fen(),
            level=level,
            engine_color=engine_color,
            black_token_hash=None,
            white_token_hash=None,
            invite_hash=hash_token(invite) if invite else None,
            clock_initial_ms=initial_ms,
            clock_increment_ms=increment_ms,
            black_ms=initial_ms,
            white_ms=initial_ms,
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
        h = hash_token(token)
        if req.mode == "local":
            game.black_token_hash = game.white_token_hash = h
        elif req.color == "black":
            game.black_token_hash = h
        else:
            game.white_token_hash = h
        if req.mode != "online":
            self._start_clock(game, color_name(board.turn), now)
        with self.db.begin() as conn:
            conn.execute(insert(GAMES).values(game.values()))
        loaded = Loaded(game, [], board)
        self._cache_put(loaded)
        engine_turn = req.mode == "engine" and engine_color == color_name(board.turn)
        return Committed(loaded, base_state(loaded, now), engine_turn), token, invite

    def join(self, game_id: str, invite: str) -> tuple[dict[str, Any], str, str]:
        """Take the free seat of an online game with its invitation token."""
        token = new_token()

        def op(loaded: Loaded, now: int) -> Change | None:
            g = loaded.game
            if g.mode != "online" or g.invite_hash is None:
                raise errors.conflict(f"game {g.id} is not an online game awaiting a player")
            if not hmac.compare_digest(hash_token(invite), g.invite_hash):
                raise errors.forbidden(f"wrong invitation for game {g.id}")
            if g.black_token_hash is not None and g.white_token_hash is not None:
                raise errors.conflict("both seats of this game are taken")
            if g.status != "running":
                raise errors.game_over(f"game {g.id} is over: {g.reason}")
            game = g.copy()
            seat = "white" if game.white_token_hash is None else "black"
            if seat == "white":
                game.white_token_hash = hash_token(token)
            else:
                game.black_token_hash = hash_token(token)
            self._start_clock(game, color_name(loaded.board.turn), now)
            return Change(game, loaded.board, loaded.moves)

        def answer(loaded: Loaded, now: int) -> tuple[dict[str, Any], str, str]:
            seat = "white" if loaded.game.white_token_hash == hash_token(token) else "black"
            return base_state(loaded, now), token, seat

        return self._run(game_id, op, answer)

    # ------------------------------------------------------------------ reads
    def state(self, game_id: str, token: str | None = None) -> tuple[dict[str, Any], str | None]:
        """The game's base state and the viewer's seat (the flag is checked first, R20)."""

        def op(loaded: Loaded, now: int) -> Change | None:
            return None

        def answer(loaded: Loaded, now: int) -> tuple[dict[str, Any], str | None]:
            return base_state(loaded, now), self.viewer(loaded.game, token)

        return self._run(game_id, op, answer)

    def loaded(self, game_id: str) -> Loaded:
        """The current game (for the engine and PDN export); checks the flag."""

        def op(loaded: Loaded, now: int) -> Change | None:
            return None

        def answer(loaded: Loaded, now: int) -> Loaded:
            return Loaded(loaded.game.copy(), list(loaded.moves), loaded.board.copy())

        return self._run(game_id, op, answer)

    # ------------------------------------------------------------------ moves
    def move(self, game_id: str, token: str, text_move: str, ply: int) -> dict[str, Any]:
        """Play ``text_move`` at ``ply`` for the token's seat; returns the new base state.

        A retry of a move already stored at ``ply`` (same move, same seat) answers the
        state right after that move again, without playing anything.
        """
        return self.move_ex(game_id, token, text_move, ply)[0]

    def move_ex(
        self, game_id: str, token: str, text_move: str, ply: int
    ) -> tuple[dict[str, Any], bool]:
        """:meth:`move`, also telling whether the move was played now (False: a retry)."""
        if not isinstance(text_move, str) or not text_move.strip():
            raise errors.malformed("'move' must be move notation such as 11-15 (R4)")
        if isinstance(ply, bool) or not isinstance(ply, int) or ply < 0:
            raise errors.malformed("'ply' must be a non-negative integer")

        retry: list[dict[str, Any]] = []

        def op(loaded: Loaded, now: int) -> Change | None:
            g = loaded.game
            seat = self._seat(g, token)
            if ply < g.ply:
                retry.append(self._retry_answer(loaded, seat, text_move, ply))
                return None
            if g.status != "running":
                raise errors.game_over(f"game {g.id} is over: {g.reason}")
            if ply > g.ply:
                raise errors.stale_ply(f"ply {ply} is ahead of the game, which is at ply {g.ply}")
            board = loaded.board
            turn = color_name(board.turn)
            if seat not in ("both", turn):
                raise errors.forbidden(f"it is {turn}'s turn; this seat plays {seat}")
            self._require_opponent_seated(g)
            mv = self._parse(board, text_move)
            return self._play(loaded, mv, now)

        def answer(loaded: Loaded, now: int) -> tuple[dict[str, Any], bool]:
            return (retry[-1], False) if retry else (base_state(loaded, now), True)

        return self._run(game_id, op, answer, optimistic=True)

    @staticmethod
    def _require_opponent_seated(g: GameRec) -> None:
        """An online game starts only when the invited player has joined."""
        if g.mode == "online" and (g.black_token_hash is None or g.white_token_hash is None):
            raise errors.conflict("the game starts when the invited player joins")

    @staticmethod
    def _parse(board: Board, text_move: str) -> Move:
        try:
            return board.parse_move(text_move)
        except (MalformedMoveError, InvalidSquareError) as exc:
            raise errors.malformed(str(exc)) from None
        except AmbiguousMoveError as exc:
            raise ApiError(400, "illegal_move", str(exc)) from None
        except MoveError as exc:
            raise ApiError(400, "illegal_move", str(exc)) from None

    def _play(self, loaded: Loaded, mv: Move, now: int) -> Change:
        """The change of playing the legal move ``mv`` (clock, increment, end of game)."""
        g = loaded.game
        board = loaded.board.copy()
        mover = color_name(board.turn)
        notation = board.notation(mv)
        board.push(mv)
        game = g.copy()
        if game.has_clock:
            self._settle_clock(game, now)
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
            self._finish(game, board, outcome)
        else:
            self._start_clock(game, color_name(board.turn), now)
        rec = MoveRec(
            ply=g.ply,
            notation=notation,
            path=mv.full_notation(),
            color=mover,
            created_ms=now,
            black_ms=game.black_ms,
            white_ms=game.white_ms,
            draw_offer=game.draw_offer,
            version=0,
        )
        return Change(game, board, [*loaded.moves, rec], insert=[rec])

    def _retry_answer(self, loaded: Loaded, seat: str, text_move: str, ply: int) -> dict[str, Any]:
        """Idempotent retry: the same move at an already played ply gets the same answer."""
        g = loaded.game
        stored = loaded.moves[ply]
        board = loaded.board.copy()
        for _ in range(g.ply - ply):
            board.pop()
        try:
            mv: Move | None = board.parse_move(text_move)
        except MoveError:
            mv = None
        played = board.parse_move(stored.path)
        if mv is None or mv != played or seat not in ("both", stored.color):
            raise errors.stale_ply(
                f"ply {ply} is already played ({stored.notation}); the game is at ply {g.ply}"
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
            self._finish(game, board, outcome)
        else:
            self._start_clock(game, color_name(board.turn), stored.created_ms)
        snap = Loaded(game, loaded.moves[: ply + 1], board)
        return base_state(snap, stored.created_ms)

    def engine_move(self, game_id: str, ply: int, path: str) -> dict[str, Any] | None:
        """Store the engine's move found for ``ply``; None if the game moved on meanwhile."""

        played: list[bool] = []

        def op(loaded: Loaded, now: int) -> Change | None:
            g = loaded.game
            board = loaded.board
            if (
                g.status != "running"
                or g.ply != ply
                or g.mode != "engine"
                or g.engine_color != color_name(board.turn)
            ):
                return None
            played.append(True)
            return self._play(loaded, self._parse(board, path), now)

        def answer(loaded: Loaded, now: int) -> dict[str, Any] | None:
            return base_state(loaded, now) if played else None

        return self._run(game_id, op, answer)

    # ------------------------------------------------------------------ actions
    def _acting_side(self, loaded: Loaded, token: str) -> str:
        seat = self._seat(loaded.game, token)
        return color_name(loaded.board.turn) if seat == "both" else seat

    def resign(self, game_id: str, token: str) -> dict[str, Any]:
        """The token's side resigns (R20); in a local game, the side to move."""

        def op(loaded: Loaded, now: int) -> Change:
            side = self._acting_side(loaded, token)
            self._require_running(loaded.game)
            game = loaded.game.copy()
            self._settle_clock(game, now)
            outcome = Outcome(Termination.RESIGNATION, color_of(other(side)))
            self._finish(game, loaded.board, outcome)
            return Change(game, loaded.board, loaded.moves)

        return self._run(game_id, op, self._state_answer)

    @staticmethod
    def _state_answer(loaded: Loaded, now: int) -> dict[str, Any]:
        return base_state(loaded, now)

    @staticmethod
    def _require_running(game: GameRec) -> None:
        if game.status != "running":
            raise errors.game_over(f"game {game.id} is over: {game.reason}")

    def draw_offer(self, game_id: str, token: str) -> dict[str, Any]:
        """Offer a draw (R17).  Offering when the opponent's offer stands accepts it."""

        def op(loaded: Loaded, now: int) -> Change:
            side = self._acting_side(loaded, token)
            self._require_running(loaded.game)
            self._require_opponent_seated(loaded.game)
            game = loaded.game.copy()
            if game.draw_offer == other(side):
                self._settle_clock(game, now)
                self._finish(game, loaded.board, Outcome(Termination.AGREEMENT, None))
            elif game.draw_offer == side:
                raise errors.conflict(f"{side} has already offered a draw (R17)")
            else:
                game.draw_offer = side
            return Change(game, loaded.board, loaded.moves)

        return self._run(game_id, op, self._state_answer)

    def draw_answer(self, game_id: str, token: str | None, accept: bool) -> dict[str, Any]:
        """Accept or decline the opponent's draw offer (R17).

        ``token=None`` is the engine answering an offer made to it.
        """

        def op(loaded: Loaded, now: int) -> Change:
            g = loaded.game
            self._require_running(g)
            if g.draw_offer is None:
                raise errors.conflict("there is no draw offer to answer (R17)")
            if token is None:
                if g.mode != "engine" or g.engine_color != other(g.draw_offer):
                    raise errors.conflict("no draw offer to the engine")
            else:
                seat = self._seat(g, token)
                if seat not in ("both", other(g.draw_offer)):
                    raise errors.forbidden(f"{g.draw_offer} cannot answer its own draw offer")
            game = g.copy()
            if accept:
                self._settle_clock(game, now)
                self._finish(game, loaded.board, Outcome(Termination.AGREEMENT, None))
            else:
                game.draw_offer = None
            return Change(game, loaded.board, loaded.moves)

        return self._run(game_id, op, self._state_answer)

    def takeback(self, game_id: str, token: str) -> dict[str, Any]:
        """Against the engine: undo the human's last move and the engine's reply."""

        def op(loaded: Loaded, now: int) -> Change:
            g = loaded.game
            seat = self._seat(g, token)
            if g.mode != "engine":
                raise errors.conflict("takeback is only available against the engine")
            if g.status != "running" and g.termination not in BOARD_TERMINATIONS:
                raise errors.game_over(f"game {g.id} is over: {g.reason}")
            moves = loaded.moves
            n = len(moves)
            while n > 0 and moves[n - 1].color != seat:
                n -= 1  # engine replies after the human's last move
            if n == 0:
                raise errors.conflict("you have no move to take back")
            n -= 1  # the human's own last move
            game = g.copy()
            self._settle_clock(game, now)
            game.status = "running"
            game.termination = game.winner = game.result = game.reason = None
            game.draw_offer = None
            game.ply = n
            kept = moves[:n]
            board = self.replay(game, kept)
            self._start_clock(game, color_name(board.turn), now)
            return Change(game, board, kept, delete_from=n)

        return self._run(game_id, op, self._state_answer)

    # ------------------------------------------------------------------ timer
    def flagged_games(self) -> list[str]:
        """Running games whose side to move has run out of time (for the timer)."""
        now = self.clock.now_ms()
        with self.db.connect() as conn:
            rows = conn.execute(
                select(GAMES.c.id).where(
                    GAMES.c.status == "running",
                    GAMES.c.deadline_ms.is_not(None),
                    GAMES.c.deadline_ms <= now,
                )
            )
            return [r[0] for r in rows]

    def sweep_flags(self) -> int:
        """End every game whose flag has fallen (R20); returns how many were ended."""
        ended = 0
        for game_id in self.flagged_games():
            state, _ = self.state(game_id)
            if state["status"] == "finished":
                ended += 1
        return ended

    def engine_games_to_move(self) -> list[str]:
        """Running engine games where the engine is to move (resumed at start-up)."""
        with self.db.connect() as conn:
            rows = conn.execute(
                select(GAMES.c.id).where(GAMES.c.status == "running", GAMES.c.mode == "engine")
            ).all()
        out = []
        for (game_id,) in rows:
            loaded = self.loaded(game_id)
            if loaded.game.engine_color == color_name(loaded.board.turn):
                out.append(game_id)
        return out

    # ------------------------------------------------------------------ archive
    def list_games(self, status: str | None, limit: int, offset: int) -> list[dict[str, Any]]:
        query = select(GAMES).order_by(GAMES.c.created_ms.desc(), GAMES.c.id)
        if status is not None:
            query = query.where(GAMES.c.status == status)
        with self.db.connect() as conn:
            rows = conn.execute(query.limit(limit).offset(offset)).mappings().all()
        return [summary(GameRec(**dict(r))) for r in rows]

    def count_games(self) -> int:
        with self.db.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(GAMES)).scalar_one())

    def iter_ids(self, batch: int = 200) -> Iterator[str]:
        offset = 0
        while True:
            with self.db.connect() as conn:
                ids = [
                    r[0]
                    for r in conn.execute(
                        select(GAMES.c.id)
                        .order_by(GAMES.c.created_ms, GAMES.c.id)
                        .limit(batch)
                        .offset(offset)
                    )
                ]
            yield from ids
            if len(ids) < batch:
                return
            offset += batch

    def store_imported(self, board: Board, tags: dict[str, str], result: str) -> str:
        """Store a game read from PDN (mode ``imported``, finished, no seats)."""
        now = self.clock.now_ms()
        start = board.copy()
        moves_played = list(board.move_stack)
        for _ in moves_played:
            start.pop()
        replay = start.copy()
        game = GameRec(
            id=secrets.token_urlsafe(9),
            mode="imported",
            status="finished",
            rules=board.rules.to_dict(),
            start_fen=start.fen(),
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
            ply=len(moves_played),
            draw_offer=None,
            termination=None,
            winner={"2-0": "black", "0-2": "white"}.get(result),
            result=result,
            reason=(
                f"Imported game, result {result}"
                if result != "*"
                else "Imported game, unfinished (*)"
            ),
            tags=tags,
            version=1,
            created_ms=now,
            updated_ms=now,
        )
        outcome = board.outcome()
        if outcome is not None and outcome.result() == result:
            game.termination = outcome.termination.value
            game.reason = outcome_reason(outcome, board)
        recs: list[MoveRec] = []
        for i, mv in enumerate(moves_played):
            recs.append(
                MoveRec(
                    ply=i,
                    notation=replay.notation(mv),
                    path=mv.full_notation(),
                    color=color_name(replay.turn),
                    created_ms=now,
                    black_ms=None,
                    white_ms=None,
                    draw_offer=None,
                    version=1,
                )
            )
            replay.push(mv)
        with self.db.begin() as conn:
            conn.execute(insert(GAMES).values(game.values()))
            if recs:
                conn.execute(insert(MOVES), [m.values(game.id) for m in recs])
        return game.id


def summary(g: GameRec) -> dict[str, Any]:
    """One line of the archive list (``GameSummary``)."""
    return {
        "id": g.id,
        "mode": g.mode,
        "status": g.status,
        "ply": g.ply,
        "rules": g.rules,
        "level": g.level,
        "engine_color": g.engine_color,
        "result": g.result,
        "reason": g.reason,
        "created": g.created_ms / 1000,
        "updated": g.updated_ms / 1000,
        "tags": g.tags or {},
    }


__all__ = ["Committed", "CreateRequest", "GameService", "hash_token", "summary"]
