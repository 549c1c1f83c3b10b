"""A Swiss event imported from a FIDE TRF16 file (``POST /api/tournaments/import``).

Consent: the accounts a file names are *invited*, not entered.  The event lists them
as invited until each accepts on its page (:mod:`.invitations`, the checks of a
join); nobody invited is paired, and a finished event shows on a player's page only
once they accepted.  A bot, or a player who blocks the director, cannot be named:
the import is refused, naming them.  The director, if the file names them, is in.

Cost: every attempt counts against the account's events of the day *before* the
file is read (a failed import counts too); a file too big, or with a line longer
than 20 rounds make, is refused before it is parsed; the parse runs in a worker
process of this server process's own, one file at a time, within
:data:`READ_BUDGET_S` (past it the worker is ended and the import refused).  The
parse is pure Python: in a thread it would hold the interpreter's lock, and on the
event loop (where local databases' work runs) every request would wait on it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any

from poolcheckers.server import errors
from poolcheckers.server.accounts.model import User, username_key
from poolcheckers.server.challenges.repository import DbChallengeStore
from poolcheckers.server.database.tables import TOURNAMENT_GAMES, TOURNAMENT_PLAYERS, TOURNAMENTS
from poolcheckers.server.domain_errors import UsernameError
from poolcheckers.server.i18n import M_
from poolcheckers.server.tournaments import trf
from poolcheckers.server.tournaments.model import (
    Tournament,
    TournamentConflict,
    TournamentError,
    TournamentForbidden,
    TournamentSpec,
)
from poolcheckers.server.tournaments.service import (
    DEFAULT_RATING,
    EVENTS_PER_DAY,
    TournamentService,
    _new_id,
    _row,
)

log = logging.getLogger("poolcheckers.server")
#: the most seconds a file's parse may take (a 400 KB file takes a tenth of that)
READ_BUDGET_S = 5.0
#: the most names listed in an error
_SHOWN = 10


def _listed(names: list[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")


class TrfImports:
    """Imports of TRF files for ``service``'s events; ``run_db`` is the database
    executor, ``announce(message, account_ids)`` tells players' lobby sockets (the
    invitations), ``reader`` parses a file (in the worker process)."""

    def __init__(
        self,
        service: TournamentService,
        run_db: Callable[..., Awaitable[Any]],
        blocks: DbChallengeStore,
        *,
        announce: Callable[[str, set[str]], None] | None = None,
        budget_s: float = READ_BUDGET_S,
        reader: Callable[[str], trf.TrfEvent] = trf.read,
    ) -> None:
        self.service = service
        self.run_db = run_db
        self.blocks = blocks
        self.announce = announce
        self.budget_s = budget_s
        self.reader = reader
        self._pool: ProcessPoolExecutor | None = None
        self._one_at_a_time = asyncio.Lock()

    async def import_trf(
        self,
        user: User,
        data: dict[str, Any],
        digest: Callable[[object], Awaitable[str | None]] | None = None,
    ) -> Tournament:
        """The event of ``data["trf"]`` with the settings of ``data`` (see
        :meth:`store`), made by ``user``; its named players invited.  ``digest``
        hashes the event's password (:meth:`.passwords.EventPasswords.digest`)."""
        text = data.get("trf")
        if not isinstance(text, str):
            raise TournamentError(M_("an import needs the TRF16 file's text in 'trf'"))
        await self.run_db(self.count, user)
        trf.check_size(text)
        password = data.get("password")
        if password is not None and digest is None:
            raise TournamentConflict(M_("this server cannot keep an event's password"))
        hashed = None if password is None or digest is None else await digest(password)
        event = await self.read(text)
        stored: tuple[Tournament, set[str]] = await self.run_db(
            self.store, user, data, event, hashed
        )
        t, invited = stored
        if invited and self.announce is not None:
            message = {"type": "tournament_invitation", "tournament": t.id, "name": t.name}
            await self.run_db(self.announce, json.dumps(message), invited)
        return t

    def count(self, user: User) -> None:
        """Count the attempt among the account's events of the day (blocks)."""
        quotas = self.service.quotas
        if quotas is None:
            return
        decision = quotas.hit(EVENTS_PER_DAY, user.id)
        if not decision.allowed:
            raise errors.limit_reached(
                M_("at most {limit} events a day from one account", limit=EVENTS_PER_DAY.limit),
                decision.retry_after,
            )

    async def read(self, text: str) -> trf.TrfEvent:
        """The file's event, parsed in the worker process within :attr:`budget_s`."""
        async with self._one_at_a_time:
            loop = asyncio.get_running_loop()
            if self._pool is None:
                self._pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"))
            pool = self._pool
            try:
                # the worker's start (its imports) is not the file's time
                await loop.run_in_executor(pool, trf.ready)
                return await asyncio.wait_for(
                    loop.run_in_executor(pool, self.reader, text), self.budget_s
                )
            except BrokenProcessPool:
                self._end(pool)
                log.exception("the TRF reading worker died")
                raise errors.busy(M_("the TRF file could not be read now: try again"), 1) from None
            except TimeoutError:
                self._end(pool)
                raise TournamentError(
                    M_(
                        "the TRF file took more than {seconds} s to read: it was not imported",
                        seconds=self.budget_s,
                    )
                ) from None

    def _end(self, pool: ProcessPoolExecutor) -> None:
        """End the worker (it is still parsing); the next import starts another."""
        self._pool = None
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    # ------------------------------------------------------------------ storing
    def store(
        self,
        user: User,
        data: dict[str, Any],
        event: trf.TrfEvent,
        password_hash: str | None = None,
    ) -> tuple[Tournament, set[str]]:
        """Store the event (blocks): its players are the site's accounts of the
        file's names, seeded in its order, each invited but ``user``; its played rounds
        are results of games played elsewhere; an event whose rounds are all played
        is stored finished.  ``data`` holds the settings of ``create`` (name and
        rounds default to the file's; its password comes hashed, ``password_hash``).
        Also the ids of the invited."""
        s = self.service
        settings = {k: v for k, v in data.items() if k not in ("trf", "password", "password_hash")}
        settings.setdefault("name", event.name or "Imported Swiss")
        settings.setdefault("rounds", event.total_rounds)
        settings["system"] = "swiss"
        now = s._now()
        spec = TournamentSpec.from_dict(settings, now / 1000)
        _check_shape(spec, event)
        ids = self._accounts_of(event)
        self._check_invitees(user, list(ids.values()))
        tid = _new_id()
        values = _row(tid, spec, user, now, password_hash) | {"round": event.played_rounds}
        if event.played_rounds == spec.rounds:
            values |= {"status": "finished", "started_ms": now, "finished_ms": now}
        elif event.played_rounds:
            values |= {"starts_at_ms": None}  # a running event goes on when its director says
        perfs = s.ratings.store.perfs_of([u.id for u in ids.values()], spec.category)
        players = [
            {
                "tournament_id": tid,
                "user_id": ids[p.number].id,
                "username": ids[p.number].username,
                "rating": (
                    int(perfs[ids[p.number].id].glicko.rating)
                    if ids[p.number].id in perfs
                    else DEFAULT_RATING
                ),
                "seed": seed,
                "joined_ms": now,
                "withdrawn_ms": None,
                "busy_game": None,
                "seen_ms": now,
                "invitation": None if ids[p.number].id == user.id else "invited",
            }
            for seed, p in enumerate(event.players, start=1)
        ]
        games = _imported_games(tid, event, ids, now)
        with s.db.begin() as conn:
            conn.execute(TOURNAMENTS.insert().values(values))
            conn.execute(TOURNAMENT_PLAYERS.insert(), players)
            if games:
                conn.execute(TOURNAMENT_GAMES.insert(), games)
        return s._get(tid), {u.id for u in ids.values() if u.id != user.id}

    def _check_invitees(self, user: User, named: list[User]) -> None:
        """A bot, or a player who blocks the director, cannot be named (the checks of
        a join; the rest, password and rating range, when each accepts)."""
        bots = [u.username for u in named if u.bot]
        if bots:
            raise TournamentForbidden(
                M_(
                    "bot accounts cannot play in tournaments: the TRF file names {names}",
                    names=_listed(bots),
                )
            )
        blocking = self.blocks.blocking({u.id for u in named if u.id != user.id}, user.id)
        if blocking:
            names = sorted(u.username for u in named if u.id in blocking)
            raise TournamentForbidden(
                M_(
                    "{names} do not accept invitations from you: take them out of the TRF file",
                    names=_listed(names),
                )
            )

    def _accounts_of(self, event: trf.TrfEvent) -> dict[int, User]:
        """The site account of each TRF player, by starting number."""
        users_store = self.service.users
        if users_store is None:
            raise TournamentConflict(M_("this server cannot look players up by name"))
        keys: dict[int, str] = {}
        bad: list[str] = []
        for p in event.players:
            try:
                keys[p.number] = username_key(p.name)
            except UsernameError:
                bad.append(p.name)
        found = users_store.by_keys(set(keys.values()))
        missing = bad + [
            p.name
            for p in event.players
            if keys.get(p.number, "") not in found and p.name not in bad
        ]
        if missing:
            shown = ", ".join(repr(n) for n in missing[:10])
            more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
            raise TournamentError(
                M_(
                    "the TRF file's players must be the site's usernames: no account named {shown}{more}",  # noqa: E501
                    shown=shown,
                    more=more,
                )
            )
        users = {n: found[k] for n, k in keys.items()}
        seen: dict[str, int] = {}
        for n, u in users.items():
            if u.id in seen:
                raise TournamentError(
                    M_(
                        "TRF players {seen} and {n} are both the account {username}",
                        seen=seen[u.id],
                        n=n,
                        username=u.username,
                    )
                )
            seen[u.id] = n
        return users


