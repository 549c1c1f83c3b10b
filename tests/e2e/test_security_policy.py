"""Every page works under the site's Content-Security-Policy: no inline script, no
style but the site's own, sockets to the site itself.  A page that the policy
breaks reports a ``securitypolicyviolation`` event (and Chromium logs it)."""

from __future__ import annotations

import json
import urllib.request
from typing import TYPE_CHECKING, Any

import pytest

from .conftest import PageErrors, PageFactory, Server

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__violations.push(`${e.violatedDirective} blocked ${e.blockedURI} (${where})`);
});
"""
OPEN_SOCKET = """(path) => new Promise((done) => {
  const ws = new WebSocket(`ws://${location.host}${path}`);
  ws.onopen = () => { ws.close(); done(true); };
  ws.onerror = () => done(false);
})"""


def post(server: Server, path: str, body: Any) -> Any:
    request = urllib.request.Request(
        server.url(path),
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Origin": server.base_url},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read().decode())


def site_paths(server: Server) -> list[str]:
    local = post(server, "/api/games", {"mode": "local"})["game"]["id"]
    online = post(server, "/api/games", {"mode": "online"})
    post(server, "/api/account/signup", {"username": "PolicyAnn", "password": "correct horse 1"})
    return [
        "/",
        f"/play/{local}",
        f"/play/{online['game']['id']}",
        online["invite"],
        "/analysis",
        "/archive",
        "/lobby",
        "/account",
        "/players/PolicyAnn",
        "/leaderboard",
        "/api/docs",
        "/no/such/page",
    ]


def visit(page: Page, url: str) -> list[str]:
    response = page.goto(url, wait_until="networkidle")
    assert response is not None
    policy = response.headers.get("content-security-policy", "")
    assert "frame-ancestors 'none'" in policy, (url, policy)
    page.wait_for_timeout(300)
    violations: list[str] = page.evaluate("window.__violations")
    return violations


def test_every_page_works_under_the_security_policy(server: Server, new_page: PageFactory) -> None:
    page = new_page()
    page.add_init_script(RECORD_VIOLATIONS)
    found = {path: visit(page, server.url(path)) for path in site_paths(server)}
    page.goto(server.url("/analysis"), wait_until="networkidle")
    assert page.evaluate(OPEN_SOCKET, "/ws/analysis"), "the policy blocks the site's own socket"
    assert page.evaluate("window.__violations") == []
    assert not any(found.values()), {p: v for p, v in found.items() if v}


def test_the_site_cannot_be_framed(
    server: Server, new_page: PageFactory, page_errors: PageErrors
) -> None:
    page_errors.allowed.append("frame")  # Chromium logs the refusal
    page = new_page()
    page.goto(server.url("/api/health"))
    page.set_content(f'<iframe id="f" src="{server.url("/")}"></iframe>')
    page.wait_for_timeout(1000)
    frame = page.frame_locator("#f")
    assert frame.locator("header.site-header").count() == 0
