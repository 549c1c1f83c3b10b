"""Puzzles over HTTP: the next puzzle near the player's rating and of a theme, served
without its solution (the puzzle of the day, one by id, the list, a proposed one
too); an attempt played move by move on the server, each move judged by the rules
library against the stored solution (right and the reply, wrong and the end,
illegal), the line shown only at the end; a signed-in player's first attempt rated
once, at its end, and the next ones not; another account's attempt refused; a
move posted twice counted once, across two server processes; votes, history, the
puzzle of the day chosen once for every process."""

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


def attempt(client: TestClient, pid: str) -> dict[str, Any]:
    r = client.post(f"/api/puzzles/{pid}/attempts")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def move(client: TestClient, rid: str, ply: int, text: str) -> Any:
    return client.post(f"/api/puzzles/attempts/{rid}/moves", json={"ply": ply, "move": text})


def solve(client: TestClient, pid: str, line: list[str] | None = None) -> dict[str, Any]:
    """Play ``line`` (the stored solution's solver moves by default) in a new
    attempt; the answer to the last move."""
    solution = list(BY_ID[pid].solution)
    moves = solution[0::2] if line is None else line
    rid = attempt(client, pid)["attempt"]
    answer: dict[str, Any] = {}
    for i, text in enumerate(moves):
        r = move(client, rid, 2 * i, text)
        assert r.status_code == 200, r.text
        answer = r.json()
    return answer


def test_no_route_serves_a_puzzle_with_its_solution(site: TestClient) -> None:
    served = [
        site.get("/api/puzzles/next").json(),
        site.get("/api/puzzles/next?theme=shot").json(),
        site.get("/api/puzzles/daily").json(),
        site.get("/api/puzzles/9810d542").json(),
        *site.get("/api/puzzles?offset=0&limit=10").json(),
    ]
    assert len(served) == 4 + len(SET)
    for body in served:
        assert {"id", "fen", "goal", "goal_text", "rating", "themes", "source"} <= set(body)
        assert "solution" not in body, body
        stored = BY_ID[body["id"]]
        assert body["fen"] == stored.fen
        # no move of the line is anywhere in the answer
        assert not any(m in str(body) for m in stored.solution), body
    assert "solution" not in attempt(site, "9810d542")
    assert site.get("/api/puzzles/nope").status_code == 404


def test_a_theme_chooses_the_puzzles_and_an_unknown_theme_is_refused(site: TestClient) -> None:
    for _ in range(5):
        assert site.get("/api/puzzles/next?theme=shot").json()["id"] == "d95da723"
    r = site.get("/api/puzzles/next?theme=brilliancy")
    assert r.status_code == 400 and "unknown theme 'brilliancy'" in r.text
    themes = {t["theme"]: t for t in site.get("/api/puzzles/themes").json()}
    assert themes["one_move"]["count"] == 2 and themes["one_move"]["name"] == "One move"
    assert themes["block"]["count"] == 0


def test_each_move_is_judged_on_the_server_and_answered_with_the_puzzles_reply(
    site: TestClient,
) -> None:
    started = attempt(site, "d95da723")
    rid = started["attempt"]
    assert started["ply"] == 0 and started["line"] == []
    # an illegal move is refused, naming it and the rule: the attempt goes on
    r = move(site, rid, 0, "28-23")
    assert r.status_code == 400 and error_code(r) == "bad_request"
    assert "move 1 '28-23'" in r.text and "(R" in r.text
    right = move(site, rid, 0, "28-24").json()
    assert right == {
        "correct": True, "move": "28-24", "reply": "30x16", "ply": 2, "state": "solving",
    }  # fmt: skip
    # the same move in its full notation is the same move (R4): the line's end
    last = move(site, rid, 2, "20x11x4").json()
    assert last["correct"] is True and last["state"] == "solved"
    assert last["solution"] == ["28-24", "30x16", "20x4"] and last["rating"] is None
    # a legal move that is not the solution's ends the attempt
    rid = attempt(site, "d95da723")["attempt"]
    wrong = move(site, rid, 0, "19-15").json()
    assert wrong["correct"] is False and wrong["state"] == "failed"
    assert wrong["move"] == "19-15" and wrong["solution"][0] == "28-24"


