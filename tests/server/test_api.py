"""JSON API (docs/CONTRACTS.md §3): games, moves, seats, draws, bad input."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from .helpers import error_code, move, new_game, online_game, seat_header, ws_seat


def test_local_game_plays_both_sides_and_lists_moves_in_pdn_notation(client: TestClient) -> None:
    created = new_game(client, mode="local")
    game, token = created["game"], created["token"]
    assert created["invite"] is None
    assert game["your_color"] == "both"
    assert game["turn"] == "black"  # R3: Black moves first
    assert game["ply"] == 0 and game["status"] == "running"
    assert len(game["legal_moves"]) == 7
    assert {"notation": "11-15", "path": [11, 15], "captured": []} in [
        {k: m[k] for k in ("notation", "path", "captured")} for m in game["legal_moves"]
    ]
    gid = game["id"]
    for ply, mv in enumerate(["11-15", "23-19", "8-11", "22-17"]):
        r = move(client, gid, token, mv, ply)
        assert r.status_code == 200, r.text
    state = r.json()
    assert state["moves"] == ["11-15", "23-19", "8-11", "22-17"]
    assert state["ply"] == 4 and state["turn"] == "black"
    assert state["last_move"] == {"path": [22, 17], "captured": []}
    assert client.get(f"/api/games/{gid}").json()["moves"] == state["moves"]


def test_capture_is_compulsory_and_notated_with_x(client: TestClient) -> None:
    created = new_game(client, mode="local")
    gid, token = created["game"]["id"], created["token"]
    for ply, mv in enumerate(["11-15", "22-18"]):
        assert move(client, gid, token, mv, ply).status_code == 200
    r = move(client, gid, token, "12-16", 2)
    assert r.status_code == 400 and error_code(r) == "illegal_move"
    assert "R11" in r.json()["error"]["message"] or "capture" in r.json()["error"]["message"]
    state = client.get(f"/api/games/{gid}").json()
    assert [{k: m[k] for k in ("notation", "path", "captured")} for m in state["legal_moves"]] == [
        {"notation": "15x22", "path": [15, 22], "captured": [18]}
    ]
    r = move(client, gid, token, "15x22", 2)
    assert r.status_code == 200 and r.json()["moves"][-1] == "15x22"


def test_rule_options_are_chosen_at_creation_and_returned(client: TestClient) -> None:
    rules = {"crown_during_capture": "stop", "king_only_move_limit": 15, "repetition_draw": True}
    game = new_game(client, mode="local", rules=rules)["game"]
    assert game["rules"]["crown_during_capture"] == "stop"
    assert game["rules"]["king_only_move_limit"] == 15
    assert game["rules"]["repetition_draw"] is True
    assert game["counters"]["r18_limit_plies"] == 30
    r = client.post("/api/games", json={"mode": "local", "rules": {"no_such_rule": 1}})
    assert r.status_code == 400 and "§9" in r.json()["error"]["message"]
    r = client.post(
        "/api/games", json={"mode": "local", "rules": {"crown_during_capture": "maybe"}}
    )
    assert r.status_code == 400


def test_game_from_fen_ends_on_r16_with_reason_in_words(client: TestClient) -> None:
    # Black man on 5 takes the last white piece: White has no pieces left (R16).
    created = new_game(client, mode="local", fen="B:W9:B5")
    gid, token = created["game"]["id"], created["token"]
    assert created["game"]["start_fen"].startswith("B:")
    r = move(client, gid, token, "5x14", 0)
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["status"] == "finished"
    assert state["outcome"]["termination"] == "no_moves"
    assert state["outcome"]["winner"] == "black"
    assert state["outcome"]["result"] == "2-0"
    assert "(R16)" in state["outcome"]["reason"] and "White" in state["outcome"]["reason"]
    assert state["legal_moves"] == []
    r = move(client, gid, token, "14-18", 1)
    assert r.status_code == 409 and error_code(r) == "game_over"


def test_blocked_side_loses_r16(client: TestClient) -> None:
    # White's only man, on 32, is blocked: 27 and 28 are taken and the jump over 27
    # would land on 23, taken too (R6, R7).
    created = new_game(client, mode="local", fen="B:W32:B1,23,27,28")
    gid, token = created["game"]["id"], created["token"]
    r = move(client, gid, token, "1-5", 0)
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["status"] == "finished"
    assert state["outcome"]["reason"] == "White has no legal move (R16)"


def test_online_seats_invites_and_forbidden_moves(client: TestClient) -> None:
    created = new_game(client, mode="online", color="white")
    gid, white = created["game"]["id"], created["token"]
    assert created["game"]["your_color"] == "white"
    assert created["game"]["seats"] == {"black": False, "white": True}
    assert created["invite"].startswith(f"/play/{gid}?invite=")
    invite = created["invite"].split("invite=", 1)[1]
    # no move before the opponent joined
    r = move(client, gid, white, "22-18", 0)
    assert r.status_code in (403, 409)
    r = client.post(f"/api/games/{gid}/join", json={"invite": "wrong"})
    assert r.status_code == 403 and error_code(r) == "forbidden"
    r = client.post(f"/api/games/{gid}/join", json={"invite": invite})
    assert r.status_code == 200
    black = r.json()["token"]
    assert r.json()["game"]["your_color"] == "black"
    assert r.json()["game"]["seats"] == {"black": True, "white": True}
    r = client.post(f"/api/games/{gid}/join", json={"invite": invite})
    assert r.status_code == 409 and error_code(r) == "conflict"
    # White cannot move for Black
    r = move(client, gid, white, "11-15", 0)
    assert r.status_code == 403 and error_code(r) == "forbidden"
    assert move(client, gid, black, "11-15", 0).status_code == 200
    # Black cannot move for White
    r = move(client, gid, black, "22-18", 1)
    assert r.status_code == 403
    # a spectator (no token) and a stranger token cannot move
    r = move(client, gid, "not-a-token", "22-18", 1)
    assert r.status_code == 403
    state = client.get(f"/api/games/{gid}", headers=seat_header(white)).json()
    assert state["your_color"] == "white" and state["ply"] == 1
    assert client.get(f"/api/games/{gid}").json()["your_color"] is None


def test_token_of_another_game_is_refused(client: TestClient) -> None:
    gid1, black1, _ = online_game(client)
    gid2, _, _ = online_game(client)
    r = move(client, gid2, black1, "11-15", 0)
    assert r.status_code == 403 and error_code(r) == "forbidden"
    assert client.get(f"/api/games/{gid2}").json()["ply"] == 0
    r = client.post(f"/api/games/{gid2}/resign", json={"token": black1})
    assert r.status_code == 403
    assert client.get(f"/api/games/{gid2}").json()["status"] == "running"
    assert client.get(f"/api/games/{gid1}").json()["status"] == "running"


def test_stale_and_future_ply_and_retry_idempotence(client: TestClient) -> None:
    gid, black, white = online_game(client)
    first = move(client, gid, black, "11-15", 0)
    assert first.status_code == 200
    retry = move(client, gid, black, "11-15", 0)
    assert retry.status_code == 200
    assert retry.json() == first.json()  # the same successful answer
    state = client.get(f"/api/games/{gid}").json()
    assert state["moves"] == ["11-15"] and state["ply"] == 1  # applied once
    # after the opponent replied, the retry still gets the same answer
    assert move(client, gid, white, "22-18", 1).status_code == 200
    assert move(client, gid, black, "11-15", 0).json() == first.json()
    # a different move for an already played ply is stale
    r = move(client, gid, black, "12-16", 0)
    assert r.status_code == 409 and error_code(r) == "stale_ply"
    # the opponent "retrying" Black's move is not a retry
    r = move(client, gid, white, "11-15", 0)
    assert r.status_code == 409 and error_code(r) == "stale_ply"
    r = move(client, gid, black, "15x22", 5)
    assert r.status_code == 409 and error_code(r) == "stale_ply"
    assert client.get(f"/api/games/{gid}").json()["moves"] == ["11-15", "22-18"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        # no token: 403, see test_account_seats (an account seat needs none)
        ({"move": 1115, "ply": 0, "token": "t"}, "malformed"),
        ({"move": "11-15", "ply": "0", "token": "t"}, "malformed"),
        ({"move": "11-15", "ply": True, "token": "t"}, "malformed"),
        ({"move": "11-15", "token": "t"}, "malformed"),
    ],
)
def test_malformed_move_bodies(client: TestClient, body: dict[str, object], code: str) -> None:
    gid, _, _ = online_game(client)
    r = client.post(f"/api/games/{gid}/move", json=body)
    assert r.status_code == 400 and error_code(r) == code


@pytest.mark.parametrize(
    ("text", "code", "needle"),
    [
        ("hello", "malformed", "R4"),
        ("11-99", "malformed", "R2"),
        ("11--15", "malformed", "R4"),
        ("22-18", "illegal_move", "white"),  # not your piece: Black to move
        ("11-18", "illegal_move", "R"),
        ("1-5", "illegal_move", "R"),
        ("9-13x", "malformed", "R4"),
        ("", "malformed", "R4"),
    ],
)
def test_bad_move_notation_is_refused_with_a_clear_message(
    client: TestClient, text: str, code: str, needle: str
) -> None:
    gid, black, _ = online_game(client)
    r = move(client, gid, black, text, 0)
    assert r.status_code == 400, r.text
    assert error_code(r) == code
    assert needle in r.json()["error"]["message"]
    state = client.get(f"/api/games/{gid}").json()
    assert state["ply"] == 0 and state["version"] == 2  # unchanged since the join


def test_garbage_and_oversized_payloads(client: TestClient) -> None:
    gid, black, _ = online_game(client)
    before = client.get(f"/api/games/{gid}").json()
    cases = [
        b"not json at all",
        b"[1, 2, 3]",
        b'"string"',
        b"\xff\xfe\x00garbage",
        b'{"move": "11-15", "ply": 0, "token": ',
    ]
    for raw in cases:
        r = client.post(f"/api/games/{gid}/move", content=raw)
        assert r.status_code == 400, raw
        assert error_code(r) == "malformed"
    big = b'{"move": "11-15", "ply": 0, "token": "' + b"a" * (64 * 1024) + b'"}'
    r = client.post(f"/api/games/{gid}/move", content=big)
    assert r.status_code == 413 and error_code(r) == "too_large"
    r = client.post("/api/games", content=big)
    assert r.status_code == 413
    r = client.post(f"/api/games/{gid}/resign", content=b"{}")  # no token, no account seat
    assert r.status_code == 403 and error_code(r) == "forbidden"
    r = client.post(f"/api/games/{gid}/fly", json={"token": black})
    assert r.status_code == 404 and error_code(r) == "not_found"
    assert client.get(f"/api/games/{gid}").json() == before


def test_unknown_game_and_bad_creation_requests(client: TestClient) -> None:
    r = client.get("/api/games/nope")
    assert r.status_code == 404 and error_code(r) == "not_found"
    r = move(client, "nope", "t", "11-15", 0)
    assert r.status_code == 404
    cases: list[tuple[dict[str, Any], str]] = [
        ({"mode": "chess"}, "mode"),
        ({"mode": "local", "color": "red"}, "color"),
        ({"mode": "local", "fen": "X:garbage"}, "R5"),
        ({"mode": "local", "clock": {"initial": -5}}, "clock"),
        ({"mode": "local", "clock": {"initial": "soon"}}, "clock"),
        ({"mode": "local", "clock": 5}, "clock"),
        ({"mode": "local", "fen": "W:W:B1"}, "decided"),
        ({"mode": "engine", "level": 11}, "level"),
    ]
    for body, needle in cases:
        r = client.post("/api/games", json=body)
        assert 400 <= r.status_code < 600, body
        if body.get("mode") == "engine" and r.status_code == 503:
            continue  # no engine on this machine: refused before the level check
        assert r.status_code == 400, (body, r.text)
        assert needle in r.json()["error"]["message"], (body, r.text)


def test_resign_r20(client: TestClient) -> None:
    gid, black, white = online_game(client)
    move(client, gid, black, "11-15", 0)
    move(client, gid, white, "23-19", 1)
    r = client.post(f"/api/games/{gid}/resign", json={"token": white})
    assert r.status_code == 200
    state = r.json()
    assert state["status"] == "finished"
    assert state["outcome"]["termination"] == "resignation"
    assert state["outcome"]["winner"] == "black"
    assert state["outcome"]["result"] == "2-0"
    assert "R20" in state["outcome"]["reason"]
    r = client.post(f"/api/games/{gid}/resign", json={"token": black})
    assert r.status_code == 409 and error_code(r) == "game_over"


def test_draw_offer_accept_decline_r17(client: TestClient) -> None:
    gid, black, white = online_game(client)
    r = client.post(f"/api/games/{gid}/draw-accept", json={"token": white})
    assert r.status_code == 409  # no offer to accept
    r = client.post(f"/api/games/{gid}/draw-offer", json={"token": black})
    assert r.status_code == 200 and r.json()["draw_offer"] == "black"
    r = client.post(f"/api/games/{gid}/draw-offer", json={"token": black})
    assert r.status_code == 409
    r = client.post(f"/api/games/{gid}/draw-accept", json={"token": black})
    assert r.status_code == 403  # cannot accept one's own offer
    r = client.post(f"/api/games/{gid}/draw-decline", json={"token": white})
    assert r.status_code == 200 and r.json()["draw_offer"] is None
    # an offer is declined by moving
    assert client.post(f"/api/games/{gid}/draw-offer", json={"token": black}).status_code == 200
    assert move(client, gid, black, "11-15", 0).json()["draw_offer"] == "black"
    assert move(client, gid, white, "22-18", 1).json()["draw_offer"] is None
    # offer and accept: draw by agreement
    assert client.post(f"/api/games/{gid}/draw-offer", json={"token": white}).status_code == 200
    r = client.post(f"/api/games/{gid}/draw-accept", json={"token": black})
    state = r.json()
    assert state["status"] == "finished" and state["outcome"]["termination"] == "agreement"
    assert state["outcome"]["result"] == "1-1" and state["outcome"]["winner"] is None
    assert "R17" in state["outcome"]["reason"]


def test_takeback_on_one_screen_undoes_the_last_move(client: TestClient) -> None:
    created = new_game(client, mode="local")
    gid, token = created["game"]["id"], created["token"]
    move(client, gid, token, "11-15", 0)
    move(client, gid, token, "23-19", 1)
    r = client.post(f"/api/games/{gid}/takeback", json={"token": token})
    assert r.status_code == 200, r.text
    assert r.json()["moves"] == ["11-15"] and r.json()["turn"] == "white"
    client.post(f"/api/games/{gid}/takeback", json={"token": token})
    r = client.post(f"/api/games/{gid}/takeback", json={"token": token})
    assert r.status_code == 409 and "no move to take back" in r.json()["error"]["message"]


def test_no_takeback_online_nor_after_the_end(client: TestClient) -> None:
    g1, b1, _w1 = online_game(client)
    move(client, g1, b1, "11-15", 0)
    r = client.post(f"/api/games/{g1}/takeback", json={"token": b1})
    assert r.status_code == 409 and "engine or on one screen" in r.json()["error"]["message"]
    # a finished game keeps its result: a takeback does not reopen it
    created = new_game(client, mode="local", fen="B:W18,27:B14,K1")
    gid, token = created["game"]["id"], created["token"]
    move(client, gid, token, "14x32", 0)
    assert client.get(f"/api/games/{gid}").json()["status"] == "finished"
    r = client.post(f"/api/games/{gid}/takeback", json={"token": token})
    assert r.status_code == 409 and "kept as it ended" in r.json()["error"]["message"]
    assert client.get(f"/api/games/{gid}").json()["outcome"]["result"] == "2-0"


def test_list_games_by_status(client: TestClient) -> None:
    g1, b1, w1 = online_game(client)
    g2 = new_game(client, mode="local")["game"]["id"]
    move(client, g1, b1, "11-15", 0)
    move(client, g1, w1, "23-19", 1)
    client.post(f"/api/games/{g1}/resign", json={"token": b1})
    running = {g["id"] for g in client.get("/api/games?status=running").json()["games"]}
    finished = client.get("/api/games", params={"status": "finished"}).json()["games"]
    assert g2 in running and g1 not in running
    assert [g["id"] for g in finished] == [g1]
    assert finished[0]["result"] == "0-2" and finished[0]["reason"]
    every = client.get("/api/games", params={"limit": 1}).json()["games"]
    assert len(every) == 1
    assert client.get("/api/games", params={"status": "weird"}).status_code == 400
    assert client.get("/api/games", params={"limit": "x"}).status_code == 400
    assert client.get("/api/games", params={"limit": 0}).status_code == 400


def test_analysis_position(client: TestClient) -> None:
    r = client.post("/api/analysis/position", json={"moves": ["11-15", "22-18"]})
    assert r.status_code == 200
    info = r.json()
    assert info["moves"] == ["11-15", "22-18"]
    assert info["turn"] == "black"
    assert [m["notation"] for m in info["legal_moves"]] == ["15x22"]
    r = client.post("/api/analysis/position", json={"moves": ["11-15", "11-15"]})
    assert r.status_code == 400 and error_code(r) == "illegal_move"
    assert "move 2" in r.json()["error"]["message"]
    r = client.post("/api/analysis/position", json={"fen": "W:W:B1"})
    assert r.json()["outcome"]["termination"] == "no_moves"


def test_pages_and_static_files(client: TestClient) -> None:
    for path in ["/", "/play/abc", "/analysis", "/archive"]:
        r = client.get(path)
        assert r.status_code in (200, 503), path
        assert r.headers["content-type"].startswith(("text/html", "text/plain"))
    r = client.get("/static/definitely-missing.js")
    assert r.status_code == 404
    health = client.get("/api/health").json()
    assert health["ok"] is True and health["database"] == "sqlite"


def test_a_process_told_to_stop_fails_its_health_check_and_still_serves_games(
    client: TestClient,
) -> None:
    created = new_game(client, mode="local")
    client.app.state.ctx.stop_soon()  # type: ignore[attr-defined]
    r = client.get("/api/health")
    assert r.status_code == 503 and error_code(r) == "stopping"
    assert r.json()["database_reachable"] is True
    gid, token = created["game"]["id"], created["token"]
    assert move(client, gid, token, "11-15", 0).status_code == 200


def test_no_draw_offer_before_the_invited_player_joins_r17(client: TestClient) -> None:
    created = new_game(client, mode="online", color="black")
    gid, black = created["game"]["id"], created["token"]
    r = client.post(f"/api/games/{gid}/draw-offer", json={"token": black})
    assert r.status_code == 409 and error_code(r) == "conflict"
    assert "joins" in r.json()["error"]["message"]
    state = client.get(f"/api/games/{gid}").json()
    assert state["draw_offer"] is None and state["version"] == created["game"]["version"]


def test_unknown_pages_get_the_app_shell_and_pages_answer_head(client: TestClient) -> None:
    r = client.get("/no/such/page", headers={"accept": "text/html,application/xhtml+xml"})
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert "<html" in r.text.lower()
    # API clients still get JSON errors
    r = client.get("/api/no-such-thing", headers={"accept": "text/html"})
    assert r.status_code == 404 and error_code(r) == "not_found"
    r = client.get("/no/such/page")
    assert r.status_code == 404 and error_code(r) == "not_found"
    for path in ["/", "/play/abc", "/analysis", "/archive"]:
        head = client.head(path)
        assert head.status_code == 200, path
        assert head.text == ""


def test_seat_tokens_travel_in_headers_never_in_urls(client: TestClient) -> None:
    gid, black, white = online_game(client)
    r = client.get(f"/api/games/{gid}", headers={"Authorization": f"Bearer {white}"})
    assert r.json()["your_color"] == "white"
    assert client.get(f"/api/games/{gid}", headers=seat_header(black)).json()["your_color"] == (
        "black"
    )
    r = client.get(f"/api/games/{gid}", headers=seat_header("stranger"))
    assert r.status_code == 403 and error_code(r) == "forbidden"
    r = client.get(f"/api/games/{gid}", params={"token": black})
    assert r.status_code == 400 and "X-Seat-Token" in r.json()["error"]["message"]
    with client.websocket_connect(f"/ws/games/{gid}", headers=seat_header(white)) as ws:
        assert ws.receive_json()["game"]["your_color"] == "white"
    with client.websocket_connect(f"/ws/games/{gid}", subprotocols=ws_seat(black)) as ws:
        assert ws.accepted_subprotocol == "poolcheckers"
        assert ws.receive_json()["game"]["your_color"] == "black"
    with client.websocket_connect(f"/ws/games/{gid}?token={black}") as ws:
        assert ws.receive_json()["error"]["code"] == "bad_request"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4400
