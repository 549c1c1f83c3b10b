"""WebSockets: state on connect and on every change, moves, spectators, errors."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from .helpers import move, new_game, online_game, ws_seat


def next_state(ws: WebSocketTestSession) -> dict[str, Any]:
    msg: dict[str, Any] = ws.receive_json()
    assert msg["type"] == "state", msg
    game: dict[str, Any] = msg["game"]
    return game


def test_players_and_spectators_get_every_change(client: TestClient) -> None:
    gid, black, white = online_game(client)
    with (
        client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(black)) as wb,
        client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(white)) as ww,
        client.websocket_connect(f"/ws/games/{gid}") as spectator,
    ):
        assert next_state(wb)["your_color"] == "black"
        assert next_state(ww)["your_color"] == "white"
        first = next_state(spectator)
        assert first["your_color"] is None and first["ply"] == 0
        wb.send_json({"type": "move", "move": "11-15", "ply": 0})
        for ws in (wb, ww, spectator):
            state = next_state(ws)
            assert state["moves"] == ["11-15"] and state["turn"] == "white"
        # a move over HTTP reaches the sockets too
        assert move(client, gid, white, "22-18", 1).status_code == 200
        for ws in (wb, ww, spectator):
            assert next_state(ws)["moves"] == ["11-15", "22-18"]
        # spectators cannot play
        spectator.send_json({"type": "move", "move": "15x22", "ply": 2})
        err = spectator.receive_json()
        assert err["type"] == "error" and err["error"]["code"] == "forbidden"
        # resign over the socket
        ww.send_json({"type": "resign"})
        for ws in (wb, ww, spectator):
            state = next_state(ws)
            assert state["status"] == "finished"
            assert state["outcome"]["winner"] == "black"


def test_socket_errors_leave_the_game_unchanged(client: TestClient) -> None:
    gid, black, _white = online_game(client)
    with client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(black)) as ws:
        start = next_state(ws)
        cases: list[tuple[Any, str]] = [
            ("not json", "malformed"),
            ([1, 2], "malformed"),
            ({"type": "move", "move": "11-15"}, "malformed"),
            ({"type": "move", "move": 7, "ply": 0}, "malformed"),
            ({"type": "move", "move": "22-18", "ply": 0}, "illegal_move"),
            ({"type": "move", "move": "11-15", "ply": 3}, "stale_ply"),
            ({"type": "dance"}, "malformed"),
            ("x" * (64 * 1024 + 1), "too_large"),
        ]
        for payload, code in cases:
            if isinstance(payload, str):
                ws.send_text(payload)
            else:
                ws.send_json(payload)
            msg = ws.receive_json()
            assert msg["type"] == "error", payload
            assert msg["error"]["code"] == code, (payload, msg)
        ws.send_bytes(b"\x00\x01")
        assert ws.receive_json()["error"]["code"] == "malformed"
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
    assert client.get(f"/api/games/{gid}").json() == {**start, "your_color": None}


def test_retry_over_the_socket_is_applied_once(client: TestClient) -> None:
    gid, black, _ = online_game(client)
    with client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(black)) as ws:
        next_state(ws)
        ws.send_json({"type": "move", "move": "11-15", "ply": 0})
        assert next_state(ws)["ply"] == 1
        ws.send_json({"type": "move", "move": "11-15", "ply": 0})
        again = next_state(ws)
        assert again["ply"] == 1 and again["moves"] == ["11-15"]


def test_unknown_game_and_foreign_token_close_the_socket(client: TestClient) -> None:
    with client.websocket_connect("/ws/games/nope") as ws:
        msg = ws.receive_json()
        assert msg["type"] == "error" and msg["error"]["code"] == "not_found"
        with pytest.raises(WebSocketDisconnect) as exc:
            ws.receive_json()
        assert exc.value.code == 4404
    _, black1, _ = online_game(client)
    gid2, _, _ = online_game(client)
    with client.websocket_connect(f"/ws/games/{gid2}", subprotocols=ws_seat(black1)) as ws:
        assert ws.receive_json()["error"]["code"] == "forbidden"
        with pytest.raises(WebSocketDisconnect) as exc:
            ws.receive_json()
        assert exc.value.code == 4403


def test_local_game_over_one_socket(client: TestClient) -> None:
    created = new_game(client, mode="local")
    gid, token = created["game"]["id"], created["token"]
    with client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(token)) as ws:
        assert next_state(ws)["your_color"] == "both"
        for ply, mv in enumerate(["11-15", "22-18", "15x22"]):
            ws.send_json({"type": "move", "move": mv, "ply": ply})
            state = next_state(ws)
            assert state["ply"] == ply + 1
        assert state["last_move"] == {"path": [15, 22], "captured": [18]}
        ws.send_json({"type": "draw-offer"})
        assert next_state(ws)["draw_offer"] == "white"  # the side to move offers
