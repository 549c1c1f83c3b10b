"""The analysis API shows the tables: the position's value and every legal move's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from poolcheckers.egdb.play import release_engine_tables
from poolcheckers.rules import RuleSet
from poolcheckers.server.app import Settings, create_app

from .conftest import Tables


@pytest.fixture
def client(tables: Tables, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.delenv("POOLCHECKERS_EGDB", raising=False)
    monkeypatch.setenv("POOLCHECKERS_EGDB_DIR", str(tables(4, RuleSet.apca())))
    app = create_app(
        Settings(
            allowed_hosts=("testserver",), database_url=f"sqlite:///{tmp_path / 'games.sqlite3'}"
        )
    )
    with TestClient(app) as c:
        yield c
    monkeypatch.undo()
    release_engine_tables()


def test_position_and_moves_have_table_values(client: TestClient) -> None:
    r = client.post("/api/analysis/position", json={"fen": "W:WK3,K7,K10:BK32"})
    assert r.status_code == 200, r.text
    tb = r.json()["tablebase"]
    assert tb["value"] == tb["fresh_value"] == "win" and tb["dtz"] > 1
    legal = {m["notation"] for m in r.json()["legal_moves"]}
    assert {m["move"] for m in tb["moves"]} == legal
    best = min(m["dtz"] for m in tb["moves"] if m["value"] == "win")
    assert best == tb["dtz"]  # the fastest winning move converts in the position's DTZ


def test_running_count_changes_the_value(client: TestClient) -> None:
    r = client.post("/api/analysis/position", json={"fen": "W:WK3,K7,K10:BK32:C12"})
    tb = r.json()["tablebase"]
    assert tb["value"] == "draw" and tb["fresh_value"] == "win"


def test_not_covered_is_null(client: TestClient) -> None:
    r = client.post("/api/analysis/position", json={"moves": ["11-15"]})
    assert r.status_code == 200 and r.json()["tablebase"] is None
