"""Tournament games nobody played, over HTTP: resigning or agreeing a draw before both
sides have moved is refused and the game goes on; a game ended before both sides
moved is a forfeit only when the event's no-show rule ended it, any other scores
nothing; a player who withdrew from a round robin scores no bye after leaving."""

from __future__ import annotations

import time
from typing import Any

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient

from poolcheckers import Board
from poolcheckers.server.games import model as games_model
from poolcheckers.server.games.model import Change, Loaded
from poolcheckers.server.timesource import ManualTime

from ..conftest import AppFactory
from ..helpers import error_code, play_plies, server_context
from .test_tournament_api import RAPID, event, finish, in_play, play_out, sign_up, wait_for

BLITZ = {"initial": 180, "increment": 2}


@pytest.fixture
def site(make_client: AppFactory) -> TestClient:
    return make_client(
        password_parameters=CHEAPEST, tournament_sweep_interval=0.05, signup_limit=(100, 3600.0)
    )


def started(
    site: TestClient, names: tuple[str, ...], **settings: Any
) -> tuple[str, dict[str, TestClient]]:
    """An event of ``names`` (the first creates it), started; its id and the players."""
    players = {name: sign_up(site, name) for name in names}
    r = players[names[0]].post("/api/tournaments", json={"name": "Club event", **settings})
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    for client in players.values():
        assert client.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    assert players[names[0]].post(f"/api/tournaments/{tid}/start").status_code == 200
    return tid, players


EVENTS: dict[str, dict[str, Any]] = {
    "arena": {"system": "arena", "clock": BLITZ, "duration_minutes": 30},
    "round_robin": {"system": "round_robin", "clock": RAPID},
}


def game_state(site: TestClient, gid: str) -> dict[str, Any]:
    r = site.get(f"/api/games/{gid}")
    assert r.status_code == 200, r.text
    state: dict[str, Any] = r.json()
    return state


@pytest.mark.parametrize("system", ["arena", "round_robin"])
@pytest.mark.parametrize("ply", [0, 1])
def test_resigning_or_agreeing_a_draw_before_both_sides_moved_is_refused_in_an_event(
    site: TestClient, system: str, ply: int
) -> None:
    tid, players = started(site, ("ann", "bob"), **EVENTS[system])
    game = wait_for(lambda: in_play(site, tid))[0]
    gid = game["game"]
    black, white = players[game["black"]], players[game["white"]]
    play_plies(black, white, gid, ply)
    before = game_state(site, gid)
    for seat in (black, white):
        r = seat.post(f"/api/games/{gid}/resign", json={})
        assert r.status_code == 409 and error_code(r) == "conflict", r.text
        words = r.json()["error"]["message"]
        assert "only once both sides have moved (R20)" in words and "forfeit" in words
        r = seat.post(f"/api/games/{gid}/draw-offer", json={})
        assert r.status_code == 409 and "(R17)" in r.json()["error"]["message"], r.text
    after = game_state(site, gid)
    assert after["status"] == "running" and after["ply"] == ply and after["outcome"] is None
    assert (after["version"], after["draw_offer"]) == (before["version"], None)
    assert in_play(site, tid)[0]["game"] == gid  # the event still waits for it
    # the refusal in the players' languages
    r = black.post(f"/api/games/{gid}/resign", json={}, headers={"Accept-Language": "pt-BR"})
    assert "(R20)" in r.json()["error"]["message"] and "both sides" not in r.text
    # once both sides have moved, a draw is offered and agreed as in any game
    board = Board()
    for n in range(2):
        mv = str(board.legal_moves[0])
        board.push(board.parse_move(mv))
        if n >= ply:
            r = (black, white)[n].post(f"/api/games/{gid}/move", json={"move": mv, "ply": n})
            assert r.status_code == 200, r.text
    assert black.post(f"/api/games/{gid}/draw-offer", json={}).status_code == 200
    assert white.post(f"/api/games/{gid}/draw-accept", json={}).status_code == 200
    assert game_state(site, gid)["outcome"]["termination"] == "agreement"


