"""Tournaments as the server runs them (``ctx.tournaments``): create, join, withdraw,
start, pause, remove a player, forfeit a game nobody started; and :meth:`advance`,
which moves an event on from what is stored: the second game of a match once the
first is over, the next round once every game of this one is decided, an arena's
pairings of the players free now, the end.  ``advance`` is called after every
tournament game's end and by a sweep every few seconds, by any number of server
processes at once: each step is a compare-and-set in the database (one process
starts each round; nobody is paired twice; each result is read from its game, so
it counts once), so the callers may race.

The no-show rule: a game in which a side has not made its first move within the
event's ``forfeit_minutes`` (3 minutes on the clock, the days per move by
correspondence, unless the director chose) ends, and that side loses by forfeit; in
an arena, where anyone free may be paired with anyone, nobody scores that game and
the side that did not move is withdrawn (paused) until they join again, so that two
accounts cannot farm points by one never moving.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

from sqlalchemy import Connection, Engine, insert, update

from poolcheckers.server import errors
from poolcheckers.server.accounts.model import User
from poolcheckers.server.accounts.repository import DbUserStore, bots_among
from poolcheckers.server.database.executor import DbExecutor
from poolcheckers.server.database.tables import TOURNAMENT_GAMES, TOURNAMENT_PLAYERS, TOURNAMENTS
from poolcheckers.server.games import model as games_model
from poolcheckers.server.games.creator import GameCreator
from poolcheckers.server.games.model import Change, Loaded
from poolcheckers.server.games.repository import Committed, GameStore
from poolcheckers.server.games.timecontrol import Category, Correspondence
from poolcheckers.server.i18n import M_
from poolcheckers.server.quotas import Quotas, Rate
from poolcheckers.server.ratings.model import Perf
from poolcheckers.server.ratings.service import RatingService
from poolcheckers.server.timesource import TimeSource
from poolcheckers.server.tournaments import standings as st
from poolcheckers.server.tournaments import view
from poolcheckers.server.tournaments.model import (
    Entrant,
    TourGame,
    Tournament,
    TournamentConflict,
    TournamentError,
    TournamentForbidden,
    TournamentGone,
    TournamentSpec,
    results_of,
)
from poolcheckers.server.tournaments.repository import DbTournamentStore
from poolcheckers.server.tournaments.systems import (
    ArenaPlayer,
    NoPairing,
    Pair,
    PairResult,
    arena_pairs,
    round_robin_schedule,
    swiss_round,
)

log = logging.getLogger("poolcheckers.server")
#: an event with its players and games, as read together
EventRead = tuple[Tournament, list[Entrant], list[TourGame]]

#: a side that has not moved this long after its game began loses it (on the clock)
NO_SHOW_MINUTES = 3
#: an arena pairs the players whose event page has been open within this time
ARENA_PRESENCE_MS = 45_000
#: events one account may make in a day (the list is everyone's)
EVENTS_PER_DAY = Rate("tournaments:created", 10, 24 * 3600)
#: how long an arena's advance waits for the pairing lease another process holds
ARENA_LEASE_WAIT_S = 5.0
#: a Swiss field this big is paired in a worker process
PROCESS_PAIRING_FROM = 40
#: a Swiss pairing that takes longer fails (the sweep tries again; the director sees it)
SWISS_PAIRING_TIMEOUT_S = 600.0
#: how long one process may hold an arena's pairing before another may take it over
ARENA_PAIRING_LEASE_S = 30.0
#: how long a read of an event serves the pages that ask for it again
READ_CACHE_S = 1.0
#: a present arena player's mark is written again only once it is this old
PRESENCE_REFRESH_MS = 15_000
#: a rating for a player with none in the event's category (Glicko-2's start)
DEFAULT_RATING = 1500
_G, _P, _T = TOURNAMENT_GAMES, TOURNAMENT_PLAYERS, TOURNAMENTS


def _new_id() -> str:
    return secrets.token_urlsafe(6)[:8]


class TournamentService:
    """Events and the games they start (through the one game creator)."""

    def __init__(
        self,
        db: Engine,
        executor: DbExecutor,
        clock: TimeSource,
        creator: GameCreator,
        games: GameStore,
        ratings: RatingService,
        *,
        on_update: Callable[[str], None] | None = None,
        quotas: Quotas | None = None,
        read_cache: float = READ_CACHE_S,
        users: DbUserStore | None = None,
    ) -> None:
        self.db = db
        self.executor = executor
        self.clock = clock
        self.creator = creator
        self.games = games
        self.ratings = ratings
        self.store = DbTournamentStore(db)
        #: accounts by name (the players of an imported TRF file)
        self.users = users
        #: told the id of an event whose standings or pairings may have changed
        self.on_update = on_update
        self.rng = random.Random()
        #: leases shared by every process: one process pairs an arena at a time (the
        #: others would compute the same matching and lose every compare-and-set)
        self.slots = None if quotas is None else quotas.slots
        #: the rates shared by every process (events made per account)
        self.quotas = quotas
        self.read_cache = read_cache
        self._pending: set[asyncio.Task[None]] = set()
        #: events with an advance running in this process, and those changed since
        self._advancing: set[str] = set()
        self._again: set[str] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        #: Swiss pairings of big fields run in a worker process of their own
        self._pairing_pool: ProcessPoolExecutor | None = None
        #: the last read of each event (shared by every page reading it within a second)
        self._reads: dict[str, tuple[float, EventRead, str]] = {}

    # ------------------------------------------------------------------ helpers
    def _now(self) -> int:
        return self.clock.now_ms()

    def _get(self, tid: str, conn: Connection | None = None) -> Tournament:
        t = self.store.get(tid, conn)
        if t is None:
            raise TournamentGone(M_("no tournament with id {tid}", tid=repr(tid)))
        return t

    def forget(self, tid: str) -> None:
        """The event changed elsewhere (another process): read it again next time."""
        self._reads.pop(tid, None)

    def forget_all(self) -> None:
        """Any event may have changed elsewhere unheard (the other processes' notices
        were lost): read each again next time."""
        self._reads.clear()

    def _changed(self, tid: str) -> None:
        self._reads.pop(tid, None)
        if self.on_update is not None:
            self.on_update(tid)

    def _lock(self, conn: Connection, tid: str) -> None:
        """Hold the event's row for this transaction (PostgreSQL: a row lock; SQLite:
        the writer's lock), so that counts read next cannot change under it."""
        self.store.set_state(conn, tid, {})

    def _rating(self, user_id: str, category: Category) -> int:
        perf = self.ratings.perf(user_id, category)
        return DEFAULT_RATING if perf is None else int(perf.glicko.rating)

    # ------------------------------------------------------------------ settings
    def create(self, user: User, data: Any, password_hash: str | None = None) -> Tournament:
        """A new event made by ``user`` (``POST /api/tournaments``); its password, if
        ``data`` has one, comes hashed (:mod:`.passwords`) as ``password_hash``."""
        now = self._now()
        spec = TournamentSpec.from_dict(data, now / 1000)
        if (spec.password is None) != (password_hash is None):
            raise TournamentError(M_("password must be 4 to 64 characters or null"))
        self._count_event(user)
        tid = _new_id()
        self.store.insert(_row(tid, spec, user, now, password_hash))
        return self._get(tid)

    def _count_event(self, user: User) -> None:
        if self.quotas is not None:
            decision = self.quotas.hit(EVENTS_PER_DAY, user.id)
            if not decision.allowed:
                raise errors.limit_reached(
                    M_("at most {limit} events a day from one account", limit=EVENTS_PER_DAY.limit),
                    decision.retry_after,
                )

    def join(self, tid: str, user: User, *, admitted: bool = False) -> Entrant:
        """``user`` joins (or comes back to) the event: before it starts, or a Swiss
        event or an arena while it runs (a late joiner); a round robin's pairings
        are fixed at the start.  ``admitted``: the event's password was given
        (:meth:`.passwords.EventPasswords.admit`)."""
        t = self._get(tid)
        if t.status == "finished":
            raise TournamentConflict(M_("{name} is over", name=t.name))
        if t.status == "running" and t.system == "round_robin":
            raise TournamentConflict(M_("a round robin cannot be joined once it has started"))
        rating = self.admission(t, user, admitted=admitted)
        now = self._now()
        with self.db.begin() as conn:
            self._lock(conn, tid)
            players = self.store.players(tid, conn)
            mine = next((p for p in players if p.user_id == user.id), None)
            if mine is not None and mine.invitation is not None:
                raise TournamentConflict(
                    M_("you are invited to this event: accept the invitation on its page")
                )
            if mine is not None and not mine.withdrawn:
                return mine
            active = sum(p.playing for p in players)
            if t.max_players is not None and active >= t.max_players:
                raise TournamentConflict(
                    M_(
                        "{name} is full ({max_players} players)",
                        name=t.name,
                        max_players=t.max_players,
                    )
                )
            if mine is not None:
                conn.execute(
                    update(_P)
                    .where(_P.c.tournament_id == tid, _P.c.user_id == user.id)
                    .values(withdrawn_ms=None, withdrawn_why=None, seen_ms=now)
                )
            else:
                conn.execute(
                    insert(_P).values(
                        tournament_id=tid,
                        user_id=user.id,
                        username=user.username,
                        rating=rating,
                        seed=None,
                        joined_ms=now,
                        withdrawn_ms=None,
                        busy_game=None,
                        seen_ms=now,
                    )
                )
            if bots_among(conn, [user.id]):  # it became one meanwhile (read under a lock)
                raise TournamentForbidden(M_("a bot account cannot join tournaments"))
        self._changed(tid)
        return next(p for p in self.store.players(tid) if p.user_id == user.id)

    def admission(self, t: Tournament, user: User, *, admitted: bool) -> int:
        """The checks of a join (and of an invitation's acceptance): no bot, the
        password given, a rating in the range.  The player's rating."""
        if user.bot:  # as on lichess: the site's events are for people
            raise TournamentForbidden(M_("a bot account cannot join tournaments"))
        if t.has_password and not admitted:
            raise TournamentForbidden(M_("this club event needs its password to join"))
        rating = self._rating(user.id, t.category)
        if t.rating_range is not None and not t.rating_range[0] <= rating <= t.rating_range[1]:
            low, high = t.rating_range
            raise TournamentForbidden(
                M_(
                    "this event is for ratings {low} to {high}; your {value} rating is {rating}",
                    low=low,
                    high=high,
                    value=t.category.value,
                    rating=rating,
                )
            )
        return rating

    def withdraw(self, tid: str, user_id: str) -> None:
        """The player leaves: before the start, off the list; once it runs, paired no
        more (an arena player may come back), and the games of theirs nobody has
        started yet are lost by forfeit; a game in play goes on."""
        t = self._get(tid)
        if t.status == "finished":
            raise TournamentConflict(M_("{name} is over", name=t.name))
        with self.db.begin() as conn:
            done = conn.execute(
                update(_P)
                .where(
                    _P.c.tournament_id == tid,
                    _P.c.user_id == user_id,
                    _P.c.withdrawn_ms.is_(None),
                    _P.c.invitation.is_(None),
                )
                .values(withdrawn_ms=self._now(), withdrawn_why=None)
            ).rowcount
            if not done:
                raise TournamentConflict(M_("you are not playing in this event"))
            self._forfeit_pending(conn, tid, user_id)
        self._changed(tid)
        self.kick(tid)

    @staticmethod
    def _forfeit_pending(conn: Connection, tid: str, user_id: str) -> None:
        """The games of ``user_id`` not started yet (a match's second game) are lost
        by forfeit; the opponent wins them."""
        for side, winner in (("black_id", "white"), ("white_id", "black")):
            conn.execute(
                update(_G)
                .where(
                    _G.c.tournament_id == tid,
                    _G.c[side] == user_id,
                    _G.c.game_id.is_(None),
                    _G.c.forfeit.is_(None),
                    _G.c.played.is_(None),
                    _G.c.bye_points.is_(None),
                    _G.c.white_id.isnot(None),
                )
                .values(forfeit=winner)
            )

    def _director(self, tid: str, user_id: str) -> Tournament:
        t = self._get(tid)
        if t.creator_id != user_id:
            raise TournamentForbidden(M_("only the event's creator may do this"))
        return t

    def start(self, tid: str, user_id: str) -> Tournament:
        """The creator starts the event now (before its start time, if it has one)."""
        t = self._director(tid, user_id)
        self._start(t)
        return self._get(tid)

    def _start(self, t: Tournament) -> bool:
        if t.status != "created":
            raise TournamentConflict(M_("{name} has already started", name=t.name))
        now = self._now()
        with self.db.begin() as conn:
            everyone = self.store.players(t.id, conn)
            # only those who joined or accepted play; an invitation not yet accepted
            # is a late joiner's place (unseeded) should they accept
            players = [p for p in everyone if p.playing]
            if len(players) < 2:
                raise TournamentConflict(M_("an event needs at least 2 players to start"))
            if t.system == "round_robin" and len(players) > 24:
                raise TournamentConflict(M_("a round robin has at most 24 players"))
            if not self.store.set_state(
                conn, t.id, {"status": "created"}, status="running", started_ms=now
            ):
                return False
            # by rating; an imported event keeps the file's order, late joiners after it
            seeded = sorted(
                players,
                key=lambda p: (p.seed is None, p.seed or 0, -p.rating, p.joined_ms, p.user_id),
            )
            for seed, p in enumerate(seeded, start=1):
                conn.execute(
                    update(_P)
                    .where(_P.c.tournament_id == t.id, _P.c.user_id == p.user_id)
                    .values(seed=seed, seen_ms=max(p.seen_ms, now))
                )
            conn.execute(
                update(_P)
                .where(_P.c.tournament_id == t.id, _P.c.invitation.isnot(None))
                .values(seed=None)
            )
        self._changed(t.id)
        self.kick(t.id)
        return True

    def pause(self, tid: str, user_id: str, paused: bool) -> Tournament:
        """The creator pauses the event (no new round, no new arena pairing; games in
        play go on) or resumes it."""
        t = self._director(tid, user_id)
        with self.db.begin() as conn:
            self.store.set_state(conn, tid, {}, paused=paused)
        self._changed(tid)
        if not paused:
            self.kick(tid)
        return self._get(t.id)

    def remove(self, tid: str, user_id: str, username: str) -> None:
        """The creator removes a player (as if they had withdrawn)."""
        self._director(tid, user_id)
        player = next(
            (p for p in self.store.players(tid) if p.username.lower() == username.lower()), None
        )
        if player is None:
            raise TournamentGone(M_("{username} is not in this event", username=repr(username)))
        self.withdraw(tid, player.user_id)

    def forfeit(self, tid: str, user_id: str, game_id: str) -> None:
        """The creator ends a game of the event in which a side has not moved yet: the
        side to move loses by forfeit (in an arena nobody scores it, and that side is
        paused, as by the no-show rule)."""
        t = self._director(tid, user_id)
        row = next((g for g in self.store.games(tid) if g.game_id == game_id), None)
        if row is None:
            raise TournamentGone(M_("no game {game_id} in this event", game_id=repr(game_id)))
        if not self._end_no_show(t, game_id, "the director"):
            raise TournamentConflict(
                M_("only a game in which a side has not made its first move can be forfeited")
            )
        self.kick(tid)

    def touch(self, tid: str, user_id: str) -> None:
        """The player has the event's page open (an arena pairs those present); the
        mark is written only when it is getting old, not at every read."""
        now = self._now()
        with self.db.begin() as conn:
            conn.execute(
                update(_P)
                .where(
                    _P.c.tournament_id == tid,
                    _P.c.user_id == user_id,
                    _P.c.seen_ms < now - PRESENCE_REFRESH_MS,
                )
                .values(seen_ms=now)
            )

    def berserk(self, tid: str, user_id: str, game_id: str) -> None:
        """An arena player halves their own clock before their first move: a win then
        earns an extra point (:data:`standings.BERSERK_MIN_PLIES`)."""
        t = self._get(tid)
        if t.system != "arena":
            raise TournamentConflict(M_("berserk is for arenas"))
        row = next((g for g in self.store.games(tid) if g.game_id == game_id), None)
        if row is None or user_id not in (row.black, row.white):
            raise TournamentForbidden(M_("you are not playing this game of the event"))
        side = "black" if user_id == row.black else "white"

        def op(loaded: Loaded, _now: int) -> Change | None:
            g = loaded.game
            first_ply = 0 if side == "black" else 1
            if g.status != "running" or g.ply > first_ply or g.clock_initial_ms is None:
                raise TournamentConflict(M_("berserk is only possible before your first move"))
            half = g.clock_initial_ms // 2
            if (g.black_ms if side == "black" else g.white_ms) == half:
                return None
            game = g.copy()
            if side == "black":
                game.black_ms = half
            else:
                game.white_ms = half
            return Change(game, loaded.board, loaded.moves)

        self.games.run(game_id, op, lambda *_: None)
        marks = {m for p, m in ((row.black, "b"), (row.white, "w")) if p in row.berserk}
        marks.add(side[0])
        with self.db.begin() as conn:
            conn.execute(update(_G).where(_G.c.id == row.id).values(berserk="".join(sorted(marks))))
        self._changed(tid)

    # ------------------------------------------------------------------ moving on
    def start_loop(self) -> None:
        """From now on, events are moved on in the background of the running loop."""
        self.loop = asyncio.get_running_loop()

    def kick(self, tid: str) -> None:
        """Move the event on soon, in the tournaments' own thread (a Swiss pairing may
        take long: it never runs on the event loop nor holds the database executor);
        at once, here, when no loop runs (tools, tests of the service alone)."""
        loop = self.loop
        if loop is None:
            self.advance(tid)
        else:
            loop.call_soon_threadsafe(self._schedule, tid)

    def game_changed(self, c: Committed) -> None:
        """On the event loop after every stored change: a tournament game that has
        just ended moves its event on."""
        g = c.loaded.game
        if g.tournament_id is None:
            return
        if g.status == "running" and g.ply > 0:
            return
        self._reads.pop(g.tournament_id, None)
        self._schedule(g.tournament_id)

    def _schedule(self, tid: str) -> None:
        if tid in self._advancing:  # many games ending at once: one more advance after
            self._again.add(tid)
            return
        self._advancing.add(tid)
        task = asyncio.get_running_loop().create_task(self._advance_soon(tid))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _advance_soon(self, tid: str) -> None:
        try:
            while True:
                self._again.discard(tid)
                try:
                    await self.executor.run(self.advance, tid)
                except Exception:  # the sweep tries again
                    log.exception("tournament %s could not move on", tid)
                if tid not in self._again:
                    return
        finally:
            self._advancing.discard(tid)

    def sweep(self) -> int:
        """Move every running event on (and start those whose time has come)."""
        moved = 0
        for tid in self.store.active_ids():
            try:
                self.advance(tid)
                moved += 1
            except Exception:
                log.exception("tournament %s could not move on", tid)
        return moved

    def advance(self, tid: str) -> None:
        """Move the event on from what is stored (see the module's docstring)."""
        t = self._get(tid)
        now = self._now()
        if t.status == "created":
            if t.starts_at_ms is not None and now >= t.starts_at_ms:
                try:
                    self._start(t)
                except TournamentConflict:
                    self._finish(t)  # nobody came: the event ends without games
            return
        if t.status != "running":
            return
        rows = self.store.games(tid)
        if self._no_shows(t, rows, now):
            rows = self.store.games(tid)
        if t.system == "arena":
            self._arena(t, rows, now)
            return
        if self._second_games(t, rows):
            rows = self.store.games(tid)
        current = [r for r in rows if r.round == t.round]
        if t.round > 0 and any(r.outcome is None for r in current):
            return
        if t.paused:
            return
        soonest = t.round_starts_ms(t.round + 1)
        if soonest is not None and now < soonest:
            return  # the round's set time has not come (the sweep starts it then)
        players = self.store.players(tid)
        seeded = sorted((p for p in players if p.seed is not None), key=lambda p: p.seed or 0)
        total = t.total_rounds(len(seeded)) or 0
        if t.round >= total:
            self._finish(t)
            return
        try:
            pairs = self._pairs(t, players, seeded, rows)
        except NoPairing as error:
            log.info("tournament %s ends early: %s", tid, error)
            self._finish(t)
            return
        self._begin_round(t, t.round + 1, pairs, {p.user_id: p for p in players})

    def _pairs(
        self, t: Tournament, players: list[Entrant], seeded: list[Entrant], rows: list[TourGame]
    ) -> list[Pair]:
        number = t.round + 1
        if t.system == "round_robin":
            return round_robin_schedule([p.user_id for p in seeded], double=t.double)[number - 1]
        active = sorted(
            (p for p in players if p.playing),
            key=lambda p: (p.seed is None, p.seed or 0, -p.rating, p.joined_ms),
        )
        by_name = {p.username.lower(): p.user_id for p in players}
        history: dict[tuple[int, int], PairResult] = {}
        for r in rows:
            key = (r.round, r.board or 0)
            points = {"black": (1.0, 0.0), "white": (0.0, 1.0), "draw": (0.5, 0.5)}
            if r.white is None:
                history[key] = PairResult(r.round, r.black, None, r.bye_points or 0.0, 0.0)
                continue
            got = points.get(r.outcome or "", (0.0, 0.0))
            if r.leg == 2:
                got = (got[1], got[0])  # the second game's Black is the pairing's second
            old = history.get(key)
            if old is None:
                first, second = (r.black, r.white) if r.leg == 1 else (r.white, r.black)
                history[key] = PairResult(r.round, first, second, got[0], got[1], not r.forfeit)
            else:
                history[key] = PairResult(
                    r.round,
                    old.first,
                    old.second,
                    old.first_points + got[0],
                    old.second_points + got[1],
                    old.played and not r.forfeit,
                )
        pair = swiss_round if len(active) < PROCESS_PAIRING_FROM else self._swiss_in_process
        return pair(
            [p.user_id for p in active],
            {p.user_id: p.rating for p in active},
            list(history.values()),
            round_number=number,
            total_rounds=t.rounds or number,
            forbidden=[
                (by_name[a], by_name[b]) for a, b in t.forbidden if a in by_name and b in by_name
            ],
            bye_points=float(t.games_per_pairing),
        )

    def _swiss_in_process(
        self,
        players: list[str],
        ratings: dict[str, int],
        history: list[PairResult],
        *,
        round_number: int,
        total_rounds: int,
        forbidden: list[tuple[str, str]],
        bye_points: float,
    ) -> list[Pair]:
        """:func:`swiss_round` in the worker process: a big field's pairing is pure
        Python for seconds or minutes, and would hold the interpreter's lock (every
        request of this process waiting) if it ran in a thread."""
        if self._pairing_pool is None:
            self._pairing_pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"))
        future = self._pairing_pool.submit(
            swiss_round,
            players,
            ratings,
            history,
            round_number=round_number,
            total_rounds=total_rounds,
            forbidden=forbidden,
            bye_points=bye_points,
        )
        return future.result(timeout=SWISS_PAIRING_TIMEOUT_S)

    def close(self) -> None:
        if self._pairing_pool is not None:
            self._pairing_pool.shutdown(cancel_futures=True)

    def _tags(self, t: Tournament, number: int | None, board: int | None) -> dict[str, str]:
        # EventType as PGN's supplemental tag (round robin "tourn", "swiss"; and "arena")
        kind = {"round_robin": "tourn"}.get(t.system, t.system)
        tags = {"Event": t.name, "Site": "poolcheckers", "EventId": t.id, "EventType": kind}
        if number is not None:
            tags["Round"] = str(number)
        if board is not None:
            tags["Board"] = str(board)
        return tags

    def _new_game(
        self,
        t: Tournament,
        black: Entrant,
        white: Entrant,
        number: int | None,
        board: int | None,
        perfs: dict[str, Perf] | None = None,
    ) -> Committed:
        def perf(user_id: str) -> Perf | None:
            if perfs is not None and user_id in perfs:
                return perfs[user_id]
            return self.ratings.perf(user_id, t.category)

        return self.creator.between(
            (black.user_id, black.username, perf(black.user_id)),
            (white.user_id, white.username, perf(white.user_id)),
            t.time_control,
            t.rules,
            rated=t.rated,
            tags=self._tags(t, number, board),
            tournament_id=t.id,
        )

    def _begin_round(
        self, t: Tournament, number: int, pairs: list[Pair], who: dict[str, Entrant]
    ) -> bool:
        """Store round ``number``: its games (first legs), second legs to come, byes
        and forfeits, all in the transaction that moves the event's round from
        ``number - 1`` (one process does it)."""
        now = self._now()
        started: list[Committed] = []
        rows: list[dict[str, Any]] = []
        base = {"tournament_id": t.id, "round": number, "created_ms": now, "berserk": None}
        for board, pair in enumerate(pairs, start=1):
            row = {**base, "board": board, "black_id": pair.first, "white_id": pair.second}
            if pair.second is None:
                # a round robin's schedule keeps a withdrawn player's byes: they score
                # nothing (the round is not played by a player who has left)
                points = 0.0 if who[pair.first].withdrawn else float(t.games_per_pairing)
                rows.append(
                    {**row, "leg": 1, "game_id": None, "bye_points": points, "forfeit": None}
                )
                continue
            black, white = who[pair.first], who[pair.second]
            gone = [p for p in (black, white) if p.withdrawn]
            for leg in range(1, t.games_per_pairing + 1):
                b, w = (pair.first, pair.second) if leg == 1 else (pair.second, pair.first)
                leg_row = {**row, "leg": leg, "black_id": b, "white_id": w, "bye_points": None}
                if gone:
                    winner = (
                        "none" if len(gone) == 2
                        else "white" if gone[0].user_id == b else "black"
                    )  # fmt: skip
                    rows.append({**leg_row, "game_id": None, "forfeit": winner})
                elif leg == 1:
                    c = self._new_game(t, black, white, number, board)
                    started.append(c)
                    rows.append({**leg_row, "game_id": c.loaded.game.id, "forfeit": None})
                else:
                    rows.append({**leg_row, "game_id": None, "forfeit": None})

        def claim(conn: Connection) -> bool:
            return self.store.set_state(
                conn, t.id, {"round": number - 1, "status": "running"}, round=number
            )

        def then(conn: Connection) -> None:
            if rows:
                conn.execute(insert(_G), rows)

        if not self.games.insert_many([c.loaded for c in started], claim, then):
            return False
        self._announce(started)
        self._changed(t.id)
        return True

    def _announce(self, started: list[Committed]) -> None:
        if self.games.on_change is not None:
            for c in started:
                self.games.on_change(c)

    def _second_games(self, t: Tournament, rows: list[TourGame]) -> bool:
        """Start every match's second game whose first game is decided."""
        firsts = {(r.round, r.board): r for r in rows if r.leg == 1}
        who = {p.user_id: p for p in self.store.players(t.id)}
        started = False
        for r in rows:
            if r.leg != 2 or r.game_id is not None or r.outcome is not None or r.white is None:
                continue
            first = firsts.get((r.round, r.board))
            if first is None or first.outcome is None:
                continue
            c = self._new_game(t, who[r.black], who[r.white], r.round, r.board)
            row_id, game_id = r.id, c.loaded.game.id

            def then(conn: Connection, row_id: int = row_id, game_id: str = game_id) -> None:
                done = conn.execute(
                    update(_G)
                    .where(_G.c.id == row_id, _G.c.game_id.is_(None), _G.c.forfeit.is_(None))
                    .values(game_id=game_id)
                ).rowcount
                if done != 1:
                    raise _Claimed

            try:
                self.games.insert_many([c.loaded], lambda _conn: True, then)
            except _Claimed:
                continue  # another process started it
            self._announce([c])
            started = True
        if started:
            self._changed(t.id)
        return started

    def _no_show_ms(self, t: Tournament) -> int:
        if t.forfeit_minutes is not None:
            return t.forfeit_minutes * 60_000
        if isinstance(t.time_control, Correspondence):
            return t.time_control.days * games_model.DAY_MS
        return NO_SHOW_MINUTES * 60_000

    def _no_shows(self, t: Tournament, rows: list[TourGame], now: int) -> bool:
        limit = self._no_show_ms(t)
        ended = False
        for r in rows:
            if r.game_id is None or r.status != "running" or r.plies >= 2:
                continue
            if now - r.ended_ms >= limit:  # ended_ms: the last change, here the start or 1st move
                ended |= self._end_no_show(t, r.game_id, games_model.span(limit))
        return ended

    def _end_no_show(self, t: Tournament, game_id: str, within: str) -> bool:
        """End a game in which a side has not made its first move: that side loses by
        forfeit (the tournament reads it from the ended game; an arena scores it for
        nobody and pauses that side).  False when the game has moved on meanwhile."""

        def op(loaded: Loaded, _now: int) -> Change | None:
            g = loaded.game
            if g.status != "running" or g.ply >= 2:
                return None
            why = _no_show_words(t, "Black" if g.ply == 0 else "White", within)
            game = g.copy()
            games_model.settle_clock(game, _now)
            # the side that moved wins by forfeit, but not in an arena (nobody scores)
            winner = None if t.system == "arena" else ("white" if g.ply == 0 else "black")
            games_model.end_no_show(game, why, winner)
            return Change(game, loaded.board, loaded.moves)

        def ended(loaded: Loaded, _now: int) -> bool:
            return loaded.game.termination == games_model.NO_SHOW

        return self.games.run(game_id, op, ended)

    def _finish(self, t: Tournament) -> None:
        with self.db.begin() as conn:
            done = self.store.set_state(
                conn, t.id, {"status": t.status}, status="finished", finished_ms=self._now()
            )
        if done:
            self._changed(t.id)

    # ------------------------------------------------------------------ arena
    def _arena(self, t: Tournament, rows: list[TourGame], now: int) -> None:
        self._free_arena_players(t, rows, now)
        ends = t.ends_ms
        if ends is not None and now >= ends:
            self._finish(t)
            return
        if t.paused:
            return
        players = self.store.players(t.id)
        results = results_of(rows)[0]
        ranked = st.standings("arena", [p.user_id for p in players], results)
        rank = {s.player: s.rank for s in ranked}
        recent: dict[str, list[str]] = {}
        firsts: dict[str, int] = {}
        for r in sorted(rows, key=lambda r: -r.id):
            if r.white is None:
                continue
            recent.setdefault(r.black, []).append(r.white)
            recent.setdefault(r.white, []).append(r.black)
            firsts[r.black] = firsts.get(r.black, 0) + 1
            firsts[r.white] = firsts.get(r.white, 0) - 1
        free = [
            ArenaPlayer(
                p.user_id,
                rank.get(p.user_id, len(players)),
                p.rating,
                tuple(recent.get(p.user_id, [])[:3]),
                firsts.get(p.user_id, 0),
            )
            for p in players
            if not p.withdrawn and p.busy_game is None and now - p.seen_ms <= ARENA_PRESENCE_MS
        ]
        if len(free) < 2:
            return
        lease = None
        if self.slots is not None:
            lease = self._arena_lease(t.id)
            if lease is None:
                return  # another process has paired for long: the next sweep looks again
            # the players free now, read again: the other process may have paired some
            players = self.store.players(t.id)
            idle = {p.user_id for p in players if p.busy_game is None and not p.withdrawn}
            free = [f for f in free if f.key in idle]
            if len(free) < 2:
                self.slots.give_back(lease)
                return
        try:
            who = {p.user_id: p for p in players}
            perfs = self.ratings.store.perfs_of([p.key for p in free], t.category)
            for pair in arena_pairs(free, self.rng):
                assert pair.second is not None
                self._arena_game(t, who[pair.first], who[pair.second], perfs)
        finally:
            if lease is not None and self.slots is not None:
                self.slots.give_back(lease)

    def _free_arena_players(self, t: Tournament, rows: list[TourGame], now: int) -> None:
        """The players whose game is over are free again; who did not make a first
        move in a game the no-show rule ended is paused until they join again."""
        paused = 0
        with self.db.begin() as conn:
            busy = {p.busy_game for p in self.store.players(t.id, conn) if p.busy_game}
            over = [r for r in rows if r.game_id in busy and r.outcome is not None]
            for r in over:
                if r.absent is not None:
                    # in the statement that frees them (busy_game is the compare-and-
                    # set), so a pause is set once, and never after they came back
                    paused += conn.execute(
                        update(_P)
                        .where(
                            _P.c.tournament_id == t.id,
                            _P.c.user_id == r.absent,
                            _P.c.busy_game == r.game_id,
                        )
                        .values(busy_game=None, withdrawn_ms=now, withdrawn_why="no_show")
                    ).rowcount
            if over:
                conn.execute(
                    update(_P)
                    .where(
                        _P.c.tournament_id == t.id,
                        _P.c.busy_game.in_([r.game_id for r in over]),
                    )
                    .values(busy_game=None)
                )
        if paused:
            self._changed(t.id)

    def _arena_lease(self, tid: str) -> str | None:
        """The lease to pair the arena ``tid``, waiting (in the tournaments' thread) while
        another process holds it: the players freed here are paired as soon as that
        process is done, not at the next sweep."""
        assert self.slots is not None
        deadline = time.monotonic() + ARENA_LEASE_WAIT_S
        while True:
            lease = self.slots.take(f"arena-pairing:{tid}", 1, ARENA_PAIRING_LEASE_S)
            if lease is not None or time.monotonic() > deadline:
                return lease
            time.sleep(0.05)

    def _arena_game(
        self, t: Tournament, black: Entrant, white: Entrant, perfs: dict[str, Perf]
    ) -> bool:
        c = self._new_game(t, black, white, None, None, perfs)
        game_id = c.loaded.game.id

        def claim(conn: Connection) -> bool:
            busy = conn.execute(
                update(_P)
                .where(
                    _P.c.tournament_id == t.id,
                    _P.c.user_id.in_((black.user_id, white.user_id)),
                    _P.c.busy_game.is_(None),
                    _P.c.withdrawn_ms.is_(None),
                )
                .values(busy_game=game_id)
            ).rowcount
            running = self.store.set_state(conn, t.id, {"status": "running"})
            return busy == 2 and running

        def then(conn: Connection) -> None:
            conn.execute(
                insert(_G).values(
                    tournament_id=t.id,
                    round=0,
                    board=None,
                    leg=1,
                    black_id=black.user_id,
                    white_id=white.user_id,
                    game_id=game_id,
                    bye_points=None,
                    forfeit=None,
                    berserk=None,
                    created_ms=self._now(),
                )
            )

        if not self.games.insert_many([c.loaded], claim, then):
            return False
        self._announce([c])
        self._changed(t.id)
        return True

    # ------------------------------------------------------------------ reading
    def event(self, tid: str) -> EventRead:
        """An event with its players and games."""
        return self.event_view(tid)[0]

    def event_view(self, tid: str) -> tuple[EventRead, str]:
        """An event with its players and games, and what every reader sees of it as
        JSON; a read less than a second old is served again (hundreds of players'
        pages read a big event at once)."""
        now = time.monotonic()
        cached = self._reads.get(tid)
        if cached is not None and now - cached[0] < self.read_cache:
            return cached[1], cached[2]
        t = self._get(tid)
        got = (t, self.store.players(tid), self.store.games(tid))
        shared = json.dumps(view.shared_json(*got), separators=(",", ":"))
        if len(self._reads) > 1000:
            self._reads.clear()
        self._reads[tid] = (now, got, shared)
        return got, shared


