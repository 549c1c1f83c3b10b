"""Puzzles over HTTP: the next puzzle near the player's rating and of a theme, an
attempt judged by the rules library (right, wrong, illegal, cut short), a signed-in
player's first attempt rated against the puzzle by Glicko-2 and the next ones not,
votes, history, the puzzle of the day chosen once for every process, and two first
attempts racing from two processes counted once."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient

from poolcheckers.puzzles import Puzzle, PuzzleError, shipped_puzzles, write_puzzles
from poolcheckers.server.timesource import ManualTime

from ..conftest import AppFactory
from ..helpers import error_code
from ..tournaments.test_tournament_api import sign_up

#: puzzles found by `poolcheckers puzzles generate` (seed 1)
SET = [
    Puzzle("2074e0a7", "B:W14,17,22,27:B5,13,15,16,19",
           ("16-20", "22-18", "15x22", "17x26", "19-24"), "material", 1300,
           ("forced_capture", "long")),
    Puzzle("9810d542", "B:W19,20,21,23,31:B3,11,12,13,14", ("3-8", "31-27", "13-17"),
           "material", 1360, ("short",)),
    Puzzle("d95da723", "W:W12,19,20,28:B3,5,8,18,K30", ("28-24", "30x16", "20x4"), "material",
           1380, ("breakthrough", "forced_capture", "king_row", "multi_jump", "sacrifice",
                  "short", "shot", "shot_2_for_1")),
    Puzzle("9423a327", "W:W14,15,17,18,21,22,23,27,28,29,31,32:B1,5,6,7,8,9,11,12,19,20",
           ("15x24",), "material", 910, ("one_move",)),
    Puzzle("c887b3d0", "W:W13,22,23,25,28,32:B6,9,15,16,20", ("23-18",), "material", 1060,
           ("one_move",)),
]  # fmt: skip
BY_ID = {p.id: p for p in SET}


def with_set(client: TestClient, puzzles: list[Puzzle] = SET) -> TestClient:
    """The app's puzzles are ``puzzles`` (not the shipped set)."""
    service = client.app.state.ctx.puzzles  # type: ignore[attr-defined]
    service._loaded = True
    service.load(puzzles, "test")
    return client


@pytest.fixture
def site(make_client: AppFactory) -> TestClient:
    return with_set(make_client(password_parameters=CHEAPEST, signup_limit=(100, 3600.0)))


def test_the_next_puzzle_has_its_position_solution_goal_and_themes(site: TestClient) -> None:
    r = site.get("/api/puzzles/next")
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) >= {"id", "fen", "solution", "goal", "rating", "themes", "source"}
    stored = BY_ID[body["id"]]
    assert body["fen"] == stored.fen and body["solution"] == list(stored.solution)
    assert body["goal"] == "material" and body["goal_text"] == "Win material"
    assert site.get(f"/api/puzzles/{stored.id}").json()["id"] == stored.id
    assert site.get("/api/puzzles/nope").status_code == 404


def test_a_theme_chooses_the_puzzles_and_an_unknown_theme_is_refused(site: TestClient) -> None:
    for _ in range(5):
        assert site.get("/api/puzzles/next?theme=shot").json()["id"] == "d95da723"
    r = site.get("/api/puzzles/next?theme=brilliancy")
    assert r.status_code == 400 and "unknown theme 'brilliancy'" in r.text
    themes = {t["theme"]: t for t in site.get("/api/puzzles/themes").json()}
    assert themes["one_move"]["count"] == 2 and themes["one_move"]["name"] == "One move"
    assert themes["block"]["count"] == 0


def test_an_attempt_is_judged_move_by_move_by_the_rules(site: TestClient) -> None:
    url = "/api/puzzles/d95da723/attempt"
    assert site.post(url, json={"moves": ["28-24", "30x16", "20x4"]}).json() == {
        "solved": True, "rating": None,
    }  # fmt: skip
    # the same move in its full notation is the same move (R4)
    assert site.post(url, json={"moves": ["28-24", "30x16", "20x11x4"]}).json()["solved"]
    # a legal move that is not the solution ends the attempt: not solved
    assert site.post(url, json={"moves": ["19-15"]}).json()["solved"] is False
    # an illegal move is refused, naming it and the rule; a line cut short too
    r = site.post(url, json={"moves": ["28-23"]})
    assert r.status_code == 400 and error_code(r) == "bad_request"
    assert "move 1 '28-23'" in r.text and "(R" in r.text
    r = site.post(url, json={"moves": ["28-24", "30x16"]})
    assert r.status_code == 400 and "stops at move 2 of 3" in r.text
    r = site.post(url, json={"moves": ["19-15", "30x23"]})
    assert r.status_code == 400


