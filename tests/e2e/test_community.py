"""Two people meet in the lobby: each signs up in their own
browser context, one posts a rated seek, the other accepts, the game starts for
both at once, they play and one resigns; both ratings change once; a rematch
swaps colours and names and is aborted (unrated); both player pages show the
games.  On a phone and on a 1366x768 laptop."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest

from .conftest import PageFactory, Server
from .helpers import click_path, shot, wait_moves

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

PASSWORD = "correct horse battery"
SIZES: dict[str, dict[str, object]] = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "laptop": {"viewport": {"width": 1366, "height": 768}},
}


def sign_up(page: Page, server: Server, name: str) -> None:
    page.goto(server.url("/account"))
    form = page.locator('form[aria-label="Create an account"]')
    form.locator('input[name="username"]').fill(name)
    form.locator('input[name="password"]').fill(PASSWORD)
    form.locator('button[type="submit"]').click()
    page.wait_for_url(re.compile(r"/lobby$"))
    page.wait_for_selector("table.seeks tbody tr")


def blitz(page: Page, server: Server, name: str) -> Any:
    """The player's blitz standing as the JSON player page gives it (or None)."""
    return page.evaluate(
        "async (n) => (await (await fetch('/api/users/' + n)).json()).ratings.blitz || null", name
    )


