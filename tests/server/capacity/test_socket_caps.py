"""Sockets per client: one address cannot open thousands of spectator sockets on
one game; the extra ones are closed with 1008 and a reason."""

from __future__ import annotations

import contextlib

import pytest
from starlette.websockets import WebSocketDisconnect

from ..conftest import AppFactory
from ..helpers import new_game


def test_one_address_gets_a_few_spectator_sockets_per_game_not_thousands(
    make_client: AppFactory,
) -> None:
    client = make_client(spectators_per_game_per_address=3)
    gid = new_game(client, mode="online", color="black")["game"]["id"]
    with contextlib.ExitStack() as stack:
        for _ in range(3):
            ws = stack.enter_context(client.websocket_connect(f"/ws/games/{gid}"))
            assert ws.receive_json()["type"] == "state"
        with (
            client.websocket_connect(f"/ws/games/{gid}") as extra,
            pytest.raises(WebSocketDisconnect) as closed,
        ):
            extra.receive_json()
        assert closed.value.code == 1008
        assert "sockets" in (closed.value.reason or "")
    # closed sockets give their places back
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "state"


def test_one_address_gets_a_few_lobby_sockets_not_thousands(make_client: AppFactory) -> None:
    client = make_client(lobby_sockets_per_client=2)
    with contextlib.ExitStack() as stack:
        for _ in range(2):
            ws = stack.enter_context(client.websocket_connect("/ws/lobby"))
            assert ws.receive_json()["type"] == "seeks"
        with (
            client.websocket_connect("/ws/lobby") as extra,
            pytest.raises(WebSocketDisconnect) as closed,
        ):
            extra.receive_json()
        assert closed.value.code == 1008
        assert "lobby sockets" in (closed.value.reason or "")