def _no_show_words(t: Tournament, side: str, within: str) -> str:
    """The ending of a game the no-show rule ended, as the game page shows it (its
    static/outcome.js says it again in the page's language): a forfeit, or in an
    arena a game with no result."""
    if t.system == "arena":
        if within == "the director":
            return (
                f"Aborted: {side} did not make a first move "
                f"(arena rule, ended by the director: no result, {side} is paused)"
            )
        return (
            f"Aborted: {side} did not make a first move within {within} "
            f"(arena rule: no result, {side} is paused)"
        )
    won = "White" if side == "Black" else "Black"
    if within == "the director":
        return (
            f"{won} wins by forfeit: {side} did not make a first move "
            "(tournament rule, ended by the director)"
        )
    return (
        f"{won} wins by forfeit: {side} did not make a first move within {within} (tournament rule)"
    )


def _row(
    tid: str, spec: TournamentSpec, user: User, now: int, password_hash: str | None
) -> dict[str, Any]:
    """The ``tournaments`` row of a new event (its password hashed by :mod:`.passwords`)."""
    return {
        "id": tid,
        "name": spec.name,
        "system": spec.system,
        "status": "created",
        "creator_id": user.id,
        "creator_name": user.username,
        "settings": spec.settings(),
        "rated": spec.rated,
        "rounds": spec.rounds,
        "games_per_pairing": spec.games_per_pairing,
        "double": spec.double,
        "duration_minutes": spec.duration_minutes,
        "starts_at_ms": None if spec.starts_at is None else spec.starts_at * 1000,
        "max_players": spec.max_players,
        "password_hash": None,
        "password_argon2": password_hash,
        "round": 0,
        "paused": False,
        "started_ms": None,
        "finished_ms": None,
        "created_ms": now,
    }


class _Claimed(Exception):
    """Another process claimed the row first."""