def test_a_first_attempt_is_rated_against_the_puzzle_and_the_next_ones_are_not(
    site: TestClient,
) -> None:
    ann = sign_up(site, "ann")
    url = "/api/puzzles/9810d542/attempt"
    first = ann.post(url, json={"moves": ["3-8", "31-27", "13-17"]}).json()
    assert first["solved"] is True and first["rating"]["rated"] is True
    assert first["rating"]["before"] == 1500 and first["rating"]["diff"] > 0
    puzzle = site.get("/api/puzzles/9810d542").json()
    assert puzzle["rating"] < 1360 and puzzle["plays"] == 1 and puzzle["solved"] == 1
    again = ann.post(url, json={"moves": ["3-7"]}).json()
    assert again["solved"] is False and again["rating"]["rated"] is False
    assert again["rating"]["diff"] == 0
    me = ann.get("/api/puzzles/me").json()
    assert me["rating"]["rating"] == first["rating"]["after"] and me["attempts"] == 2
    assert [(h["puzzle"], h["solved"], h["rated"]) for h in me["history"]] == [
        ("9810d542", False, False), ("9810d542", True, True),
    ]  # fmt: skip
    # a miss of another puzzle: the player's rating goes down, the puzzle's up
    miss = ann.post("/api/puzzles/c887b3d0/attempt", json={"moves": ["22-18"]}).json()
    assert miss["solved"] is False and miss["rating"]["diff"] < 0
    assert site.get("/api/puzzles/c887b3d0").json()["rating"] > 1060


def test_a_signed_in_player_is_not_given_a_puzzle_twice(site: TestClient) -> None:
    bob = sign_up(site, "bob")
    seen = set()
    for _ in range(len(SET)):
        p = bob.get("/api/puzzles/next").json()
        assert p["id"] not in seen
        seen.add(p["id"])
        r = bob.post(f"/api/puzzles/{p['id']}/attempt", json={"moves": p["solution"]})
        assert r.json()["solved"] is True
    r = bob.get("/api/puzzles/next")
    assert r.status_code == 404 and "tried them all" in r.text


def test_votes_are_one_per_player_and_can_change(site: TestClient) -> None:
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    assert site.post("/api/puzzles/c887b3d0/vote", json={"vote": 1}).status_code == 401
    assert ann.post("/api/puzzles/c887b3d0/vote", json={"vote": 1}).json() == {"up": 1, "down": 0}
    assert ann.post("/api/puzzles/c887b3d0/vote", json={"vote": 1}).json() == {"up": 1, "down": 0}
    assert bob.post("/api/puzzles/c887b3d0/vote", json={"vote": -1}).json() == {"up": 1, "down": 1}
    assert ann.post("/api/puzzles/c887b3d0/vote", json={"vote": 0}).json() == {"up": 0, "down": 1}
    assert ann.post("/api/puzzles/c887b3d0/vote", json={"vote": 5}).status_code == 400


def test_the_stored_puzzles_are_listed_page_by_page(site: TestClient) -> None:
    first = site.get("/api/puzzles?offset=0&limit=3").json()
    rest = site.get("/api/puzzles?offset=3&limit=3").json()
    assert len(first) == 3 and len(rest) == 2
    assert {p["id"] for p in first + rest} == set(BY_ID)


Pair = tuple[TestClient, TestClient]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def two_processes(request: pytest.FixtureRequest) -> Iterator[Pair]:
    settings: dict[str, Any] = {
        "password_parameters": CHEAPEST, "signup_limit": (100, 3600.0), "clock": ManualTime(),
    }  # fmt: skip
    with ExitStack() as stack:
        if request.param == "sqlite":
            make: AppFactory = request.getfixturevalue("make_client")
            yield with_set(make(**settings)), with_set(make(**settings))
        else:
            pg: AppFactory = request.getfixturevalue("pg_app")
            yield (
                with_set(stack.enter_context(pg(**settings))),
                with_set(stack.enter_context(pg(**settings))),
            )


def test_the_puzzle_of_the_day_is_one_for_every_process(two_processes: Pair) -> None:
    one, two = two_processes
    days: list[str] = []
    barrier = threading.Barrier(8)

    def read(client: TestClient) -> None:
        barrier.wait()
        days.append(client.get("/api/puzzles/daily").json()["id"])

    threads = [threading.Thread(target=read, args=(c,)) for c in (one, two) * 4]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(days) == 8 and len(set(days)) == 1
    assert (len(BY_ID[days[0]].solution) + 1) // 2 >= 2  # a puzzle of several moves