def _check_shape(spec: TournamentSpec, event: trf.TrfEvent) -> None:
    if spec.rounds is not None and spec.rounds < event.played_rounds:
        raise TournamentError(
            M_(
                "rounds {rounds} is fewer than the {played_rounds} the file has played",
                rounds=spec.rounds,
                played_rounds=event.played_rounds,
            )
        )
    if spec.games_per_pairing != 1 and event.played_rounds:
        raise TournamentError(
            M_(
                "a TRF file holds one result per round, not each game of a two-game match: "
                "an event of two-game matches is imported before its first round"
            )
        )


def _imported_games(
    tid: str, event: trf.TrfEvent, ids: dict[int, User], now: int
) -> list[dict[str, Any]]:
    """The ``tournament_games`` rows of a TRF file's played rounds."""
    boards: dict[int, int] = {}
    games = []
    for m in event.meetings:
        boards[m.round] = boards.get(m.round, 0) + 1
        bye = m.second is None
        games.append(
            {
                "tournament_id": tid,
                "round": m.round,
                "board": boards[m.round],
                "leg": 1,
                "black_id": ids[m.first].id,
                "white_id": None if m.second is None else ids[m.second].id,
                "game_id": None,
                "bye_points": m.bye_points if bye else None,
                "forfeit": m.outcome if m.forfeit else None,
                "played": None if bye or m.forfeit else m.outcome,
                "berserk": None,
                "created_ms": now,
            }
        )
    return games
