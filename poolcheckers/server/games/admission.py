"""How many games one client may start, counted in the site's database
(:mod:`poolcheckers.server.quotas`) so that every server process enforces one limit.

Three limits, each answered 429 with ``Retry-After`` when met:

- games created per minute from one address (every mode: a script creating
  anonymous games by the hundred a second fills the database and the archive);
- engine games created per minute by one client, and engine games *in play* at once:
  each costs the engine's time at every reply, so one client's sixty games would
  otherwise crowd out everyone else's;
- games imported from PDN per hour from one address, counted by the games an import
  would store, not by requests (changing one tag makes a file new to the duplicate
  check, but it still counts its games).

A client is the account when signed in (one player, whatever their address), else
the address (an IPv6 /64 counts as one, :func:`~poolcheckers.server.throttle.address_key`).

An engine game in play holds a lease named after its client, keyed by the game
(``game:<id>``): given back when the game ends, renewed whenever it changes, and
lapsing by itself after :data:`ENGINE_GAME_IDLE_S` without a change, so that a game
left open in a closed tab stops counting without anyone ending it.

Every call here does database work: call it from the database executor.

>>> from poolcheckers.server.database.engine import make_engine, run_migrations
>>> from poolcheckers.server.quotas import Quotas
>>> engine = make_engine("sqlite://")
>>> run_migrations(engine)
>>> limits = CreationLimits(Quotas(engine, clock=lambda: 1_000_000.0), engine_at_once=1)
>>> ann = client_key("203.0.113.7", None)
>>> limits.admit("engine", "203.0.113.7", ann, "g1")
>>> try:
...     limits.admit("engine", "203.0.113.7", ann, "g2")
... except errors.ApiError as refused:
...     print(refused.status, refused.message[:38])
429 at most 1 engine games in play at once
>>> limits.ended("g1"); limits.admit("engine", "203.0.113.7", ann, "g2")
"""

from __future__ import annotations

from poolcheckers.server import errors
from poolcheckers.server.i18n import M_
from poolcheckers.server.quotas import Quotas, Rate
from poolcheckers.server.throttle import address_key

#: seconds without a change after which an engine game stops counting as in play
ENGINE_GAME_IDLE_S = 600.0

GAMES_PER_MINUTE = 30
ENGINE_GAMES_PER_MINUTE = 10
ENGINE_GAMES_AT_ONCE = 3
IMPORTED_GAMES_PER_HOUR = 1000


def client_key(address: str, user_id: str | None) -> str:
    """Whom a limit counts: the account when signed in, else the address's key.

    >>> client_key("2001:db8::1", None), client_key("2001:db8::1", "u1")
    ('address:2001:db8::/64', 'user:u1')
    """
    return f"user:{user_id}" if user_id is not None else f"address:{address_key(address)}"


def lease_of(game_id: str) -> str:
    """The lease an engine game in play holds (one per game)."""
    return "game:" + game_id


class CreationLimits:
    """The limits on starting and importing games, over ``quotas``."""

    def __init__(
        self,
        quotas: Quotas,
        *,
        games_per_minute: int = GAMES_PER_MINUTE,
        engine_per_minute: int = ENGINE_GAMES_PER_MINUTE,
        engine_at_once: int = ENGINE_GAMES_AT_ONCE,
        imported_per_hour: int = IMPORTED_GAMES_PER_HOUR,
    ) -> None:
        self.quotas = quotas
        self.games = Rate("games:address", games_per_minute, 60)
        self.engine_games = Rate("games:engine", engine_per_minute, 60)
        self.engine_at_once = engine_at_once
        self.imported = Rate("games:imported", imported_per_hour, 3600)

    def admit(self, mode: str, address: str, client: str, game_id: str) -> None:
        """Let ``client`` (at ``address``) create game ``game_id`` of ``mode``, or raise
        ``rate_limited``.  An admitted engine game holds its lease from now: give it
        back with :meth:`ended` if the game is not stored after all."""
        if mode == "engine":
            # the lease first: a refusal for too many games in play costs no creation
            self._take_engine_lease(client, game_id)
            decision = self.quotas.hit(self.engine_games, client)
            if not decision.allowed:
                self.ended(game_id)
                raise errors.limit_reached(
                    M_(
                        "at most {limit} engine games a minute from one player",
                        limit=self.engine_games.limit,
                    ),
                    decision.retry_after,
                )
        decision = self.quotas.hit(self.games, address_key(address))
        if not decision.allowed:
            if mode == "engine":
                self.ended(game_id)
            raise errors.limit_reached(
                M_("at most {limit} new games a minute from one address", limit=self.games.limit),
                decision.retry_after,
            )

    def _take_engine_lease(self, client: str, game_id: str) -> None:
        taken = self.quotas.slots.take(
            "engine-games:" + client,
            self.engine_at_once,
            ENGINE_GAME_IDLE_S,
            lease=lease_of(game_id),
        )
        if taken is None:
            raise errors.rate_limited(
                M_(
                    "at most {engine_at_once} engine games in play at once: finish or resign one first (a game untouched for {value} minutes stops counting)",  # noqa: E501
                    engine_at_once=self.engine_at_once,
                    value=format(ENGINE_GAME_IDLE_S / 60, "g"),
                ),
                ENGINE_GAME_IDLE_S,
            )

    def changed(self, game_id: str) -> None:
        """An engine game in play changed: it counts for another idle period."""
        self.quotas.slots.extend(lease_of(game_id), ENGINE_GAME_IDLE_S)

    def ended(self, game_id: str) -> None:
        """An engine game ended (or was never stored): it no longer counts."""
        self.quotas.slots.give_back(lease_of(game_id))

    def admit_import(self, address: str, games: int) -> None:
        """Let ``address`` store ``games`` more imported games, or raise ``rate_limited``
        (nothing is counted then)."""
        if games <= 0:
            return
        if games > self.imported.limit:
            raise errors.ApiError(
                413,
                "too_large",
                M_(
                    "{games} games in one import; at most {limit} an hour are stored from one address: split the file",  # noqa: E501
                    games=games,
                    limit=self.imported.limit,
                ),
            )
        decision = self.quotas.hit(self.imported, address_key(address), cost=games)
        if not decision.allowed:
            raise errors.limit_reached(
                M_(
                    "at most {limit} imported games an hour from one address (this import has {games})",  # noqa: E501
                    limit=self.imported.limit,
                    games=games,
                ),
                decision.retry_after,
            )
