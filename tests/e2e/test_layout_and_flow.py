"""The pages' layout and the game flow in Chromium: the pages fit a laptop and a
phone, move counts, duplicates on import, one draw-offer message, the pieces walk a
multi-capture, abort, rematch, watching."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from .conftest import PageFactory, Server
from .helpers import click_square, new_game, shot, wait_board

if TYPE_CHECKING:
    from playwright.sync_api import FloatRect, Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

LAPTOP = {"width": 1366, "height": 768}
#: the inner window of a 1366x768 laptop's browser (its bars take ~120 px)
LAPTOP_INNER = {"width": 1366, "height": 650}
PHONE = {"width": 390, "height": 844}


def box(page: Page, selector: str) -> FloatRect:
    b = page.locator(selector).first.bounding_box()
    assert b is not None, f"{selector} is not shown"
    return b


def inside(page: Page, selector: str, viewport: dict[str, int]) -> None:
    b = box(page, selector)
    assert b["x"] >= 0 and b["y"] >= 0, (selector, b)
    assert b["x"] + b["width"] <= viewport["width"] + 0.5, (selector, b, viewport)
    assert b["y"] + b["height"] <= viewport["height"] + 0.5, (selector, b, viewport)


def bottom_row(page: Page) -> str:
    """The squares of the board's bottom row as drawn (29..32 unless flipped)."""
    flipped = page.evaluate("() => window.poolcheckersGame?.board?.flipped ?? false")
    squares = (1, 2, 3, 4) if flipped else (29, 30, 31, 32)
    return ", ".join(f'svg.board rect.sq[data-square="{s}"]' for s in squares)


@pytest.mark.parametrize("viewport", [LAPTOP, LAPTOP_INNER], ids=["1366x768", "1366x650"])
def test_game_page_fits_a_laptop_screen(
    server: Server, new_page: PageFactory, viewport: dict[str, int]
) -> None:
    page = new_page(viewport=viewport)
    new_game(page, server.base_url, mode="local", clock=(5, 0))
    page.evaluate("() => window.scrollTo(0, 0)")
    click_square(page, 22)  # a piece that cannot move: the hint line says why
    page.wait_for_selector("#board-hint:not(:empty)")
    for selector in (
        ".player.top",
        "svg.board",
        ".player.bottom .clock",
        ".board-tools button:has-text('Flip board')",
        ".board-tools button:has-text('Square numbers')",
        "#board-hint",
        "#status",
    ):
        inside(page, selector, viewport)
    for s in (1, 4, 29, 32):
        inside(page, f'svg.board rect.sq[data-square="{s}"]', viewport)
    assert box(page, "svg.board")["width"] >= 380  # still a board to play on
    shot(page, f"polish-game-{viewport['width']}x{viewport['height']}")


def test_the_clocks_wait_for_each_sides_first_move(server: Server, new_page: PageFactory) -> None:
    page = new_page()
    new_game(page, server.base_url, mode="local", clock=(1, 0))
    page.wait_for_selector("#clock-note:not([hidden])")
    page.wait_for_timeout(1200)  # longer than the clock: nothing runs, nothing falls
    assert page.locator(".clock.running").count() == 0
    assert page.inner_text(".player.top .clock") == "1:00"
    for a, b in ((11, 15), (22, 18)):
        click_square(page, a)
        click_square(page, b)
    page.wait_for_selector(".player.top .clock.running")  # Black's, after White's first move
    assert page.is_hidden("#clock-note")
    page.click("#resign")
    page.click("#resign")
    page.wait_for_selector("#rematch")
    assert page.inner_text("#rematch") == "Play again"  # one screen: no colours to swap


def test_game_page_fits_a_phone(server: Server, new_page: PageFactory) -> None:
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    new_game(page, server.base_url, mode="local", clock=(5, 0))
    page.evaluate("() => window.scrollTo(0, 0)")
    for selector in (".player.top", "svg.board", ".player.bottom .clock", ".board-tools"):
        inside(page, selector, PHONE)
    assert box(page, "svg.board")["width"] >= 350
    shot(page, "polish-game-phone")


