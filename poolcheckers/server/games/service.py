"""The game service: every operation on a game, from a request to a stored change.

Each operation checks the viewer's seat first (:mod:`~poolcheckers.server.games.seats`),
then lets the game model (:mod:`~poolcheckers.server.games.model`) decide the change over
the rules library, and has the store (:mod:`~poolcheckers.server.games.repository`) commit it
by compare-and-set.  The answer is a :class:`~poolcheckers.server.games.view.View`.
The methods block: the web layer calls them through the database executor
(:mod:`~poolcheckers.server.database.executor`: inline on the event loop when the
database is on this machine, else in its threads).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import Engine

from poolcheckers import Board
from poolcheckers.server import errors
from poolcheckers.server.api.schemas import Action, GameSummary, TimeControlInfo
from poolcheckers.server.games import model
from poolcheckers.server.games.admission import CreationLimits
from poolcheckers.server.games.creator import RATED_PER_PAIR_PER_DAY, GameCreator
from poolcheckers.server.games.model import Change, GameRec, Loaded, color_name
from poolcheckers.server.games.repository import Committed, GameStore
from poolcheckers.server.games.seats import (
    account_seat,
    check_invite,
    hash_token,
    new_game_id,
    new_token,
    require_seat,
    seat_of,
)
from poolcheckers.server.games.view import View, full_moves, seats_taken
from poolcheckers.server.i18n import M_
from poolcheckers.server.timesource import SystemTime, TimeSource


class GameService:
    """Creates games and applies moves and game actions, stored in ``db``."""

    def __init__(
        self,
        db: Engine,
        clock: TimeSource | None = None,
        *,
        engine_available: Callable[[], bool] = lambda: False,
        usernames: Callable[[str], str | None] = lambda _user_id: None,
        titles: Callable[[str], str | None] = lambda _user_id: None,
        on_change: Callable[[Committed], None] | None = None,
        cache_size: int = 4096,
        rated_per_pair_per_day: int = RATED_PER_PAIR_PER_DAY,
        limits: CreationLimits | None = None,
        idle: model.IdleLimits | None = None,
    ) -> None:
        self.clock: TimeSource = clock or SystemTime()
        self.store = GameStore(db, self.clock, cache_size=cache_size, on_change=on_change)
        #: the one creator of games (open games here, paired games for the lobby)
        self.creator = GameCreator(
            self.store,
            engine_available=engine_available,
            usernames=usernames,
            titles=titles,
            rated_per_pair_per_day=rated_per_pair_per_day,
            limits=limits,
        )
        self.engine_available = engine_available
        self.idle = idle if idle is not None else model.IdleLimits()

    # ------------------------------------------------------------------ create / join
    def join(self, game_id: str, invite: str, user_id: str | None = None) -> tuple[View, str]:
        """Take the free seat of an online game; (the joiner's view, its new token).
        A signed-in joiner's seat is also bound to their account."""
        token = new_token()
        h = hash_token(token)

        def op(loaded: Loaded, now: int) -> Change:
            check_invite(loaded.game, invite)
            if user_id is not None and account_seat(loaded.game, user_id) is not None:
                raise errors.conflict(
                    M_("you already play in game {game_id}: the seat is taken", game_id=game_id)
                )
            change = model.join(loaded, h, now)
            g = change.game
            side = "black" if g.black_token_hash == h else "white"
            if user_id is not None:
                setattr(g, f"{side}_user_id", user_id)
            self.creator.name_player(g, side, user_id, both=True)
            return change

        def answer(loaded: Loaded, now: int) -> View:
            return View(loaded, now, seat_of(loaded.game, token))

        return self.store.run(game_id, op, answer), token

    # ------------------------------------------------------------------ reads
    def view(self, game_id: str, token: str | None = None, user_id: str | None = None) -> View:
        """The game and the viewer's seat (the flag is checked first, R20)."""
        return self.store.read(
            game_id, lambda g, now: View(g, now, seat_of(g.game, token, user_id))
        )

    def loaded(self, game_id: str) -> Loaded:
        """A copy of the current game (for the engine and PDN export)."""
        return self.store.read(
            game_id, lambda g, _now: Loaded(g.game.copy(), list(g.moves), g.board.copy())
        )

    # ------------------------------------------------------------------ moves
    def move(
        self, game_id: str, token: str | None, text: str, ply: int, user_id: str | None = None
    ) -> tuple[View, bool]:
        """Play ``text`` at ``ply`` for the token's seat: (the new view, True), or for a
        retry of the move already stored at ``ply``, (the view right after it, False)."""
        retry: list[Loaded] = []

        def op(loaded: Loaded, now: int) -> Change | None:
            seat = require_seat(loaded.game, token, user_id)
            result = model.player_move(loaded, seat, text, ply, now)
            if isinstance(result, Loaded):
                retry.append(result)
                return None
            return result

        def answer(loaded: Loaded, now: int) -> tuple[View, bool]:
            seat = seat_of(loaded.game, token, user_id)
            if retry:
                again = retry[-1]
                return View(again, again.moves[-1].created_ms, seat), False
            return View(loaded, now, seat), True

        return self.store.run(game_id, op, answer, optimistic=True)

    def engine_move(self, game_id: str, ply: int, path: str) -> View | None:
        """Store the engine's move found for ``ply``; None if the game moved on meanwhile."""
        played: list[bool] = []

        def op(loaded: Loaded, now: int) -> Change | None:
            change = model.engine_move(loaded, ply, path, now)
            played.append(change is not None)
            return change

        return self.store.run(
            game_id, op, lambda g, now: View(g, now) if played and played[-1] else None
        )

    # ------------------------------------------------------------------ actions
    def act(
        self,
        game_id: str,
        action: Action,
        token: str | None,
        user_id: str | None = None,
        address: str | None = None,
    ) -> View:
        """A player's game action (R17 draws, R20 resignation, takeback, abort,
        rematch); the token's seat is checked before anything else.  A rematch
        against the engine from a client ``address`` is held to the creation limits."""
        rematch_id = new_game_id()
        admitted = (
            action == "rematch"
            and address is not None
            and self._admit_rematch(game_id, rematch_id, address, token, user_id)
        )

        def op(loaded: Loaded, now: int) -> Change | None:
            seat = require_seat(loaded.game, token, user_id)
            # in a local game the token plays both sides: it acts for the side to move
            side = color_name(loaded.board.turn) if seat == "both" else seat
            if action == "abort":
                return model.abort(loaded, side, now)
            if action == "rematch":
                if loaded.game.mode == "engine" and not self.engine_available():
                    raise errors.engine_unavailable()
                return model.rematch(
                    loaded, seat, side, lambda g: self.creator.rematch_of(g, rematch_id, now)
                )
            if action == "rematch-decline":
                return model.decline_rematch(loaded)
            if action == "resign":
                return model.resign(loaded, side, now)
            if action == "draw-offer":
                return model.offer_draw(loaded, side, now)
            if action == "takeback":
                return model.takeback(loaded, seat, now)
            return model.answer_draw(loaded, seat, action == "draw-accept", now)

        started = False
        try:
            view = self.store.run(
                game_id, op, lambda g, now: View(g, now, seat_of(g.game, token, user_id))
            )
            started = view.loaded.game.rematch_id == rematch_id
            return view
        finally:
            if admitted and not started and self.creator.limits is not None:
                self.creator.limits.ended(rematch_id)

    def _admit_rematch(
        self,
        game_id: str,
        rematch_id: str,
        address: str,
        token: str | None,
        user_id: str | None,
    ) -> bool:
        """Hold a rematch that would start a new engine game to the creation limits,
        before the game's own transaction (the limits are stored apart); whether a
        lease was taken for it.  Only a player of the game is counted (anyone else
        is refused by the action itself)."""

        def seated(loaded: Loaded, _now: int) -> GameRec:
            require_seat(loaded.game, token, user_id)
            return loaded.game

        g = self.store.read(game_id, seated)
        if g.mode != "engine" or g.status == "running" or g.rematch_id is not None:
            return False
        self.creator.admit_rematch(g, address, user_id, rematch_id)
        return self.creator.limits is not None

    def engine_answers_draw(self, game_id: str, accept: bool) -> View:
        """The engine's answer to the draw offer made to it (R17)."""
        return self.store.run(
            game_id,
            lambda g, now: model.answer_draw(g, None, accept, now),
            lambda g, now: View(g, now),
        )

    # ------------------------------------------------------------------ timer, restart
    def sweep_flags(self) -> int:
        """End every game whose flag has fallen (R20); returns how many were ended."""
        ended = 0
        for game_id in self.store.ids_flagged(self.clock.now_ms()):
            if self.view(game_id).loaded.game.status == "finished":
                ended += 1
        return ended

    def sweep_idle(self) -> int:
        """Close the games that waited too long for a move (an online game's first
        move, any game's next one: :class:`~poolcheckers.server.games.model.IdleLimits`);
        returns how many were closed."""
        limits = self.idle
        closed = 0
        now = self.clock.now_ms()
        for game_id in self.store.ids_idle(now, limits.first_move_ms, limits.abandon_ms):
            status = self.store.run(
                game_id,
                lambda loaded, at: model.idle_end(loaded, at, limits),
                lambda g, _now: g.game.status,
            )
            closed += status == model.ABORTED
        return closed

    def engine_games_to_move(self) -> list[str]:
        """Running engine games where the engine is to move (resumed at start-up)."""
        return [
            game_id
            for game_id in self.store.ids_running("engine")
            if self.store.read(
                game_id, lambda g, _now: g.game.engine_color == color_name(g.board.turn)
            )
        ]

    # ------------------------------------------------------------------ archive
    def search(
        self, wanted: model.GameFilter, limit: int, offset: int
    ) -> tuple[list[GameSummary], int]:
        """The archive's page of games matching ``wanted``, and their number in all."""
        records, total = self.store.search(wanted, limit, offset)
        return [summary_of(g) for g in records], total

    def iter_ids(self) -> Iterator[str]:
        return self.store.iter_ids()

    def import_game(
        self,
        board: Board,
        tags: dict[str, str],
        result: str,
        digest: str | None,
        annotations: dict[str, Any] | None = None,
    ) -> tuple[str, bool]:
        """Store a game read from PDN (with its move tree when it is annotated) unless
        one with the same content ``digest`` is stored: (the game's id, whether it was
        stored now)."""
        game, moves = model.imported_game(
            board, tags, result, new_game_id(), self.clock.now_ms(), annotations
        )
        gid = self.store.insert(Loaded(game, moves, board.copy()), digest)
        return gid, gid == game.id


def summary_of(g: GameRec) -> GameSummary:
    """A game's line in the archive."""
    return GameSummary(
        id=g.id,
        mode=g.mode,
        status=g.status,
        ply=g.ply,
        moves_count=full_moves(g.start_fen, g.ply),
        seats=seats_taken(g),
        clock=(
            TimeControlInfo(
                initial=g.clock_initial_ms / 1000,
                increment=(g.clock_increment_ms or 0) / 1000,
            )
            if g.clock_initial_ms is not None
            else None
        ),
        rules=g.rules,
        level=g.level,
        engine_color=g.engine_color,  # type: ignore[arg-type]
        result=g.result,
        reason=g.reason,
        created=g.created_ms / 1000,
        updated=g.updated_ms / 1000,
        tags=g.tags or {},
        played_on=g.played_on or model.day_of(g.created_ms),
    )
