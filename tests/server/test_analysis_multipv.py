"""The analysis socket's best lines (multi-PV): ``multipv`` N asks for
the engine's best N lines; every ``info`` and the ``done`` carry them, best first, each
starting with a different legal move, with the engine facade's score text and the
library's move text; a position with fewer legal moves gets as many lines as moves
(a forced move one); a bad ``multipv`` is refused naming the field."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from poolcheckers import Board
from poolcheckers.engine import format_score, mate_in_moves, native_available
from poolcheckers.server.api.schemas import MAX_ANALYSIS_LINES

pytestmark = [
    pytest.mark.skipif(
        not native_available(), reason="the engine's native core (poolcheckers._core) is not built"
    ),
    pytest.mark.timeout(90),
]

#: the start position after 11-15 23-19 (R3): seven legal moves for Black
OPENING = ["11-15", "23-19"]


def until_done(ws: WebSocketTestSession) -> list[dict[str, Any]]:
    """Messages up to and including the next ``done`` or ``error``."""
    out: list[dict[str, Any]] = []
    while True:
        msg: dict[str, Any] = ws.receive_json()
        out.append(msg)
        if msg["type"] in ("done", "error"):
            return out


def analyse(client: TestClient, **request: Any) -> list[dict[str, Any]]:
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", **request})
        return until_done(ws)


def check_lines(board: Board, msg: dict[str, Any], want: int) -> None:
    """``msg``'s lines: ``want`` of them, best first, each from a distinct legal move,
    its texts those of the facade and the library, the first the message's own line."""
    lines = msg["lines"]
    assert len(lines) == want, (msg["depth"], lines)
    legal = {board.notation(m) for m in board.legal_moves}
    firsts = [line["move"] for line in lines]
    assert len(set(firsts)) == len(firsts), firsts
    assert set(firsts) <= legal, firsts
    scores = [line["score"] for line in lines]
    assert scores == sorted(scores, reverse=True), scores
    for line in lines:
        assert line["pv"][0] == line["move"]
        # the whole line is legal from the analysed position, as PDN move text
        assert line["line"] == board.variation_notation(line["pv"])
        assert line["score_text"] == format_score(line["score"], line["mate_in"])
        want_win = None if line["mate_in"] is None else mate_in_moves(line["mate_in"])
        assert line["win_in"] == want_win
    best = lines[0]
    assert (best["pv"], best["line"], best["score"]) == (msg["pv"], msg["line"], msg["score"])


def test_three_lines_at_every_depth_best_first(client: TestClient) -> None:
    board = Board()
    for m in OPENING:
        board.push_notation(m)
    messages = analyse(client, id=1, moves=OPENING, time=1.0, multipv=3)
    done = messages[-1]
    assert done["type"] == "done", done
    infos = [m for m in messages if m["type"] == "info"]
    assert infos, messages
    for msg in messages:
        check_lines(board, msg, 3)
    assert done["best"] == done["lines"][0]["move"]
    # the done is the last finished depth: its lines are that depth's
    assert done["depth"] == infos[-1]["depth"]
    assert done["lines"] == infos[-1]["lines"]


@pytest.mark.parametrize("count", range(1, MAX_ANALYSIS_LINES + 1))
def test_as_many_lines_as_asked(client: TestClient, count: int) -> None:
    board = Board()  # seven legal moves (R3)
    done = analyse(client, time=0.2, multipv=count)[-1]
    assert done["type"] == "done", done
    check_lines(board, done, count)


def test_no_multipv_is_one_line(client: TestClient) -> None:
    board = Board()
    done = analyse(client, time=0.2)[-1]
    assert done["type"] == "done", done
    check_lines(board, done, 1)


def test_a_forced_move_is_one_line(client: TestClient) -> None:
    # Black's man on 9 must take 14 (R7): the only legal move
    fen = "B:W14,32:B9,1"
    board = Board(fen)
    assert [board.notation(m) for m in board.legal_moves] == ["9x18"]
    for msg in analyse(client, fen=fen, time=0.5, multipv=3):
        assert msg["type"] != "error", msg
        check_lines(board, msg, 1)


def test_fewer_legal_moves_than_lines(client: TestClient) -> None:
    # two legal moves (1-5, 1-6): two lines though five are asked for
    fen = "B:W32:B1"
    board = Board(fen)
    assert len(board.legal_moves) == 2
    messages = analyse(client, fen=fen, time=0.3, multipv=5)
    assert messages[-1]["type"] == "done", messages[-1]
    for msg in messages:
        check_lines(board, msg, 2)


@pytest.mark.parametrize("bad", [0, MAX_ANALYSIS_LINES + 1, -1, "3", 2.5, True, None])
def test_a_bad_multipv_is_refused_naming_the_field(client: TestClient, bad: Any) -> None:
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "id": "m1", "time": 0.1, "multipv": bad})
        err = ws.receive_json()
        assert err["type"] == "error" and err["error"]["code"] == "malformed", err
        assert "multipv" in err["error"]["message"], err
        assert err["id"] == "m1"  # the request's error, though a field was bad
        # the socket still serves good requests
        ws.send_json({"type": "analyse", "id": "m2", "time": 0.1, "multipv": 2})
        last = until_done(ws)
        assert last[-1]["type"] == "done" and {m["id"] for m in last} == {"m2"}
        assert len(last[-1]["lines"]) == 2


def test_openapi_describes_the_lines(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    multipv = schemas["WsAnalyse"]["properties"]["multipv"]
    assert (multipv["minimum"], multipv["maximum"], multipv["default"]) == (
        1,
        MAX_ANALYSIS_LINES,
        1,
    )
    assert "lines" in schemas["AnalysisReport"]["properties"]
    line = schemas["AnalysisLine"]["properties"]
    assert {"move", "score", "mate_in", "win_in", "score_text", "pv", "line"} <= set(line)


def test_an_id_that_is_not_utf8_is_refused_and_the_socket_serves_on(client: TestClient) -> None:
    # a lone surrogate cannot be sent back in the answer: the id is refused (no id echoed)
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_text('{"type": "analyse", "id": "\\ud800", "time": 0.1, "multipv": 2}')
        err = ws.receive_json()
        assert err["error"]["code"] == "malformed" and "id" not in err, err
        assert "lone surrogate" in err["error"]["message"]
        ws.send_json({"type": "analyse", "id": 3, "time": 0.1, "multipv": 2})
        last = until_done(ws)
        assert last[-1]["type"] == "done" and len(last[-1]["lines"]) == 2
