"""A client that goes away in the middle of a request is a normal event: it writes
no traceback and no internal error, one short line at most."""

from __future__ import annotations

import time

import httpx2

from .conftest import ServerFactory

ABORTED_POSTS = [
    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 100\r\n\r\n{",
    b"POST /api/import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n[Event",
    b"POST /api/account/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b'Transfer-Encoding: chunked\r\n\r\n5\r\n{"use',
]


def test_aborted_requests_write_no_traceback(serve: ServerFactory) -> None:
    server = serve()
    before = server.output().count("\n")
    for i in range(10):
        with server.connect() as s:
            s.sendall(ABORTED_POSTS[i % len(ABORTED_POSTS)])
            time.sleep(0.05)  # the server reads the headers and waits for the body
    time.sleep(1.0)
    assert httpx2.get(server.base + "/api/health", timeout=5).status_code == 200
    out = server.output()
    assert "Traceback" not in out and "ERROR" not in out, out[-3000:]
    assert "internal" not in out and "Exception" not in out, out[-3000:]
    assert out.count("\n") - before <= 10, out[-3000:]
