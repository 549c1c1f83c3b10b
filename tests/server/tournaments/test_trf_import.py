"""A Swiss event read from a FIDE TRF16 file: an event exported by the site imports
as the same event; a file of an event begun over the board goes on from its next
round on the site; a file that contradicts itself is refused, naming the player's
line, the round and the fault, and nothing is stored."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from argon2.profiles import CHEAPEST
from caissify_pairings.trf import parse_trf, write_trf
from fastapi.testclient import TestClient

from poolcheckers.server.tournaments import trf
from poolcheckers.server.tournaments.model import TournamentError

from ..conftest import AppFactory
from ..helpers import error_code, server_context
from .slow_reading import endless_read, slow_read
from .test_tournament_api import RAPID, event, play_out, sign_up, wait_for

NAMES = ("ann", "bob", "cid", "dan", "eve")


@pytest.fixture
def site(make_client: AppFactory) -> TestClient:
    return make_client(
        password_parameters=CHEAPEST, tournament_sweep_interval=0.05, signup_limit=(100, 3600.0)
    )


def trf_text(rounds: int, results: dict[str, dict[int, tuple[str | None, str | None, str]]]) -> str:
    """A TRF16 file (caissify-pairings' writer): ``results[name][round]`` is
    (opponent's name or None, "w"/"b" or None, result code)."""
    number = {name: i for i, name in enumerate(results, start=1)}
    players = [
        {
            "starting_number": number[name],
            "name": name,
            "rating": 1500,
            "score": 0.0,
            "results": {
                rnd: {
                    "opponent": None if opp is None else number[opp],
                    "color": colour,
                    "result": code,
                }
                for rnd, (opp, colour, code) in rounds_of.items()
            },
        }
        for name, rounds_of in results.items()
    ]
    text: str = write_trf({"name": "Over the board"}, players, rounds)
    return text


def meetings(body: dict[str, Any]) -> set[tuple[int, frozenset[str]]]:
    return {
        (p["round"], frozenset((p["black"], p["white"]))) for p in body["pairings"] if not p["bye"]
    }


def test_a_swiss_exported_as_trf_imports_as_the_same_finished_event(site: TestClient) -> None:
    players = {name: sign_up(site, name) for name in NAMES}
    made = players["ann"].post(
        "/api/tournaments",
        json={"name": "Club Swiss", "system": "swiss", "clock": RAPID, "rounds": 3},
    )
    tid = made.json()["id"]
    for client in players.values():
        client.post(f"/api/tournaments/{tid}/join", json={})
    players["ann"].post(f"/api/tournaments/{tid}/start")
    play_out(site, tid, players, lambda p: p["white"])
    exported = site.get(f"/api/tournaments/{tid}/trf").text

    r = players["bob"].post("/api/tournaments/import", json={"trf": exported, "clock": RAPID})
    assert r.status_code == 200, r.text
    copy = r.json()
    assert copy["name"] == "Club Swiss" and copy["status"] == "finished"
    original, imported = event(site, tid), event(site, copy["id"])
    assert meetings(imported) == meetings(original)
    assert [(s["username"], s["score"]) for s in imported["standings"]] == [
        (s["username"], s["score"]) for s in original["standings"]
    ]
    again = parse_trf(site.get(f"/api/tournaments/{copy['id']}/trf").text)["players"]
    first = parse_trf(exported)["players"]
    assert [(p["name"], p["score"], p["results"]) for p in again] == [
        (p["name"], p["score"], p["results"]) for p in first
    ]
    # games played elsewhere have no game page, and the event's PDN holds none of them
    assert all(p["game"] is None for p in imported["pairings"])


def test_an_event_begun_over_the_board_goes_on_from_its_next_round(site: TestClient) -> None:
    players = {name: sign_up(site, name) for name in NAMES[:4]}
    begun = trf_text(
        3,
        {
            "ann": {1: ("bob", "w", "1")},
            "bob": {1: ("ann", "b", "0")},
            "cid": {1: ("dan", "w", "=")},
            "dan": {1: ("cid", "b", "=")},
        },
    )
    r = players["ann"].post(
        "/api/tournaments/import", json={"trf": begun, "clock": RAPID, "name": "Club night"}
    )
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    body = event(site, tid)
    assert body["status"] == "created" and body["round"] == 1
    assert {s["username"]: s["score"] for s in body["standings"]} == {
        "ann": 1.0, "bob": 0.0, "cid": 0.5, "dan": 0.5,
    }  # fmt: skip
    for name in ("bob", "cid", "dan"):  # named by the file: invited, each accepts
        assert players[name].post(f"/api/tournaments/{tid}/accept", json={}).is_success
    players["ann"].post(f"/api/tournaments/{tid}/start")
    assert play_out(site, tid, players, lambda p: p["black"]) == 4
    final = event(site, tid)
    assert final["round"] == 3 and final["status"] == "finished"
    met = [m for _rnd, m in meetings(final)]
    assert len(met) == len(set(met)) == 6  # round 1 from the file, 2 and 3 on the site
    assert sum(s["score"] for s in final["standings"]) == 6


@pytest.mark.parametrize(
    ("results", "words"),
    [
        (
            {"ann": {1: ("bob", "w", "1")}, "bob": {1: ("ann", "b", "1")}},
            "TRF player 1 (ann), round 1: '1' against player 2's '1'",
        ),
        (
            {"ann": {1: ("bob", "w", "1")}, "bob": {1: ("ann", "w", "0")}},
            "the colours must be w and b",
        ),
        (
            {"ann": {1: ("bob", "w", "1")}, "bob": {}},
            "player 2 does not report meeting them",
        ),
        (
            {"ann": {1: ("bob", "w", "1")}, "bob": {1: ("ann", "b", "0")}, "zed": {}},
            "no account named 'zed'",
        ),
    ],
)
def test_a_trf_file_that_contradicts_itself_is_refused_and_nothing_is_stored(
    site: TestClient, results: dict[str, dict[int, tuple[str | None, str | None, str]]], words: str
) -> None:
    director = sign_up(site, "ann")
    sign_up(site, "bob")
    r = director.post("/api/tournaments/import", json={"trf": trf_text(3, results), "clock": RAPID})
    assert r.status_code == 400 and error_code(r) == "bad_request", r.text
    assert words in r.json()["error"]["message"]
    assert site.get("/api/tournaments").json() == []


def test_two_game_matches_are_imported_before_their_first_round_only(site: TestClient) -> None:
    director = sign_up(site, "ann")
    sign_up(site, "bob")
    played = trf_text(2, {"ann": {1: ("bob", "w", "1")}, "bob": {1: ("ann", "b", "0")}})
    r = director.post(
        "/api/tournaments/import",
        json={"trf": played, "clock": RAPID, "games_per_pairing": 2},
    )
    assert r.status_code == 400 and "one result per round" in r.text
    entry = trf_text(2, {"ann": {}, "bob": {}})
    r = director.post(
        "/api/tournaments/import", json={"trf": entry, "clock": RAPID, "games_per_pairing": 2}
    )
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "created" and r.json()["round"] == 0


def test_byes_and_forfeits_of_a_trf_file_keep_their_points() -> None:
    text = trf_text(
        2,
        {
            "ann": {1: ("bob", "w", "+"), 2: (None, None, "H")},
            "bob": {1: ("ann", "b", "-"), 2: ("cid", "w", "-")},
            "cid": {1: (None, None, "U"), 2: ("bob", "b", "-")},
        },
    )
    read = trf.read(text)
    assert read.played_rounds == 2 and read.total_rounds == 2
    assert read.meetings == (
        trf.TrfMeeting(1, 1, 2, "black", forfeit=True),
        trf.TrfMeeting(1, 3, None, "bye", bye_points=1.0),
        trf.TrfMeeting(2, 1, None, "bye", bye_points=0.5),
        trf.TrfMeeting(2, 2, 3, "none", forfeit=True),
    )


def test_a_trf_file_too_large_or_not_trf_is_refused_by_name() -> None:
    with pytest.raises(TournamentError, match="at most 400 KB"):
        trf.read("012 x\n" + "x" * trf.MAX_TRF_BYTES)
    with pytest.raises(TournamentError, match="not a TRF16 file: No players"):
        trf.read("012 Nobody came\nXXR 3\n")
    with pytest.raises(TournamentError, match="at least two 001 player lines"):
        trf.read(trf_text(3, {"ann": {}}))


# ---------------------------------------------------------------- consent
def make_bot(site: TestClient, name: str) -> TestClient:
    """An account upgraded to a bot (it plays through the bot API only)."""
    client = sign_up(site, name)
    token = client.post("/api/account/tokens", json={"label": "e", "scopes": ["bot:play"]})
    auth = {"Authorization": f"Bearer {token.json()['token']}"}
    assert client.post("/api/bot/account/upgrade", headers=auth).status_code == 200
    return client


Results = dict[str, dict[int, tuple[str | None, str | None, str]]]
FINISHED: Results = {
    "ann": {1: ("bob", "w", "1")},
    "bob": {1: ("ann", "b", "0")},
    "cid": {1: ("dan", "w", "0")},
    "dan": {1: ("cid", "b", "1")},
}


def page(site: TestClient, name: str) -> list[str]:
    return [e["id"] for e in site.get(f"/api/users/{name}/tournaments").json()]


def invitations(site: TestClient, tid: str) -> dict[str, str | None]:
    return {s["username"]: s["invitation"] for s in event(site, tid)["standings"]}


def test_a_finished_import_is_on_a_named_players_page_only_once_they_confirm_it(
    site: TestClient,
) -> None:
    players = {name: sign_up(site, name) for name in ("ann", "bob", "cid", "dan")}
    r = players["ann"].post(
        "/api/tournaments/import", json={"trf": trf_text(1, FINISHED), "clock": RAPID}
    )
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    # the director is in; everyone else the file names is invited, on no page
    assert invitations(site, tid) == {"ann": None, "bob": "invited", "cid": "invited",
                                      "dan": "invited"}  # fmt: skip
    assert page(site, "ann") == [tid]
    assert page(site, "bob") == page(site, "dan") == []
    assert event(site, tid)["players"] == 1
    asked = players["dan"].get("/api/tournaments/invitations").json()
    assert [e["id"] for e in asked] == [tid]
    mine = event(players["dan"], tid)["you"]
    assert mine["invitation"] == "invited" and not mine["joined"]

    assert players["dan"].post(f"/api/tournaments/{tid}/accept", json={}).status_code == 200
    assert players["bob"].post(f"/api/tournaments/{tid}/decline").status_code == 200
    assert page(site, "dan") == [tid] and page(site, "bob") == []
    assert invitations(site, tid) == {"ann": None, "bob": "declined", "cid": "invited",
                                      "dan": None}  # fmt: skip
    assert players["dan"].get("/api/tournaments/invitations").json() == []
    again = players["dan"].post(f"/api/tournaments/{tid}/accept", json={})
    assert again.status_code == 409 and error_code(again) == "conflict"


def test_starting_an_unfinished_import_pairs_only_the_players_who_accepted(
    site: TestClient,
) -> None:
    players = {name: sign_up(site, name) for name in ("ann", "bob", "cid", "dan")}
    file = trf_text(3, {name: {} for name in players})
    r = players["ann"].post("/api/tournaments/import", json={"trf": file, "clock": RAPID})
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    # nobody accepted: the director alone cannot start it
    refused = players["ann"].post(f"/api/tournaments/{tid}/start")
    assert refused.status_code == 409 and "at least 2 players" in refused.text
    assert players["cid"].post(f"/api/tournaments/{tid}/accept", json={}).status_code == 200
    assert players["ann"].post(f"/api/tournaments/{tid}/start").status_code == 200
    round_one = wait_for(lambda: event(site, tid)["pairings"])
    assert [(p["black"], p["white"]) for p in round_one if not p["bye"]] in (
        [("ann", "cid")],
        [("cid", "ann")],
    )
    for name in ("bob", "dan"):
        assert all(name not in (p["black"], p["white"]) for p in round_one)
        assert players[name].get("/api/games?status=running&mine=true").json()["total"] == 0
    assert players["cid"].get("/api/games?status=running&mine=true").json()["total"] == 1


def test_a_bot_or_a_player_who_blocks_the_importer_cannot_be_put_in(site: TestClient) -> None:
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    make_bot(site, "robo")
    file: Results = {"ann": {1: ("robo", "w", "0")}, "robo": {1: ("ann", "b", "1")}}
    r = ann.post("/api/tournaments/import", json={"trf": trf_text(1, file), "clock": RAPID})
    assert r.status_code == 403 and "bot accounts cannot play in tournaments" in r.text
    assert "'robo'" in r.text

    assert bob.post("/api/blocks", json={"username": "ann"}).status_code == 200
    file = {"ann": {1: ("bob", "w", "1")}, "bob": {1: ("ann", "b", "0")}}
    r = ann.post("/api/tournaments/import", json={"trf": trf_text(1, file), "clock": RAPID})
    assert r.status_code == 403 and "'bob' do not accept invitations from you" in r.text
    assert site.get("/api/tournaments").json() == []
    assert page(site, "bob") == []


def test_accepting_an_invitation_passes_the_checks_of_a_join(site: TestClient) -> None:
    players = {name: sign_up(site, name) for name in ("ann", "bob", "cid")}
    file = trf_text(3, {name: {} for name in players})
    r = players["ann"].post(
        "/api/tournaments/import", json={"trf": file, "clock": RAPID, "password": "kings row"}
    )
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    bob, cid = players["bob"], players["cid"]
    for wrong in ({}, {"password": "queens row"}):
        refused = bob.post(f"/api/tournaments/{tid}/accept", json=wrong)
        assert refused.status_code == 403 and "needs its password" in refused.text
    assert bob.post(f"/api/tournaments/{tid}/accept", json={"password": "kings row"}).is_success
    # blocking the director after the invitation: accepting is refused
    assert cid.post("/api/blocks", json={"username": "ann"}).status_code == 200
    refused = cid.post(f"/api/tournaments/{tid}/accept", json={"password": "kings row"})
    assert refused.status_code == 403 and "you block ann" in refused.text
    assert invitations(site, tid)["cid"] == "invited"
    # an invited player's Join is no way round the checks
    joined = cid.post(f"/api/tournaments/{tid}/join", json={"password": "kings row"})
    assert joined.status_code == 409 and "accept the invitation" in joined.text

    ranged = trf_text(3, {"ann": {}, "bob": {}})
    r = players["ann"].post(
        "/api/tournaments/import",
        json={"trf": ranged, "clock": RAPID, "rating_range": [1700, 2200]},
    )
    refused = bob.post(f"/api/tournaments/{r.json()['id']}/accept", json={})
    assert refused.status_code == 403 and "this event is for ratings 1700 to 2200" in refused.text


def test_an_invitation_not_accepted_does_not_keep_a_player_from_becoming_a_bot(
    site: TestClient,
) -> None:
    players = {name: sign_up(site, name) for name in ("ann", "bob", "cid")}
    r = players["ann"].post(
        "/api/tournaments/import",
        json={"trf": trf_text(3, {name: {} for name in players}), "clock": RAPID},
    )
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    assert players["cid"].post(f"/api/tournaments/{tid}/decline").status_code == 200
    for name in ("bob", "cid"):  # invited, declined: neither is entered in the event
        token = players[name].post(
            "/api/account/tokens", json={"label": "e", "scopes": ["bot:play"]}
        )
        auth = {"Authorization": f"Bearer {token.json()['token']}"}
        upgraded = players[name].post("/api/bot/account/upgrade", headers=auth)
        assert upgraded.status_code == 200, upgraded.text
    # and a bot cannot take the place it was invited to
    refused = players["bob"].post(f"/api/tournaments/{tid}/accept", json={})
    assert refused.status_code == 403 and "bot" in refused.text
    assert invitations(site, tid) == {"ann": None, "bob": "invited", "cid": "declined"}


# ---------------------------------------------------------------- cost
def test_failed_imports_count_towards_the_daily_limit(site: TestClient) -> None:
    ann = sign_up(site, "ann")
    sign_up(site, "bob")
    bad = trf_text(3, {"ann": {1: ("bob", "w", "1")}, "bob": {1: ("ann", "b", "1")}})
    for _ in range(10):
        r = ann.post("/api/tournaments/import", json={"trf": bad, "clock": RAPID})
        assert r.status_code == 400, r.text
    good = trf_text(3, {"ann": {}, "bob": {}})
    r = ann.post("/api/tournaments/import", json={"trf": good, "clock": RAPID})
    assert r.status_code == 429 and error_code(r) == "rate_limited", r.text
    assert "at most 10 events a day" in r.text


def test_an_oversize_trf_file_is_refused_before_it_is_parsed(site: TestClient) -> None:
    ann = sign_up(site, "ann")
    imports = server_context(site).tournament_imports
    long_line = trf_text(3, {"ann": {}, "bob": {}}) + "\n001    3" + " " * 400 + "1 w 1"
    too_big = "012 x\n" + "x" * trf.MAX_TRF_BYTES
    for text, words in ((too_big, "at most 400 KB"), (long_line, "a line may have at most 331")):
        r = ann.post("/api/tournaments/import", json={"trf": text, "clock": RAPID})
        assert r.status_code == 400 and words in r.text, r.text
    assert imports._pool is None  # no worker was ever started: nothing was parsed
    huge = ann.post(
        "/api/tournaments/import", json={"trf": "x" * (2 * trf.MAX_TRF_BYTES), "clock": RAPID}
    )
    assert huge.status_code == 413


def test_a_slow_trf_parse_runs_off_the_event_loop(site: TestClient) -> None:
    ann = sign_up(site, "ann")
    sign_up(site, "bob")
    imports = server_context(site).tournament_imports
    imports.reader = slow_read  # 2 s of work in the worker process
    answers: list[int] = []
    importing = threading.Thread(
        target=lambda: answers.append(
            ann.post(
                "/api/tournaments/import",
                json={"trf": trf_text(3, {"ann": {}, "bob": {}}), "clock": RAPID},
            ).status_code
        )
    )
    importing.start()
    wait_for(lambda: imports._one_at_a_time.locked())
    slowest = 0.0
    while importing.is_alive():
        began = time.monotonic()
        assert site.get("/api/health").status_code == 200
        slowest = max(slowest, time.monotonic() - began)
        time.sleep(0.05)
    importing.join()
    assert answers == [200]
    assert slowest < 1.0, slowest


def test_a_trf_parse_past_its_time_is_ended_and_refused(site: TestClient) -> None:
    ann = sign_up(site, "ann")
    sign_up(site, "bob")
    imports = server_context(site).tournament_imports
    imports.reader, imports.budget_s = endless_read, 1.0
    file = trf_text(3, {"ann": {}, "bob": {}})
    began = time.monotonic()
    r = ann.post("/api/tournaments/import", json={"trf": file, "clock": RAPID})
    assert r.status_code == 400 and "took more than 1.0 s to read" in r.text
    assert time.monotonic() - began < 10
    assert site.get("/api/tournaments").json() == []
    imports.reader = trf.read  # a new worker reads the next file
    r = ann.post("/api/tournaments/import", json={"trf": file, "clock": RAPID})
    assert r.status_code == 200, r.text
