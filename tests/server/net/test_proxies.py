"""The client address that limits count by is the TCP peer's unless the operator
names the reverse proxies to believe (``--forwarded-allow-ips``)."""

from __future__ import annotations

import httpx2

from .conftest import ServerFactory

WRONG = {"username": "nobody", "password": "not the password"}


def sign_ins(base: str, addresses: list[str]) -> list[int]:
    with httpx2.Client(base_url=base, timeout=30) as http:
        return [
            http.post("/api/account/login", json=WRONG, headers={"X-Forwarded-For": a}).status_code
            for a in addresses
        ]


def test_x_forwarded_for_does_not_escape_the_address_limits(serve: ServerFactory) -> None:
    server = serve("--signin-limit", "2")
    assert sign_ins(server.base, ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) == [401, 401, 429]


def test_x_forwarded_for_counts_behind_a_named_proxy(serve: ServerFactory) -> None:
    server = serve("--signin-limit", "2", "--forwarded-allow-ips", "127.0.0.1")
    assert sign_ins(server.base, ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) == [401, 401, 401]
    assert sign_ins(server.base, ["10.0.0.1", "10.0.0.1"]) == [401, 429]


def test_connections_through_a_named_proxy_are_not_capped_per_address(
    serve: ServerFactory,
) -> None:
    server = serve("--connections-per-address", "1", "--forwarded-allow-ips", "127.0.0.0/8")
    held = [server.connect("127.0.0.2") for _ in range(3)]
    try:
        with httpx2.Client(base_url=server.base) as http:
            assert http.get("/api/health").status_code == 200
    finally:
        for s in held:
            s.close()


def test_hsts_is_sent_when_a_named_proxy_says_https(serve: ServerFactory) -> None:
    https = {"X-Forwarded-Proto": "https"}
    plain = serve()
    assert "strict-transport-security" not in httpx2.get(plain.base + "/", headers=https).headers
    proxied = serve("--forwarded-allow-ips", "127.0.0.1")
    r = httpx2.get(proxied.base + "/", headers=https)
    assert r.status_code == 200 and r.headers["strict-transport-security"].startswith("max-age=")
