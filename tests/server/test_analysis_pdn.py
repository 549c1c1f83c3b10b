"""``POST /api/analysis/pdn``: PDN read for the analysis board, checked by the rules
and never stored; a bad game is reported (game, line, column, token) with its
legal part."""

from __future__ import annotations

from fastapi.testclient import TestClient

from poolcheckers import STARTING_FEN

GOOD = """[Event "one"]
[Black "Ann"]
[White "Bob"]
[Result "2-0"]

1. 11-15 22-18 {the usual} (1... 24-20) 2. 15x22 25x18 2-0

[Event "two"]
[FEN "W:W21:B1"]
[Rules "apca+crown_during_capture=stop+king_only_move_limit=15"]

1. ... 21-17 2. 1-6 *
"""


def stored(client: TestClient) -> int:
    running = client.get("/api/games?status=running").json()["games"]
    finished = client.get("/api/games?status=finished").json()["games"]
    return len(running) + len(finished)


def test_good_multi_game_file(client: TestClient) -> None:
    r = client.post("/api/analysis/pdn", content=GOOD)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["errors"] == []
    one, two = body["games"]
    assert one["game"] == 1 and one["tags"]["Black"] == "Ann"
    assert one["start_fen"] == STARTING_FEN
    assert one["moves"] == ["11-15", "22-18", "15x22", "25x18"]
    assert one["result"] == "2-0"
    assert one["rules"]["crown_during_capture"] == "pass"
    assert two["game"] == 2 and two["moves"] == ["21-17", "1-6"] and two["result"] == "*"
    assert two["start_fen"] == "W:W21:B1"
    assert two["rules"]["crown_during_capture"] == "stop"
    assert two["rules"]["king_only_move_limit"] == 15
    assert stored(client) == 0  # read, not imported


def test_json_body_sets_the_rules_of_untagged_games(client: TestClient) -> None:
    # 22x31 stops on the king row only under the "stop" option (docs/RULES.md §9)
    pdn = '[FEN "B:W26,27,19:B22"]\n1. 22x31 *'
    r = client.post("/api/analysis/pdn", json={"pdn": pdn})
    assert r.json()["games"] == [] and "22x31" in r.json()["errors"][0]["message"]
    r = client.post(
        "/api/analysis/pdn", json={"pdn": pdn, "rules": {"crown_during_capture": "stop"}}
    )
    [game] = r.json()["games"]
    assert game["moves"] == ["22x31"] and game["rules"]["crown_during_capture"] == "stop"
    bad = client.post("/api/analysis/pdn", json={"pdn": pdn, "rules": {"nonsense": 1}})
    assert bad.status_code == 400
    assert client.post("/api/analysis/pdn", json={"rules": {}}).json()["error"]["code"] == (
        "malformed"
    )


def test_a_bad_game_is_reported_with_its_legal_part(client: TestClient) -> None:
    text = GOOD + '\n[Event "three"]\n1. 11-15 23-19 2. 15-24 *\n\n1. 9-13 (1. 10-14 x) 22-18 *\n'
    body = client.post("/api/analysis/pdn", content=text).json()
    assert [g["game"] for g in body["games"]] == [1, 2]
    bad, variation = body["errors"]
    assert (bad["game"], bad["line"], bad["column"], bad["token"]) == (3, 15, 19, "15-24")
    assert bad["message"].startswith("game 3, line 15, column 19: cannot play 15-24")
    assert "R6" in bad["message"]
    part = bad["partial"]
    assert part["game"] == 3 and part["tags"] == {"Event": "three"}
    assert part["moves"] == ["11-15", "23-19"] and part["result"] == "*"
    # an error inside a variation: the main line up to that variation
    assert variation["game"] == 4 and variation["token"] == "x"
    assert variation["partial"]["moves"] == ["9-13"]
    assert stored(client) == 0


def test_garbage_and_bad_tags_have_no_legal_part(client: TestClient) -> None:
    body = client.post("/api/analysis/pdn", content="hello world").json()
    assert body["games"] == []
    [err] = body["errors"]
    assert (err["game"], err["line"], err["column"], err["token"]) == (1, 1, 1, "hello")
    assert err["partial"] is None
    body = client.post("/api/analysis/pdn", content='[FEN "B:W33:B1"]\n1. 1-5 *').json()
    [err] = body["errors"]
    assert "33" in err["message"] and err["partial"] is None
    assert client.post("/api/analysis/pdn", content="").json() == {"games": [], "errors": []}
    r = client.post("/api/analysis/pdn", content=b"\xff\xfe1. 11-15 *")
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed"


def test_oversized(client: TestClient) -> None:
    r = client.post("/api/analysis/pdn", content="1. 11-15 * " * 100_000)
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
