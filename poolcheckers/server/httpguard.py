"""Connections that never finish their request headers are closed.

uvicorn's keep-alive timeout only runs between requests, and any byte received
cancels it: a client that opens a connection, or sends half a request line and then
nothing, would hold it (and its memory) forever.  These protocol classes arm a
deadline when a connection opens and after each response, and disarm it when a
request's headers are complete; at the deadline the connection is closed.  Pass
one as ``uvicorn.run(http=...)`` (:func:`guarded_protocol`).
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    HAVE_HTTPTOOLS = True
except ImportError:  # pragma: no cover - uvicorn without its [standard] extras
    HttpToolsProtocol = H11Protocol  # type: ignore[misc,assignment]
    HAVE_HTTPTOOLS = False

#: seconds a client has to send a request's headers
DEFAULT_HEADER_TIMEOUT = 10.0


class _HeaderDeadline:
    """The deadline of one connection (one per protocol instance): at it, the
    connection is closed unless it is closing already or was handed to another
    protocol (a WebSocket)."""

    def __init__(
        self,
        protocol: asyncio.Protocol,
        transport: asyncio.Transport,
        loop: asyncio.AbstractEventLoop,
        seconds: float,
    ) -> None:
        self.protocol, self.transport, self.loop, self.seconds = protocol, transport, loop, seconds
        self.handle: asyncio.TimerHandle | None = None

    def arm(self) -> None:
        self.disarm()
        self.handle = self.loop.call_later(self.seconds, self._too_slow)

    def rearm(self) -> None:
        """After a response: the next request's headers (unless the connection is closing)."""
        if not self.transport.is_closing():
            self.arm()

    def disarm(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _too_slow(self) -> None:
        if not self.transport.is_closing() and self.transport.get_protocol() is self.protocol:
            self.transport.close()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for request headers."""

    header_timeout = DEFAULT_HEADER_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline = _HeaderDeadline(self, transport, self.loop, self.header_timeout)
        self._deadline.arm()

    def handle_events(self) -> None:
        super().handle_events()
        # a request's headers have arrived, or the connection became a WebSocket
        if self.conn.their_state is not h11.IDLE or self.transport.get_protocol() is not self:
            self._deadline.disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._deadline.rearm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._deadline.disarm()
        super().connection_lost(exc)


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline for request headers."""

    header_timeout = DEFAULT_HEADER_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline = _HeaderDeadline(self, transport, self.loop, self.header_timeout)
        self._deadline.arm()

    def on_headers_complete(self) -> None:
        self._deadline.disarm()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._deadline.rearm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._deadline.disarm()
        super().connection_lost(exc)


def guarded_protocol(seconds: float) -> type[asyncio.Protocol]:
    """The guarded protocol class (httptools if installed, else h11) with a header
    deadline of ``seconds``."""
    base: type[asyncio.Protocol] = (
        GuardedHttpToolsProtocol if HAVE_HTTPTOOLS else GuardedH11Protocol
    )
    return type("HeaderTimeoutProtocol", (base,), {"header_timeout": seconds})
