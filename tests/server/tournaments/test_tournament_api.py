"""Tournaments over HTTP: a round robin of two-game matches played to the end (the
crosstable, the winner, the event's PDN, CSV and TRF), a Swiss event, an arena with
berserk, the director's powers, and the checks on joining."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from argon2.profiles import CHEAPEST
from caissify_pairings.trf import parse_trf
from fastapi.testclient import TestClient
from sqlalchemy import update

from poolcheckers.server.database.tables import TOURNAMENTS
from poolcheckers.server.games.seats import hash_token
from poolcheckers.server.timesource import ManualTime

from ..conftest import AppFactory
from ..helpers import error_code, play_plies, server_context

PASSWORD = "correct horse battery"
RAPID = {"initial": 600, "increment": 5}


def sign_up(app: TestClient, name: str) -> TestClient:
    client = TestClient(app.app)
    r = client.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


@pytest.fixture
def site(make_client: AppFactory) -> TestClient:
    return make_client(
        password_parameters=CHEAPEST, tournament_sweep_interval=0.05, signup_limit=(100, 3600.0)
    )


def wait_for(check: Callable[[], Any], seconds: float = 10.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError("timed out")


def event(client: TestClient, tid: str) -> dict[str, Any]:
    r = client.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def in_play(client: TestClient, tid: str) -> list[dict[str, Any]]:
    return [
        p for p in event(client, tid)["pairings"] if p["game"] is not None and p["result"] is None
    ]


def finish(players: dict[str, TestClient], pairing: dict[str, Any], winner: str) -> None:
    """Play two plies and have the loser resign (a resignation before both sides moved
    would end the game with no result)."""
    play_plies(players[pairing["black"]], players[pairing["white"]], pairing["game"], 2)
    loser = pairing["white"] if winner == pairing["black"] else pairing["black"]
    r = players[loser].post(f"/api/games/{pairing['game']}/resign", json={})
    assert r.status_code == 200, r.text


def play_out(
    site: TestClient,
    tid: str,
    players: dict[str, TestClient],
    winner: Callable[[dict[str, Any]], str],
) -> int:
    """Play every game of the event as it starts, until it is over; how many."""
    done: set[str] = set()
    deadline = time.monotonic() + 60
    while event(site, tid)["status"] != "finished":
        assert time.monotonic() < deadline, "the event did not finish"
        for pairing in in_play(site, tid):
            if pairing["game"] not in done:
                finish(players, pairing, winner(pairing))
                done.add(pairing["game"])
        time.sleep(0.02)
    return len(done)


def test_a_round_robin_of_two_game_matches_is_played_to_its_crosstable_and_winner(
    site: TestClient,
) -> None:
    players = {name: sign_up(site, name) for name in ("ann", "bob", "cid")}
    r = players["ann"].post(
        "/api/tournaments",
        json={"name": "Division 1", "system": "round_robin", "clock": RAPID,
              "games_per_pairing": 2},
    )  # fmt: skip
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    for client in players.values():
        assert client.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    r = players["bob"].post(f"/api/tournaments/{tid}/start")
    assert error_code(r) == "forbidden"  # only the creator starts it
    assert players["ann"].post(f"/api/tournaments/{tid}/start").status_code == 200
    # ann wins every game; between the others, the side that began wins
    played = play_out(site, tid, players, lambda p: "ann" if "ann" in (p["black"], p["white"])
                      else p["black"])  # fmt: skip
    final = event(site, tid)
    assert played == 6  # 3 matches of 2 games
    assert final["winner"] == "ann"
    rows = {s["username"]: s for s in final["standings"]}
    # each player sat out one round: a bye is worth a match won (2 points)
    assert (rows["ann"]["score"], rows["bob"]["score"], rows["cid"]["score"]) == (6, 3, 3)
    assert rows["bob"]["rank"] == rows["cid"]["rank"] == 2  # level on every tie-break
    cross = final["crosstable"]
    at = {name: i for i, name in enumerate(cross["players"])}
    assert cross["rows"][at["ann"]][at["bob"]] == "2"
    assert cross["rows"][at["bob"]][at["cid"]] == "1"
    assert {(p["round"], p["leg"]) for p in final["pairings"] if not p["bye"]} == {
        (r, leg) for r in (1, 2, 3) for leg in (1, 2)
    }
    # the second game of each match swaps who begins
    legs = [p for p in final["pairings"] if not p["bye"]]
    for one in (p for p in legs if p["leg"] == 1):
        two = next(p for p in legs if p["leg"] == 2 and p["round"] == one["round"])
        assert (two["black"], two["white"]) == (one["white"], one["black"])
    pdn = site.get(f"/api/tournaments/{tid}/pdn").text
    assert pdn.count('[Event "Division 1"]') == 6
    assert '[Round "1"]' in pdn and '[Board "1"]' in pdn
    csv = site.get(f"/api/tournaments/{tid}/csv").text.splitlines()
    assert csv[0].startswith("rank,player,rating,score") and csv[1].startswith("1,ann,")


def test_a_swiss_event_pairs_its_rounds_gives_a_bye_and_exports_trf(site: TestClient) -> None:
    players = {name: sign_up(site, name) for name in ("ann", "bob", "cid", "dan", "eve")}
    tid = (
        players["ann"]
        .post(
            "/api/tournaments",
            json={"name": "Club Swiss", "system": "swiss", "clock": RAPID, "rounds": 3},
        )
        .json()["id"]
    )
    for client in players.values():
        client.post(f"/api/tournaments/{tid}/join", json={})
    players["ann"].post(f"/api/tournaments/{tid}/start")
    assert play_out(site, tid, players, lambda p: p["black"]) == 6
    final = event(site, tid)
    met = [frozenset((p["black"], p["white"])) for p in final["pairings"] if not p["bye"]]
    assert len(met) == len(set(met)) == 6
    byes = [p["black"] for p in final["pairings"] if p["bye"]]
    assert len(byes) == len(set(byes)) == 3
    assert sum(s["score"] for s in final["standings"]) == 6 + 3
    trf = site.get(f"/api/tournaments/{tid}/trf").text
    assert trf.startswith("012 Club Swiss")
    assert sum(line.startswith("001 ") for line in trf.splitlines()) == 5
    assert "0000 - U" in trf
    # the file reads back with a FIDE TRF16 reader: the same players, scores and meetings
    parsed = parse_trf(trf)
    scores = {s["username"]: s["score"] for s in final["standings"]}
    assert {p["name"]: p["score"] for p in parsed["players"]} == scores
    number = {p["starting_number"]: p["name"] for p in parsed["players"]}
    read_back = {
        frozenset((p["name"], number[r["opponent"]]))
        for p in parsed["players"]
        for r in p["results"].values()
        if r["opponent"] is not None
    }
    assert read_back == set(met)


def test_an_arena_pairs_present_players_and_berserk_halves_the_clock(
    site: TestClient, clock: ManualTime
) -> None:
    players = {name: sign_up(site, name) for name in ("ann", "bob", "cid", "dan")}
    tid = players["ann"].post(
        "/api/tournaments",
        json={"name": "Blitz Arena", "system": "arena", "clock": {"initial": 180,
              "increment": 2}, "duration_minutes": 30},
    ).json()["id"]  # fmt: skip
    for client in players.values():
        client.post(f"/api/tournaments/{tid}/join", json={})
    players["ann"].post(f"/api/tournaments/{tid}/start")
    games = wait_for(lambda: len(in_play(site, tid)) == 2 and in_play(site, tid))
    seated = [p for g in games for p in (g["black"], g["white"])]
    assert sorted(seated) == ["ann", "bob", "cid", "dan"]
    first = games[0]
    r = players[first["black"]].post(
        f"/api/tournaments/{tid}/berserk", json={"game": first["game"]}
    )
    assert r.status_code == 200, r.text
    state = site.get(f"/api/games/{first['game']}").json()
    assert state["clock"]["black"] == pytest.approx(90, abs=0.5)
    finish(players, first, first["black"])
    # both players of that game are free again and paired anew (with each other: the
    # others are busy) once the sweep runs
    wait_for(lambda: len(in_play(site, tid)) == 2 and {g["game"] for g in in_play(site, tid)}
             != {g["game"] for g in games})  # fmt: skip
    rows = {s["username"]: s for s in event(site, tid)["standings"]}
    assert rows[first["black"]]["sheet"] == [2]  # a berserk win under 14 plies: no bonus
    clock.advance(31 * 60)
    wait_for(lambda: event(site, tid)["status"] == "finished")


def test_joining_is_refused_when_full_with_a_wrong_password_or_after_a_round_robin_began(
    site: TestClient,
) -> None:
    ann, bob, cid = (sign_up(site, n) for n in ("ann", "bob", "cid"))
    tid = ann.post(
        "/api/tournaments",
        json={"name": "Club night", "system": "round_robin", "clock": RAPID,
              "max_players": 2, "password": "kings row"},
    ).json()["id"]  # fmt: skip
    assert error_code(bob.post(f"/api/tournaments/{tid}/join", json={"password": "x"})) == (
        "forbidden"
    )
    for c in (ann, bob):
        assert c.post(f"/api/tournaments/{tid}/join", json={"password": "kings row"}).is_success
    r = cid.post(f"/api/tournaments/{tid}/join", json={"password": "kings row"})
    assert error_code(r) == "conflict" and "full" in r.json()["error"]["message"]
    ann.post(f"/api/tournaments/{tid}/start")
    assert bob.post(f"/api/tournaments/{tid}/withdraw").is_success
    r = cid.post(f"/api/tournaments/{tid}/join", json={"password": "kings row"})
    assert error_code(r) == "conflict"


def test_a_player_who_never_moves_loses_by_forfeit(site: TestClient, clock: ManualTime) -> None:
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    tid = ann.post(
        "/api/tournaments",
        json={"name": "Quick", "system": "round_robin", "clock": RAPID, "forfeit_minutes": 2},
    ).json()["id"]
    ann.post(f"/api/tournaments/{tid}/join", json={})
    bob.post(f"/api/tournaments/{tid}/join", json={})
    ann.post(f"/api/tournaments/{tid}/start")
    game = wait_for(lambda: in_play(site, tid))[0]
    assert ann.post(f"/api/games/{game['game']}/abort", json={}).status_code == 409
    clock.advance(121)
    final = wait_for(lambda: (e := event(site, tid))["status"] == "finished" and e)
    assert final["winner"] == game["white"]  # Black never moved
    state = site.get(f"/api/games/{game['game']}").json()
    assert "did not make a first move" in str(state["outcome"])


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"system": "swiss"}, "needs rounds"),
        ({"system": "arena"}, "duration_minutes"),
        ({"system": "round_robin", "rules": {"repetition_draw": True}}, "APCA"),
        ({"system": "round_robin", "max_players": 30}, "2 to 24"),
    ],
)
def test_a_bad_event_is_refused_naming_the_setting(
    site: TestClient, body: dict[str, Any], words: str
) -> None:
    ann = sign_up(site, "ann")
    r = ann.post("/api/tournaments", json={"name": "Bad", "clock": RAPID, **body})
    assert error_code(r) == "bad_request" and words in r.json()["error"]["message"]
    assert server_context(site).tournaments.store.listed(None) == []


def test_a_swiss_forbidden_pair_never_meets(site: TestClient) -> None:
    players = {name: sign_up(site, name) for name in ("ann", "bob", "cid", "dan")}
    r = players["ann"].post(
        "/api/tournaments",
        json={"name": "Family Swiss", "system": "swiss", "clock": RAPID, "rounds": 2,
              "forbidden": [["Ann", "cid"]]},
    )  # fmt: skip
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    for client in players.values():
        client.post(f"/api/tournaments/{tid}/join", json={})
    players["ann"].post(f"/api/tournaments/{tid}/start")
    assert play_out(site, tid, players, lambda p: p["black"]) == 4
    met = {frozenset((p["black"], p["white"])) for p in event(site, tid)["pairings"]}
    assert frozenset(("ann", "cid")) not in met
    bad = players["ann"].post(
        "/api/tournaments",
        json={"name": "RR", "system": "round_robin", "clock": RAPID, "forbidden": [["a", "b"]]},
    )
    assert error_code(bad) == "bad_request"


def test_a_round_with_a_set_time_waits_for_it(site: TestClient, clock: ManualTime) -> None:
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    tid = ann.post(
        "/api/tournaments",
        json={"name": "Weekly", "system": "round_robin", "clock": RAPID, "double": True,
              "round_minutes": 60},
    ).json()["id"]  # fmt: skip
    for c in (ann, bob):
        c.post(f"/api/tournaments/{tid}/join", json={})
    ann.post(f"/api/tournaments/{tid}/start")
    first = wait_for(lambda: in_play(site, tid))[0]
    finish({"ann": ann, "bob": bob}, first, first["black"])
    wait_for(lambda: event(site, tid)["pairings"][0]["result"] is not None)
    time.sleep(0.3)  # a few sweeps: round 2 must wait for its time
    state = event(site, tid)
    assert state["round"] == 1 and state["next_round_at"] is not None
    clock.advance(60 * 60)
    second = wait_for(lambda: [p for p in in_play(site, tid) if p["round"] == 2])
    assert (second[0]["black"], second[0]["white"]) == (first["white"], first["black"])


def test_one_account_makes_at_most_ten_events_a_day(site: TestClient, clock: ManualTime) -> None:
    ann = sign_up(site, "ann")
    body = {"name": "Club night", "system": "round_robin", "clock": RAPID}
    for _ in range(10):
        assert ann.post("/api/tournaments", json=body).status_code == 200
    r = ann.post("/api/tournaments", json=body)
    assert error_code(r) == "rate_limited" and "10 events a day" in r.json()["error"]["message"]
    assert int(r.headers["Retry-After"]) > 0
    clock.advance(24 * 3600)
    assert ann.post("/api/tournaments", json=body).status_code == 200


def test_a_swiss_of_two_game_matches_swaps_colours_and_counts_matches(site: TestClient) -> None:
    players = {name: sign_up(site, name) for name in ("ann", "bob", "cid", "dan", "eve")}
    tid = players["ann"].post(
        "/api/tournaments",
        json={"name": "Match Swiss", "system": "swiss", "clock": RAPID, "rounds": 2,
              "games_per_pairing": 2},
    ).json()["id"]  # fmt: skip
    for client in players.values():
        client.post(f"/api/tournaments/{tid}/join", json={})
    players["ann"].post(f"/api/tournaments/{tid}/start")
    # the side that begins wins each game: every match is drawn 1-1
    assert play_out(site, tid, players, lambda p: p["black"]) == 2 * 2 * 2
    final = event(site, tid)
    games = [p for p in final["pairings"] if not p["bye"]]
    for one in (g for g in games if g["leg"] == 1):
        two = next(g for g in games if g["leg"] == 2 and (g["round"], g["board"]) ==
                   (one["round"], one["board"]))  # fmt: skip
        assert (two["black"], two["white"]) == (one["white"], one["black"])
    rows = {s["username"]: s for s in final["standings"]}
    byes = [p["black"] for p in final["pairings"] if p["bye"]]
    assert len(byes) == len(set(byes)) == 2
    for name, row in rows.items():
        # a drawn match: 1 point and 1 match point; a bye: a match won, 2 and 2
        expected = 3 if name in byes else 2
        assert (row["score"], row["match_points"]) == (expected, expected)


def test_an_event_password_is_kept_salted_and_older_unsalted_ones_still_let_in(
    site: TestClient,
) -> None:
    ann, bob, cid = (sign_up(site, n) for n in ("ann", "bob", "cid"))
    club = {"name": "Club", "system": "swiss", "clock": RAPID, "rounds": 3, "password": "kings row"}
    one, two = (ann.post("/api/tournaments", json=club).json()["id"] for _ in range(2))
    store = server_context(site).tournaments.store
    first, second = store.password_hash(one), store.password_hash(two)
    assert first is not None and first.startswith("$argon2id$")
    assert first != second  # salted: the same password, two hashes
    assert bob.post(f"/api/tournaments/{one}/join", json={"password": "kings row"}).is_success
    # an event made before kept the password's unsalted SHA-256: it still lets the right
    # password in, and is then replaced by an Argon2id hash
    with store.db.begin() as conn:
        conn.execute(
            update(TOURNAMENTS)
            .where(TOURNAMENTS.c.id == two)
            .values(password_hash=hash_token("kings row"), password_argon2=None)
        )
    wrong = cid.post(f"/api/tournaments/{two}/join", json={"password": "queens row"})
    assert wrong.status_code == 403 and store.password_hash(two) == hash_token("kings row")
    assert cid.post(f"/api/tournaments/{two}/join", json={"password": "kings row"}).is_success
    rehashed = store.password_hash(two)
    assert rehashed is not None and rehashed.startswith("$argon2id$")
    assert bob.post(f"/api/tournaments/{two}/join", json={"password": "kings row"}).is_success
