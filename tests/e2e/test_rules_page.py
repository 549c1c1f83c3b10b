"""Plain words for players, in Chromium on a phone and at 1366x768: the rules page tells
every rule (R1-R21) and rule option in words with a position for each; a refused move,
a game's ending, the draw counts and the rule-option forms read as words, never as
rule ids, and link to the rule they apply."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from .conftest import PageFactory, Server
from .helpers import new_game, shot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 768}}
#: what a player must never read: a rule id, the rule book's section sign or file
RULE_ID = re.compile(r"\bR(?:[1-9]|1\d|2[01])\b|§|RULES\.md")


def visible_text(page: Page) -> str:
    text: str = page.inner_text("body")
    return text


def assert_plain(page: Page) -> None:
    found = RULE_ID.findall(visible_text(page))
    assert found == [], f"rule ids shown to players on {page.url}: {found}"


def no_sideways_scroll(page: Page) -> bool:
    wide: bool = page.evaluate(
        "() => document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth"
    )
    return wide


@pytest.mark.parametrize("size", SIZES)
def test_the_rules_page_tells_every_rule_in_words_with_a_position(
    server: Server, new_page: PageFactory, size: str
) -> None:
    book = server.get_json("/api/rulebook")["rules"]
    page = new_page(viewport=SIZES[size])
    page.goto(server.url("/rules"))
    page.wait_for_selector("section.rule")
    ids = page.eval_on_selector_all("section.rule", "els => els.map(e => e.id)")
    assert ids[:21] == [f"R{n}" for n in range(1, 22)]
    assert ids[21:] == [
        "crown_during_capture",
        "three_kings_limit_result",
        "king_only_move_limit",
        "repetition_draw",
    ]
    with_board = [r for r in book if r["board"]]
    assert page.locator("section.rule svg.board.mini").count() == len(with_board) >= 14
    # the compulsory capture's position and the moves the library finds in it
    r11 = page.inner_text("#R11")
    assert "If you can capture, you must." in r11 and "Black to move: 15x24." in r11
    assert_plain(page)
    assert no_sideways_scroll(page)
    shot(page, f"rules-page-{size}")


def test_a_link_to_a_rule_shows_that_rule(server: Server, new_page: PageFactory) -> None:
    page = new_page(viewport=SIZES["phone"])
    page.goto(server.url("/rules#R15"))
    page.wait_for_selector("#R15.linked")
    assert page.evaluate("() => document.activeElement.id") == "R15"
    page.wait_for_timeout(300)  # nothing moves it away once shown (styles load first)
    top = page.evaluate("() => document.getElementById('R15').getBoundingClientRect().top")
    assert 0 <= top < 200
    assert page.evaluate("() => document.title").startswith("Rules")


@pytest.mark.parametrize("size", SIZES)
def test_a_refused_move_reads_as_words_and_links_its_rule(
    server: Server, new_page: PageFactory, size: str
) -> None:
    page = new_page(viewport=SIZES[size])
    # Black must take 19 with 15 (a capture is compulsory): 9-13 is refused
    new_game(page, server.base_url, mode="local", fen="B:W19,28:B9,15")
    page.fill("#move-input", "9-13")
    page.press("#move-input", "Enter")
    page.wait_for_selector("#error:not(:empty)")
    message = page.inner_text("#error")
    assert "capture" in message and not RULE_ID.search(message)
    # the board's own hint says it in words too
    page.locator("svg.board").scroll_into_view_if_needed()
    page.click('svg.board .sq[data-square="9"]')
    page.wait_for_function("() => document.querySelector('#board-hint')?.textContent.length > 0")
    assert "capturing is a must" in page.inner_text("#board-hint")
    assert_plain(page)


def test_an_ending_and_the_counts_read_as_words(server: Server, new_page: PageFactory) -> None:
    page = new_page(viewport=SIZES["laptop"])
    # three kings against one: the count is shown in words with a link to its rule
    new_game(page, server.base_url, mode="local", fen="W:WK12,K16,K26:BK1")
    page.fill("#move-input", "12-8")
    page.press("#move-input", "Enter")
    page.wait_for_function(
        "() => document.querySelector('#counter-r19')?.textContent.includes('move 1 of 13')"
    )
    page.wait_for_selector("#counter-r18")
    counter = page.inner_text("#counter-r19")
    assert "Three kings against one: move 1 of 13" in counter
    assert page.get_attribute("#counter-r19 a.rule-link", "href") == "/rules#R19"
    assert page.get_attribute("#counter-r18 a.rule-link", "href") == "/rules#R18"
    assert_plain(page)
    # a game that is over: its reason in words, "Why?" to the rule
    new_game(page, server.base_url, mode="local", fen="B:W19:B15")
    page.fill("#move-input", "15x24")
    page.press("#move-input", "Enter")
    page.wait_for_selector("#outcome:not([hidden])")
    assert "no pieces left" in page.inner_text("#outcome")
    assert page.get_attribute("#outcome a.rule-link", "href") == "/rules#R16"
    assert_plain(page)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", ["/", "/analysis", "/lobby", "/archive", "/learn", "/editor"])
def test_the_main_pages_show_no_rule_ids(
    server: Server, new_page: PageFactory, size: str, path: str
) -> None:
    page = new_page(viewport=SIZES[size])
    page.goto(server.url(path))
    page.wait_for_selector("main h1, main h2")
    page.wait_for_load_state("networkidle")
    # the rule options' forms open: their words are the library's labels, made plain
    for summary in page.locator("details.rules summary").all():
        if summary.is_visible():
            summary.click()
    assert_plain(page)
