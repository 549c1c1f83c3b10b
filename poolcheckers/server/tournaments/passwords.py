"""A club event's password, kept as an account's is: a salted Argon2id hash
(:class:`~poolcheckers.server.accounts.model.Passwords`), made and checked in the
password-hashing threads (``AccountService.hashing``: CPU work, never on the event
loop nor in the database executor).  Events made before kept an unsalted SHA-256
of the password: it still lets the right password in, and is then replaced by an
Argon2id hash (compare-and-set: once, whichever process sees it first)."""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable, Callable
from typing import Any

from poolcheckers.server.accounts.model import Passwords
from poolcheckers.server.games.seats import hash_token
from poolcheckers.server.i18n import M_
from poolcheckers.server.tournaments.model import TournamentError, TournamentForbidden
from poolcheckers.server.tournaments.repository import DbTournamentStore

#: an event's password as events made before Argon2id kept it (SHA-256, hex)
_LEGACY = re.compile(r"^[0-9a-f]{64}$")
MIN_PASSWORD, MAX_PASSWORD = 4, 64


class EventPasswords:
    """Hash a new event's password; let a player in with the right one."""

    def __init__(
        self,
        passwords: Passwords,
        hashing: Callable[..., Awaitable[Any]],
        run_db: Callable[..., Awaitable[Any]],
        store: DbTournamentStore,
    ) -> None:
        self.passwords = passwords
        self.hashing = hashing
        self.run_db = run_db
        self.store = store

    async def digest(self, password: object) -> str | None:
        """The hash to store for a new event's ``password`` (None: no password)."""
        if password is None:
            return None
        if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise TournamentError(M_("password must be 4 to 64 characters or null"))
        stored: str = await self.hashing(self.passwords.hash, password)
        return stored

    async def admit(self, tid: str, password: str | None) -> None:
        """Nothing when the event ``tid`` has no password or ``password`` is it;
        ``forbidden`` otherwise."""
        stored: str | None = await self.run_db(self.store.password_hash, tid)
        if stored is None:
            return
        given = password or ""
        if _LEGACY.match(stored):
            if not hmac.compare_digest(stored, hash_token(given)):
                raise TournamentForbidden(M_("this club event needs its password to join"))
            fresh: str = await self.hashing(self.passwords.hash, given)
            await self.run_db(self.store.replace_password_hash, tid, stored, fresh)
            return
        if not await self.hashing(self.passwords.verify, stored, given):
            raise TournamentForbidden(M_("this club event needs its password to join"))
