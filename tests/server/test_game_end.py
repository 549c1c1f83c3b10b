"""Automatic ends through the API: R18 (king-only move limit, §9 option) and the
repetition option, with the reason in words."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from .helpers import move, new_game

SHUFFLE = ["1-6", "32-27", "6-1", "27-32"]  # two kings going back and forth


def test_r18_move_limit_ends_the_game_as_a_draw(client: TestClient) -> None:
    created = new_game(client, mode="local", fen="B:WK32:BK1", rules={"king_only_move_limit": 2})
    gid, token = created["game"]["id"], created["token"]
    for ply, mv in enumerate(SHUFFLE):
        r = move(client, gid, token, mv, ply)
        assert r.status_code == 200, r.text
        state = r.json()
        assert state["counters"]["r18_plies"] == ply + 1
        assert state["counters"]["r18_limit_plies"] == 4
        assert (state["status"] == "finished") == (ply == 3)
    assert state["outcome"]["termination"] == "move_limit"
    assert state["outcome"]["result"] == "1-1" and state["outcome"]["winner"] is None
    assert "(R18)" in state["outcome"]["reason"] and "2 moves" in state["outcome"]["reason"]


def test_repetition_option_draws_on_the_third_occurrence(client: TestClient) -> None:
    created = new_game(client, mode="local", fen="B:WK32:BK1", rules={"repetition_draw": True})
    gid, token = created["game"]["id"], created["token"]
    for ply, mv in enumerate(SHUFFLE * 2):
        state = move(client, gid, token, mv, ply).json()
        assert (state["status"] == "finished") == (ply == 7), ply
    assert state["outcome"]["termination"] == "repetition"
    assert "repetition" in state["outcome"]["reason"]


def test_without_the_option_repetition_goes_on(client: TestClient) -> None:
    created = new_game(client, mode="local", fen="B:WK32:BK1")
    gid, token = created["game"]["id"], created["token"]
    for ply, mv in enumerate(SHUFFLE * 3):
        assert move(client, gid, token, mv, ply).json()["status"] == "running"


# Black's three kings fail to take White's lone king in 13 moves (no capture on the way)
THREE_KINGS = [
    "2-9",
    "29-22",
    "9-5",
    "22-29",
    "5-32",
    "29-25",
    "1-5",
    "25-30",
    "32-9",
    "30-26",
    "9-2",
    "26-13",
    "3-14",
    "13-31",
    "14-23",
    "31-20",
    "23-30",
    "20-31",
    "5-32",
    "31-17",
    "30-21",
    "17-3",
    "32-28",
    "3-12",
    "2-6",
]


@pytest.mark.parametrize(("option", "winner"), [("draw", None), ("loss", "white")])
def test_r19_three_kings_limit(client: TestClient, option: str, winner: str | None) -> None:
    created = new_game(
        client,
        mode="local",
        fen="B:WK29:BK1,K2,K3",
        rules={"three_kings_limit_result": option},
    )
    gid, token = created["game"]["id"], created["token"]
    assert created["game"]["counters"]["r19_active"] is True
    for ply, mv in enumerate(THREE_KINGS):
        state = move(client, gid, token, mv, ply).json()
        assert (state["status"] == "finished") == (ply == len(THREE_KINGS) - 1), ply
    assert state["counters"]["r19_moves"] == 13
    assert state["outcome"]["termination"] == "three_kings"
    assert state["outcome"]["winner"] == winner
    assert "(R19)" in state["outcome"]["reason"]
