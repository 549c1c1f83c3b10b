"""Six-piece tables in play: a six-piece file beside the smaller ones is used by every user
of the tables, as the smaller ones are: the probe, the engine's search, ``analyse``, the
Hub engine, the web analysis (which the game review reads) and endgame practice.

The set here is the four-piece one, 4 kings v 1 king and 5 kings v 1 king (the chain of
captures from 5 kings v 1 king: seconds to build); the whole six-piece set is built by
``poolcheckers egdb build --pieces 6`` (docs/EGDB.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from poolcheckers import Board
from poolcheckers.egdb import Tablebase
from poolcheckers.egdb.play import release_engine_tables
from poolcheckers.engine import Engine, Limit, describe_tables, table_hits
from poolcheckers.hub import hub_position
from poolcheckers.rules import RuleSet
from poolcheckers.server.app import Settings, create_app

from .conftest import Tables

#: 5 kings v 1 king and the material its lone king's capture leads to
SIX = ((0, 4, 0, 1), (0, 5, 0, 1))
#: Black's five kings on its own side, White's lone king in the far corner, White to move
FEN = "W:WK29:BK1,K2,K3,K6,K7"


@pytest.fixture
def six(tables: Tables, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    directory = tables(4, RuleSet.apca(), SIX)
    monkeypatch.delenv("POOLCHECKERS_EGDB", raising=False)  # tests/conftest.py turns them off
    monkeypatch.setenv("POOLCHECKERS_EGDB_DIR", str(directory))
    release_engine_tables()
    yield directory
    monkeypatch.undo()
    release_engine_tables()


def test_the_probe_answers_six_piece_positions(six: Path) -> None:
    tb = Tablebase(six)
    assert tb.max_pieces == 6
    result = tb.probe(Board(FEN))
    assert result is not None and result.value == "loss" and result.dtz is not None
    assert tb.probe(Board("B:WK29:BK1,K2,K3,K6,K7")) is not None  # Black to move too


def test_the_engine_search_probes_six_piece_positions(six: Path) -> None:
    board = Board(FEN)
    line = describe_tables(board)
    assert line is not None and line.startswith("tablebase: loss")
    result = Engine(hash_mb=4).search(board, Limit(depth=6))
    assert result.move in board.legal_moves
    hits = table_hits(board)
    assert hits is not None and hits > 0


def test_analyse_and_the_hub_engine_show_six_piece_tables(six: Path) -> None:
    env = {**os.environ, "POOLCHECKERS_EGDB_DIR": str(six)}
    env.pop("POOLCHECKERS_EGDB", None)
    command = [sys.executable, "-m", "poolcheckers.cli"]
    analyse = subprocess.run(
        [*command, "analyse", "--fen", FEN, "--depth", "4"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    ).stdout
    assert "tablebase: loss" in analyse
    hits = [line for line in analyse.splitlines() if line.startswith("tablebase hits:")]
    assert hits and int(hits[0].split(":")[1]) > 0
    script = f"hub\ninit\npos pos={hub_position(Board(FEN))}\nlevel depth=4\ngo think\nquit\n"
    hub = subprocess.run(
        [*command, "hub"], input=script, capture_output=True, text=True, env=env, timeout=120
    ).stdout
    infos = [line for line in hub.splitlines() if line.startswith("info")]
    assert infos and all("tbhits=" in line for line in infos), hub
    assert int(infos[-1].split("tbhits=")[1].split()[0]) > 0


def test_web_analysis_and_practice_use_six_piece_tables(six: Path, tmp_path: Path) -> None:
    app = create_app(
        Settings(
            allowed_hosts=("testserver",),
            database_url=f"sqlite:///{tmp_path / 'games.sqlite3'}",
            tables_dir=six,
            practice_build_pieces=0,
        )
    )
    with TestClient(app) as client:
        r = client.post("/api/analysis/position", json={"fen": FEN})
        assert r.status_code == 200, r.text
        tb = r.json()["tablebase"]
        assert tb is not None and tb["value"] == "loss"
        assert {m["move"] for m in tb["moves"]} == {m["notation"] for m in r.json()["legal_moves"]}
        started = client.post("/api/practice/start", json={"fen": FEN})
        assert started.status_code == 200, started.text
        assert started.json()["value"] == "loss"
