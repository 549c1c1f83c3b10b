"""The rules page's words: every rule of docs/RULES.md (R1-R21) and every rule option,
told without rule ids, each position's moves the library's own."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from poolcheckers import Board, RuleSet
from poolcheckers.server.rulebook.model import RULES, rulebook

RULE_ID = re.compile(r"\bR\d{1,2}\b|§|RULES\.md")


def test_every_rule_and_option_is_told() -> None:
    ids = [entry["id"] for entry in rulebook()]
    assert ids == [f"R{n}" for n in range(1, 22)] + [o.name for o in RuleSet.options()]


def test_players_read_no_rule_ids() -> None:
    for entry in rulebook():
        for field in ("title", "text", "note", "section"):
            assert not RULE_ID.search(entry[field]), (entry["id"], field, entry[field])


def test_each_position_and_its_moves_are_the_librarys() -> None:
    for rule in RULES:
        if rule.fen is None:
            continue
        board = Board(rule.fen)
        assert board.fen() == rule.fen
        [entry] = [e for e in rulebook() if e["id"] == rule.id]
        assert entry["board"] == board.squares()
        assert entry["moves"] == [board.notation(m) for m in board.legal_moves]
    r11 = next(e for e in rulebook() if e["id"] == "R11")
    assert r11["moves"] == ["15x24"]  # the capture is compulsory: nothing else


def test_the_rulebook_route(client: TestClient) -> None:
    answer = client.get("/api/rulebook")
    assert answer.status_code == 200
    assert answer.json()["rules"] == rulebook()
    assert client.get("/rules").status_code == 200
