"""Endgame practice over HTTP: every exercise's target is what the tables say of its
start; a move is judged against the tables (kept the result or not, the plies it
cost, the best move); the tables reply as a perfect defender (the longest resistance
when lost); a game played out ends by the rules (R16, R19); positions the tables do
not cover and illegal moves are refused by name; a server without tables says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from poolcheckers import Board
from poolcheckers.egdb import Tablebase, build
from poolcheckers.engine import tables_move_values
from poolcheckers.server.practice.model import BY_ID, EXERCISES

from ..conftest import AppFactory
from ..helpers import error_code


@pytest.fixture(scope="module")
def tables_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("egdb4")
    build(4, path)
    return path


@pytest.fixture
def site(make_client: AppFactory, tables_dir: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.delenv("POOLCHECKERS_EGDB", raising=False)  # tests/conftest.py turns them off
    return make_client(tables_dir=tables_dir, practice_build_pieces=0)


def test_each_exercise_target_is_the_tables_value_of_its_start_R19(
    site: TestClient, tables_dir: Path
) -> None:
    listed = site.get("/api/practice").json()
    assert [e["id"] for e in listed] == [e.id for e in EXERCISES]
    tables = Tablebase(tables_dir)
    for e in EXERCISES:
        probed = tables.probe(Board(e.fen))
        assert probed is not None and probed.value == e.target, e.id
        assert site.post("/api/practice/start", json={"fen": e.fen}).json()["value"] == e.target


def test_sargins_position_turns_on_the_move_as_the_books_say(tables_dir: Path) -> None:
    """D. I. Sargin (1891): White to move wins by b4-a5 alone (17-13 here); Black to
    move draws, keeping the king on the diagonal that cuts the men off (32-5)."""
    tables = Tablebase(tables_dir)
    won = tables_move_values(tables, Board(BY_ID["sargin"].fen)) or []
    assert [str(m) for m, v, _d in won if v == "win"] == ["17-13"]
    held = tables_move_values(tables, Board(BY_ID["sargin-hold"].fen)) or []
    assert len(held) == 6
    assert sorted(str(m) for m, v, _d in held if v == "draw") == ["32-23", "32-9"]


def test_a_move_is_judged_by_the_tables_and_answered(site: TestClient, tables_dir: Path) -> None:
    fen = "W:WK12,K16,K26:BK27"  # three kings against one: a win in 22 plies (R19)
    values = tables_move_values(Tablebase(tables_dir), Board(fen)) or []
    wins = sorted((d or 0, str(m)) for m, v, d in values if v == "win")
    slower = wins[-1]
    r = site.post("/api/practice/move", json={"fen": fen, "moves": [slower[1]]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["verdict"]["kept"] is True and body["verdict"]["after"] == "win"
    assert body["verdict"]["cost"] == slower[0] - wins[0][0]
    assert body["verdict"]["best"] == wins[0][1]
    assert body["reply"] is not None and body["value"] == "win"
    losing = next(str(m) for m, v, _d in values if v != "win")
    thrown = site.post("/api/practice/move", json={"fen": fen, "moves": [losing]}).json()
    assert thrown["verdict"]["kept"] is False and thrown["verdict"]["before"] == "win"


def test_the_lost_side_resists_longest(site: TestClient, tables_dir: Path) -> None:
    fen = "W:WK3,11:BK29"
    tables = Tablebase(tables_dir)
    values = tables_move_values(tables, Board(fen)) or []
    best = min((d or 0, str(m)) for m, v, d in values if v == "win")[1]
    body = site.post("/api/practice/move", json={"fen": fen, "moves": [best]}).json()
    board = Board(fen)
    board.push_notation(best)
    defence = tables_move_values(tables, board) or []
    longest = max(d or 0 for _m, _v, d in defence)
    assert body["reply"] in {board.notation(m) for m, _v, d in defence if (d or 0) == longest}


def test_a_won_ending_played_best_ends_the_game_by_the_rules_R16(
    site: TestClient, tables_dir: Path
) -> None:
    fen = "W:WK3,K15:BK16,20"
    tables = Tablebase(tables_dir)
    board = Board(fen)
    moves: list[str] = []
    for _ in range(60):
        values = tables_move_values(tables, board) or []
        best = min(((d or 0, m) for m, v, d in values if v == "win"), key=lambda x: x[0])[1]
        moves.append(board.notation(best))
        board.push(best)
        body = site.post("/api/practice/move", json={"fen": fen, "moves": moves}).json()
        assert body["verdict"]["kept"] is True
        if body["over"] is not None:
            assert body["over"]["winner"] == "white" and "(R16)" in body["over"]["reason"]
            return
        moves.append(body["reply"])
        board.push_notation(body["reply"])
    raise AssertionError("the ending did not end")


def test_positions_beyond_the_tables_and_illegal_moves_are_refused_by_name(
    site: TestClient,
) -> None:
    r = site.post("/api/practice/start", json={"fen": Board().fen()})
    assert r.status_code == 400 and "do not cover" in r.text
    r = site.post("/api/practice/move", json={"fen": "W:WK3,11:BK29", "moves": ["11-16"]})
    assert r.status_code == 400 and error_code(r) == "bad_request"
    assert "move 1 '11-16'" in r.text and "(R" in r.text


def test_a_server_without_tables_says_so(
    make_client: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare = make_client(tables_dir=tmp_path / "none", practice_build_pieces=0)
    r = bare.post("/api/practice/start", json={"fen": "W:WK3,11:BK29"})
    assert r.status_code == 503 and "turned off" in r.text  # POOLCHECKERS_EGDB=off
    monkeypatch.delenv("POOLCHECKERS_EGDB", raising=False)
    r = bare.post("/api/practice/start", json={"fen": "W:WK3,11:BK29"})
    assert r.status_code == 503 and error_code(r) == "tables_unavailable"
    assert "no endgame tables" in r.text


def test_a_server_builds_its_tables_on_first_use(
    make_client: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POOLCHECKERS_EGDB", raising=False)
    fresh = make_client(tables_dir=tmp_path / "egdb", practice_build_pieces=3)
    r = fresh.post("/api/practice/start", json={"fen": "W:WK3,11:BK29"})
    assert r.status_code == 200 and r.json()["value"] == "win"
    assert (tmp_path / "egdb").is_dir()