def test_a_draw_offered_before_both_sides_moved_cannot_be_accepted_in_an_event(
    site: TestClient,
) -> None:
    tid, players = started(site, ("ann", "bob"), **EVENTS["round_robin"])
    game = wait_for(lambda: in_play(site, tid))[0]
    gid = game["game"]

    def offered(loaded: Loaded, _now: int) -> Change:
        # an offer standing at ply 0 (made before such offers were refused)
        g = loaded.game.copy()
        g.draw_offer = "black"
        return Change(g, loaded.board, loaded.moves)

    server_context(site).games.store.run(gid, offered, lambda *_: None)
    r = players[game["white"]].post(f"/api/games/{gid}/draw-accept", json={})
    assert r.status_code == 409 and "(R17)" in r.json()["error"]["message"], r.text
    state = game_state(site, gid)
    assert state["status"] == "running" and state["outcome"] is None


def end_unplayed(site: TestClient, gid: str, why: str) -> None:
    """End ``gid`` as aborted (no result), as resigning at once used to end a rated game."""

    def op(loaded: Loaded, _now: int) -> Change:
        g = loaded.game.copy()
        games_model.end_unplayed(g, why)
        return Change(g, loaded.board, loaded.moves)

    server_context(site).games.store.run(gid, op, lambda *_: None)


@pytest.mark.parametrize("system", ["arena", "round_robin"])
def test_an_event_game_aborted_before_both_sides_moved_scores_no_point_to_anyone(
    site: TestClient, system: str
) -> None:
    tid, _players = started(site, ("ann", "bob"), **EVENTS[system])
    game = wait_for(lambda: in_play(site, tid))[0]
    end_unplayed(
        site, game["game"], "Black resigned before both sides had moved: aborted, no result"
    )
    pairing = wait_for(
        lambda: next(
            (p for p in event(site, tid)["pairings"] if p["game"] == game["game"] and p["result"]),
            None,
        )
    )
    assert (pairing["result"], pairing["aborted"], pairing["forfeit"]) == ("0-0", True, False)
    rows = {s["username"]: s for s in event(site, tid)["standings"]}
    for name in ("ann", "bob"):
        assert (rows[name]["score"], rows[name]["games"], rows[name]["wins"]) == (0, 0, 0)


def test_only_a_game_the_no_show_rule_ended_is_scored_as_a_forfeit(
    site: TestClient, clock: ManualTime
) -> None:
    tid, players = started(
        site, ("ann", "bob"), system="round_robin", clock=RAPID, forfeit_minutes=2
    )
    game = wait_for(lambda: in_play(site, tid))[0]
    play_plies(players[game["black"]], players[game["white"]], game["game"], 1)
    clock.advance(121)
    final = wait_for(lambda: (e := event(site, tid))["status"] == "finished" and e)
    assert final["winner"] == game["black"]  # White never made a first move
    [pairing] = final["pairings"]
    assert (pairing["result"], pairing["forfeit"], pairing["aborted"]) == ("2-0", True, False)
    state = game_state(site, game["game"])
    assert state["status"] == "aborted"  # no result for the game itself: never rated
    assert state["outcome"]["termination"] == "no_show"
    assert "White did not make a first move within 2 minutes" in state["outcome"]["reason"]


def test_a_player_who_withdrew_from_a_round_robin_gets_no_bye_point(site: TestClient) -> None:
    tid, players = started(site, ("ann", "bob", "cid"), system="round_robin", clock=RAPID)
    first = wait_for(lambda: in_play(site, tid))[0]
    [bye] = [p for p in event(site, tid)["pairings"] if p["bye"]]
    leaver = first["black"]  # plays round 1, so their bye comes after they leave
    assert players[leaver].post(f"/api/tournaments/{tid}/withdraw").status_code == 200
    finish(players, first, first["white"])  # the game in play goes on: they lose it
    play_out(site, tid, players, lambda p: p["black"])
    final = event(site, tid)
    rows = {s["username"]: s for s in final["standings"]}
    assert rows[leaver]["withdrawn"]
    byes = {p["black"]: p["bye_points"] for p in final["pairings"] if p["bye"]}
    assert byes[leaver] == 0  # the bye of a round begun after the withdrawal
    assert byes[bye["black"]] == 1  # a bye of a round begun before stands
    assert (rows[leaver]["score"], rows[leaver]["match_points"]) == (0, 0)


def no_show(
    site: TestClient, clock: ManualTime, tid: str, players: dict[str, TestClient], gid: str
) -> dict[str, Any]:
    """Let the no-show rule end ``gid`` (3 minutes on the clock) while every player
    keeps the event's page open; its pairing once it has a result."""
    clock.advance(181)
    for client in players.values():
        event(client, tid)  # the page is open: present for the arena's pairing
    pairing: dict[str, Any] = wait_for(
        lambda: next(
            (p for p in event(site, tid)["pairings"] if p["game"] == gid and p["result"]), None
        )
    )
    return pairing


