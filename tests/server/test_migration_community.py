"""Migration 0002 (community tables, account seats on games) keeps every stored game:
a database made by revision 0001, with games of every mode in it, is upgraded;
every game reads the same and goes on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, inspect, select

from poolcheckers import Board
from poolcheckers.server.database.engine import MIGRATIONS_DIR, make_engine, run_migrations
from poolcheckers.server.database.tables import GAMES, MOVES
from poolcheckers.server.games.model import NewGame
from poolcheckers.server.games.service import GameService
from poolcheckers.server.timesource import ManualTime

from .helpers import acted, played, state_of

#: the columns of revision 0001 (what an old server stored)
GAMES_0001 = {
    "id", "mode", "status", "rules", "start_fen", "level", "engine_color",
    "black_token_hash", "white_token_hash", "invite_hash", "clock_initial_ms",
    "clock_increment_ms", "black_ms", "white_ms", "clock_running", "turn_started_ms",
    "deadline_ms", "ply", "draw_offer", "termination", "winner", "result", "reason", "tags",
    "version", "created_ms", "updated_ms",
}  # fmt: skip


def migrate(engine: Engine, revision: str, *, down: bool = False) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, revision)


def make_games(service: GameService, clock: ManualTime) -> dict[str, Any]:
    """Games of every mode, running and finished; the seat tokens by game."""
    tokens: dict[str, Any] = {}
    local, t, _ = service.creator.open(NewGame(mode="local"))
    gid = local.loaded.game.id
    played(service, gid, t, "11-15", 0)
    played(service, gid, t, "23-19", 1)
    tokens["local"] = (gid, t)
    eng, t, _ = service.creator.open(NewGame(mode="engine", level=3))
    tokens["engine"] = (eng.loaded.game.id, t)
    online, black, invite = service.creator.open(
        NewGame(mode="online", clock_initial=60, clock_increment=2)
    )
    gid = online.loaded.game.id
    assert invite is not None
    _view, white = service.join(gid, invite)
    played(service, gid, black, "11-15", 0)
    clock.advance(3)
    played(service, gid, white, "23-19", 1)
    tokens["online_clock"] = (gid, black, white)
    waiting, t, _ = service.creator.open(NewGame(mode="online", color="white", clock_initial=300))
    tokens["online_waiting"] = (waiting.loaded.game.id, t)
    done, t, _ = service.creator.open(NewGame(mode="local", rules={"repetition_draw": False}))
    acted(service, done.loaded.game.id, "resign", t)
    tokens["resigned"] = (done.loaded.game.id, t)
    board = Board()
    board.push(board.parse_move("11-15"))
    tokens["imported"] = service.import_game(board, {"Event": "Club"}, "1-0", None)[0]
    return tokens


def copy_0001_rows(src: Engine, dst: Engine) -> None:
    with src.connect() as a, dst.begin() as b:
        games = [
            {k: v for k, v in dict(r).items() if k in GAMES_0001}
            for r in a.execute(select(GAMES)).mappings()
        ]
        moves = [dict(r) for r in a.execute(select(MOVES)).mappings()]
        b.execute(GAMES.insert(), games)
        b.execute(MOVES.insert(), moves)


def test_upgrade_from_0001_keeps_every_game(tmp_path: Path) -> None:
    clock = ManualTime()
    made = make_engine(f"sqlite:///{tmp_path / 'made.sqlite3'}")
    run_migrations(made)
    source = GameService(made, clock, engine_available=lambda: True)
    tokens = make_games(source, clock)
    ids = [v if isinstance(v, str) else v[0] for v in tokens.values()]
    before = {gid: state_of(source, gid) for gid in ids}

    old = make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    migrate(old, "0001")
    assert "users" not in inspect(old).get_table_names()
    old_columns = {c["name"] for c in inspect(old).get_columns("games")}
    assert old_columns == GAMES_0001
    copy_0001_rows(made, old)
    with old.connect() as conn:
        n_moves = len(conn.execute(select(MOVES.c.ply)).all())

    run_migrations(old)  # to head, as a server does at start-up
    tables = set(inspect(old).get_table_names())
    assert {"users", "sessions", "ratings", "rating_updates", "seeks"} <= tables
    with old.connect() as conn:
        assert len(conn.execute(select(MOVES.c.ply)).all()) == n_moves
    upgraded = GameService(old, clock, engine_available=lambda: True)
    assert {gid: state_of(upgraded, gid) for gid in ids} == before

    # the games go on: a move, a fallen flag (R20), a join
    gid, t = tokens["local"]
    assert played(upgraded, gid, t, "8-11", 2)["ply"] == 3
    gid, _black, _white = tokens["online_clock"]
    clock.advance(120)
    assert state_of(upgraded, gid)["status"] == "finished"
    gid, t = tokens["engine"]
    assert played(upgraded, gid, t, "11-15", 0)["ply"] == 1


def test_downgrade_keeps_the_games(tmp_path: Path) -> None:
    clock = ManualTime()
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    run_migrations(engine)
    service = GameService(engine, clock)
    gid, t = make_games_local(service)
    migrate(engine, "0001", down=True)
    assert "users" not in inspect(engine).get_table_names()
    assert {c["name"] for c in inspect(engine).get_columns("games")} == GAMES_0001
    with engine.connect() as conn:
        assert conn.execute(select(MOVES.c.ply).where(MOVES.c.game_id == gid)).all() == [(0,)]
    run_migrations(engine)
    assert played(GameService(engine, clock), gid, t, "23-19", 1)["ply"] == 2


def make_games_local(service: GameService) -> tuple[str, str]:
    created, t, _ = service.creator.open(NewGame(mode="local"))
    gid = created.loaded.game.id
    played(service, gid, t, "11-15", 0)
    return gid, t
