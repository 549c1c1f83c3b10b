"""An online game between two browser contexts: invitation link, join, moves
seen live on the other side, clocks, draw offer, resignation."""

from __future__ import annotations

import re

import pytest

from poolcheckers import Board

from .conftest import PageFactory, Server
from .helpers import click_path, fen_pieces, move_texts, new_game, pieces, shot, wait_moves

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def test_online_game_between_two_browsers(server: Server, new_page: PageFactory) -> None:
    alice = new_page()
    game_id = new_game(alice, server.base_url, mode="online", color="black", clock=(5, 2))
    alice.wait_for_selector("#invite:not([hidden])")
    link = alice.input_value("#invite-link")
    assert re.search(rf"/play/{re.escape(game_id)}\?invite=.+", link)
    assert "waiting" in alice.inner_text("#status")
    # waiting for the invited opponent: the game can be cancelled, not resigned
    alice.wait_for_selector("#abort")
    assert alice.locator("#resign").count() == 0
    # Black plays at the bottom of Alice's board: square 1 is drawn below 32.
    top = alice.locator('rect.sq[data-square="32"]').bounding_box()
    bottom = alice.locator('rect.sq[data-square="1"]').bounding_box()
    assert top is not None and bottom is not None and top["y"] < bottom["y"]
    shot(alice, "online-invite")

    bob = new_page()
    bob.goto(link)
    bob.wait_for_selector("svg.board .piece")
    bob.wait_for_function("() => location.search === ''")
    bob.wait_for_function("() => document.querySelector('#status').textContent.includes('Black')")
    token = bob.evaluate(f"() => localStorage.getItem('poolcheckers.token.{game_id}')")
    assert token
    # The invitation box disappears on Alice's side when Bob has joined.
    alice.wait_for_selector("#invite", state="hidden")
    assert "your turn" in alice.inner_text("#status")
    # nothing to resign while waiting for the invited opponent; once joined, Resign
    alice.wait_for_selector("#resign")
    assert "opponent has joined" in alice.inner_text("#notice")

    # Alice (Black) moves by clicking; Bob sees it live.
    click_path(alice, [11, 15])
    assert wait_moves(bob, 1) == ["11-15"]
    bob.wait_for_function("() => document.querySelector('#status').textContent.includes('your')")
    # Bob (White) answers with typed notation; Alice sees it.
    bob.fill("#move-input", "23-19")
    bob.press("#move-input", "Enter")
    assert wait_moves(alice, 2) == ["11-15", "23-19"]
    board = Board()
    board.push_notation("11-15")
    board.push_notation("23-19")
    alice.wait_for_timeout(500)
    bob.wait_for_timeout(500)
    assert pieces(alice) == fen_pieces(board.fen()) == pieces(bob)

    # Clocks are shown and tick on the side to move (Black).
    clock_text = alice.inner_text(".player.bottom .clock")
    assert re.fullmatch(r"\d+:\d\d", clock_text.strip())
    alice.wait_for_selector(".player.bottom .clock.running")
    shot(alice, "online-black-view")
    shot(bob, "online-white-view")

    # A reload keeps Bob's seat (the token is in localStorage).
    bob.reload()
    bob.wait_for_selector("svg.board .piece")
    bob.wait_for_function("() => document.querySelector('.player.bottom .name').textContent")
    assert "You" in bob.inner_text(".player.bottom .name")

    # Alice's live connection drops: the page reconnects and catches up.
    alice.evaluate("() => window.poolcheckersGame.socket.ws.close()")
    alice.wait_for_function("() => window.poolcheckersGame.socket.isOpen")
    click_path(alice, [8, 11])
    assert wait_moves(bob, 3)[-1] == "8-11"
    alice.evaluate("() => window.poolcheckersGame.socket.ws.close()")
    bob.fill("#move-input", "26-23")
    bob.press("#move-input", "Enter")
    assert wait_moves(alice, 4)[-1] == "26-23"
    alice.wait_for_function("() => window.poolcheckersGame.socket.isOpen")

    # Draw offered by Bob, declined by Alice; then Alice resigns.
    bob.click("#draw-offer")
    alice.wait_for_selector("#draw-accept")
    assert "White offers a draw" in alice.inner_text("#actions")
    assert alice.inner_text("main").count("offers a draw") == 1  # said once
    alice.click("#draw-decline")
    bob.wait_for_selector("#draw-offer")
    bob.wait_for_function(
        "() => document.querySelector('#notice').textContent.includes('declined')"
    )
    alice.click("#resign")
    alice.click("#resign")
    for page in (alice, bob):
        page.wait_for_selector("#outcome:not([hidden])")
    assert "You lose" in alice.inner_text("#outcome")
    assert "You win" in bob.inner_text("#outcome")
    assert "0-2" in bob.inner_text("#outcome")
    shot(bob, "online-resigned")
    state = server.get_json(f"/api/games/{game_id}")
    assert state["status"] == "finished"
    assert state["outcome"]["termination"] == "resignation"


