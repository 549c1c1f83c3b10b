"""The board editor in Chromium, on a phone and a 1366x768 laptop: a position set up
by clicking keeps its FEN in step, checked by the rules (a man on its own king row is
refused, R5); a FEN typed in sets the board; its link reloads it; it is analysed,
played against the engine, and made into a puzzle."""

from __future__ import annotations

import re

import pytest

from .conftest import PageFactory, Server
from .helpers import click_square, pieces, shot
from .test_community import SIZES, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


@pytest.mark.parametrize("size", list(SIZES))
def test_a_position_set_up_by_clicking_keeps_its_fen_and_is_checked(
    server: Server, new_page: PageFactory, size: str
) -> None:
    page = new_page(**SIZES[size])
    page.goto(server.url("/editor"))
    page.wait_for_selector("#editor-status:text('Black to move')")
    page.click("button:text('Empty board')")
    page.check("input[name='brush'][value='W']")
    click_square(page, 29)
    page.check("input[name='brush'][value='b']")
    click_square(page, 11)
    page.select_option("#editor-turn", "white")
    page.wait_for_function("() => document.querySelector('#editor-fen').value === 'W:WK29:B11'")
    page.wait_for_selector("#editor-status:text('White to move')")
    assert pieces(page) == {29: "W", 11: "b"}
    # a man on its own king row cannot stand (R5): the page says why, and offers nothing
    page.check("input[name='brush'][value='w']")
    click_square(page, 2)
    page.wait_for_selector("#editor-error:not(:empty)")
    assert page.locator("#editor-analyse").count() == 0
    click_square(page, 2)  # removed again
    page.wait_for_selector("#editor-analyse")
    # a FEN typed in sets the board; the page's link reloads the same position
    page.fill("#editor-fen", "B:W18,K30:B11,K5")
    page.press("#editor-fen", "Enter")
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('fen') === 'B:W18,K30:BK5,11'"
    )
    page.reload()
    page.wait_for_selector("#editor-status:text('Black to move')")
    assert pieces(page) == {18: "w", 30: "W", 11: "b", 5: "B"}
    shot(page, f"editor-{size}")
    page.click("#editor-analyse")
    page.wait_for_url(re.compile(r"/analysis\?fen="))
    page.wait_for_selector("svg.board .piece")
    assert pieces(page) == {18: "w", 30: "W", 11: "b", 5: "B"}


def test_a_position_is_played_against_the_engine_and_made_a_puzzle(
    server: Server, new_page: PageFactory
) -> None:
    page = new_page(**SIZES["laptop"])
    sign_up(page, server, "Setter_1")
    fen = "W:W19,27,28,29,30,31,32:B2,3,4,6,8,9,18,20,21"
    page.goto(server.url(f"/editor?fen={fen}"))
    page.wait_for_selector("#editor-status:text('White to move')")
    page.click("#editor-puzzle")
    page.wait_for_selector("#editor-puzzle-link")
    # the puzzle's goal, not its line: the line stays on the server until it is solved
    note = page.inner_text("#editor-note")
    assert note.startswith("A puzzle: Win material.") and "27-24" not in note
    page.click("#editor-play")
    page.wait_for_url(re.compile(r"/\?fen="))
    assert page.input_value("input[name='fen']") == fen
