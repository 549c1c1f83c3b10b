"""Offline use: every page asks only its own server, for anything at all
(scripts, styles, fonts, images, sockets): no other host is ever contacted."""

from __future__ import annotations

import pytest

from .conftest import PageFactory, Server
from .helpers import new_game

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def test_no_request_leaves_the_server(server: Server, new_page: PageFactory) -> None:
    page = new_page()
    seen: list[str] = []
    page.on("request", lambda req: seen.append(req.url))
    page.on("websocket", lambda ws: seen.append(ws.url))
    new_game(page, server.base_url, mode="local")
    page.wait_for_function("() => window.poolcheckersGame.socket.isOpen")
    for path, ready in (("/analysis", "svg.board .piece"), ("/archive", "#running-games tr")):
        page.goto(server.url(path))
        page.wait_for_selector(ready)
    page.wait_for_load_state("networkidle")
    host = server.base_url.split("://", 1)[1]
    assert seen
    foreign = [u for u in seen if u.split("://", 1)[1].split("/", 1)[0] != host]
    assert foreign == [], foreign
    assert any(u.startswith("ws://") for u in seen)  # the game's live updates