@pytest.mark.parametrize("ply", [0, 1])
def test_an_arena_game_a_side_never_moved_in_scores_for_nobody_and_pauses_that_side(
    site: TestClient, clock: ManualTime, ply: int
) -> None:
    tid, players = started(site, ("ann", "bob"), **EVENTS["arena"])
    game = wait_for(lambda: in_play(site, tid))[0]
    gid = game["game"]
    play_plies(players[game["black"]], players[game["white"]], gid, ply)
    absent, there = (game["black"], game["white"]) if ply == 0 else (game["white"], game["black"])
    pairing = no_show(site, clock, tid, players, gid)
    assert (pairing["result"], pairing["aborted"], pairing["forfeit"]) == ("0-0", True, False)
    outcome = game_state(site, gid)["outcome"]
    side = "Black" if ply == 0 else "White"
    assert outcome["termination"] == "no_show"
    assert outcome["reason"] == (
        f"Aborted: {side} did not make a first move within 3 minutes"
        f" (arena rule: no result, {side} is paused)"
    )  # not a forfeit: the game page does not say anyone lost it
    assert outcome["winner"] is None and outcome["result"] == "*"
    pdn = site.get(f"/api/games/{gid}/pdn").text
    assert '[Result "*"]' in pdn and "forfeit" not in pdn
    rows = {s["username"]: s for s in event(site, tid)["standings"]}
    for name in (absent, there):
        assert (rows[name]["score"], rows[name]["games"], rows[name]["fire"]) == (0, 0, False)
    # who did not move is paused, and told why; the other is not
    assert wait_for(lambda: event(players[absent], tid)["you"]["paused"]) == "no_show"
    assert (rows[there]["withdrawn"], event(players[there], tid)["you"]["paused"]) == (False, None)
    mine = event(players[absent], tid)
    assert not mine["you"]["joined"]
    row = next(s for s in mine["standings"] if s["username"] == absent)
    assert (row["withdrawn"], row["paused"], rows[there]["paused"]) == (True, True, False)
    # both keep the page open: the paused player is not paired again...
    for _ in range(10):
        for client in players.values():
            event(client, tid)
        time.sleep(0.05)
    assert not in_play(site, tid)
    # ...until they press Join
    assert players[absent].post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    again = wait_for(lambda: in_play(site, tid))[0]
    assert again["game"] != gid and {again["black"], again["white"]} == {absent, there}
    assert event(players[absent], tid)["you"]["paused"] is None


def test_two_accounts_farming_an_arena_by_one_never_moving_score_nothing(
    site: TestClient, clock: ManualTime
) -> None:
    tid, players = started(site, ("farmer", "stooge"), **EVENTS["arena"])
    farmer, stooge = players["farmer"], players["stooge"]
    done: list[str] = []
    for _ in range(3):
        game = wait_for(lambda: [p for p in in_play(site, tid) if p["game"] not in done])[0]
        gid = game["game"]
        if game["black"] == "farmer":  # the farmer moves; the stooge never does
            play_plies(farmer, stooge, gid, 1)
        no_show(site, clock, tid, players, gid)
        done.append(gid)

        def next_step() -> Any:
            mine = event(stooge, tid)
            fresh = [p for p in in_play(site, tid) if p["game"] not in done]
            return mine["you"].get("paused") or fresh

        if wait_for(next_step) == "no_show":
            # the stooge comes back at once, as the farming needs
            assert stooge.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    rows = {s["username"]: s for s in event(site, tid)["standings"]}
    assert len(done) == 3
    assert (rows["farmer"]["score"], rows["farmer"]["games"], rows["farmer"]["wins"]) == (0, 0, 0)
    assert (rows["farmer"]["fire"], rows["stooge"]["score"]) == (False, 0)


