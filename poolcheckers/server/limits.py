"""Abuse limits per client address.

The windows themselves are :class:`poolcheckers.community.ratelimit.SlidingWindow`
(PDN imports: ``imports_per_minute`` per address, in the server's context);
this module names the address a request is limited by, and how many
addresses such a window remembers.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection

#: Addresses a per-address window remembers at most (the least recently seen
#: are forgotten first).
MAX_ADDRESSES = 10_000


def client_address(conn: HTTPConnection) -> str:
    """The address a request or WebSocket came from (the peer of the TCP connection)."""
    return conn.client.host if conn.client is not None else "unknown"