@pytest.mark.parametrize("size", list(SIZES))
def test_sign_up_seek_accept_play_rate(server: Server, new_page: PageFactory, size: str) -> None:
    ann_name, bob_name = f"Ann_{size}", f"Bob_{size}"
    ann = new_page(**SIZES[size])
    bob = new_page(**SIZES[size])
    sign_up(ann, server, ann_name)
    sign_up(bob, server, bob_name)

    # The §9 rule options are offered for casual seeks only (rated: APCA rules).
    seek_rules = ann.locator('section[aria-label="Post a seek"] details.rules')
    assert seek_rules.is_hidden()
    ann.uncheck('input[name="rated"]')
    assert seek_rules.is_visible()
    ann.check('input[name="rated"]')
    # Ann posts a rated 3+2 seek as Black; Bob sees it live and accepts it.
    ann.select_option('select[name="color"]', "black")
    ann.click('button:text-is("3+2")')
    row = bob.locator("table.seeks tbody tr", has_text=ann_name)
    row.wait_for()
    assert "Rated blitz" in row.inner_text() and "1500?" in row.inner_text()
    shot(bob, f"community-lobby-{size}")
    row.locator('button:text-is("Accept")').click()
    for page in (ann, bob):  # the game starts for both at once
        page.wait_for_url(re.compile(r"/play/[^/?]+$"))
        page.wait_for_selector("svg.board .piece")
    assert ann.url == bob.url
    game_id = ann.url.rsplit("/", 1)[1]

    # The game page names both players, with their ratings (PDN tags).
    names = ann.inner_text(".player.top .name") + " " + ann.inner_text(".player.bottom .name")
    assert f"{ann_name} 1500 (Black)" in names and f"{bob_name} 1500 (White)" in names
    # what kind of game it is, and the names lead to the players' pages
    assert ann.inner_text("#game-kind") == "Rated · Blitz 3+2"
    links = ann.eval_on_selector_all(".player a.player-link", "els => els.map(e => e.pathname)")
    assert sorted(links) == sorted([f"/players/{ann_name}", f"/players/{bob_name}"])
    # They play by clicking (account seats: no token in either browser's storage).
    ann.wait_for_function("() => document.querySelector('#status').textContent.includes('your')")
    click_path(ann, [11, 15])
    assert wait_moves(bob, 1) == ["11-15"]
    bob.wait_for_function("() => document.querySelector('#status').textContent.includes('your')")
    click_path(bob, [23, 19])
    assert wait_moves(ann, 2) == ["11-15", "23-19"]
    stored = ann.evaluate(f"() => localStorage.getItem('poolcheckers.token.{game_id}')")
    assert stored is None
    shot(ann, f"community-game-{size}")

    bob.click("#resign")
    bob.click("#resign")
    for page in (ann, bob):
        page.wait_for_selector("#outcome:not([hidden])")
    assert "You win" in ann.inner_text("#outcome")

    # Both ratings changed, once: one rated game each, Ann up, Bob down.
    ann.wait_for_function(
        "async (n) => ((await (await fetch('/api/users/' + n)).json()).ratings.blitz || {}).games",
        arg=ann_name,
    )
    ann_blitz, bob_blitz = blitz(ann, server, ann_name), blitz(ann, server, bob_name)
    assert ann_blitz["games"] == bob_blitz["games"] == 1
    assert ann_blitz["rating"] > 1500 > bob_blitz["rating"]
    # the game page says what the game did to both ratings
    for page in (ann, bob):
        page.wait_for_selector("#rating-change:not([hidden])")
        change = page.inner_text("#rating-change")
        up = ann_blitz["rating"] - 1500
        down = 1500 - bob_blitz["rating"]
        assert f"{ann_name} 1500 → {ann_blitz['rating']} (+{up})" in change
        assert f"{bob_name} 1500 → {bob_blitz['rating']} (−{down})" in change

    # Rematch (colours swapped, names with them), rated as the game was; then abort
    # it: no result, unrated.
    assert ann.inner_text("#rematch") == "Offer a rated rematch"
    ann.click("#rematch")
    bob.wait_for_selector("#rematch-offer")
    assert "offers a rated rematch" in bob.inner_text("#rematch-offer")
    bob.click("#rematch")
    for page in (ann, bob):
        page.wait_for_url(re.compile(r"/play/(?!" + re.escape(game_id) + r")[^/?]+$"))
        page.wait_for_selector("svg.board .piece")
    ann.wait_for_function("() => window.poolcheckersGame.state?.your_color === 'white'")
    names = bob.inner_text(".player.top .name") + " " + bob.inner_text(".player.bottom .name")
    assert f"{bob_name} (Black)" in names and f"{ann_name} (White)" in names
    rematch_id = ann.url.rsplit("/", 1)[1]
    bob.click("#abort")
    bob.click("#abort")  # confirm
    for page in (ann, bob):
        page.wait_for_function(
            "() => /aborted/i.test(document.querySelector('#status').textContent)"
        )
    assert blitz(ann, server, ann_name)["games"] == 1  # the aborted game is not rated

    # Both player pages show the game and the new rating.
    for page, name, result in ((ann, ann_name, "Won"), (bob, bob_name, "Lost")):
        page.goto(server.url(f"/players/{name}"))
        game_row = page.locator(f'table.player-games tr[data-game="{game_id}"]')
        game_row.wait_for()
        assert result in game_row.inner_text()
        assert ann_name in game_row.inner_text() and bob_name in game_row.inner_text()
        rating = page.inner_text('li[data-category="blitz"]')
        assert "1 rated game" in rating
        # the category's results and the best rating reached
        record = "+1 =0 −0" if result == "Won" else "+0 =0 −1"
        assert record in rating and "best " in rating
        assert page.locator(f'table.player-games tr[data-game="{rematch_id}"]').count() == 1
        # the rating history plot is drawn, and the record against the opponent shown
        page.wait_for_function(
            "() => { const i = document.querySelector('img.rating-plot');"
            " return i && i.complete && i.naturalWidth > 0; }"
        )
        # the chart over a time range, drawn for the screen's size
        page.click('.chart-range button[data-range="month"]')
        src = page.get_attribute("img.rating-plot", "src") or ""
        assert "range=month" in src
        assert ("size=phone" in src) == (size == "phone")
        wins = "+1 =0 −0" if name == ann_name else "+0 =0 −1"
        assert wins in page.inner_text("ul.rivals")
    shot(bob, f"community-player-{size}", full_page=True)
    bob.goto(server.url("/leaderboard"))
    bob.wait_for_selector('section[data-category="blitz"]')
    # RD > 75 after one game: the board says who is closest, and how many games to go
    on_the_way = bob.inner_text('section[data-category="blitz"]')
    assert "No rating has settled yet" in on_the_way
    assert ann_name in on_the_way and bob_name in on_the_way
    assert "more rated games" in on_the_way