def test_the_line_is_shown_only_when_the_attempt_ends_and_a_wrong_move_ends_it(
    site: TestClient,
) -> None:
    rid = attempt(site, "2074e0a7")["attempt"]
    first = move(site, rid, 0, "16-20").json()
    assert "solution" not in first and first["reply"] == "22-18"
    # the next moves cannot be tried one after another: the first wrong one ends it
    wrong = move(site, rid, 2, "13x22").json()
    assert wrong["state"] == "failed" and wrong["solution"] == list(BY_ID["2074e0a7"].solution)
    for guess in ("15x22", "13x22"):
        r = move(site, rid, 2, guess)
        assert r.status_code == 409 and error_code(r) == "conflict"
        assert "ended" in r.text
    # asking for the solution ends an attempt as a miss, and shows the line
    rid = attempt(site, "2074e0a7")["attempt"]
    assert "solution" not in site.post(f"/api/puzzles/attempts/{rid}/hint").json()
    shown = site.post(f"/api/puzzles/attempts/{rid}/give-up").json()
    assert shown["state"] == "failed" and shown["solution"][0] == "16-20"
    assert move(site, rid, 0, "16-20").status_code == 409
    assert site.post(f"/api/puzzles/attempts/{rid}/give-up").status_code == 409
    assert move(site, "no-such-attempt", 0, "16-20").status_code == 404


def test_a_move_is_played_once_a_replayed_or_stale_ply_is_refused(site: TestClient) -> None:
    rid = attempt(site, "2074e0a7")["attempt"]
    assert move(site, rid, 0, "16-20").json()["ply"] == 2
    again = move(site, rid, 0, "16-20")
    assert again.status_code == 409 and "ply 0" in again.text
    assert move(site, rid, 4, "19-24").status_code == 409
    assert move(site, rid, 2, "15x22").json()["reply"] == "17x26"


def test_a_first_attempt_is_rated_once_at_its_end_and_the_next_ones_are_not(
    site: TestClient,
) -> None:
    ann = sign_up(site, "ann")
    rid = attempt(ann, "9810d542")["attempt"]
    assert move(ann, rid, 0, "3-8").json()["state"] == "solving"
    # nothing is rated while the line goes on
    assert ann.get("/api/puzzles/me").json()["attempts"] == 0
    first = move(ann, rid, 2, "13-17").json()
    assert first["state"] == "solved" and first["rating"]["rated"] is True
    assert first["rating"]["before"] == 1500 and first["rating"]["diff"] > 0
    # the last move replayed is refused: the attempt was rated once
    assert move(ann, rid, 2, "13-17").status_code == 409
    puzzle = site.get("/api/puzzles/9810d542").json()
    assert puzzle["rating"] < 1360 and puzzle["plays"] == 1 and puzzle["solved"] == 1
    again = solve(ann, "9810d542", ["3-7"])
    assert again["state"] == "failed" and again["rating"]["rated"] is False
    assert again["rating"]["diff"] == 0
    me = ann.get("/api/puzzles/me").json()
    assert me["rating"]["rating"] == first["rating"]["after"] and me["attempts"] == 2
    assert [(h["puzzle"], h["solved"], h["rated"]) for h in me["history"]] == [
        ("9810d542", False, False), ("9810d542", True, True),
    ]  # fmt: skip
    # a miss of another puzzle: the player's rating goes down, the puzzle's up
    miss = solve(ann, "c887b3d0", ["22-18"])
    assert miss["state"] == "failed" and miss["rating"]["diff"] < 0
    assert site.get("/api/puzzles/c887b3d0").json()["rating"] > 1060


