"""A Swiss event read from a FIDE TRF16 file: an event exported by the site imports
as the same event; a file of an event begun over the board goes on from its next
round on the site; a file that contradicts itself is refused, naming the player's
line, the round and the fault, and nothing is stored."""

from __future__ import annotations

from typing import Any

import pytest
from argon2.profiles import CHEAPEST
from caissify_pairings.trf import parse_trf, write_trf
from fastapi.testclient import TestClient

from poolcheckers.server.tournaments import trf
from poolcheckers.server.tournaments.model import TournamentError

from ..conftest import AppFactory
from ..helpers import error_code
from .test_tournament_api import RAPID, event, play_out, sign_up

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
