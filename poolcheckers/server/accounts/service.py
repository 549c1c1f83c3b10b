"""Accounts as the server uses them: sign-up, sign-in and sessions over the
database repositories, who a request is, and the password-hash slots.

Argon2id hashes are slow and big on purpose (64 MiB, ~80 ms): they run in worker
threads, at most ``Settings.hash_concurrency`` at once, so a flood of sign-ins
queues instead of taking the cores from the games.  Session look-ups are database
work: they run on the database executor.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import anyio.to_thread
from argon2.profiles import RFC_9106_LOW_MEMORY
from sqlalchemy import Engine
from starlette.requests import HTTPConnection

from poolcheckers.server.accounts.model import Accounts, Passwords, User
from poolcheckers.server.accounts.repository import DbSessionStore, DbUserStore
from poolcheckers.server.accounts.sessions import COOKIE_NAME, Sessions
from poolcheckers.server.database.executor import DbExecutor
from poolcheckers.server.errors import ApiError
from poolcheckers.server.settings import Settings
from poolcheckers.server.throttle import SignInLimiter, SlidingWindow

P = ParamSpec("P")
R = TypeVar("R")


class AccountService:
    """Accounts, sessions and their limits, shared by the routes (``ctx.accounts``)."""

    def __init__(self, settings: Settings, db: Engine, executor: DbExecutor) -> None:
        self.settings = settings
        self.executor = executor
        self.users = DbUserStore(db)
        time = settings.clock
        self.accounts = Accounts(
            self.users,
            sessions=Sessions(DbSessionStore(db)),
            passwords=Passwords(settings.password_parameters or RFC_9106_LOW_MEMORY),
            limiter=SignInLimiter(
                address_limit=settings.signin_limit,
                username_failure_limit=settings.signin_failure_limit,
            ),
            signup_limit=SlidingWindow(*settings.signup_limit),
            clock=lambda: time.now_ms() / 1000,
        )
        self._hash_slots: asyncio.Semaphore | None = None
        self._names: dict[str, str] = {}

    async def hashing(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run ``fn`` (which hashes or verifies a password) in a worker thread, with at
        most ``hash_concurrency`` of them at once.  CPU work, not database work: it
        has its own slots so that it never queues the database executor."""
        if self._hash_slots is None:
            self._hash_slots = asyncio.Semaphore(self.settings.hash_concurrency)
        async with self._hash_slots:
            return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))

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
            raise ApiError(401, "unauthorized", "sign in first (no valid session cookie)")
        return user, token

    def username(self, user_id: str) -> str | None:
        """An account's username (names never change: kept once read)."""
        name = self._names.get(user_id)
        if name is None:
            user = self.users.by_id(user_id)
            if user is None:
                return None
            name = self._names[user_id] = user.username
        return name
