"""The analysis socket's request ids: every ``info``, ``done`` and ``error`` of an
``analyse`` request carries that request's ``id``, so that the ``done`` of a
stopped search cannot be taken for the next one's."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from poolcheckers.engine import native_available

pytestmark = [
    pytest.mark.skipif(
        not native_available(), reason="the engine's native core (poolcheckers._core) is not built"
    ),
    pytest.mark.timeout(60),
]


def until_done(ws: WebSocketTestSession) -> list[dict[str, Any]]:
    """Messages up to and including the next ``done`` or ``error``."""
    out: list[dict[str, Any]] = []
    while True:
        msg: dict[str, Any] = ws.receive_json()
        out.append(msg)
        if msg["type"] in ("done", "error"):
            return out


def test_every_message_carries_its_request_id(client: TestClient) -> None:
    with client.websocket_connect("/ws/analysis") as ws:
        # a long search, overtaken at once by a second request
        ws.send_json({"type": "analyse", "id": 1, "moves": ["11-15"], "time": 30})
        ws.send_json({"type": "analyse", "id": 2, "fen": "B:W14:B9", "time": 0.3})
        first = until_done(ws)
        assert first[-1]["type"] == "done"
        assert {m["id"] for m in first} == {1}
        second = until_done(ws)
        assert second[-1]["type"] == "done" and second[-1]["best"] == "9x18"
        assert {m["id"] for m in second} == {2}

        # stop, then a new request with a string id: the stopped search's done is id 3
        ws.send_json({"type": "analyse", "id": "a3", "moves": ["11-15"], "time": 30})
        ws.send_json({"type": "stop"})
        ws.send_json({"type": "analyse", "id": "a4", "fen": "B:W14:B9", "time": 0.2})
        assert {m["id"] for m in until_done(ws)} == {"a3"}
        last = until_done(ws)
        assert last[-1]["type"] == "done" and {m["id"] for m in last} == {"a4"}

        # errors are tagged too; a bad id is refused; no id: no id in the answer
        ws.send_json({"type": "analyse", "id": 5, "fen": "bad fen"})
        err = ws.receive_json()
        assert err["type"] == "error" and err["id"] == 5 and err["error"]["code"] == "malformed"
        ws.send_json({"type": "analyse", "id": [6], "fen": "B:W14:B9"})
        err = ws.receive_json()
        assert err["error"]["code"] == "malformed" and "id" not in err
        ws.send_json({"type": "analyse", "fen": "B:W14:B9", "time": 0.1})
        assert all("id" not in m for m in until_done(ws))
