"""A round robin in the browser, the APCA way: three people sign up, one makes a
division with two games a pairing, the others join from the event page, the creator
starts it; the paired players' event pages open their games by themselves; every
game is played (moves by clicking, then a resignation); the crosstable, the
standings and the winner are right and the event's PDN downloads.  On a phone and
on a 1366x768 laptop."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest

from .conftest import PageFactory, Server
from .helpers import click_path, shot, wait_moves
from .test_community import SIZES, sign_up

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def event(page: Page, tid: str) -> Any:
    return page.evaluate("async (id) => (await fetch('/api/tournaments/' + id)).json()", tid)


def play(pages: dict[str, Page], server: Server, pairing: dict[str, Any], winner: str) -> None:
    """Both players open the game, make a move each by clicking, the loser resigns."""
    black, white = pages[pairing["black"]], pages[pairing["white"]]
    url = server.url(f"/play/{pairing['game']}")
    for page in (black, white):
        if page.url != url:
            page.goto(url)
        page.wait_for_selector("svg.board .piece")
    black.wait_for_function("() => document.querySelector('#status').textContent.includes('your')")
    click_path(black, [11, 15])
    assert wait_moves(white, 1) == ["11-15"]
    white.wait_for_function("() => document.querySelector('#status').textContent.includes('your')")
    click_path(white, [23, 19])
    wait_moves(black, 2)
    loser = white if winner == pairing["black"] else black
    loser.click("#resign")
    loser.click("#resign")  # confirm
    for page in (black, white):
        page.wait_for_selector("#outcome:not([hidden])")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_round_robin_of_two_game_matches_in_the_browser(
    server: Server, new_page: PageFactory, size: str
) -> None:
    names = [f"Ann_rr_{size}", f"Bob_rr_{size}", f"Cid_rr_{size}"]
    pages = {name: new_page(**SIZES[size]) for name in names}
    for name, page in pages.items():
        sign_up(page, server, name)
    ann = pages[names[0]]
    ann.goto(server.url("/tournaments"))
    form = ann.locator('form[aria-label="New tournament"]')
    form.locator('input[name="name"]').fill(f"Division {size}")
    form.locator('select[name="system"]').select_option("round_robin")
    form.locator('select[name="games"]').select_option("2")
    form.locator('button[type="submit"]').click()
    ann.wait_for_url(re.compile(r"/tournaments/[^/]+$"))
    tid = ann.url.rsplit("/", 1)[1]
    for page in pages.values():
        if page is not ann:
            page.goto(ann.url)
        page.locator('.actions button:text-is("Join")').click()
        page.wait_for_selector('.actions button:text-is("Withdraw")')
    shot(ann, f"tournament-joined-{size}", full_page=True)
    ann.locator('.actions button:text-is("Start now")').click()
    # the two players of round 1 are taken to their game by their event page
    first = next(p for p in event(ann, tid)["pairings"] if p["game"] is not None)
    for name in (first["black"], first["white"]):
        pages[name].wait_for_url(re.compile(r"/play/[^/?]+$"), timeout=15_000)
    played: set[str] = set()
    while True:
        state = event(ann, tid)
        if state["status"] == "finished":
            break
        todo = [p for p in state["pairings"] if p["game"] and not p["result"]]
        todo = [p for p in todo if p["game"] not in played]
        for pairing in todo:
            # Ann wins every game; between the others, the side that began wins
            winner = (
                names[0] if names[0] in (pairing["black"], pairing["white"]) else pairing["black"]
            )
            play(pages, server, pairing, winner)
            played.add(pairing["game"])
        if not todo:
            ann.wait_for_timeout(200)
    assert len(played) == 6
    ann.goto(server.url(f"/tournaments/{tid}"))
    ann.wait_for_selector(".podium h2")
    assert ann.inner_text(".podium h2") == f"Winner: {names[0]}"
    rows = ann.locator("table.standings tbody tr")
    assert rows.nth(0).get_attribute("data-player") == names[0]
    assert "6" in rows.nth(0).locator("td.score").inner_text()  # 4 games won + a bye
    cross = ann.locator("table.crosstable")
    cross_text = cross.inner_text()
    assert "2" in cross_text and "1" in cross_text
    shot(ann, f"tournament-finished-{size}", full_page=True)
    with ann.expect_download() as download:
        ann.click("text=All games (PDN)")
    pdn = download.value.path().read_text(encoding="utf-8")
    assert pdn.count(f'[Event "Division {size}"]') == 6
