"""A correspondence game in the browser (R20): Ann posts a seek of two days
a move, Bob takes it; before both sides have moved no deadline runs, then the game
page shows the time left for the move by the side to move."""

from __future__ import annotations

import re

import pytest

from .conftest import PageFactory, Server
from .helpers import click_path, wait_moves
from .test_community import sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


def test_correspondence_game_shows_the_time_left_for_the_move(
    server: Server, new_page: PageFactory
) -> None:
    ann = new_page(viewport={"width": 1366, "height": 768})
    bob = new_page(viewport={"width": 1366, "height": 768})
    sign_up(ann, server, "Ann_corr")
    sign_up(bob, server, "Bob_corr")
    ann.select_option('select[name="color"]', "black")
    days = ann.locator('input[name="days"]')
    days.fill("2")
    days.locator("xpath=ancestor::form").locator('button[type="submit"]').click()
    row = bob.locator("table.seeks tbody tr", has_text="Ann_corr")
    row.locator('button:text-is("Accept")').click()
    for page in (ann, bob):
        page.wait_for_url(re.compile(r"/play/[^/?]+$"))
        page.wait_for_selector("svg.board .piece")
    # no deadline before each side has moved: both say what the game gives a move
    assert ann.inner_text(".player.top .clock") == "2 days a move"
    assert ann.inner_text(".player.bottom .clock") == "2 days a move"
    ann.wait_for_function("() => document.querySelector('#status').textContent.includes('your')")
    click_path(ann, [11, 15])
    assert wait_moves(bob, 1) == ["11-15"]
    bob.wait_for_function("() => document.querySelector('#status').textContent.includes('your')")
    click_path(bob, [23, 19])
    assert wait_moves(ann, 2) == ["11-15", "23-19"]
    # Black (Ann) is to move: her side shows the time left, the deadline counting down
    running = ann.locator(".player .clock.running")
    running.wait_for()
    assert re.fullmatch(r"[12]d \d{1,2}h", running.inner_text())
    label = running.get_attribute("aria-label") or ""
    assert label.startswith("Black:") and label.endswith("left for the move")
    assert ann.locator(".player .clock.running").count() == 1