@pytest.mark.parametrize("viewport", [LAPTOP, LAPTOP_INNER], ids=["1366x768", "1366x650"])
def test_analysis_board_fits_a_laptop_screen(
    server: Server, new_page: PageFactory, viewport: dict[str, int]
) -> None:
    page = new_page(viewport=viewport)
    page.goto(server.url("/analysis"))
    wait_board(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    for s in (1, 4, 29, 32):  # the whole board, its bottom row too
        inside(page, f'svg.board rect.sq[data-square="{s}"]', viewport)
    inside(page, ".board-tools", viewport)
    shot(page, f"polish-analysis-{viewport['width']}x{viewport['height']}")


def test_analysis_board_fits_a_phone(server: Server, new_page: PageFactory) -> None:
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    page.goto(server.url("/analysis"))
    wait_board(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    for s in (1, 4, 29, 32):
        inside(page, f'svg.board rect.sq[data-square="{s}"]', PHONE)


def test_draw_offer_is_said_once_to_its_receiver(server: Server, new_page: PageFactory) -> None:
    created = server.post_json("/api/games", {"mode": "online", "color": "black"})
    gid = created["game"]["id"]
    invite = created["invite"].split("invite=", 1)[1]
    bob = server.post_json(f"/api/games/{gid}/join", {"invite": invite})
    alice = new_page()
    alice.goto(server.url("/"))
    alice.evaluate(
        "([id, t]) => localStorage.setItem('poolcheckers.token.' + id, t)",
        [gid, created["token"]],
    )
    alice.goto(server.url(f"/play/{gid}"))
    wait_board(alice)
    alice.wait_for_selector("#draw-offer")
    server.post_json(f"/api/games/{gid}/draw-offer", {"token": bob["token"]})
    alice.wait_for_selector("#draw-accept")
    alice.wait_for_timeout(300)
    text = alice.inner_text("main")
    assert text.count("offers a draw") == 1, text


def test_moves_counted_as_pdn_numbers_them(server: Server, new_page: PageFactory) -> None:
    pdn = (
        '[Event "Count"]\n[Black "Ann"]\n[White "Bob"]\n[Result "*"]\n\n1. 11-15 23-19 2. 8-11 *\n'
        '\n[Event "One"]\n[Black "Cy"]\n[White "Di"]\n[Result "*"]\n\n1. 9-13 22-18 *\n'
    )
    page = new_page()
    page.goto(server.url("/archive"))
    page.wait_for_selector("#import-form")
    page.fill("#import-text", pdn)
    page.click("#import-form button[type='submit']")
    page.wait_for_selector("#import-summary")
    assert page.inner_text("#import-summary").startswith("Imported 2 games")
    row = page.locator("tr", has_text="Ann – Bob")
    row.wait_for()
    assert row.locator("td.num").inner_text() == "2"  # 1. 11-15 23-19 2. 8-11: two moves
    assert page.locator("tr", has_text="Cy – Di").locator("td.num").inner_text() == "1"
    # the same text again: nothing stored twice, and the answer says so
    page.fill("#import-text", pdn)
    page.click("#import-form button[type='submit']")
    page.wait_for_function(
        "() => document.querySelector('#import-summary')?.textContent.includes('already')"
    )
    summary = page.inner_text("#import-summary")
    assert summary.startswith("Imported 0 games") and "2 games already in the archive" in summary
    assert page.locator("#import-duplicates li").count() == 2
    page.wait_for_timeout(300)
    assert page.locator("tr", has_text="Ann – Bob").count() == 1
    # the analysis page's PDN picker counts the same way, singular and plural
    page.goto(server.url("/analysis"))
    wait_board(page)
    page.fill("#pdn-input", pdn)
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_selector("#pdn-pick:not([hidden])")
    options = page.locator("#pdn-pick option").all_inner_texts()
    assert options[0].startswith("1. Ann – Bob (2 moves)"), options
    assert options[1].startswith("2. Cy – Di (1 move)"), options
    assert "(1 moves)" not in page.inner_text("main")


def test_archive_names_players_neutrally(server: Server, new_page: PageFactory) -> None:
    server.require_engine()
    local = server.post_json("/api/games", {"mode": "local"})["game"]["id"]
    engine = server.post_json("/api/games", {"mode": "engine", "level": 1, "color": "white"})
    eid = engine["game"]["id"]
    page = new_page()
    page.goto(server.url("/archive"))
    page.wait_for_selector(f'#running-games tr[data-game="{eid}"]')
    text = page.inner_text("#running-games")
    assert "You" not in text  # a visitor sees nobody's "You"
    assert "Human – Human (one screen)" in page.inner_text(f'tr[data-game="{local}"]')
    assert "Engine (level 1) – Human" in page.inner_text(f'tr[data-game="{eid}"]')
    # the seat holder (its token in this browser) sees itself named
    page.evaluate(
        "([id, t]) => localStorage.setItem('poolcheckers.token.' + id, t)",
        [eid, engine["token"]],
    )
    page.reload()
    page.wait_for_selector(f'#running-games tr[data-game="{eid}"]')
    assert "Engine (level 1) – You" in page.inner_text(f'tr[data-game="{eid}"]')


def test_abort_rematch_and_watch(server: Server, new_page: PageFactory) -> None:
    alice = new_page()
    gid = new_game(alice, server.base_url, mode="online", color="black", clock=(3, 2))
    link = alice.input_value("#invite-link")
    bob = new_page()
    bob.goto(link)
    wait_board(bob)
    bob.wait_for_selector("#abort")
    # the home page lists the game being played, for anyone to watch
    carol = new_page()
    carol.goto(server.url("/"))
    carol.wait_for_selector(f'#watch-games li[data-game="{gid}"] a')
    listed = carol.locator(f'#watch-games li[data-game="{gid}"]').inner_text()
    assert listed.startswith("Watch") and "3+2" in listed and "no move yet" in listed
    carol.click(f'#watch-games li[data-game="{gid}"] a')
    carol.wait_for_url(re.compile(f"/play/{gid}$"))
    wait_board(carol)
    carol.wait_for_function("() => /watching/.test(document.querySelector('#status').textContent)")
    # Bob aborts before anyone moved: no result
    bob.click("#abort")
    bob.click("#abort")  # confirm
    for page in (alice, bob, carol):
        page.wait_for_function(
            "() => /aborted/i.test(document.querySelector('#status').textContent)"
        )
    assert "(*)" not in alice.inner_text("#outcome")
    # Alice offers a rematch; Bob accepts; both land in the new game, colours swapped
    alice.click("#rematch")
    bob.wait_for_selector("#rematch-offer")
    assert "offers a casual rematch" in bob.inner_text("#rematch-offer")
    bob.click("#rematch")
    for page in (alice, bob):
        page.wait_for_url(re.compile(r"/play/(?!" + re.escape(gid) + r")[^/?]+$"))
        wait_board(page)
    assert alice.url == bob.url
    alice.wait_for_function("() => window.poolcheckersGame.state?.your_color === 'white'")
    bob.wait_for_function("() => window.poolcheckersGame.state?.your_color === 'black'")
    carol.wait_for_selector("#rematch-link")
    assert carol.inner_text("#rematch-link") == "Watch the rematch"
    shot(bob, "polish-rematch")


def piece_at(page: Page, origin: int) -> FloatRect:
    """Where the piece that stood on ``origin`` is drawn (its box)."""
    return box(page, f'svg.board g.piece[data-square="{origin}"] circle.top')


def centre(b: FloatRect) -> tuple[float, float]:
    return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2


def near(a: FloatRect, b: FloatRect) -> bool:
    (ax, ay), (bx, by) = centre(a), centre(b)
    return abs(ax - bx) < 12 and abs(ay - by) < 12


def test_a_multi_capture_walked_shows_the_piece_on_its_landing(
    server: Server, new_page: PageFactory
) -> None:
    # Black's man on 24 captures 24x15x22x29, 24x31x22x29 or round back to 24 (R4).
    fen = "B:W18,19,25,26,27:B11,24"
    page = new_page()
    new_game(page, server.base_url, mode="local", fen=fen)
    click_square(page, 24)
    page.wait_for_timeout(300)
    assert near(piece_at(page, 24), box(page, 'svg.board rect.sq[data-square="24"]'))
    click_square(page, 15)  # the first landing: more than one way on
    page.wait_for_selector("#board-hint:not(:empty)")
    page.wait_for_timeout(300)  # the piece's step (a 180 ms transition)
    assert near(piece_at(page, 24), box(page, 'svg.board rect.sq[data-square="15"]'))
    shot(page, "polish-multi-jump-walk")
    page.focus('svg.board rect.sq[data-square="15"]')
    page.keyboard.press("Escape")  # the walk is dropped: the piece is back on 24
    page.wait_for_timeout(300)
    assert near(piece_at(page, 24), box(page, 'svg.board rect.sq[data-square="24"]'))
    # walked again to the end: the move is played, the piece ends on 29
    click_square(page, 24)
    click_square(page, 15)
    click_square(page, 22)
    click_square(page, 29)
    page.wait_for_function("() => window.poolcheckersGame.state.moves.length === 1", timeout=10_000)
    page.wait_for_timeout(700)
    assert near(
        box(page, 'svg.board g.piece[data-square="29"] circle.top'),
        box(page, 'svg.board rect.sq[data-square="29"]'),
    )


def test_engine_rematch_is_one_click_with_the_colours_swapped(
    server: Server, new_page: PageFactory
) -> None:
    server.require_engine()
    page = new_page()
    gid = new_game(page, server.base_url, mode="engine", level=1, color="black")
    page.wait_for_selector("#abort")  # nobody has moved: abort, no result
    page.click("#resign")
    page.click("#resign")
    page.wait_for_selector("#rematch")
    assert page.inner_text("#rematch") == "Rematch as White"
    page.click("#rematch")
    page.wait_for_url(re.compile(r"/play/(?!" + re.escape(gid) + r")[^/?]+$"))
    wait_board(page)
    page.wait_for_function("() => window.poolcheckersGame.state?.your_color === 'white'")
    # the engine now plays Black and moves first; then it is the human's turn
    page.wait_for_function("() => window.poolcheckersGame.state.ply >= 1", timeout=20_000)
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.includes('your turn')"
    )
    assert "Engine (level 1)" in page.inner_text(".player.top .name")
