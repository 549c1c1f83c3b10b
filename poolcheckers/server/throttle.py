"""Per-client limits of sign-ins, over the site's shared :class:`Quotas`, and the client
address requests are limited by.

Every count lives in the database (:mod:`poolcheckers.server.quotas`), so every server
process of a site enforces one limit.  A sign-in attempt is counted three ways:

- every attempt per address (an IPv6 /64 counts as one), over ten minutes and, more
  tightly, over one minute: guessing from one address stops, and a burst from many
  addresses at once is spread out instead of filling the password-hashing queue that
  everyone's sign-in waits in;
- failures per (username, address): guessing one account from one address stops, while
  the owner, from their own address, still signs in (an attacker who could lock an
  account by failing ten times would lock its owner out);
- failures per username from anywhere, with a much higher ceiling: a guesser spread
  over many addresses stops too.

A successful sign-in clears the failures of its (username, address).

>>> from poolcheckers.server.database.engine import make_engine, run_migrations
>>> engine = make_engine("sqlite://")
>>> run_migrations(engine)
>>> limits = SignInLimits(Quotas(engine, clock=lambda: 1_000_000.0))
>>> limits.attempt("ann", "203.0.113.7").allowed
True
"""

from __future__ import annotations

import ipaddress

from starlette.requests import HTTPConnection

from poolcheckers.server.quotas import Decision, Quotas, Rate

#: Every sign-in attempt from one address (an IPv6 /64 counts as one).
ADDRESS_LIMIT = Rate("signin:address", 20, 600)
#: ... and within one minute (a person retrying a mistyped password needs a few).
ADDRESS_BURST_LIMIT = Rate("signin:address-minute", 5, 60)
#: Failed sign-ins for one username from one address.
USERNAME_ADDRESS_FAILURE_LIMIT = Rate("signin:failed", 10, 900)
#: Failed sign-ins for one username from anywhere.
USERNAME_FAILURE_LIMIT = Rate("signin:failed-user", 100, 3600)
#: Sign-ups from one address.
SIGNUP_LIMIT = Rate("signup:address", 5, 3600)

__all__ = [
    "ADDRESS_BURST_LIMIT",
    "ADDRESS_LIMIT",
    "SIGNUP_LIMIT",
    "USERNAME_ADDRESS_FAILURE_LIMIT",
    "USERNAME_FAILURE_LIMIT",
    "Decision",
    "SignInLimits",
    "address_key",
    "client_address",
]


def rate(name: str, limit: tuple[int, float]) -> Rate:
    """A :class:`Rate` from a setting's ``(count, seconds)``."""
    return Rate(name, limit[0], max(1, round(limit[1])))


class SignInLimits:
    """Sign-in attempts counted in ``quotas``.  Call :meth:`burst` before queueing for a
    password-hashing thread, :meth:`attempt` before checking the password, then
    :meth:`failed` or :meth:`succeeded`.  ``username`` is the
    normalised key.  Blocking database work: run it off the event loop."""

    def __init__(
        self,
        quotas: Quotas,
        *,
        per_address: Rate = ADDRESS_LIMIT,
        per_address_burst: Rate = ADDRESS_BURST_LIMIT,
        per_username_address: Rate = USERNAME_ADDRESS_FAILURE_LIMIT,
        per_username: Rate = USERNAME_FAILURE_LIMIT,
    ) -> None:
        self.quotas = quotas
        self.per_address = per_address
        self.per_address_burst = per_address_burst
        self.per_username_address = per_username_address
        self.per_username = per_username

    def attempt(self, username: str, address: str) -> Decision:
        """May this attempt go ahead?  An allowed attempt counts against the address."""
        where = address_key(address)
        for decision in (
            self.quotas.test(self.per_username_address, username, where),
            self.quotas.test(self.per_username, username),
        ):
            if not decision.allowed:
                return decision
        return self.quotas.hit(self.per_address, where)

    def burst(self, address: str) -> Decision:
        """May ``address`` try once more this minute?  Asked before the sign-in waits
        for a password-hashing thread, and counted even when the queue then answers
        busy: a flood told to wait spends its minute's attempts instead of keeping
        the queue full."""
        return self.quotas.hit(self.per_address_burst, address_key(address))

    def failed(self, username: str, address: str) -> None:
        """The password was wrong (or the user unknown)."""
        self.quotas.hit(self.per_username_address, username, address_key(address))
        self.quotas.hit(self.per_username, username)

    def succeeded(self, username: str, address: str) -> None:
        """The user signed in from ``address``: their failures there no longer count."""
        self.quotas.clear(self.per_username_address, username, address_key(address))


def address_key(address: str) -> str:
    """The key an address is limited by: IPv4 as is, IPv6 by its /64 network
    (one subscriber usually has a whole /64), an IPv4-mapped IPv6 as its IPv4.

    >>> address_key("2001:db8:1:2:aaaa::1"), address_key("::ffff:192.0.2.1")
    ('2001:db8:1:2::/64', '192.0.2.1')
    """
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address.strip().lower()
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def client_address(conn: HTTPConnection) -> str:
    """The address a request or WebSocket came from (the peer of the TCP connection)."""
    return conn.client.host if conn.client is not None else "unknown"
