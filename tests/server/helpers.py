"""Helpers shared by the server tests."""

from __future__ import annotations

import ssl
import subprocess
import time
from typing import Any

import httpx2
from fastapi import FastAPI
from fastapi.testclient import TestClient
from websockets.typing import Subprotocol

from poolcheckers import Board
from poolcheckers.server.api.schemas import Action
from poolcheckers.server.games.service import GameService
from poolcheckers.server.wiring import Services


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def online_game(client: TestClient, **body: Any) -> tuple[str, str, str]:
    """An online game with both seats taken: (id, black token, white token)."""
    created = new_game(client, mode="online", color="black", **body)
    gid = created["game"]["id"]
    invite = created["invite"].split("invite=", 1)[1]
    r = client.post(f"/api/games/{gid}/join", json={"invite": invite})
    assert r.status_code == 200, r.text
    return gid, created["token"], r.json()["token"]


def move(client: TestClient, gid: str, token: str, mv: str, ply: int) -> httpx2.Response:
    return client.post(f"/api/games/{gid}/move", json={"move": mv, "ply": ply, "token": token})


def error_code(response: httpx2.Response) -> str:
    code: str = response.json()["error"]["code"]
    return code


def state_of(service: GameService, gid: str) -> dict[str, Any]:
    """A game's ``GameState`` as the API sends it (no viewer), read through ``service``."""
    return service.view(gid).state().model_dump()


def played(service: GameService, gid: str, token: str, mv: str, ply: int) -> dict[str, Any]:
    """Play ``mv`` through ``service``; the ``GameState`` after it."""
    return service.move(gid, token, mv, ply)[0].state().model_dump()


def acted(service: GameService, gid: str, action: Action, token: str) -> dict[str, Any]:
    return service.act(gid, action, token).state().model_dump()


def server_context(client: TestClient) -> Services:
    """The :class:`Services` of the app behind ``client`` (``create_app``'s)."""
    app = client.app
    assert isinstance(app, FastAPI)
    ctx = app.state.ctx
    assert isinstance(ctx, Services)
    return ctx


def ws_seat(token: str) -> list[Subprotocol]:
    """The WebSocket sub-protocols that present a seat token (never in the URL)."""
    return [Subprotocol("poolcheckers"), Subprotocol(f"seat-token.{token}")]


def seat_header(token: str) -> dict[str, str]:
    return {"X-Seat-Token": token}


def play_plies(black: TestClient, white: TestClient, gid: str, plies: int) -> None:
    """Play ``plies`` plies of legal moves (each side's first legal move, R4 notation) by
    the two seats' clients (account seats: no token needed)."""
    board = Board()
    for ply in range(plies):
        mv = str(board.legal_moves[0])
        seat = black if ply % 2 == 0 else white
        r = seat.post(f"/api/games/{gid}/move", json={"move": mv, "ply": ply})
        assert r.status_code == 200, r.text
        board.push(board.parse_move(mv))


def wait_health(
    url: str,
    proc: subprocess.Popen[bytes] | None = None,
    *,
    verify: ssl.SSLContext | bool = True,
    timeout: float = 60,
) -> None:
    """Poll ``url``'s ``/api/health`` until it answers 200 (a started server process:
    ``proc``, which must not end meanwhile)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx2.get(url + "/api/health", verify=verify, timeout=2).status_code == 200:
                return
        except (httpx2.HTTPError, ssl.SSLError, OSError):
            pass
        assert proc is None or proc.poll() is None, f"the server at {url} did not start"
        assert time.monotonic() < deadline, f"{url} did not answer /api/health in {timeout} s"
        time.sleep(0.2)
