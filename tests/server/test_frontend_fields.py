"""What the browser shows comes from the server (the library is the only rules
authority, docs/CONTRACTS.md §3): the board as 32 characters, every path of a
capture (R4) with the board after it (R14, R15), the start turn, the rule options
and their words (§9), the moves as a line of notation, and the end in words."""

from __future__ import annotations

from fastapi.testclient import TestClient

from poolcheckers import Board, RuleSet

from .helpers import move, new_game


def test_game_state_carries_the_board_and_every_path(client: TestClient) -> None:
    fen = "W:WK8:B15,16,21,25"
    created = new_game(client, mode="local", fen=fen)
    state = created["game"]
    assert state["board"] == Board(fen).squares()
    assert state["start_turn"] == "white"
    assert state["rules_notes"] == []
    (legal,) = state["legal_moves"]
    assert legal["notation"] == "8x29"
    assert sorted(legal["paths"]) == [[8, 18, 29], [8, 22, 29]]  # R4: one move, two roads
    assert legal["path"] in legal["paths"]
    after = Board(fen)
    after.push(after.legal_moves[0])
    assert legal["board_after"] == after.squares()  # R14: both men gone at once
    r = move(client, state["id"], created["token"], "8x22x29", 0)
    assert r.status_code == 200, r.text
    assert r.json()["board"] == after.squares()


def test_r15_board_after_shows_the_crowning(client: TestClient) -> None:
    created = new_game(client, mode="local", fen="B:W30:B22")
    (legal,) = [m for m in created["game"]["legal_moves"] if m["notation"] == "22-26"]
    assert legal["board_after"][25] == "b"  # not yet on the king row
    created = new_game(client, mode="local", fen="B:W32:B27")
    crowning = [m for m in created["game"]["legal_moves"] if m["notation"] == "27-31"]
    assert crowning[0]["board_after"][30] == "B"


def test_rules_notes_and_limits_in_the_state(client: TestClient) -> None:
    rules = {"king_only_move_limit": 15, "three_kings_limit_result": "loss"}
    state = new_game(client, mode="local", rules=rules)["game"]
    assert state["rules_notes"] == RuleSet.from_dict(rules).differences()
    assert state["counters"]["r18_limit_plies"] == 30
    assert state["counters"]["r19_limit"] == 13


def test_rules_endpoint_describes_the_options(client: TestClient) -> None:
    r = client.get("/api/rules")
    assert r.status_code == 200
    data = r.json()
    assert data["default"] == RuleSet.apca().to_dict()
    names = [o["name"] for o in data["options"]]
    assert names == list(RuleSet.apca().to_dict())
    crown = data["options"][0]
    assert crown["kind"] == "choice" and crown["default"] == "pass"
    assert {c["value"] for c in crown["choices"]} == {"pass", "stop"}


def test_analysis_position_has_board_line_and_paths(client: TestClient) -> None:
    r = client.post(
        "/api/analysis/position",
        json={"fen": "W:W21,22:B1,2", "moves": ["22-17", "1-5", "17-14"]},
    )
    assert r.status_code == 200, r.text
    info = r.json()
    assert info["line"] == "1... 22-17 2. 1-5 17-14"
    assert info["start_turn"] == "white" and info["turn"] == "black"
    board = Board("W:W21,22:B1,2")
    for text in ("22-17", "1-5", "17-14"):
        board.push_notation(text)
    assert info["board"] == board.squares()
    assert all("paths" in m and "board_after" in m for m in info["legal_moves"])


def test_analysis_outcome_words_use_the_rule_set(client: TestClient) -> None:
    r = client.post(
        "/api/analysis/position",
        json={"fen": "B:WK32:BK1:H28", "moves": [], "rules": {"king_only_move_limit": 14}},
    )
    assert r.status_code == 200, r.text
    outcome = r.json()["outcome"]
    assert outcome["termination"] == "move_limit"
    assert "14 moves by each side" in outcome["reason"] and "(R18)" in outcome["reason"]
