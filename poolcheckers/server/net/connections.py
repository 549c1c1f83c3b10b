"""Connection-level guards: deadlines for request headers and bodies, a size for
request headers, and a number of open connections per client address and in all.

uvicorn's keep-alive timeout only runs between requests, and any byte received
cancels it: a client that opens a connection, sends half a request line, or a
request whose body never ends, would hold that connection (a descriptor and its
memory) forever, and thousands of them exhaust the process's descriptors, after
which nobody is answered.  The protocol classes here (one per server, made by
:func:`guarded_protocols`, passed as ``uvicorn.run(http=..., ws=...)``):

- close a connection that has not sent a request's complete headers within
  ``header_timeout`` seconds of opening or of its previous answer;
- answer 408 and close when a request's body is not complete ``body_timeout``
  seconds after its headers;
- answer 431 and close when a request's headers grow beyond ``max_header_bytes``
  (counted while they arrive, not after);
- answer 429 and close a new connection when its address (an IPv6 /64 counts as
  one) already holds ``per_address`` connections, HTTP and WebSocket together
  (trusted proxies are not counted: their clients are behind them);
- answer 503 and close a new connection when the server holds as many as the
  descriptor limit (``RLIMIT_NOFILE``) minus ``descriptor_reserve``: the reserve
  keeps the database, the engine and the logs working, and the listening socket
  accepting, so the site answers instead of failing silently.

A limit of 0 switches its guard off.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import resource
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from poolcheckers.server.net.limits import ConnectionLimits
from poolcheckers.server.throttle import address_key

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    HAVE_HTTPTOOLS = True
except ImportError:  # pragma: no cover - uvicorn without its [standard] extras
    HttpToolsProtocol = H11Protocol  # type: ignore[misc,assignment]
    HAVE_HTTPTOOLS = False

log = logging.getLogger("poolcheckers.server")

#: seconds between two log lines about refused connections
REFUSAL_LOG_INTERVAL = 60.0


def raw_error(status: int, reason: str, code: str, message: str, retry: int = 0) -> bytes:
    """A complete HTTP/1.1 error answer (the API's error shape) that closes the
    connection, for the moments no ASGI cycle can answer.

    >>> raw_error(429, "Too Many Requests", "rate_limited", "wait", 10).split(b"\\r\\n")[:2]
    [b'HTTP/1.1 429 Too Many Requests', b'content-type: application/json']
    """
    body = json.dumps({"error": {"code": code, "message": message}}, separators=(",", ":"))
    head = [
        f"HTTP/1.1 {status} {reason}",
        "content-type: application/json",
        f"content-length: {len(body)}",
        "connection: close",
        *([f"retry-after: {retry}"] if retry else []),
    ]
    return ("\r\n".join(head) + "\r\n\r\n" + body).encode()


TOO_MANY_FROM_ADDRESS = raw_error(
    429, "Too Many Requests", "rate_limited", "too many open connections from this address", 10
)
SERVER_FULL = raw_error(
    503, "Service Unavailable", "overloaded", "the server holds all the connections it can", 10
)
HEADERS_TOO_LARGE = raw_error(
    431, "Request Header Fields Too Large", "too_large", "the request headers are too large"
)


def connection_ceiling(reserve: int) -> int:
    """Connections the server may hold: the descriptor limit minus ``reserve`` (at
    least half the limit); 0 (no ceiling) when ``reserve`` is 0 or there is no limit."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if reserve <= 0 or soft == resource.RLIM_INFINITY:
        return 0
    return max(soft - reserve, soft // 2)


def proxy_matcher(trusted: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether an address is one of ``trusted`` (addresses, networks, or ``*``)."""
    if "*" in trusted:
        return lambda _address: True
    networks = [ipaddress.ip_network(t.strip(), strict=False) for t in trusted if t.strip()]

    def matches(address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in networks)

    return matches


class ConnectionBook:
    """The open connections of one server, per address key and in all."""

    def __init__(
        self, per_address: int, ceiling: int, trusted: Callable[[str], bool] = lambda _a: False
    ) -> None:
        self.per_address, self.ceiling, self.trusted = per_address, ceiling, trusted
        self.by_address: Counter[str] = Counter()
        self.open: dict[int, str] = {}
        self.last_log = -REFUSAL_LOG_INTERVAL

    def admit(self, transport: asyncio.BaseTransport) -> bytes | None:
        """Count a new connection, or the answer that refuses it."""
        peer: Any = transport.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
        key = "" if self.trusted(host) else address_key(host)
        if self.ceiling and len(self.open) >= self.ceiling:
            self._note(f"{len(self.open)} connections open, the most this server takes")
            return SERVER_FULL
        if key and self.per_address and self.by_address[key] >= self.per_address:
            self._note(f"{self.by_address[key]} connections open from {key}")
            return TOO_MANY_FROM_ADDRESS
        self.open[id(transport)] = key
        if key:
            self.by_address[key] += 1
        return None

    def release(self, transport: asyncio.BaseTransport) -> None:
        key = self.open.pop(id(transport), None)
        if key:
            self.by_address[key] -= 1
            if self.by_address[key] <= 0:
                del self.by_address[key]

    def _note(self, what: str) -> None:
        # one line a minute at most: a flood must not flood the log as well
        now = time.monotonic()
        if now - self.last_log >= REFUSAL_LOG_INTERVAL:
            self.last_log = now
            log.warning("refusing new connections: %s", what)


class _Deadline:
    """A timer of one connection that calls ``expire`` unless disarmed first."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, seconds: float, expire: Callable[[], None]
    ) -> None:
        self.loop, self.seconds, self.expire = loop, seconds, expire
        self.handle: asyncio.TimerHandle | None = None

    def arm(self) -> None:
        self.disarm()
        if self.seconds > 0:
            self.handle = self.loop.call_later(self.seconds, self._fire)

    def disarm(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _fire(self) -> None:
        self.handle = None
        self.expire()


class _Guard:
    """The guards of one HTTP connection (one per protocol instance).  Nothing is
    done once the connection closes or becomes a WebSocket (another protocol)."""

    def __init__(self, protocol: object, limits: ConnectionLimits) -> None:
        self.protocol = protocol
        self.limits = limits
        self.transport: asyncio.Transport | None = None
        loop = asyncio.get_running_loop()
        self.headers = _Deadline(loop, limits.header_timeout, self._headers_too_slow)
        self.body = _Deadline(loop, limits.body_timeout, self._body_too_slow)
        #: bytes received since the current request's headers began, the size of
        #: the headers parsed so far, the requests whose headers are in, and the
        #: requests whose bodies are in
        self.head_bytes = 0
        self.head_size = 0
        self.heads = 0
        self.messages = 0
        self.awaiting_head = True

    def live(self) -> bool:
        t = self.transport
        return t is not None and not t.is_closing() and t.get_protocol() is self.protocol

    def refuse(self, answer: bytes) -> None:
        """Answer and close, whatever the request's state; its cycle sees a disconnect."""
        if not self.live():
            return
        assert self.transport is not None
        cycle = getattr(self.protocol, "cycle", None)
        # answer unless another answer is on its way (a pipelined request's)
        if self.awaiting_head:
            quiet = cycle is None or cycle.response_complete
        else:
            quiet = cycle is not None and not cycle.response_started
        if quiet:
            self.transport.write(answer)
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True
            cycle.message_event.set()
        self.stop()
        self.transport.close()

    def _headers_too_slow(self) -> None:
        if self.live():
            assert self.transport is not None
            self.transport.close()

    def _body_too_slow(self) -> None:
        seconds = f"{self.limits.body_timeout:g}"
        message = f"the request body did not arrive within {seconds} s"
        self.refuse(raw_error(408, "Request Timeout", "bad_request", message))

    def received(self, size: int, heads_before: int, messages_before: int) -> None:
        """After the parser took ``size`` bytes in which no request's headers ended:
        refuse unfinished headers beyond the limit (before they are all in memory).
        A read in which a request's body ended is not counted: most of it was body
        (a large upload ends in a large read), and what follows the body in it is at
        most one read of the next request's headers, counted from the next read on."""
        if self.heads != heads_before or self.messages != messages_before:
            return
        if not self.awaiting_head:
            return
        self.head_bytes += size
        if self.limits.max_header_bytes and self.head_bytes > self.limits.max_header_bytes:
            self.refuse(HEADERS_TOO_LARGE)

    def head_too_large(self) -> bool:
        """Whether the finished headers (request line, names and values) are too large."""
        return 0 < self.limits.max_header_bytes < self.head_size

    def head_complete(self) -> None:
        self.headers.disarm()
        self.awaiting_head = False
        self.head_bytes = 0
        self.heads += 1
        self.body.arm()

    def message_complete(self) -> None:
        self.body.disarm()
        self.awaiting_head = True
        self.messages += 1

    def response_complete(self) -> None:
        """The next request's headers have their deadline (unless the connection closes)."""
        if self.live():
            self.headers.arm()

    def stop(self) -> None:
        self.headers.disarm()
        self.body.disarm()


class _GuardedProtocol:
    """What both guarded HTTP protocols share: the book and the limits (class
    attributes set by :func:`guarded_protocols`), admission and release."""

    limits = ConnectionLimits()
    book = ConnectionBook(0, 0)
    _guard: _Guard

    def _open(self, transport: asyncio.Transport) -> bool:
        """After uvicorn's ``connection_made``: count the connection or refuse it."""
        self._guard = _Guard(self, self.limits)
        self._guard.transport = transport
        refusal = self.book.admit(transport)
        if refusal is not None:
            transport.write(refusal)
            transport.close()
            return False
        self._guard.headers.arm()
        return True

    def _lost(self, transport: asyncio.BaseTransport) -> None:
        self._guard.stop()
        self.book.release(transport)


async def headers_too_large(_scope: Any, _receive: Any, send: Any) -> None:
    """The ASGI answer to a request whose headers are over the limit."""
    head, _, body = HEADERS_TOO_LARGE.partition(b"\r\n\r\n")
    headers = [tuple(line.split(b": ", 1)) for line in head.split(b"\r\n")[1:]]
    await send({"type": "http.response.start", "status": 431, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class GuardedH11Protocol(_GuardedProtocol, H11Protocol):
    """uvicorn's h11 protocol with the guards, where httptools is not installed
    (uvicorn's standard extras bring it).  The header size is h11's own
    ``h11_max_incomplete_event_size``: it bounds headers while they arrive, not
    headers that arrive whole in one read (at most the 256 KiB of one read)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._open(transport)

    def data_received(self, data: bytes) -> None:
        if self._guard.live():
            super().data_received(data)

    def handle_events(self) -> None:
        super().handle_events()
        state = self.conn.their_state
        if self.transport.get_protocol() is not self:  # became a WebSocket
            self._guard.stop()
        elif state is h11.SEND_BODY:
            if self._guard.awaiting_head:
                self._guard.head_complete()
        elif state is not h11.IDLE:  # the whole request is in
            self._guard.headers.disarm()
            self._guard.message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._guard.response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost(self.transport)
        super().connection_lost(exc)


class GuardedHttpToolsProtocol(_GuardedProtocol, HttpToolsProtocol):
    """uvicorn's httptools protocol with the guards."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._open(transport)

    def data_received(self, data: bytes) -> None:
        if not self._guard.live():
            return
        heads, messages = self._guard.heads, self._guard.messages
        super().data_received(data)
        self._guard.received(len(data), heads, messages)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._guard.head_size = 0

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        self._guard.head_size += len(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        super().on_header(name, value)
        self._guard.head_size += len(name) + len(value) + 4

    def on_headers_complete(self) -> None:
        self._guard.head_complete()
        if not self._guard.head_too_large():
            super().on_headers_complete()
            return
        app, self.app = self.app, headers_too_large
        try:
            super().on_headers_complete()
        finally:
            self.app = app

    def on_message_complete(self) -> None:
        self._guard.message_complete()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        if self._guard.head_too_large():
            self._guard.refuse(HEADERS_TOO_LARGE)
            return
        self._guard.stop()
        super().handle_websocket_upgrade()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._guard.response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost(self.transport)
        super().connection_lost(exc)


def _websocket_base() -> type[asyncio.Protocol] | None:
    from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

    return AutoWebSocketsProtocol  # type: ignore[return-value]


def guarded_protocols(
    limits: ConnectionLimits, trusted_proxies: tuple[str, ...] = ()
) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol] | None]:
    """The HTTP protocol class (httptools if installed, else h11) and the WebSocket
    one of a server with ``limits``, sharing one :class:`ConnectionBook`."""
    book = ConnectionBook(
        limits.per_address,
        connection_ceiling(limits.descriptor_reserve),
        proxy_matcher(trusted_proxies),
    )
    base: type[asyncio.Protocol] = (
        GuardedHttpToolsProtocol if HAVE_HTTPTOOLS else GuardedH11Protocol
    )
    http = type("GuardedProtocol", (base,), {"limits": limits, "book": book})
    ws_base = _websocket_base()
    if ws_base is None:  # pragma: no cover - no WebSocket library
        return http, None

    def connection_lost(self: Any, exc: Exception | None) -> None:
        # the connection was counted by the HTTP protocol it was upgraded from
        book.release(self.transport)
        ws_base.connection_lost(self, exc)

    ws = type("GuardedWebSocketProtocol", (ws_base,), {"connection_lost": connection_lost})
    return http, ws