@pytest.mark.parametrize(
    "settings",
    [
        {"system": "round_robin", "clock": RAPID},
        {"system": "swiss", "clock": RAPID, "rounds": 1},
    ],
)
def test_a_no_show_in_a_round_robin_or_swiss_event_is_still_a_forfeit_win(
    site: TestClient, clock: ManualTime, settings: dict[str, Any]
) -> None:
    tid, players = started(site, ("ann", "bob"), **settings)
    game = wait_for(lambda: in_play(site, tid))[0]
    pairing = no_show(site, clock, tid, players, game["game"])
    assert (pairing["result"], pairing["forfeit"], pairing["aborted"]) == ("0-2", True, False)
    final = wait_for(lambda: (e := event(site, tid))["status"] == "finished" and e)
    rows = {s["username"]: s for s in final["standings"]}
    assert (rows[game["white"]]["score"], rows[game["white"]]["wins"]) == (1, 1)
    assert (rows[game["black"]]["score"], rows[game["black"]]["withdrawn"]) == (0, False)
    assert final["winner"] == game["white"]  # Black never made a first move
    state = game_state(site, game["game"])
    assert (
        "Black did not make a first move within 3 minutes (tournament rule)"
        in (state["outcome"]["reason"])
    )


@pytest.mark.parametrize("ply", [0, 1])
def test_a_no_show_forfeit_reads_the_same_on_the_game_its_pdn_and_the_players_pages(
    site: TestClient, clock: ManualTime, ply: int
) -> None:
    """The game, its PDN (alone and in the event's), both players' pages and the event
    say one thing: the side that moved won by forfeit; no game was played (never rated)."""
    tid, players = started(site, ("ann", "bob"), **EVENTS["round_robin"])
    game = wait_for(lambda: in_play(site, tid))[0]
    gid = game["game"]
    play_plies(players[game["black"]], players[game["white"]], gid, ply)
    pairing = no_show(site, clock, tid, players, gid)
    won, lost = ("white", "black") if ply == 0 else ("black", "white")
    result = "0-2" if won == "white" else "2-0"
    assert (pairing["result"], pairing["forfeit"], pairing["aborted"]) == (result, True, False)
    state = game_state(site, gid)
    assert state["status"] == "aborted"  # no game was played: never rated
    outcome = state["outcome"]
    assert (outcome["termination"], outcome["winner"], outcome["result"]) == (
        "no_show",
        won,
        result,
    )
    assert outcome["reason"] == (
        f"{won.capitalize()} wins by forfeit: {lost.capitalize()} did not make a first move"
        " within 3 minutes (tournament rule)"
    )
    for text in (
        site.get(f"/api/games/{gid}/pdn").text,
        site.get(f"/api/tournaments/{tid}/pdn").text,
    ):
        assert f'[Result "{result}"]' in text and '[Termination "forfeit"]' in text
        assert text.rstrip().endswith(result)
    for side in (won, lost):
        page = site.get(f"/api/users/{game[side]}").json()
        [row] = page["games"]
        assert (row["result"], row["player_result"], row["forfeit"]) == (
            result,
            "win" if side == won else "loss",
            True,
        )
        assert all(perf["games"] == 0 for perf in page["ratings"].values())  # unrated
    rows = {s["username"]: s for s in event(site, tid)["standings"]}
    assert (rows[game[won]]["score"], rows[game[won]]["wins"]) == (1, 1)
    assert (rows[game[lost]]["score"], rows[game[lost]]["losses"]) == (0, 1)


@pytest.mark.parametrize(
    ("settings", "seconds", "span"),
    [
        ({"clock": RAPID, "forfeit_minutes": 1}, 61, "1 minute"),
        ({"clock": RAPID, "forfeit_minutes": 90}, 90 * 60 + 1, "90 minutes"),
        ({"clock": RAPID, "forfeit_minutes": 120}, 2 * 3600 + 1, "2 hours"),
        ({"clock": RAPID, "forfeit_minutes": 1440}, 86_401, "1 day"),
        ({"clock": {"days": 2}}, 2 * 86_400 + 1, "2 days"),
    ],
)
def test_the_no_show_reason_gives_its_time_in_words(
    site: TestClient, clock: ManualTime, settings: dict[str, Any], seconds: int, span: str
) -> None:
    tid, _players = started(site, ("ann", "bob"), system="round_robin", **settings)
    gid = wait_for(lambda: in_play(site, tid))[0]["game"]
    clock.advance(seconds)
    state = wait_for(lambda: (s := game_state(site, gid))["status"] == "aborted" and s)
    assert state["outcome"]["reason"] == (
        f"White wins by forfeit: Black did not make a first move within {span} (tournament rule)"
    )
