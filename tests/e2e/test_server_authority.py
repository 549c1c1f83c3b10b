"""The browser applies no rules: it draws the server's board, walks the paths the
server lists, shows the board the server says a move leaves, and judges the game
review's moves with the server's count of legal moves (a forced move is never
marked). The server's answers are altered on the way in some of these tests: the
page follows them, so it cannot be computing the rules itself."""

from __future__ import annotations

import json
import math
import time
from typing import TYPE_CHECKING

import pytest

from poolcheckers import Board

from .conftest import PageFactory, Server
from .helpers import click_path, click_square, fen_pieces, move_texts, new_game, pieces, wait_board

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def open_fen(page: Page, server: Server, fen: str) -> None:
    page.goto(server.url("/analysis?fen=" + fen))
    page.wait_for_function(
        "f => document.querySelector('#fen-out')?.value === f", arg=Board(fen).fen()
    )
    page.wait_for_timeout(300)


def test_r4_r9_a_flying_kings_capture_walked_by_its_other_road(
    server: Server, new_page: PageFactory
) -> None:
    # R9, R10, R14: the king on 8 takes 15 and 25 by 18 or by 22; the server lists
    # the move once (R4) with both roads in "paths". Walk the second one.
    fen = "W:WK8:B15,16,21,25"
    page = new_page()
    open_fen(page, server, fen)
    click_path(page, [8, 22])
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 1")
    assert move_texts(page) == ["8x29"]
    page.wait_for_timeout(900)  # the walk and the fading captures
    assert pieces(page) == {16: "b", 21: "b", 29: "W"}  # 15 and 25 gone at once (R14)


def test_the_analysis_board_draws_and_walks_only_what_the_server_says(
    server: Server, new_page: PageFactory
) -> None:
    fen = "W:WK8:B15,16,21,25"
    page = new_page()

    def altered(route: Route) -> None:
        response = route.fetch()
        info = response.json()
        if info["ply"] == 0:
            # a phantom black king on 1, and only one road for the capture
            info["board"] = "B" + info["board"][1:]
            for move in info["legal_moves"]:
                move["paths"] = [[8, 18, 29]]
        route.fulfill(response=response, body=json.dumps(info))

    page.route("**/api/analysis/position", altered)
    open_fen(page, server, fen)
    assert pieces(page) == {**fen_pieces(fen), 1: "B"}  # drawn from the server's board
    click_square(page, 8)
    click_square(page, 22)  # a road the (altered) server did not list: refused
    page.wait_for_selector("#board-hint:has-text('not a legal landing')")
    assert move_texts(page) == []
    click_square(page, 18)
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 1")
    assert move_texts(page) == ["8x29"]


def test_r15_crowning_shown_as_the_server_says(server: Server, new_page: PageFactory) -> None:
    page = new_page()
    open_fen(page, server, "B:W32:B27")
    click_path(page, [27, 31])
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 1")
    page.wait_for_timeout(600)
    assert pieces(page)[31] == "B"  # R15: crowned where the move ends

    # The server decides: told that the man is not crowned, the page shows a man.
    page2 = new_page()

    def uncrowned(route: Route) -> None:
        response = route.fetch()
        info = response.json()
        if info["ply"] == 1:
            info["board"] = info["board"].replace("B", "b")
        route.fulfill(response=response, body=json.dumps(info))

    page2.route("**/api/analysis/position", uncrowned)
    open_fen(page2, server, "B:W32:B27")
    click_path(page2, [27, 31])
    page2.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 1")
    page2.wait_for_timeout(600)
    assert pieces(page2)[31] == "b"


def test_the_game_page_shows_the_servers_board_after_a_move_at_once(
    server: Server, new_page: PageFactory
) -> None:
    # While the move is on its way, the board shows the legal move's "board_after":
    # the capture made and the man crowned (R15), as the server computed it.
    page = new_page()
    new_game(page, server.base_url, mode="local", fen="B:W26:B22")

    def slow(route: Route) -> None:
        time.sleep(1.5)
        route.continue_()

    page.route("**/api/games/*/move", slow)
    click_path(page, [22, 31])
    page.wait_for_timeout(700)
    assert pieces(page) == {31: "B"}
    page.wait_for_function("() => !window.poolcheckersGame.pending")
    assert pieces(page) == {31: "B"}
    wait_board(page)


LINE = ["11-15", "22-18", "15x22", "25x18", "8-11"]  # 15x22 is Black's only move


def test_review_never_marks_a_forced_move_and_classes_by_expected_score(
    server: Server, new_page: PageFactory
) -> None:
    page = new_page()
    page.goto(server.url("/analysis"))
    page.wait_for_selector("svg.board .piece")
    page.fill("#pdn-input", "1. 11-15 22-18 2. 15x22 25x18 3. 8-11 *")
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 5")
    scale = page.evaluate("async () => (await import('/static/review.js')).SCALE")
    assert scale > 0
    # Black's evaluations (centi-men) after each ply: Black loses on the forced 15x22
    # (ply 3): that loss belongs to Black's last real choice, 11-15 (ply 1). Then
    # Black, already lost, gives 3 more men with 8-11: in centi-men a big drop, in
    # expected score a small one, and it is not marked.
    lost = round(3 * scale)
    scores = [0, 0, 0, -lost, -lost, -lost - 300]
    page.wait_for_function(
        "n => window.poolcheckersAnalysis.infos.size >= n", arg=1
    )  # the positions come from the server, with their legal moves
    page.evaluate(
        """async (scores) => {
             const { expectedScore } = await import('/static/review.js');
             const a = window.poolcheckersAnalysis;
             for (let k = 0; k < scores.length; k++) await a.info(k);
             a.evals = scores.map(
               (s, k) => ({ score: s, es: expectedScore(s), best: k === 0 ? '9-13' : null }));
             a.renderReview();
           }""",
        scores,
    )
    marked = page.eval_on_selector_all(
        "#move-list button.mv.mistake", "els => els.map(e => [e.dataset.ply, e.textContent])"
    )
    loss = 0.5 - 1 / (1 + math.exp(lost / scale))
    assert loss >= 0.15  # a blunder (review.js CLASSES)
    assert marked == [["1", "11-15??"]]
    text = page.inner_text("#mistakes")
    # what was better, and one unit: the mover's expected score before and after
    assert "blunder: best was 9-13" in text and f"−{loss:.2f} with the forced" in text
    assert "expected score 0.50 → " in text and "men" not in text
    assert page.inner_text("#accuracy").startswith("Accuracy: Black ")
    assert "forced 15x22" in text
    assert "8-11" not in text  # 3 men in a lost position: little expected score
    assert page.locator("#eval-chart circle.mistake").count() == 1
    # Marking blunders only keeps it; the forced move is never marked.
    page.select_option("#mark-from", "blunder")
    assert page.eval_on_selector_all(
        "#move-list button.mv.mistake", "els => els.map(e => e.dataset.ply)"
    ) == ["1"]
