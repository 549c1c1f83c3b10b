"""Games against the engine in Chromium: a whole game to its end (from a FEN
set in the form, so that it is short), engine replies over the WebSocket,
takeback, and the outcome in words."""

from __future__ import annotations

import time

import pytest

from poolcheckers import Board, Color

from .conftest import PageFactory, Server
from .helpers import (
    click_path,
    fen_pieces,
    forced_win_move,
    move_texts,
    new_game,
    pieces,
    shot,
    wait_moves,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

# White (the engine) to move; whatever it plays, Black wins within two moves.
SHORT_GAME_FEN = "W:W19,22:B11,14,27"


def test_full_game_against_the_engine(server: Server, new_page: PageFactory) -> None:
    server.require_engine()
    board = Board(SHORT_GAME_FEN)
    assert forced_win_move(board.copy(), Color.WHITE, 2) is None  # White has no way out
    page = new_page()
    game_id = new_game(
        page, server.base_url, mode="engine", level=1, color="black", fen=SHORT_GAME_FEN
    )
    assert page.inner_text(".player.top .name") == "Engine (level 1) · White"
    assert page.inner_text(".player.bottom .name") == "You · Black"
    typed = False
    for _ in range(6):
        # Wait for the engine's reply (or the end of the game).
        page.wait_for_function(
            "() => { const s = document.querySelector('#status').textContent;"
            " return s.includes('your turn') || s.includes('Game over'); }"
        )
        if "Game over" in page.inner_text("#status"):
            break
        moves = move_texts(page)
        replay = Board(SHORT_GAME_FEN)
        for m in moves:
            replay.push_notation(m)
        page.wait_for_timeout(400)
        assert pieces(page) == fen_pieces(replay.fen())
        choice = forced_win_move(replay, Color.BLACK, 2)
        assert choice is not None
        if typed:
            click_path(page, list(replay.parse_move(choice).path))
        else:
            page.fill("#move-input", choice)
            page.press("#move-input", "Enter")
            typed = True
        wait_moves(page, len(moves) + 1)
    page.wait_for_selector("#outcome:not([hidden])")
    outcome = page.inner_text("#outcome")
    assert "You win" in outcome
    assert "2-0" in outcome
    # the ending in plain words (R16), with a link to the rule on the rules page
    assert "R16" not in outcome
    assert page.get_attribute("#outcome a.rule-link", "href") == "/rules#R16"
    assert page.locator("#move-list li.result").inner_text() == "2-0"
    page.wait_for_timeout(400)
    shot(page, "engine-game-over")
    state = server.get_json(f"/api/games/{game_id}")
    assert state["status"] == "finished"
    assert state["outcome"]["winner"] == "black"
    assert state["moves"] == move_texts(page)

    # A finished game keeps its result: no takeback reopens it (the button is gone).
    assert page.locator("#takeback").count() == 0
    assert "You win" in page.inner_text("#outcome")


def test_engine_reply_and_takeback(server: Server, new_page: PageFactory) -> None:
    server.require_engine()
    page = new_page()
    game_id = new_game(page, server.base_url, mode="engine", level=1, color="black")
    # The engine answers at once, but its reply waits until our move was seen walking.
    page.evaluate(
        """() => {
             window.timing = {};
             document.querySelector('svg.board').addEventListener('pointerdown',
               () => { window.timing.click = performance.now(); });
             new MutationObserver(() => {
               if (!window.timing.reply &&
                   document.querySelectorAll('#move-list button.mv').length >= 2) {
                 window.timing.reply = performance.now();
                 // the moment the reply is listed its piece starts walking: the board
                 // already takes our next move (no wait for the animation's end)
                 window.timing.interactive =
                   document.querySelector('svg.board').classList.contains('interactive');
               }
             }).observe(document.querySelector('#move-list'), {childList: true, subtree: true});
           }"""
    )
    click_path(page, [11, 15])
    moves = wait_moves(page, 2)
    assert moves[0] == "11-15"
    waited = page.evaluate("() => window.timing.reply - window.timing.click")
    assert 350 <= waited < 3000, waited
    assert page.evaluate("() => window.timing.interactive") is True
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.includes('your turn')"
    )
    shot(page, "engine-replied")
    page.click("#takeback")
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 0")
    page.wait_for_timeout(400)
    assert pieces(page) == fen_pieces(Board().fen())
    assert server.get_json(f"/api/games/{game_id}")["ply"] == 0
    assert "taken back" in page.inner_text("#notice")
    click_path(page, [9, 13])  # a new move: the old notice goes
    wait_moves(page, 2)
    assert page.inner_text("#notice") == ""
    # The engine accepts or declines a draw offer at once; either way the page says so.
    page.click("#draw-offer")
    page.wait_for_function(
        "() => /The engine (accepted|declined) the draw/"
        ".test(document.querySelector('#notice').textContent)"
    )
    accepted = "accepted" in page.inner_text("#notice")
    assert page.is_visible("#outcome") == accepted


def test_low_time_is_said(server: Server, new_page: PageFactory) -> None:
    server.require_engine()
    created = server.post_json(
        "/api/games",
        {"mode": "engine", "level": 1, "color": "black", "clock": {"initial": 11, "increment": 0}},
    )
    game_id = created["game"]["id"]
    # each side's clock starts with its first move: Black moves, the engine replies
    body = {"move": "11-15", "ply": 0, "token": created["token"]}
    server.post_json(f"/api/games/{game_id}/move", body)
    deadline = time.monotonic() + 20
    while server.get_json(f"/api/games/{game_id}")["ply"] < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    page = new_page()
    page.goto(server.url("/"))
    page.evaluate(
        "([id, token]) => localStorage.setItem('poolcheckers.token.' + id, token)",
        [game_id, created["token"]],
    )
    page.goto(server.url(f"/play/{game_id}"))
    page.wait_for_selector(".player.bottom .clock.running")
    page.wait_for_function(
        "() => document.querySelector('#alerts').textContent === '10 seconds left on your clock.'",
        timeout=5_000,
    )
    assert "low" in (page.get_attribute(".player.bottom .clock", "class") or "")
    page.click("#resign")
    page.click("#resign")
    page.wait_for_selector("#outcome:not([hidden])")