def test_a_signed_out_player_trains_unrated(site: TestClient) -> None:
    assert solve(site, "9810d542") | {"solution": None} == {
        "correct": True, "move": "13-17", "reply": None, "ply": 3, "state": "solved",
        "hinted": False, "solution": None, "rating": None,
    }  # fmt: skip
    assert site.get("/api/puzzles/9810d542").json()["plays"] == 0


def test_one_address_or_one_account_cannot_flood_the_attempts(
    site: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every new attempt is a stored row: one account, or one address signed out,
    starts a bounded number an hour (counted in the database, for every process);
    going on with an open attempt costs nothing."""
    from poolcheckers.server.puzzles import service
    from poolcheckers.server.quotas import Rate

    monkeypatch.setattr(service, "ATTEMPTS_PER_HOUR", Rate("puzzles:attempts", 3, 3600))
    pids = list(BY_ID)
    for pid in pids[:3]:
        attempt(site, pid)  # signed out: the address counts
    refused = site.post(f"/api/puzzles/{pids[3]}/attempts")
    assert refused.status_code == 429 and error_code(refused) == "rate_limited", refused.text
    assert "at most 3 puzzle attempts an hour" in refused.json()["error"]["message"]
    ann = sign_up(site, "ann")  # an account counts apart from its address
    first = attempt(ann, pids[0])
    for pid in pids[1:3]:
        attempt(ann, pid)
    assert ann.post(f"/api/puzzles/{pids[3]}/attempts").status_code == 429
    assert attempt(ann, pids[2])["attempt"]  # the open attempt goes on, uncounted
    assert first["attempt"] != attempt(ann, pids[2])["attempt"]


def test_an_attempt_of_another_account_is_refused(site: TestClient) -> None:
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    rid = attempt(ann, "2074e0a7")["attempt"]
    for client in (bob, site):
        r = move(client, rid, 0, "16-20")
        assert r.status_code == 403 and error_code(r) == "forbidden", r.text
        for action in ("hint", "give-up"):
            assert client.post(f"/api/puzzles/attempts/{rid}/{action}").status_code == 403
    # ann's attempt is as it was
    assert move(ann, rid, 0, "16-20").json()["reply"] == "22-18"
    assert bob.get("/api/puzzles/me").json()["attempts"] == 0


def test_starting_again_goes_on_with_the_open_attempt_not_a_second_one(site: TestClient) -> None:
    ann = sign_up(site, "ann")
    started = attempt(ann, "2074e0a7")
    move(ann, started["attempt"], 0, "16-20")
    again = attempt(ann, "2074e0a7")
    assert again["attempt"] == started["attempt"]
    assert again["ply"] == 2 and again["line"] == ["16-20", "22-18"]


def test_an_attempt_begun_and_left_is_a_miss_when_the_player_starts_another(
    site: TestClient,
) -> None:
    ann = sign_up(site, "ann")
    begun = attempt(ann, "2074e0a7")["attempt"]
    move(ann, begun, 0, "16-20")
    looked_at = attempt(ann, "9810d542")["attempt"]
    attempt(ann, "c887b3d0")
    me = ann.get("/api/puzzles/me").json()
    assert [(h["puzzle"], h["solved"], h["rated"]) for h in me["history"]] == [
        ("2074e0a7", False, True),
    ]  # fmt: skip
    assert me["rating"]["rating"] < 1500
    assert move(ann, begun, 2, "15x22").status_code == 409
    # a puzzle looked at and left without a move is not counted
    assert move(ann, looked_at, 0, "3-8").status_code == 404


def test_a_hint_marks_the_piece_and_a_solve_after_it_is_rated_as_a_miss(
    site: TestClient,
) -> None:
    ann = sign_up(site, "ann")
    rid = attempt(ann, "9810d542")["attempt"]
    assert ann.post(f"/api/puzzles/attempts/{rid}/hint").json() == {"ply": 0, "square": 3}
    move(ann, rid, 0, "3-8")
    assert ann.post(f"/api/puzzles/attempts/{rid}/hint").json() == {"ply": 2, "square": 13}
    done = move(ann, rid, 2, "13-17").json()
    assert done["state"] == "solved" and done["hinted"] is True
    assert done["rating"]["rated"] is True and done["rating"]["diff"] < 0


def test_a_signed_in_player_is_not_given_a_puzzle_twice(site: TestClient) -> None:
    bob = sign_up(site, "bob")
    seen = set()
    for _ in range(len(SET)):
        p = bob.get("/api/puzzles/next").json()
        assert p["id"] not in seen
        seen.add(p["id"])
        assert solve(bob, p["id"])["state"] == "solved"
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


def test_a_move_posted_at_once_in_two_processes_counts_once(two_processes: Pair) -> None:
    one, two = two_processes
    ann = sign_up(one, "ann")
    ann_two = TestClient(two.app, cookies=ann.cookies, headers=dict(ann.headers))
    # an attempt started in one process is played on in the other
    rid = attempt(ann, "9810d542")["attempt"]
    assert move(ann_two, rid, 0, "3-8").json()["reply"] == "31-27"
    answers: list[tuple[int, Any]] = []
    barrier = threading.Barrier(6)

    def last_move(client: TestClient) -> None:
        barrier.wait()
        r = move(client, rid, 2, "13-17")
        answers.append((r.status_code, r.json()))

    threads = [threading.Thread(target=last_move, args=(c,)) for c in (ann, ann_two) * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(code for code, _ in answers) == [200] + [409] * 5, answers
    won = next(body for code, body in answers if code == 200)
    assert won["state"] == "solved" and won["rating"]["rated"] is True
    assert one.get("/api/puzzles/9810d542").json()["plays"] == 1
    me = ann.get("/api/puzzles/me").json()
    assert me["attempts"] == 1 and me["rating"]["rating"] == won["rating"]["after"]


def test_attempts_at_one_puzzle_ending_at_once_are_rated_once(two_processes: Pair) -> None:
    one, two = two_processes
    ann = sign_up(one, "ann")
    ann_two = TestClient(two.app, cookies=ann.cookies, headers=dict(ann.headers))
    # two open attempts at one puzzle (started at the same moment in two processes)
    rids = [attempt(ann, "c887b3d0")["attempt"]]
    rids.append(_second_open_attempt(one, rids[0]))
    answers: list[dict[str, Any]] = []
    barrier = threading.Barrier(2)

    def end(client: TestClient, rid: str) -> None:
        barrier.wait()
        r = move(client, rid, 0, "23-18")
        assert r.status_code == 200, r.text
        answers.append(r.json()["rating"])

    pairs = zip((ann, ann_two), rids, strict=True)
    threads = [threading.Thread(target=end, args=pair) for pair in pairs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a["rated"] for a in answers) == [False, True]
    assert one.get("/api/puzzles/c887b3d0").json()["plays"] == 1
    me = ann.get("/api/puzzles/me").json()
    assert me["attempts"] == 2 and [h["rated"] for h in me["history"]].count(True) == 1


def _second_open_attempt(client: TestClient, rid: str) -> str:
    """A copy of the open attempt ``rid`` under another key, as two starts racing in
    two processes would leave."""
    from poolcheckers.server.puzzles.repository import Run

    store = client.app.state.ctx.puzzles.store  # type: ignore[attr-defined]
    run = store.run(rid)
    copy = Run("second-" + rid[:8], run.user_id, run.puzzle_id, 0, "open", False)
    store.start_run(copy, 0)
    return copy.id


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
    assert site.get("/api/puzzles/e1").json()["fen"] == extra.fen
    assert service.store.get("e1").puzzle.solution == ("22x8",)


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
    assert "solution" not in made and made["goal"] == "material"
    service = site.app.state.ctx.puzzles  # type: ignore[attr-defined]
    assert service.store.get(made["id"]).puzzle.solution[0] == "27-24"
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