def test_first_attempts_racing_in_two_processes_are_rated_once(two_processes: Pair) -> None:
    one, two = two_processes
    ann = sign_up(one, "ann")
    ann_two = TestClient(two.app, cookies=ann.cookies, headers=dict(ann.headers))
    answers: list[dict[str, Any]] = []
    barrier = threading.Barrier(6)

    def attempt(client: TestClient) -> None:
        barrier.wait()
        r = client.post("/api/puzzles/9810d542/attempt", json={"moves": ["3-8", "31-27", "13-17"]})
        assert r.status_code == 200, r.text
        answers.append(r.json()["rating"])

    threads = [threading.Thread(target=attempt, args=(c,)) for c in (ann, ann_two) * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a["rated"] for a in answers) == [False] * 5 + [True]
    puzzle = one.get("/api/puzzles/9810d542").json()
    assert puzzle["plays"] == 1
    me = ann.get("/api/puzzles/me").json()
    assert me["attempts"] == 6 and [h["rated"] for h in me["history"]].count(True) == 1


def test_more_puzzles_are_imported_from_a_file_checked_by_the_rules(
    site: TestClient, tmp_path: Path
) -> None:
    service = site.app.state.ctx.puzzles  # type: ignore[attr-defined]
    extra = Puzzle("e1", "W:W22,27:B18,11", ("22x8",), "material", 1100, ("multi_jump",))
    bad = tmp_path / "bad.jsonl"
    write_puzzles(bad, [extra, Puzzle("e2", "W:W22,27:B18,11", ("27-23",), "material", 1100)])
    with pytest.raises(PuzzleError, match="puzzle e2, move 1 '27-23'"):
        service.import_file(bad)
    assert site.get("/api/puzzles/e1").status_code == 404  # nothing stored
    good = tmp_path / "good.jsonl"
    write_puzzles(good, [extra, SET[0]])
    assert service.import_file(good) == (1, 1)
    assert site.get("/api/puzzles/e1").json()["solution"] == ["22x8"]


def test_a_position_from_the_board_editor_becomes_a_puzzle_when_one_move_wins(
    site: TestClient,
) -> None:
    ann = sign_up(site, "ann")
    # a shot of the shipped run, set up by hand: White gives a man and takes three
    fen = "W:W19,27,28,29,30,31,32:B2,3,4,6,8,9,18,20,21"
    assert site.post("/api/puzzles/propose", json={"fen": fen}).status_code == 401
    r = ann.post("/api/puzzles/propose", json={"fen": fen})
    assert r.status_code == 200, r.text
    made = r.json()
    assert made["solution"][0] == "27-24" and made["goal"] == "material"
    assert made["source"]["game"] == "board editor (ann)"
    assert site.get(f"/api/puzzles/{made['id']}").json()["fen"] == fen
    # the same position again: the stored puzzle
    assert ann.post("/api/puzzles/propose", json={"fen": fen}).json()["id"] == made["id"]
    # the start position has no single best move: no puzzle, said in words
    start = ann.post("/api/puzzles/propose", json={"fen": "B:W21-32:B1-12"})
    assert start.status_code == 400 and "no puzzle here" in start.text
    bad = ann.post("/api/puzzles/propose", json={"fen": "W:W1:B2"})
    assert bad.status_code == 400


@pytest.mark.parametrize("db", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_the_shipped_set_is_stored_once_when_two_processes_start_on_it_together(
    request: pytest.FixtureRequest, db: str
) -> None:
    with ExitStack() as stack:
        if db == "sqlite":
            make: AppFactory = request.getfixturevalue("make_client")
            apps = [make(), make()]
        else:
            pg: AppFactory = request.getfixturevalue("pg_app")
            apps = [stack.enter_context(pg()), stack.enter_context(pg())]
        barrier = threading.Barrier(len(apps))
        codes: list[int] = []

        def first_request(client: TestClient) -> None:
            barrier.wait()
            codes.append(client.get("/api/puzzles/themes").status_code)

        threads = [threading.Thread(target=first_request, args=(a,)) for a in apps]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert codes == [200, 200]
        listed = apps[0].get("/api/puzzles?offset=0&limit=500").json()
        assert len(listed) == 500
        service = apps[1].app.state.ctx.puzzles  # type: ignore[attr-defined]
        assert service.store.count("shipped") == len(shipped_puzzles()) >= 2000
