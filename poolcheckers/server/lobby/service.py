"""The lobby as the server runs it: the lobby's live sockets of this process, the
PostgreSQL channel that carries lobby changes and game starts to the other server
processes (heard through the process's
:class:`~poolcheckers.server.realtime.bus.PgBus`), the sweep of seeks whose author
left, and the start of a game when a seek is taken (through the one game creator)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import threading
from collections.abc import Callable, Mapping

from sqlalchemy import Connection, Engine, text

from poolcheckers.server.accounts.model import User, pdn_title
from poolcheckers.server.database.engine import is_postgres
from poolcheckers.server.database.executor import DbExecutor, read
from poolcheckers.server.games.creator import DAY_MS, GameCreator
from poolcheckers.server.games.repository import Committed
from poolcheckers.server.lobby.model import (
    Lobby,
    LobbyEvent,
    LobbyPlayer,
    Pairing,
    Seek,
    SeekSpec,
    seek_gone,
)
from poolcheckers.server.lobby.repository import TAKE_AND_START, DbLobbyStore
from poolcheckers.server.ratings.model import Perf
from poolcheckers.server.ratings.service import RatingService
from poolcheckers.server.settings import Settings

log = logging.getLogger("poolcheckers.server")
#: the PostgreSQL channel of lobby changes and game starts between server processes
LOBBY_CHANNEL = "poolcheckers_lobby"
#: a clock seek whose author no process has seen in the lobby for this long goes
SEEK_UNSEEN_S = 30.0
#: how often each process marks its lobby authors as seen and sweeps unseen seeks
LOBBY_SWEEP_S = 10.0
#: the lobby's changes seen by everyone (a seek added or removed) wait this long to go
#: out together, as lichess's lobby sends its removed seeks in batches: a burst of a
#: hundred accepts then costs each lobby page a few frames instead of a hundred, and
#: the other processes a few NOTIFYs (a game's start goes to its two players at once)
LOBBY_FLUSH_S = 0.1
#: PostgreSQL refuses a NOTIFY payload of 8000 bytes or more: changes go in parts
NOTIFY_BYTES = 7000
#: a LISTEN connection may be dead a while before it is seen to be (a cut network:
#: TCP keepalives, about a minute): the games started this long before the loss was
#: seen are told again after the reconnection
LOST_UNSEEN_MS = 90_000
#: told to the signed-in lobby sockets when notices may have been lost: the player's
#: challenges and invitations may have changed (the page reads them again)
CHALLENGES_CHANGED = json.dumps({"type": "challenges_changed"})
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")


class LobbyService:
    """Seeks, their sockets and the games they start (``ctx.lobby``)."""

    def __init__(
        self,
        settings: Settings,
        db: Engine,
        executor: DbExecutor,
        creator: GameCreator,
        ratings: RatingService,
    ) -> None:
        self.settings = settings
        self.db = db
        self.executor = executor
        self.creator = creator
        self.ratings = ratings
        self.store = DbLobbyStore(db)
        time = settings.clock
        self.lobby = Lobby(self.store, clock=lambda: time.now_ms() / 1000)
        self.lobby.subscribe(self._lobby_event)
        #: this process's lobby sockets: their outgoing queues, by account id
        self.sockets: dict[str, set[asyncio.Queue[str]]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        #: this process, in the lobby notifications (its own are already delivered)
        self.node = secrets.token_hex(8)
        self.postgres = is_postgres(settings.database_url)
        self._sweeper: asyncio.Task[None] | None = None
        #: changes for every lobby page, waiting for the next flush (filled from the
        #: database threads, emptied on the loop), each numbered
        self._pending: list[tuple[int, str]] = []
        self._pending_lock = threading.Lock()
        self._numbered = 0
        #: the last change each socket's list already shows: it read the list after
        #: that change was stored, so it gets only the later ones
        self._since: dict[asyncio.Queue[str], int] = {}
        self._notifying: set[asyncio.Task[None]] = set()
        #: when the other processes' notices stopped coming (None: they come)
        self._lost_ms: int | None = None

    async def start(self) -> None:
        """Sweep the lobby (the other processes' changes come through the bus:
        :meth:`remote`, :meth:`catch_up`)."""
        self.loop = asyncio.get_running_loop()
        self._sweeper = self.loop.create_task(self._sweep_forever())

    async def stop(self) -> None:
        self._flush()  # the other processes' pages still hear of the last changes
        if self._notifying:
            await asyncio.gather(*self._notifying, return_exceptions=True)
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper

    def sweep(self, present: list[str]) -> int:
        """Mark the authors with a lobby socket here (``present``) as seen, then remove
        the clock seeks of authors no process has seen for :data:`SEEK_UNSEEN_S`
        (their process died with its sockets); how many authors left."""
        now = self.settings.clock.now_ms() / 1000
        self.store.touch_authors(present, now)
        gone = self.store.stale_authors(now - SEEK_UNSEEN_S)
        for author in gone:
            self.lobby.leave(author)
        return len(gone)

    async def _sweep_forever(self) -> None:
        failing = False
        while True:
            await asyncio.sleep(LOBBY_SWEEP_S)
            try:
                await self.executor.run(self.sweep, list(self.sockets))
                failing = False
            except Exception:
                if not failing:
                    log.exception("lobby sweep failed")
                failing = True

    def remote(self, payload: str) -> None:
        """A notice of :data:`LOBBY_CHANNEL` (loop thread): another process's lobby
        changes, for this process's sockets (this process's own are delivered)."""
        try:
            note = json.loads(payload)
            if note["from"] == self.node:
                return
            to = None if note["to"] is None else set(note["to"])
            for message in note["msgs"] if "msgs" in note else [note["msg"]]:
                self._send(str(message), to)
        except (ValueError, KeyError, TypeError):
            log.warning("ignored lobby notification %r", payload[:200])

    def lost(self) -> None:
        """The bus lost its connection: the other processes' notices stop here."""
        self._lost_ms = self.settings.clock.now_ms()

    async def catch_up(self) -> None:
        """After the bus reconnected (the other processes' changes of the meantime
        were lost): every lobby socket here gets the open seeks again, as
        ``{"type": "seeks"}`` (the list it opened with), and only the later changes;
        the players here the games started for them meanwhile (``game``); and every
        signed-in socket :data:`CHALLENGES_CHANGED`: a challenge or an invitation
        sent, answered or cancelled meanwhile left no trace to send again, so the
        page reads its list again (a bot's event stream, its open challenges)."""
        lost_ms, self._lost_ms = self._lost_ms, None
        if not self.sockets:
            return
        if lost_ms is not None:
            await self._games_started(lost_ms - LOST_UNSEEN_MS)
        with self._pending_lock:
            mark = self._numbered  # the changes up to here are in the list read next
        seeks = await self.executor.run(self.lobby.seeks)
        message = json.dumps(
            {"type": "seeks", "seeks": [s.to_dict() for s in seeks]}, separators=(",", ":")
        )
        for account, queues in list(self.sockets.items()):
            for q in queues:
                q.put_nowait(message)
                self._since[q] = max(self._since.get(q, 0), mark)
                if not account.startswith("visitor:"):
                    q.put_nowait(CHALLENGES_CHANGED)

    async def _games_started(self, since_ms: int) -> None:
        """Tell the accounts with a lobby socket here of their games started since
        ``since_ms`` (a seek taken, a challenge accepted in another process)."""
        accounts = [a for a in self.sockets if not a.startswith("visitor:")]
        games = self.creator.store
        for game_id, players in await self.executor.run(games.started_since, accounts, since_ms):
            self._send(json.dumps({"type": "game", "id": game_id}), players)

    def _lobby_event(self, event: LobbyEvent) -> None:
        """Called in the thread that changed the lobby: forward to every socket."""
        self.announce(json.dumps(event.to_dict(), separators=(",", ":")))

    def announce(self, message: str, to: set[str] | None = None) -> None:
        """Send ``message`` to the lobby sockets (of the accounts ``to``, or all) of
        this process and, with PostgreSQL, of the others (NOTIFY).  A message for
        the accounts ``to`` goes now (blocks: call it on the database executor); one
        for all waits for the next flush (:data:`LOBBY_FLUSH_S`), with the others
        of that moment."""
        loop = self.loop
        if to is None and loop is not None:
            with self._pending_lock:
                first = not self._pending
                self._numbered += 1
                self._pending.append((self._numbered, message))
            if first:
                loop.call_soon_threadsafe(loop.call_later, LOBBY_FLUSH_S, self._flush)
            return
        if loop is not None:
            loop.call_soon_threadsafe(self._send, message, to)
        self.notify([message], to)

    def notify(self, messages: list[str], to: set[str] | None) -> None:
        """Tell the other processes' lobby sockets (PostgreSQL; blocks).  Each NOTIFY
        is a statement of its own outside a transaction: no ``BEGIN`` and ``COMMIT``
        round trips, and a session's notifications arrive in the order sent."""
        if not self.postgres or not messages:
            return
        with read(self.store.reads) as conn:
            self._notify_on(conn, messages, to)

    def _notify_on(self, conn: Connection, messages: list[str], to: set[str] | None) -> None:
        """NOTIFY the other processes on ``conn``: in its transaction, sent when it
        commits and never if it rolls back; outside one, at once (PostgreSQL;
        nothing with SQLite)."""
        if not self.postgres:
            return
        for payload in self._payloads(messages, to):
            conn.execute(_NOTIFY, {"channel": LOBBY_CHANNEL, "payload": payload})

    def _payloads(self, messages: list[str], to: set[str] | None) -> list[str]:
        """The NOTIFY payloads carrying ``messages``, each under :data:`NOTIFY_BYTES`
        (a message is never split)."""
        head = {"from": self.node, "to": None if to is None else sorted(to)}
        payloads: list[str] = []
        part: list[str] = []
        size = 0
        for message in messages:
            n = len(json.dumps(message).encode())
            if part and size + n > NOTIFY_BYTES:
                payloads.append(json.dumps({**head, "msgs": part}))
                part, size = [], 0
            part.append(message)
            size += n + 1
        if part:
            payloads.append(json.dumps({**head, "msgs": part}))
        return payloads

    def _flush(self) -> None:
        """On the loop: send the waiting changes to every lobby socket here, and to the
        other processes in as few NOTIFYs as they fit in."""
        with self._pending_lock:
            numbered, self._pending = self._pending, []
        if not numbered:
            return
        loop = self.loop
        if loop is None or loop is asyncio.get_running_loop():
            self._deliver(numbered)
        else:  # the sockets' loop is another (test clients run one per socket)
            loop.call_soon_threadsafe(self._deliver, numbered)
        messages = [message for _n, message in numbered]
        if self.postgres:
            task = asyncio.get_running_loop().create_task(self._notify_later(messages))
            self._notifying.add(task)
            task.add_done_callback(self._notifying.discard)

    def _deliver(self, numbered: list[tuple[int, str]]) -> None:
        """Queue numbered changes for this process's sockets, each socket only those
        after the list it opened with."""
        for n, message in numbered:
            for queues in list(self.sockets.values()):
                for q in queues:
                    if self._since.get(q, 0) < n:
                        q.put_nowait(message)

    async def _notify_later(self, messages: list[str]) -> None:
        try:
            await self.executor.run(self.notify, messages, None)
        except Exception:
            log.exception("lobby changes not sent to the other processes")

    def _send(self, message: str, to: set[str] | None) -> None:
        for user_id, queues in list(self.sockets.items()):
            if to is None or user_id in to:
                for q in queues:
                    q.put_nowait(message)

    def join(self, user_id: str) -> asyncio.Queue[str]:
        self.loop = asyncio.get_running_loop()
        q: asyncio.Queue[str] = asyncio.Queue()
        with self._pending_lock:
            self._since[q] = self._numbered
        self.sockets.setdefault(user_id, set()).add(q)
        return q

    def leave(self, user_id: str, q: asyncio.Queue[str]) -> bool:
        """Forget a socket; True when it was the account's last one (its seeks go)."""
        queues = self.sockets.get(user_id, set())
        queues.discard(q)
        self._since.pop(q, None)
        if queues:
            return False
        self.sockets.pop(user_id, None)
        return True

    def _taker(
        self,
        started: list[Committed],
        perfs: Mapping[str, Perf | None],
        titles: Mapping[str, str | None] | None = None,
        rated_today: int | None = None,
    ) -> Callable[[Pairing], bool]:
        """The ``take`` of :meth:`Lobby.accept`: the seek's removal, its game's insert
        and the game's start told to both players' lobby sockets in other processes
        (NOTIFY), in one transaction, so a crash between them cannot lose the seek
        without a game; the one process whose delete removed the row wins.
        ``perfs``, ``titles``: the players' ratings (in the seek's category) and PDN
        titles as already read, by account id (the others are read here);
        ``rated_today``: the pair's rated games of the last day, as already counted."""
        games = self.creator.store

        def take(pairing: Pairing) -> bool:
            category = pairing.spec.category

            def perf(player: LobbyPlayer) -> Perf | None:
                if player.id in perfs:
                    return perfs[player.id]
                return self.ratings.perf(player.id, category)

            black, white = perf(pairing.black), perf(pairing.white)
            committed = self.creator.paired(
                pairing, black, white, titles=titles, rated_today=rated_today
            )
            seek_id = pairing.seek.id
            started_msg = json.dumps({"type": "game", "id": committed.loaded.game.id})
            players = {pairing.black.id, pairing.white.id}

            def claim(conn: Connection) -> bool:
                if not self.store.claim(conn, seek_id):
                    return False
                self._notify_on(conn, [started_msg], players)
                return True

            payloads = self._payloads([started_msg], players) if self.postgres else []
            if len(payloads) == 1 and not committed.loaded.moves:
                # one statement outside a transaction: no BEGIN and COMMIT round trips
                params = {"seek_id": seek_id, "channel": LOBBY_CHANNEL, "payload": payloads[0]}
                if not games.insert_claimed_at_once(committed.loaded, TAKE_AND_START, params):
                    return False
            elif not games.insert_claimed(committed.loaded, claim):
                return False
            if self.loop is not None:
                self.loop.call_soon_threadsafe(self._send, started_msg, players)
            started.append(committed)
            return True

        return take

    def accept(self, seek_id: str, taker: LobbyPlayer) -> tuple[Pairing, Committed]:
        """Take a seek and start its game (one transaction), both players' lobby
        sockets told; the players' ratings are read in the seek's category.  Blocks:
        one call on the database executor does it all, in as few statements as it
        can: one read of the seek with what its taking needs (the players' other
        seeks, whether they are bots, their rated games of the last day, their
        ratings), then the claim."""
        since = self.creator.store.clock.now_ms() - DAY_MS
        taking = self.store.for_taking(seek_id, taker.id, since)
        started: list[Committed] = []
        if taking is None:
            raise seek_gone(seek_id)
        seek = taking.seek
        if taking.perfs is not None:
            perfs = self.ratings.or_new(taking.perfs)
        else:
            perfs = self.ratings.perfs([seek.author.id, taker.id], seek.spec.category)
        titles = {p: pdn_title(p in taking.bots) for p in (seek.author.id, taker.id)}
        take = self._taker(started, perfs, titles, taking.rated_since)
        pairing = self.lobby.accept(
            seek_id, taker, perfs[taker.id], take=take, seek=seek, others=taking.others
        )
        return pairing, started[0]

    def play_now(
        self, player: LobbyPlayer, spec: SeekSpec, perf: Perf | None
    ) -> tuple[Pairing, Committed] | Seek:
        """:meth:`Lobby.play_now`, the game of a pairing stored with the seek's removal."""
        started: list[Committed] = []
        perfs = {} if perf is None else {player.id: perf}
        got = self.lobby.play_now(player, spec, perf, take=self._taker(started, perfs))
        return (got, started[0]) if isinstance(got, Pairing) else got


def player_of(user: User) -> LobbyPlayer:
    """An account as the lobby knows it."""
    return LobbyPlayer(user.id, user.username)