def test_spectator_watches_without_controls(server: Server, new_page: PageFactory) -> None:
    created = server.post_json("/api/games", {"mode": "online", "rules": {}, "color": "black"})
    game_id = created["game"]["id"]
    invite = created["invite"].split("invite=", 1)[1]

    # The creator, before anyone joined: no draw to offer, nothing to resign yet.
    alice = new_page()
    alice.goto(server.url("/"))
    alice.evaluate(
        "([id, token]) => localStorage.setItem('poolcheckers.token.' + id, token)",
        [game_id, created["token"]],
    )
    alice.reload()  # the home page lists the game, waiting for the opponent
    alice.wait_for_selector(f'#my-games a[href="/play/{game_id}"]')
    assert "waiting for your opponent to join" in alice.inner_text("#my-games")
    alice.goto(server.url(f"/play/{game_id}"))
    alice.wait_for_selector("#abort")  # "Cancel game"
    assert alice.locator("#draw-offer").count() == 0
    assert alice.locator("#resign").count() == 0
    assert "waiting" in alice.inner_text("#status")

    bob_seat = server.post_json(f"/api/games/{game_id}/join", {"invite": invite})
    alice.wait_for_selector("#draw-offer")

    watcher = new_page()
    watcher.goto(server.url(f"/play/{game_id}"))
    watcher.wait_for_selector("svg.board .piece")
    watcher.wait_for_function(
        "() => document.querySelector('#status').textContent.includes('watching')"
    )
    assert watcher.is_hidden("#move-form")
    assert watcher.locator("#actions button").count() == 0
    assert "No moves yet" in watcher.inner_text("#move-list")
    watcher.locator('svg.board rect.sq[data-square="11"]').click()
    assert watcher.locator("svg.board .mark.picked").count() == 0
    assert watcher.inner_text("#board-hint") == "You are watching this game."

    # Moves reach the watcher live; the players' turn lines say whose turn it is.
    click_path(alice, [11, 15])
    assert wait_moves(watcher, 1) == ["11-15"]
    alice.wait_for_function(
        "() => document.querySelector('#status').textContent.includes(\"opponent's turn\")"
    )
    alice.locator('svg.board rect.sq[data-square="14"]').click()  # an empty square
    assert "wait for your opponent" in alice.inner_text("#board-hint")
    assert "premove" in alice.inner_text("#board-hint").lower()
    server.post_json(
        f"/api/games/{game_id}/move", {"move": "22-18", "ply": 1, "token": bob_seat["token"]}
    )
    assert wait_moves(watcher, 2) == ["11-15", "22-18"]
    # Alice's turn again: the "wait" line under her board is gone.
    alice.wait_for_function("() => document.querySelector('#board-hint').textContent === ''")
    shot(watcher, "spectator")
    server.post_json(f"/api/games/{game_id}/resign", {"token": bob_seat["token"]})
    watcher.wait_for_selector("#outcome:not([hidden])")
    assert "Black wins" in watcher.inner_text("#outcome")
    alice.wait_for_selector("#move-form", state="hidden")


@pytest.mark.parametrize("size", [{"width": 390, "height": 844}, {"width": 1366, "height": 768}])
def test_premove_while_the_opponent_thinks(
    server: Server, new_page: PageFactory, size: dict[str, int]
) -> None:
    alice = new_page(viewport=size)
    game_id = new_game(alice, server.base_url, mode="online", color="black")
    link = alice.input_value("#invite-link")
    bob = new_page(viewport=size)
    bob.goto(link)
    bob.wait_for_selector("svg.board .piece")
    alice.wait_for_selector("#invite", state="hidden")
    alice.fill("#move-input", "11-15")
    alice.press("#move-input", "Enter")
    wait_moves(alice, 1)
    # White to move: Alice picks her next move now (9 to 13), shown on her board
    alice.locator("svg.board").scroll_into_view_if_needed()
    click_path(alice, [9, 13])
    assert alice.locator("svg.board rect.mark.premove").count() == 2
    assert "Premove 9 → 13" in alice.inner_text("#board-hint")
    wait_moves(bob, 1)
    bob.fill("#move-input", "23-19")
    bob.press("#move-input", "Enter")
    # the premove is played as soon as her turn comes
    assert wait_moves(bob, 3) == ["11-15", "23-19", "9-13"]
    assert alice.locator("svg.board rect.mark.premove").count() == 0
    # a premove that is not legal when the turn comes is dropped, and said so
    click_path(alice, [10, 14])
    bob.fill("#move-input", "22-18")  # now 15x22 is compulsory for Black (R11)
    bob.press("#move-input", "Enter")
    wait_moves(alice, 4)
    alice.wait_for_function(
        "() => document.querySelector('#board-hint').textContent.includes('cancelled')"
    )
    assert move_texts(alice) == ["11-15", "23-19", "9-13", "22-18"]
    assert server.get_json(f"/api/games/{game_id}")["ply"] == 4
