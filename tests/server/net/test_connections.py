"""What one client, or a few addresses, can hold of a real server: request bodies
have a deadline, each address a number of open connections (HTTP and WebSocket
together), the whole server a margin below its descriptor limit, and request
headers a size."""

from __future__ import annotations

import socket
import time
from contextlib import ExitStack, suppress

from websockets.sync.client import connect as ws_connect

from .conftest import LiveServer, ServerFactory, read_answer

STALLED_POST = (
    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 100\r\n\r\n{"
)
HEALTH = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def status_of(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), answer[:200]
    return int(answer[9:12])


def one_answer(s: socket.socket) -> bytes:
    """One whole answer (headers and a Content-Length body) on a kept-alive connection."""

    def more() -> bytes:
        chunk = s.recv(65536)
        assert chunk, "the server closed the connection without a whole answer"
        return chunk

    data = b""
    while b"\r\n\r\n" not in data:
        data += more()
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length: ", 1)[1].split(b"\r\n", 1)[0])
    while len(body) < length:
        body += more()
    return head + b"\r\n\r\n" + body


def health_from(server: LiveServer, source: str) -> int:
    with server.connect(source) as s:
        s.sendall(HEALTH)
        answer, closed = read_answer(s, 10)
    assert closed, answer
    return status_of(answer)


def soon_healthy(server: LiveServer, source: str, within: float = 10.0) -> bool:
    """Whether ``source`` gets 200 from the health check within ``within`` seconds
    (the server sees closed connections go a moment after the client closes them)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if health_from(server, source) == 200:
            return True
        time.sleep(0.1)
    return False


def test_a_stalled_body_is_closed_at_the_body_deadline(serve: ServerFactory) -> None:
    server = serve("--body-timeout", "1")
    with server.connect() as s:
        s.sendall(STALLED_POST)
        start = time.monotonic()
        answer, closed = read_answer(s, 8)
        assert closed, "the connection of a body that never finishes stays open"
        assert time.monotonic() - start < 5
        assert status_of(answer) == 408
        assert b'"code":"bad_request"' in answer
    assert health_from(server, "127.0.0.1") == 200
    assert "Traceback" not in server.output()


def test_a_slow_body_within_the_deadline_is_answered(serve: ServerFactory) -> None:
    server = serve("--body-timeout", "3")
    body = b'{"mode": "local"}'
    head = (
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    with server.connect() as s:
        s.sendall(head + body[:5])
        time.sleep(0.5)
        s.sendall(body[5:])
        answer, closed = read_answer(s, 10)
    assert closed and status_of(answer) in (200, 201), answer[:300]


def test_one_address_gets_a_bounded_number_of_connections(serve: ServerFactory) -> None:
    server = serve("--connections-per-address", "4")
    held = [server.connect("127.0.0.2") for _ in range(4)]
    try:
        with server.connect("127.0.0.2") as extra:
            extra.sendall(HEALTH)
            answer, closed = read_answer(extra, 5)
        assert closed and status_of(answer) == 429, answer
        assert b"retry-after" in answer.lower()
        # another address is served meanwhile
        assert health_from(server, "127.0.0.3") == 200
        # a closed connection frees its place
        held.pop().close()
        assert soon_healthy(server, "127.0.0.2")
    finally:
        for s in held:
            s.close()


def test_websockets_count_among_an_address_connections(serve: ServerFactory) -> None:
    server = serve("--connections-per-address", "3")
    url = f"ws://127.0.0.1:{server.port}/ws/analysis"
    with ExitStack() as stack:
        sockets = [
            stack.enter_context(ws_connect(url, sock=server.connect("127.0.0.4"))) for _ in range(3)
        ]
        assert health_from(server, "127.0.0.5") == 200
        with server.connect("127.0.0.4") as extra:
            extra.sendall(HEALTH)
            answer, closed = read_answer(extra, 5)
        assert closed and status_of(answer) == 429, answer
        sockets[0].close()
        assert soon_healthy(server, "127.0.0.4")


def test_the_site_answers_while_connections_reach_the_descriptor_limit(
    serve: ServerFactory,
) -> None:
    # 256 descriptors, 128 kept free by default: at most 128 connections at once
    server = serve("--connections-per-address", "0", "--header-timeout", "60", nofile=256)
    flood: list[socket.socket] = []
    try:
        for i in range(300):
            flood.append(server.connect(f"127.0.1.{i % 250 + 1}"))
        time.sleep(0.5)
        start = time.monotonic()
        with server.connect("127.0.0.1", timeout=5) as s:
            s.sendall(HEALTH)
            answer, closed = read_answer(s, 5)
        assert closed and answer, "the server no longer accepts connections"
        assert status_of(answer) == 503 and time.monotonic() - start < 5
    finally:
        for s in flood:
            s.close()
    assert soon_healthy(server, "127.0.0.1")  # once the server has seen them close
    log = server.output()
    assert "Too many open files" not in log and "Traceback" not in log, log[-3000:]


def test_an_oversized_request_header_is_refused_with_431(serve: ServerFactory) -> None:
    server = serve()
    with server.connect() as s:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
        sent = 0
        try:
            while sent < 8 << 20:
                s.sendall(b"a" * 65536)
                sent += 65536
                time.sleep(0.02)  # as a network would: the server sees the headers grow
            s.sendall(b"\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer, closed = read_answer(s, 10)
    assert closed and status_of(answer) == 431, answer[:300]
    assert sent < 8 << 20, "the server waited for the end of the headers"
    # a header that completes in one piece is measured too
    with server.connect() as s:
        s.sendall(HEALTH[:-2] + b"X-Big: " + b"a" * 40_000 + b"\r\n\r\n")
        answer, closed = read_answer(s, 10)
    assert closed and status_of(answer) == 431, answer[:300]
    # big but within the limit (a browser's long cookie)
    with server.connect() as s:
        s.sendall(HEALTH[:-2] + b"X-Big: " + b"a" * 20_000 + b"\r\n\r\n")
        answer, closed = read_answer(s, 10)
    assert closed and status_of(answer) == 200, answer[:300]


def test_a_large_request_body_is_not_taken_for_headers(serve: ServerFactory) -> None:
    """A PDN file of hundreds of KiB is imported; the end of its body, read at once, is
    not counted against the next request's header limit."""
    game = '[Event "Club"]\n\n1. 9-13 21-17 2. 5-9 17-14 3. 9x18 23x14 *\n\n'
    body = (game * (900_000 // len(game))).encode()
    server = serve("--import-max-games", "100000", "--imported-games-per-hour", "100000")
    with server.connect(timeout=60) as s:
        head = (
            "POST /api/import HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/x-pdn\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        s.sendall(head.encode() + body)
        answer = one_answer(s)
        assert status_of(answer) == 200, answer[:300]
        s.sendall(HEALTH)  # the connection is still good for the next request
        answer, closed = read_answer(s, 10)
    assert closed and status_of(answer) == 200, answer[:300]


def test_an_oversized_header_after_a_kept_alive_answer_is_refused_with_431(
    serve: ServerFactory,
) -> None:
    server = serve()
    with server.connect() as s:
        s.sendall(HEALTH.replace(b"Connection: close\r\n", b""))
        assert one_answer(s).startswith(b"HTTP/1.1 200")
        with suppress(BrokenPipeError, ConnectionResetError):
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 100_000)
        answer, closed = read_answer(s, 10)
    assert closed and status_of(answer) == 431, answer[:300]
