"""Accounts as the server uses them: sign-up, sign-in and sessions over the
database repositories, who a request is, and the password-hash slots.

Argon2id hashes are slow and big on purpose (64 MiB, ~80 ms): they run in worker
threads, at most ``Settings.hash_concurrency`` at once, so a flood of sign-ins
queues instead of taking the cores from the games; and at most ``Settings.hash_queue``
wait for a thread: past that a sign-in is answered 503 ``busy`` with ``Retry-After``
at once, as making everyone wait longer would only make every sign-in slow.
Sign-in and sign-up counts live in the site's :class:`Quotas` (one limit for every
server process).  Session look-ups are database
work: they run on the database executor.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from typing import Final, ParamSpec, TypeVar

import anyio.to_thread
from argon2.profiles import RFC_9106_LOW_MEMORY
from sqlalchemy import Engine
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocket, WebSocketState

from poolcheckers.server.accounts.model import Accounts, Passwords, User, pdn_title
from poolcheckers.server.accounts.repository import DbSessionStore, DbTokenStore, DbUserStore
from poolcheckers.server.accounts.sessions import COOKIE_NAME, Sessions, token_digest
from poolcheckers.server.accounts.tokens import REVOKED_TOPIC, ApiToken, Tokens
from poolcheckers.server.database.executor import DbExecutor
from poolcheckers.server.errors import ApiError, busy
from poolcheckers.server.i18n import M_
from poolcheckers.server.quotas import Quotas
from poolcheckers.server.realtime.topics import TopicFeed
from poolcheckers.server.settings import Settings
from poolcheckers.server.throttle import SIGNUP_LIMIT, SignInLimits, rate

#: the close code of a socket whose session ended (sign-out, password change)
SESSION_ENDED: Final = 4401
#: every session of an account ended (a topic of :class:`TopicFeed`, every process)
SESSIONS_TOPIC: Final = "sessions:"
#: how often a token's stream reads whether the token still lives (seconds)
TOKEN_RECHECK_S: Final = 5.0

P = ParamSpec("P")
R = TypeVar("R")


class AccountService:
    """Accounts, sessions and their limits, shared by the routes (``ctx.accounts``)."""

    def __init__(
        self,
        settings: Settings,
        db: Engine,
        executor: DbExecutor,
        quotas: Quotas | None = None,
        notices: TopicFeed | None = None,
    ) -> None:
        self.settings = settings
        self.executor = executor
        self.users = DbUserStore(db)
        time = settings.clock
        if quotas is None:
            quotas = Quotas(db, clock=lambda: time.now_ms() / 1000)
        session_store = DbSessionStore(db)
        token_store = DbTokenStore(db)
        self.accounts = Accounts(
            self.users,
            sessions=Sessions(session_store),
            session_users=session_store,
            passwords=Passwords(settings.password_parameters or RFC_9106_LOW_MEMORY),
            limiter=SignInLimits(
                quotas,
                per_address=rate("signin:address", settings.signin_limit),
                per_address_burst=rate("signin:address-minute", settings.signin_burst_limit),
                per_username_address=rate("signin:failed", settings.signin_failure_limit),
                per_username=rate("signin:failed-user", settings.signin_user_failure_limit),
            ),
            signup_limit=(quotas, rate(SIGNUP_LIMIT.name, settings.signup_limit)),
            clock=lambda: time.now_ms() / 1000,
            tokens=token_store,
        )
        self.tokens = Tokens(token_store)
        #: tells every server process of revoked tokens and ended sessions
        self.notices = notices
        self._hash_slots: asyncio.Semaphore | None = None
        #: hashes running or waiting for a thread in this process
        self._hashing = 0
        self._names: dict[str, str] = {}
        self._titles: dict[str, str | None] = {}
        #: this process's sockets opened by a session: account id -> session digest ->
        #: the functions that close them (called when the session ends)
        self._sockets: dict[str, dict[str, set[Callable[[], Awaitable[None]]]]] = {}
        #: sockets of sessions ended in another process, being closed here
        self._closing: set[asyncio.Task[None]] = set()
        #: a token's stream reads whether the token still lives this often, besides
        #: hearing of its revocation at once (seconds)
        self.token_recheck_s = TOKEN_RECHECK_S

    def reserve_paths(self, paths: Iterable[str]) -> None:
        """Reserve as usernames the first segments of the site's paths (``/lobby``,
        ``/players/{name}``, ``/openapi.json``...)."""
        firsts = {path.strip("/").split("/", 1)[0].lower() for path in paths}
        self.accounts.reserved = frozenset(f for f in firsts if f and "{" not in f)

    async def sign_in_burst(self, address: str) -> None:
        """``rate_limited`` when ``address`` has had its sign-in attempts of this minute
        (asked before :meth:`hashing`, so that a refusal there counts too)."""
        await self.executor.run(self.accounts.admit_sign_in, address)

    async def hashing(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run ``fn`` (which hashes or verifies a password) in a worker thread, with at
        most ``hash_concurrency`` of them at once.  CPU work, not database work: it
        has its own slots so that it never queues the database executor.  When
        ``hash_queue`` wait already: 503 ``busy`` at once."""
        s = self.settings
        if self._hash_slots is None:
            self._hash_slots = asyncio.Semaphore(s.hash_concurrency)
        if self._hashing >= s.hash_concurrency + s.hash_queue:
            raise busy(M_("the server is busy checking passwords: try again in a moment"), 1)
        self._hashing += 1
        try:
            async with self._hash_slots:
                return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))
        finally:
            self._hashing -= 1

    async def user_of(self, conn: HTTPConnection) -> User | None:
        """The account signed in by the request's session cookie, or None."""
        token = conn.cookies.get(COOKIE_NAME)
        if not token:
            return None
        return await self.executor.run(self.accounts.authenticate, token)

    async def require_user(self, conn: HTTPConnection) -> tuple[User, str]:
        """The signed-in account and its session token; 401 ``unauthorized`` if none."""
        token = conn.cookies.get(COOKIE_NAME)
        user = await self.user_of(conn)
        if user is None or token is None:
            raise unauthorized()
        return user, token

    def signed_in(self, token: str | None) -> User:
        """The account a session cookie's ``token`` signs in; 401 ``unauthorized`` if
        none.  :meth:`require_user` run in the caller's database work (blocks), so
        that a route's work reads who asks on the connection of its other reads."""
        user = self.accounts.authenticate(token) if token else None
        if user is None:
            raise unauthorized()
        return user

    async def bearer(self, conn: HTTPConnection, scope: str | None) -> tuple[User, ApiToken]:
        """The account of the request's ``Authorization: Bearer`` API token, which must
        hold ``scope`` (None: any); 401 ``unauthorized`` without a live token, 403
        ``forbidden`` without the scope."""
        header = conn.headers.get("authorization", "")
        kind, _, token = header.partition(" ")
        if kind.lower() != "bearer" or not token.strip():
            raise ApiError(
                401, "unauthorized", M_("send a personal API token: Authorization: Bearer pct_…")
            )
        now = self.settings.clock.now_ms() / 1000
        found = await self.executor.run(self.tokens.check, token.strip(), now)
        user = None if found is None else await self.executor.run(self.users.by_id, found.user_id)
        if found is None or user is None:
            raise ApiError(401, "unauthorized", M_("this API token is unknown or was revoked"))
        if scope is not None and scope not in found.scopes:
            raise ApiError(
                403,
                "forbidden",
                M_("this API token lacks the scope {scope}: make one with it", scope=scope),
            )
        return user, found

    def username(self, user_id: str) -> str | None:
        """An account's username (names never change: kept once read)."""
        name = self._names.get(user_id)
        if name is None:
            user = self.users.by_id(user_id)
            if user is None:
                return None
            name = self._names[user_id] = user.username
            self._titles[user_id] = pdn_title(user.bot)
        return name

    def title(self, user_id: str) -> str | None:
        """An account's title in PDN (``BlackTitle``/``WhiteTitle``, as lichess
        writes it): ``BOT`` for a bot account.  Kept with the name: an account
        becomes a bot only before its first game, so before it is ever named."""
        if user_id not in self._titles and self.username(user_id) is None:
            return None
        return self._titles.get(user_id)

    def watch(
        self, conn: HTTPConnection, user_id: str, close: Callable[[], Awaitable[None]]
    ) -> Callable[[], None]:
        """Remember that the socket ``conn``, opened by its session cookie as
        ``user_id``, must close when that session ends; returns the function that
        forgets it (call it when the socket closes).

        Only this process's sockets are closed at once: a socket of another process
        finds the session gone at its next action (:meth:`still_signed_in`)."""
        digest = token_digest(conn.cookies.get(COOKIE_NAME) or "")
        closers = self._sockets.setdefault(user_id, {}).setdefault(digest, set())
        closers.add(close)

        def forget() -> None:
            closers.discard(close)
            sessions = self._sockets.get(user_id, {})
            if not closers and sessions.get(digest) is closers:
                del sessions[digest]
            if not sessions:
                self._sockets.pop(user_id, None)

        return forget

    async def still_signed_in(self, conn: HTTPConnection, user_id: str) -> bool:
        """Whether the session that opened ``conn`` still signs in ``user_id`` (a
        socket asks before each action: the session may have ended since)."""
        user = await self.user_of(conn)
        return user is not None and user.id == user_id

    async def ended(self, user_id: str, token: str | None = None) -> None:
        """A session of ``user_id`` ended (``token``'s; None: all of them): close
        this process's sockets it opened."""
        sessions = self._sockets.get(user_id, {})
        digests = list(sessions) if token is None else [token_digest(token)]
        for digest in digests:
            for close in list(sessions.get(digest, ())):
                with contextlib.suppress(Exception):
                    await close()

    def _publish(self, topic: str) -> None:
        """Tell every server process (this one too) of ``topic`` (blocks: call it on
        the database executor, after the change committed)."""
        if self.notices is not None:
            self.notices.publish(topic)

    async def revoke_token(self, user_id: str, token_id: str) -> bool:
        """Revoke the account's token ``token_id`` (False: it has none): the streams
        the token opened end, in every server process (:meth:`token_revoked`)."""

        def revoke() -> bool:
            gone = self.tokens.store.revoke(user_id, token_id)
            if gone:
                self._publish(REVOKED_TOPIC + user_id)
            return gone

        return await self.executor.run(revoke)

    async def ended_everywhere(self, user_id: str) -> None:
        """Every session of ``user_id`` ended and every token of it was revoked
        (:meth:`Accounts.end_everywhere`): this process closes the account's sockets
        at once, and every process the streams of its tokens and the sockets of its
        ended sessions."""
        await self.ended(user_id)

        def publish() -> None:
            self._publish(REVOKED_TOPIC + user_id)
            self._publish(SESSIONS_TOPIC + user_id)

        await self.executor.run(publish)

    async def token_revoked(self, token: ApiToken) -> None:
        """Return once ``token`` is revoked: at the notice of a revocation among its
        account's tokens (sent by any server process), or, when that notice was lost
        with a LISTEN connection, at the next of the reads every
        :attr:`token_recheck_s`."""
        topic = REVOKED_TOPIC + token.user_id
        queue = None if self.notices is None else self.notices.subscribe(topic)
        try:
            # subscribed first, then read: a revocation between the two is not missed
            while await self.executor.run(self.tokens.store.by_digest, token.digest) is not None:
                if queue is None:
                    await asyncio.sleep(self.token_recheck_s)
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(queue.get(), self.token_recheck_s)
        finally:
            if queue is not None and self.notices is not None:
                self.notices.unsubscribe(topic, queue)

    def remote_notice(self, topic: str) -> None:
        """A notice of another process (loop thread): the sockets of its ended
        sessions close here too."""
        if topic.startswith(SESSIONS_TOPIC):
            task = asyncio.get_running_loop().create_task(
                self._close_ended(topic.removeprefix(SESSIONS_TOPIC))
            )
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def catch_up(self) -> None:
        """The other processes' notices may have been lost (the real-time bus
        reconnected): close this process's sockets whose session ended meanwhile."""
        for user_id in list(self._sockets):
            await self._close_ended(user_id)

    async def _close_ended(self, user_id: str) -> None:
        """Close this process's sockets of ``user_id`` whose session is gone."""
        store = self.accounts.sessions.store
        for digest, closers in list(self._sockets.get(user_id, {}).items()):
            if await self.executor.run(store.get, digest) is None:
                for close in list(closers):
                    with contextlib.suppress(Exception):
                        await close()

    def bind(self, ws: WebSocket, user_id: str | None) -> Callable[[], None]:
        """Close ``ws`` (code :data:`SESSION_ENDED`) when the session that signed it in
        as ``user_id`` ends; returns the function to call when the socket closes."""
        if user_id is None:
            return lambda: None

        return self.watch(ws, user_id, lambda: close_ended(ws))


def unauthorized() -> ApiError:
    """The answer to a request that needs a session and has none."""
    return ApiError(401, "unauthorized", M_("sign in first (no valid session cookie)"))


async def close_ended(ws: WebSocket) -> None:
    """Close ``ws`` as a socket whose session ended (unless it is closed already)."""
    if ws.application_state == WebSocketState.CONNECTED:
        await ws.close(code=SESSION_ENDED)
