"""Importing the same PDN game twice stores it once: the import
answer lists the duplicates with the stored game's id."""

from __future__ import annotations

import threading
from pathlib import Path

from fastapi.testclient import TestClient

from poolcheckers import Board, RuleSet
from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.games.pdn import game_digest, import_text
from poolcheckers.server.games.service import GameService
from poolcheckers.server.timesource import ManualTime

GAME_1 = (
    '[Event "Club"]\n[Black "Ann"]\n[White "Bob"]\n[Result "2-0"]\n\n1. 11-15 23-19 2. 8-11 2-0\n'
)
GAME_2 = '[Event "Club"]\n[Black "Bob"]\n[White "Ann"]\n[Result "*"]\n\n1. 9-13 *\n'


def test_the_same_text_imported_twice_is_stored_once(client: TestClient) -> None:
    first = client.post("/api/import", json={"pdn": GAME_1 + "\n" + GAME_2}).json()
    assert len(first["imported"]) == 2 and first["duplicates"] == [] and first["errors"] == []
    again = client.post("/api/import", json={"pdn": GAME_1 + "\n" + GAME_2}).json()
    assert again["imported"] == []
    assert again["duplicates"] == [
        {"game": 1, "id": first["imported"][0]},
        {"game": 2, "id": first["imported"][1]},
    ]
    games = client.get("/api/games?status=finished").json()["games"]
    assert len(games) == 2


def test_the_same_game_however_written_is_one_game(client: TestClient) -> None:
    (gid,) = client.post("/api/import", json={"pdn": GAME_1}).json()["imported"]
    # other spacing, the tags in another order, a GameId, 1-0 for 2-0
    other = (
        '[White "Bob"]\n[Black "Ann"]\n[GameId "x"]\n[Event "Club"]\n[Result "1-0"]\n\n'
        "1.11-15    23-19\n2. 8-11 1-0\n"
    )
    answer = client.post("/api/import", content=other).json()
    assert answer["imported"] == [] and answer["duplicates"] == [{"game": 1, "id": gid}]
    # an annotated copy is another game: its comments would be lost as a duplicate
    commented = other.replace("1.11-15 ", "1.11-15 {book} ")
    (annotated,) = client.post("/api/import", content=commented).json()["imported"]
    assert "{book}" in client.get(f"/api/games/{annotated}/pdn").text
    # the same moves with another result, or another event, are other games
    changed = GAME_1.replace('"2-0"', '"1-1"').replace(" 2-0\n", " 1-1\n")
    assert len(client.post("/api/import", content=changed).json()["imported"]) == 1
    renamed = GAME_1.replace("Club", "Open")
    assert len(client.post("/api/import", content=renamed).json()["imported"]) == 1


def test_a_game_twice_in_one_text(client: TestClient) -> None:
    answer = client.post("/api/import", content=GAME_2 + "\n" + GAME_2).json()
    (gid,) = answer["imported"]
    assert answer["duplicates"] == [{"game": 2, "id": gid}]


def test_other_rules_or_start_make_another_game() -> None:
    b = Board()
    b.push_notation("11-15")
    digest = game_digest(b, {"Event": "x"}, "*")
    other_rules = Board(rules=RuleSet.from_dict({"crown_during_capture": "stop"}))
    other_rules.push_notation("11-15")
    assert game_digest(other_rules, {"Event": "x"}, "*") != digest
    from_fen = Board("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12")
    from_fen.push_notation("11-15")
    assert game_digest(from_fen, {"Event": "x"}, "*") == digest  # the same start position


def test_racing_imports_store_the_game_once(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/db.sqlite3")
    run_migrations(engine)
    service = GameService(engine, ManualTime())
    results = []

    def go() -> None:
        results.append(import_text(service, GAME_1, 10))

    threads = [threading.Thread(target=go) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stored = [gid for r in results for gid in r.imported]
    dupes = [d.id for r in results for d in r.duplicates]
    assert len(stored) == 1 and dupes == stored * 3
