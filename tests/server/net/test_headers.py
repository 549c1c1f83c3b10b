"""Headers a request may not repeat, the host names the site answers to, and the
security headers of every answer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from poolcheckers.server.app import Settings, create_app
from poolcheckers.server.net.headers import style_hashes
from poolcheckers.server.settings import STATIC_DIR

from ..conftest import AppFactory

SIGNUP = {"username": "Ann", "password": "correct horse battery"}


@pytest.fixture
def signed_in(make_client: AppFactory) -> TestClient:
    client = make_client(password_parameters=CHEAPEST)
    assert client.post("/api/account/signup", json=SIGNUP).status_code == 200
    return client


def refused_for(response_text: str, header: str) -> bool:
    return '"bad_request"' in response_text and header in response_text


@pytest.mark.parametrize("header", ["Cookie", "Origin", "Host"])
def test_a_request_repeating_cookie_origin_or_host_is_refused(
    client: TestClient, header: str
) -> None:
    values = {"Cookie": ("a=1", "b=2"), "Origin": ("http://testserver",) * 2}
    first, second = values.get(header, ("testserver", "testserver"))
    r = client.get("/api/health", headers=[(header, first), (header, second)])
    assert r.status_code == 400 and refused_for(r.text, header), r.text


def test_two_origin_headers_do_not_pass_when_the_last_is_the_site(signed_in: TestClient) -> None:
    r = signed_in.post(
        "/api/account/logout",
        headers=[("Origin", "http://evil.example"), ("Origin", "http://testserver")],
    )
    assert r.status_code == 400 and refused_for(r.text, "Origin"), r.text
    assert signed_in.get("/api/account").status_code == 200  # still signed in


def test_two_cookie_headers_are_refused_before_any_reader(signed_in: TestClient) -> None:
    session = signed_in.cookies.get("pc_session")
    signed_in.cookies.clear()
    r = signed_in.post(
        "/api/account/logout",
        headers=[("Cookie", f"pc_session={session}"), ("Cookie", "pc_session=other")],
    )
    assert r.status_code == 400 and refused_for(r.text, "Cookie"), r.text


@pytest.fixture
def default_hosts(db_url: str) -> TestClient:
    """An app with the default host names (the tests' own is ``testserver``)."""
    return TestClient(create_app(Settings(database_url=db_url)), base_url="http://localhost:8000")


@pytest.mark.parametrize(
    "host", ["localhost:8000", "127.0.0.1:8000", "[::1]:8000", "LOCALHOST", "192.0.2.7:8000"]
)
def test_the_site_answers_to_its_own_names_and_addresses(
    default_hosts: TestClient, host: str
) -> None:
    with default_hosts as client:
        assert client.get("/api/health", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "localhost.evil.example"])
def test_another_host_name_is_refused(default_hosts: TestClient, host: str) -> None:
    with default_hosts as client:
        r = client.get("/api/health", headers={"Host": host})
        assert r.status_code == 400 and refused_for(r.text, "Host"), r.text


def test_a_rebound_name_cannot_drive_a_local_install(make_client: AppFactory) -> None:
    client = make_client(password_parameters=CHEAPEST, allowed_hosts=("localhost",))
    client.base_url = client.base_url.copy_with(host="localhost")
    assert client.post("/api/account/signup", json=SIGNUP).status_code == 200
    evil = {"Host": "evil.example", "Origin": "http://evil.example"}
    r = client.post("/api/account/logout", headers=evil)
    assert r.status_code == 400, r.text
    assert client.get("/api/account").status_code == 200  # still signed in
    with (
        pytest.raises(WebSocketDenialResponse),
        client.websocket_connect("/ws/analysis", headers=evil),
    ):
        pass


def test_configured_host_names_are_answered(make_client: AppFactory) -> None:
    client = make_client(allowed_hosts=("checkers.example.org", "*.example.net"))
    for host in ("checkers.example.org", "a.example.net", "CHECKERS.example.org:443"):
        assert client.get("/api/health", headers={"Host": host}).status_code == 200, host
    assert client.get("/api/health", headers={"Host": "example.org"}).status_code == 400


SECURITY = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}


@pytest.mark.parametrize(
    "path", ["/", "/play/x", "/api/docs", "/api/health", "/static/app.js", "/api/nothing"]
)
def test_every_answer_carries_the_security_headers(client: TestClient, path: str) -> None:
    r = client.get(path, headers={"Accept": "text/html"})
    policy = r.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert re.search(r"script-src 'self'(;|$)", policy), policy
    for name, value in SECURITY.items():
        assert r.headers[name] == value, (path, name)
    assert "strict-transport-security" not in r.headers  # plain HTTP


def test_the_inline_styles_of_the_pages_are_allowed_by_hash(client: TestClient) -> None:
    policy = client.get("/").headers["content-security-policy"]
    index = (Path(STATIC_DIR) / "index.html").read_text("utf-8")
    docs = client.get("/api/docs").text
    for page in (index, docs):
        hashes = style_hashes([page])
        assert hashes and all(h in policy for h in hashes)
    assert 'style="' not in index  # style attributes would need 'unsafe-inline'


def test_hsts_is_sent_over_https(client: TestClient) -> None:
    client.base_url = client.base_url.copy_with(scheme="https")
    r = client.get("/api/health")
    assert r.headers["strict-transport-security"].startswith("max-age=")


def test_an_svg_opened_by_itself_runs_no_script(signed_in: TestClient) -> None:
    r = signed_in.get("/api/users/Ann/rating-history.svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    policy = r.headers["content-security-policy"]
    assert policy.startswith("default-src 'none'") and "script" not in policy


def test_an_internal_error_carries_the_security_headers(db_url: str) -> None:
    app = create_app(Settings(database_url=db_url, allowed_hosts=("testserver",)))

    async def fails() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/api/fails", fails)
    with TestClient(app, raise_server_exceptions=False) as client:
        r = client.get("/api/fails")
    assert r.status_code == 500 and r.json()["error"]["code"] == "internal"
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
