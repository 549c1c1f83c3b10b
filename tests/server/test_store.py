"""Storage: migrations, restart-resume, and moves racing for one ply (DB guarantees)."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, inspect, select
from sqlalchemy.exc import IntegrityError

from poolcheckers import Board
from poolcheckers.server.app import Settings, create_app
from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.database.tables import MOVES
from poolcheckers.server.errors import ApiError
from poolcheckers.server.games.model import NewGame
from poolcheckers.server.games.seats import hash_token
from poolcheckers.server.games.service import GameService
from poolcheckers.server.timesource import ManualTime

from .helpers import acted, move, new_game, online_game, played, seat_header, state_of


def test_migrations_create_the_schema_and_are_idempotent(db_url: str) -> None:
    engine = make_engine(db_url)
    run_migrations(engine)
    run_migrations(engine)
    insp = inspect(engine)
    assert {"games", "moves", "alembic_version"} <= set(insp.get_table_names())
    pk = insp.get_pk_constraint("moves")["constrained_columns"]
    assert sorted(pk) == ["game_id", "ply"]
    engine.dispose()


def test_restarted_server_resumes_every_game(db_url: str, clock: ManualTime) -> None:
    settings = Settings(
        allowed_hosts=("testserver",), database_url=db_url, clock=clock, sweep_interval=3600
    )
    with TestClient(create_app(settings)) as c1:
        gid, black, white = online_game(c1, clock={"initial": 60, "increment": 1})
        for ply, (tok, mv) in enumerate([(black, "11-15"), (white, "22-18"), (black, "15x22")]):
            clock.advance(2)
            assert move(c1, gid, tok, mv, ply).status_code == 200
        c1.post(f"/api/games/{gid}/draw-offer", json={"token": white})
        local = new_game(c1, mode="local", rules={"king_only_move_limit": 15})
        lid, ltok = local["game"]["id"], local["token"]
        move(c1, lid, ltok, "9-13", 0)
        finished_id, fb, fw = online_game(c1)
        move(c1, finished_id, fb, "11-15", 0)
        move(c1, finished_id, fw, "23-19", 1)
        c1.post(f"/api/games/{finished_id}/resign", json={"token": fb})
        before = {g: c1.get(f"/api/games/{g}").json() for g in (gid, lid, finished_id)}
    # a new server process over the same database
    with TestClient(create_app(settings)) as c2:
        for g, state in before.items():
            assert c2.get(f"/api/games/{g}").json() == state
        resumed = c2.get(f"/api/games/{gid}", headers=seat_header(white)).json()
        assert resumed["your_color"] == "white"  # seat tokens still work (hashes stored)
        assert resumed["draw_offer"] == "white"
        assert resumed["moves"] == ["11-15", "22-18", "15x22"]
        # each side's first move was free: only 15x22 cost Black time
        assert resumed["clock"]["black"] == 60 - 2 + 1 and resumed["clock"]["running"] == "white"
        clock.advance(1)
        r = move(c2, gid, white, "25x18", 3)
        assert r.status_code == 200, r.text
        assert r.json()["clock"]["white"] == 60 - 1 + 1
        assert c2.get(f"/api/games/{lid}").json()["rules"]["king_only_move_limit"] == 15
        assert c2.get(f"/api/games/{finished_id}").json()["outcome"]["termination"] == (
            "resignation"
        )


def test_only_token_hashes_are_stored(db_url: str) -> None:
    engine = make_engine(db_url)
    run_migrations(engine)
    service = GameService(engine)
    committed, token, invite = service.creator.open(NewGame(mode="online"))
    g = committed.loaded.game
    assert g.black_token_hash == hash_token(token) != token
    assert invite is not None and g.invite_hash == hash_token(invite)
    raw = Path(engine.url.database or "").read_bytes()
    assert token.encode() not in raw and invite.encode() not in raw
    engine.dispose()


def test_unique_game_ply_is_enforced_by_the_database(db_url: str) -> None:
    engine = make_engine(db_url)
    run_migrations(engine)
    service = GameService(engine)
    committed, token, _ = service.creator.open(NewGame(mode="local"))
    gid = committed.loaded.game.id
    service.move(gid, token, "11-15", 0)
    row: dict[str, Any] = {
        "game_id": gid,
        "ply": 0,
        "notation": "12-16",
        "path": "12-16",
        "color": "black",
        "created_ms": 0,
        "black_ms": None,
        "white_ms": None,
        "draw_offer": None,
        "version": 9,
    }
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(insert(MOVES).values(row))
    engine.dispose()


def race(
    services: list[GameService], gid: str, token: str, moves: list[str]
) -> tuple[list[str], list[str]]:
    """Send every move at ply 0 at once, from one thread each; (winners, error codes)."""
    barrier = threading.Barrier(len(moves))
    wins: list[str] = []
    losses: list[str] = []

    def attempt(i: int, mv: str) -> None:
        barrier.wait()
        try:
            services[i % len(services)].move(gid, token, mv, 0)
            wins.append(mv)
        except ApiError as exc:
            losses.append(exc.code)

    threads = [threading.Thread(target=attempt, args=(i, mv)) for i, mv in enumerate(moves)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return wins, losses


@pytest.mark.parametrize("processes", [1, 2])
def test_moves_racing_for_one_ply_have_exactly_one_winner(db_url: str, processes: int) -> None:
    """Threads in one or two "processes" (services with their own caches and locks,
    over one database) each try a different legal move at ply 0."""
    engines = [make_engine(db_url) for _ in range(processes)]
    run_migrations(engines[0])
    services = [GameService(e) for e in engines]
    legal = [m.full_notation() for m in Board().legal_moves]
    for _round in range(10):
        committed, token, _ = services[0].creator.open(NewGame(mode="local"))
        gid = committed.loaded.game.id
        for s in services:
            s.view(gid)  # warm every cache at version 1
        wins, losses = race(services, gid, token, legal)
        assert len(wins) == 1, (wins, losses)
        assert losses == ["stale_ply"] * (len(legal) - 1)
        with engines[0].connect() as conn:
            rows = conn.execute(select(MOVES.c.path).where(MOVES.c.game_id == gid)).all()
        assert [r[0] for r in rows] == wins
        for s in services:
            state = state_of(s, gid)
            assert state["moves"] == wins and state["ply"] == 1
    for e in engines:
        e.dispose()


def test_stale_cache_in_another_process_loses_the_compare_and_set(db_url: str) -> None:
    engine_a, engine_b = make_engine(db_url), make_engine(db_url)
    run_migrations(engine_a)
    a, b = GameService(engine_a), GameService(engine_b)
    committed, token, _ = a.creator.open(NewGame(mode="local"))
    gid = committed.loaded.game.id
    b.view(gid)  # b caches version 1
    a.move(gid, token, "11-15", 0)
    # b sees the new version (its cache is stale) and answers with the stored move
    with pytest.raises(ApiError) as exc:
        b.move(gid, token, "12-16", 0)
    assert exc.value.code == "stale_ply"
    assert played(b, gid, token, "11-15", 0)["moves"] == ["11-15"]  # a retry through b
    assert played(b, gid, token, "22-18", 1)["moves"] == ["11-15", "22-18"]
    assert state_of(a, gid)["moves"] == ["11-15", "22-18"]
    engine_a.dispose()
    engine_b.dispose()


def test_other_process_sees_moves_and_takebacks(db_url: str) -> None:
    """A process with a cached game catches up with moves (played incrementally) and
    with a takeback (earlier plies rewritten: replayed from the start)."""
    engine_a, engine_b = make_engine(db_url), make_engine(db_url)
    run_migrations(engine_a)
    a = GameService(engine_a, engine_available=lambda: True)
    b = GameService(engine_b, engine_available=lambda: True)
    committed, token, _ = a.creator.open(NewGame(mode="engine", level=3))
    gid = committed.loaded.game.id
    a.move(gid, token, "11-15", 0)
    a.engine_move(gid, 1, "22-18")  # as if the engine had replied
    assert state_of(b, gid)["moves"] == ["11-15", "22-18"]
    a.move(gid, token, "15x22", 2)
    a.engine_move(gid, 3, "25x18")
    assert state_of(b, gid)["moves"] == ["11-15", "22-18", "15x22", "25x18"]
    a.act(gid, "takeback", token)
    assert state_of(b, gid)["moves"] == ["11-15", "22-18"]
    a.act(gid, "takeback", token)
    a.move(gid, token, "9-13", 0)
    a.engine_move(gid, 1, "22-18")
    state_b = state_of(b, gid)
    assert state_b == state_of(a, gid)
    assert state_b["moves"] == ["9-13", "22-18"] and state_b["fen"] == a.loaded(gid).board.fen()
    engine_a.dispose()
    engine_b.dispose()


def test_caches_of_two_processes_agree_with_the_database(db_url: str) -> None:
    """Random legal moves, draw offers and takebacks sent through two services in
    turn: both always answer what a fresh service (no cache) reads from the database."""
    rng = random.Random(7)
    engine_a, engine_b, engine_c = make_engine(db_url), make_engine(db_url), make_engine(db_url)
    run_migrations(engine_a)
    a = GameService(engine_a, engine_available=lambda: True)
    b = GameService(engine_b, engine_available=lambda: True)
    for _game in range(3):
        committed, token, _ = a.creator.open(NewGame(mode="engine", level=3))
        gid = committed.loaded.game.id
        for _step in range(40):
            s = rng.choice([a, b])
            state = state_of(s, gid)
            if state["status"] != "running":
                break
            roll = rng.random()
            if roll < 0.1 and state["ply"] >= 2 and state["turn"] == "black":
                state = acted(s, gid, "takeback", token)
            elif roll < 0.15 and state["draw_offer"] is None:
                state = acted(s, gid, "draw-offer", token)
            else:
                mv = rng.choice(state["legal_moves"])["notation"]
                if state["turn"] == "black":
                    state = played(s, gid, token, mv, state["ply"])
                else:
                    answered = s.engine_move(gid, state["ply"], mv)
                    assert answered is not None
                    state = answered.state().model_dump()
            fresh = state_of(GameService(engine_c), gid)
            assert state_of(a, gid) == fresh
            assert state_of(b, gid) == fresh
            assert state["moves"] == fresh["moves"]
    for e in (engine_a, engine_b, engine_c):
        e.dispose()


@pytest.mark.parametrize("interval", [0.05, 3600.0])
def test_sqlite_wal_is_checkpointed_in_the_background(
    tmp_path: Path, clock: ManualTime, interval: float
) -> None:
    """Commits never checkpoint (no fsync of the database file while answering a
    move); the background task does it: the main file only grows when it runs."""
    path = tmp_path / "games.sqlite3"
    settings = Settings(
        allowed_hosts=("testserver",),
        database_url=f"sqlite:///{path}",
        clock=clock,
        checkpoint_interval=interval,
        games_per_minute=1000,  # sixty games in a frozen minute
    )
    with TestClient(create_app(settings)) as client:
        time.sleep(0.2)
        before = path.stat().st_size
        for _ in range(60):
            gid, black, _ = online_game(client)
            assert move(client, gid, black, "11-15", 0).status_code == 200
        time.sleep(0.5)
        grew = path.stat().st_size > before
    assert grew == (interval < 1)
