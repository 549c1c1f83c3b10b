"""The limits of :mod:`.connections` and :mod:`.headers` with their defaults
(``Settings`` fields and ``poolcheckers serve`` options); 0 switches one off."""

from __future__ import annotations

from dataclasses import dataclass

#: seconds a client has to send a request's headers
DEFAULT_HEADER_TIMEOUT = 10.0
#: seconds a client has to send a request's body once its headers are in (a 1 MiB
#: PDN import over a slow mobile link takes some seconds)
DEFAULT_BODY_TIMEOUT = 30.0
#: bytes of one request's headers, request line included (browsers send a few KiB)
DEFAULT_MAX_HEADER_BYTES = 32 * 1024
#: connections open at once from one client address, HTTP and WebSocket together
#: (a browser opens up to 6 per site plus its sockets; a school or an office behind
#: one address has many browsers)
DEFAULT_CONNECTIONS_PER_ADDRESS = 128
#: descriptors kept free below the descriptor limit for everything but connections
#: (database files, the engine's tables, logs, the listening socket)
DEFAULT_DESCRIPTOR_RESERVE = 128
#: host names a local install answers to (with the address it listens on, and any
#: IP address: a page of another site reaches it only under its own name)
DEFAULT_ALLOWED_HOSTS = ("localhost", "127.0.0.1", "[::1]")


@dataclass(frozen=True)
class ConnectionLimits:
    """Deadlines and limits of connections (``poolcheckers serve`` options)."""

    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES
    per_address: int = DEFAULT_CONNECTIONS_PER_ADDRESS
    descriptor_reserve: int = DEFAULT_DESCRIPTOR_RESERVE
