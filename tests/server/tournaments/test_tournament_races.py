"""Exactness under races: two server processes (two apps over one database, SQLite
and PostgreSQL) moving the same events on at once, with game ends, withdrawals and
arena pairings racing: each result counts once, no player is paired twice in a
round or twice at once in an arena, no round starts twice."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient

from poolcheckers.server.timesource import ManualTime
from poolcheckers.server.tournaments.model import TournamentConflict
from poolcheckers.server.tournaments.service import TournamentService

from ..conftest import AppFactory
from ..helpers import server_context
from .test_tournament_api import RAPID, event, finish, in_play, play_out, sign_up, wait_for
from .test_trf_import import trf_text

Pair = tuple[TestClient, TestClient]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def two_processes(request: pytest.FixtureRequest) -> Iterator[Pair]:
    """Two apps over one database, their sweeps moving tournaments on every 50 ms."""
    clock = ManualTime()
    settings: dict[str, Any] = {
        "password_parameters": CHEAPEST,
        "signup_limit": (100, 3600.0),  # a dozen players sign up from one address
        "tournament_sweep_interval": 0.05,
        # two apps over one SQLite file hear nothing of each other's changes
        "tournament_read_cache": 0.0,
        "sweep_interval": 0.05,
        "clock": clock,
    }
    with ExitStack() as stack:
        if request.param == "sqlite":
            make: AppFactory = request.getfixturevalue("make_client")
            yield make(**settings), make(**settings)
        else:
            pg: AppFactory = request.getfixturevalue("pg_app")
            one = stack.enter_context(pg(**settings))
            two = stack.enter_context(pg(**settings))
            yield one, two


def race(services: list[TournamentService], fn: Callable[[TournamentService], object]) -> None:
    """``fn`` on every service from 4 threads each, all released at once."""
    start = threading.Barrier(4 * len(services))
    errors: list[BaseException] = []

    def run(s: TournamentService) -> None:
        start.wait()
        try:
            fn(s)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(s,)) for s in services for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def check_rounds(final: dict[str, Any]) -> None:
    boards = Counter((p["round"], p["board"], p["leg"]) for p in final["pairings"])
    assert all(n == 1 for n in boards.values()), boards
    for number in {p["round"] for p in final["pairings"]}:
        seen = [
            name
            for p in final["pairings"]
            if p["round"] == number and p["leg"] == 1
            for name in (p["black"], p["white"])
            if name is not None
        ]
        assert len(seen) == len(set(seen)), (number, seen)


def test_a_round_robin_moved_on_by_two_processes_starts_each_round_once(
    two_processes: Pair,
) -> None:
    one, two = two_processes
    names = ("ann", "bob", "cid", "dan", "eve")
    players = {n: sign_up(one if i % 2 else two, n) for i, n in enumerate(names)}
    tid = players["ann"].post(
        "/api/tournaments",
        json={"name": "Race RR", "system": "round_robin", "clock": {"initial": 600,
              "increment": 5}, "games_per_pairing": 2},
    ).json()["id"]  # fmt: skip
    for c in players.values():
        assert c.post(f"/api/tournaments/{tid}/join", json={}).is_success
    services = [server_context(one).tournaments, server_context(two).tournaments]
    creator = services[0].store.get(tid)
    assert creator is not None
    started: list[bool] = []

    def start(s: TournamentService) -> None:
        try:
            s.start(tid, creator.creator_id)
            started.append(True)
        except TournamentConflict:  # "has already started": another thread won
            started.append(False)

    race(services, start)
    assert started.count(True) >= 1
    done: set[str] = set()
    deadline = time.monotonic() + 90
    while event(one, tid)["status"] != "finished":
        assert time.monotonic() < deadline
        games = [g for g in in_play(one, tid) if g["game"] not in done]
        for pairing in games:
            finish(players, pairing, pairing["black"])
            done.add(pairing["game"])
        if games:  # the game ends and every process moves the event on at once
            race(services, lambda s: s.advance(tid))
    final = event(two, tid)
    check_rounds(final)
    assert len(done) == 2 * 10  # 10 pairs of 5 players, 2 games each
    # every game won by the side that began: each player scores 1 a match, plus a bye
    assert sorted(s["score"] for s in final["standings"]) == [6.0] * 5


def test_an_arena_on_two_processes_never_pairs_a_player_twice_at_once(
    two_processes: Pair,
) -> None:
    one, two = two_processes
    names = [f"p{i:02d}" for i in range(12)]
    players = {n: sign_up(one if i % 2 else two, n) for i, n in enumerate(names)}
    tid = players["p00"].post(
        "/api/tournaments",
        json={"name": "Race Arena", "system": "arena", "clock": {"initial": 180,
              "increment": 2}, "duration_minutes": 20},
    ).json()["id"]  # fmt: skip
    for c in players.values():
        assert c.post(f"/api/tournaments/{tid}/join", json={}).is_success
    services = [server_context(one).tournaments, server_context(two).tournaments]
    services[0].start(tid, services[0].store.get(tid).creator_id)  # type: ignore[union-attr]
    for _ in range(3):
        race(services, lambda s: s.advance(tid))
        # one process at a time pairs (its lease), maybe a sweep's in the background
        games = wait_for(lambda: len(in_play(one, tid)) == 6 and in_play(one, tid))
        busy = [name for g in games for name in (g["black"], g["white"])]
        assert len(busy) == len(set(busy)) == 12
        for pairing in games:
            finish(players, pairing, pairing["white"])
        race(services, lambda s: s.advance(tid))
    final = event(two, tid)
    over = [p for p in final["pairings"] if p["result"] is not None]
    assert len(over) >= 18
    assert sum(s["wins"] for s in final["standings"]) == len(over)


def test_a_withdrawal_racing_the_next_round_leaves_consistent_pairings(
    two_processes: Pair,
) -> None:
    one, two = two_processes
    names = ("ann", "bob", "cid", "dan")
    players = {n: sign_up(one if i % 2 else two, n) for i, n in enumerate(names)}
    tid = players["ann"].post(
        "/api/tournaments",
        json={"name": "Race Swiss", "system": "swiss", "clock": {"initial": 600,
              "increment": 5}, "rounds": 3},
    ).json()["id"]  # fmt: skip
    for c in players.values():
        c.post(f"/api/tournaments/{tid}/join", json={})
    services = [server_context(one).tournaments, server_context(two).tournaments]
    players["ann"].post(f"/api/tournaments/{tid}/start")
    games = wait_for(lambda: in_play(one, tid))
    for pairing in games[1:]:
        finish(players, pairing, pairing["black"])
    last = games[0]
    # the last game of round 1 ends while dan withdraws and both processes move on
    finish(players, last, last["black"])
    withdrew = threading.Thread(target=lambda: players["dan"].post(
        f"/api/tournaments/{tid}/withdraw"))  # fmt: skip
    withdrew.start()
    race(services, lambda s: s.advance(tid))
    withdrew.join()
    play_out(one, tid, players, lambda p: p["black"])
    final = event(two, tid)
    check_rounds(final)
    rows = {s["username"]: s for s in final["standings"]}
    assert rows["dan"]["withdrawn"]
    later = [p for p in final["pairings"] if p["round"] >= 3]
    assert all("dan" not in (p["black"], p["white"]) for p in later)


def test_an_invitation_answered_on_one_process_decides_who_the_other_pairs(
    two_processes: Pair,
) -> None:
    """An imported file names four accounts: bob accepts on the second process, cid
    declines there, dan does not answer; the first process starts the event and pairs
    the director and bob only, and shows the event on their pages only."""
    one, two = two_processes
    ann = sign_up(one, "ann")
    others = {n: sign_up(two, n) for n in ("bob", "cid", "dan")}
    file = trf_text(3, {n: {} for n in ("ann", "bob", "cid", "dan")})
    made = ann.post("/api/tournaments/import", json={"trf": file, "clock": RAPID})
    assert made.status_code == 200, made.text
    tid = made.json()["id"]
    assert others["bob"].post(f"/api/tournaments/{tid}/accept", json={}).is_success
    assert others["cid"].post(f"/api/tournaments/{tid}/decline").is_success
    seen = {s["username"]: s["invitation"] for s in event(one, tid)["standings"]}
    assert seen == {"ann": None, "bob": None, "cid": "declined", "dan": "invited"}
    assert ann.post(f"/api/tournaments/{tid}/start").status_code == 200
    games = wait_for(lambda: in_play(two, tid))
    assert [{g["black"], g["white"]} for g in games] == [{"ann", "bob"}]
    for name in ("cid", "dan"):
        running = others[name].get("/api/games?status=running&mine=true").json()
        assert running["total"] == 0
        assert one.get(f"/api/users/{name}/tournaments").json() == []
    assert [e["id"] for e in one.get("/api/users/bob/tournaments").json()] == [tid]
