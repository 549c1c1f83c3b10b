"""A player's page as people use it: the games being played now
at the top, the games paginated with counts, filtered by time-control category
(the filter lives in the URL, so a reload keeps it), results against each
opponent and the rating plot; and the leaderboards.  On a phone and on a
1366x768 laptop.  The games are made through the API: seeks accepted and resigned."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

import pytest

from poolcheckers import Board

from .conftest import PageFactory, Server
from .helpers import shot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

PASSWORD = "correct horse battery"
SIZES: dict[str, dict[str, object]] = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "laptop": {"viewport": {"width": 1366, "height": 768}},
}
BLITZ = {"initial": 180, "increment": 2}
RAPID = {"initial": 600, "increment": 0}

POST = """async ([url, body]) => {
  const r = await fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'},
                              body: JSON.stringify(body)});
  const text = await r.text();
  if (!r.ok) throw new Error(url + ' answered ' + r.status + ': ' + text);
  return text ? JSON.parse(text) : null;
}"""


def post(page: Page, url: str, body: Any) -> Any:
    return page.evaluate(POST, [url, body])


def sign_up(page: Page, server: Server, name: str, address: str) -> None:
    """Create the account (its X-Forwarded-For is ignored: the server names no
    trusted proxy, and the browser tests' server lifts the sign-up limit)."""
    page.goto(server.url("/account"))
    page.wait_for_selector('form[aria-label="Create an account"]')
    page.evaluate(
        """async ([body, address]) => {
             const r = await fetch('/api/account/signup', {method: 'POST',
               headers: {'Content-Type': 'application/json', 'X-Forwarded-For': address},
               body: JSON.stringify(body)});
             if (!r.ok) throw new Error('sign-up answered ' + r.status + ': ' + await r.text());
           }""",
        [{"username": name, "password": PASSWORD}, address],
    )


def game(ann: Page, bob: Page, clock: dict[str, int], rated: bool) -> str:
    """Ann seeks as Black, Bob accepts, each plays a move (a game resigned before both
    sides moved is aborted): the new game's id."""
    seek = post(ann, "/api/seeks", {"clock": clock, "rated": rated, "color": "black"})
    started = post(bob, f"/api/seeks/{seek['id']}/accept", {})
    game_id: str = started["game"]["id"]
    post(ann, f"/api/games/{game_id}/move", {"move": "11-15", "ply": 0})
    post(bob, f"/api/games/{game_id}/move", {"move": "23-19", "ply": 1})
    return game_id


def rows(page: Page) -> list[str]:
    # textContent: the Type column is hidden on a phone
    texts: list[str] = page.locator("table.player-games tbody tr").all_text_contents()
    return texts


@pytest.mark.parametrize("size", list(SIZES))
def test_player_page_current_games_pages_and_filters(
    server: Server, new_page: PageFactory, size: str
) -> None:
    name, rival = f"Pia_{size}", f"Quin_{size}"
    pia, quin = new_page(), new_page()
    net = list(SIZES).index(size)
    sign_up(pia, server, name, f"198.51.100.{2 * net + 1}")
    sign_up(quin, server, rival, f"198.51.100.{2 * net + 2}")
    # 22 casual blitz games and 3 rated rapid ones, finished by resigning; one running
    for i in range(25):
        rapid = i >= 22
        gid = game(pia, quin, RAPID if rapid else BLITZ, rated=rapid)
        post(quin if i % 3 else pia, f"/api/games/{gid}/resign", {})
    running = game(pia, quin, BLITZ, rated=True)
    rapid_games = "async (n) => (await (await fetch('/api/users/' + n)).json()).ratings.rapid"
    deadline = time.monotonic() + 30
    while (pia.evaluate(rapid_games, name) or {}).get("games") != 3:  # rated: ratings change
        assert time.monotonic() < deadline, "the rated games did not change the ratings"
        pia.wait_for_timeout(200)

    page = new_page(**SIZES[size])
    page.goto(server.url(f"/players/{name}"))
    page.wait_for_selector(".games-count")
    # The game being played now comes first, linked to its game page (watch or play).
    now = page.locator('section[aria-label="Playing now"]')
    assert now.locator("li").count() == 1
    assert now.locator("a").get_attribute("href") == f"/play/{running}"
    assert f"{name} – {rival}" in now.inner_text() and "Rated blitz" in now.inner_text()
    # Results against each opponent and the rating plot are on the page.
    assert f"{rival} +" in page.inner_text('section[aria-label="Against each opponent"]')
    page.wait_for_function("() => document.querySelector('img.rating-plot').naturalWidth > 0")
    # One page of 20 of the 26 games, newest first (the running one on top).
    assert page.inner_text(".games-count") == "Games 1–20 of 26"
    first = rows(page)
    assert len(first) == 20 and first[0].startswith("Playing")
    assert page.locator("button.page-prev").is_disabled()
    # no stray "null" (a missing section once printed as text) anywhere on the page
    assert not re.search(r"\bnull\b", page.inner_text("main"))
    # the rated category's results and best rating, the chart over a chosen range
    assert "+" in page.inner_text('li[data-category="rapid"] .record')
    shot(page, f"player-page-{size}", full_page=True)

    page.click("button.page-next")
    page.wait_for_function(
        "() => document.querySelector('.games-count').textContent.includes('21')"
    )
    assert page.inner_text(".games-count") == "Games 21–26 of 26"
    assert len(rows(page)) == 6 and page.locator("button.page-next").is_disabled()
    assert re.search(r"[?&]page=2\b", page.url)
    shot(page, f"player-page-2-{size}", full_page=True)
    page.go_back()  # the browser's Back shows page 1 again
    page.wait_for_function(
        "() => document.querySelector('.games-count').textContent.includes('1–20')"
    )

    # The category filter: the three rapid games, in the URL, kept by a reload.
    page.select_option('select[name="category"]', "rapid")
    page.wait_for_function(
        "() => document.querySelector('.games-count').textContent.endsWith('of 3')"
    )
    assert page.url.endswith("?category=rapid")
    page.reload()
    page.wait_for_selector(".games-count")
    assert page.inner_text(".games-count") == "Games 1–3 of 3"
    assert page.input_value('select[name="category"]') == "rapid"
    filtered = rows(page)
    assert len(filtered) == 3 and all("Rated rapid" in r for r in filtered)
    assert page.locator("nav.pager").count() == 0  # one page: no pager
    # rated/casual combines with it: no casual rapid game
    page.select_option('select[name="rated"]', "false")
    page.wait_for_function(
        "() => document.querySelector('.games-count').textContent === 'No games match.'"
    )
    assert "category=rapid" in page.url and "rated=false" in page.url
    page.select_option('select[name="rated"]', "")
    page.wait_for_function(
        "() => document.querySelector('.games-count').textContent.endsWith('of 3')"
    )
    shot(page, f"player-page-rapid-{size}", full_page=True)

    # A game being played is not in a filter that excludes it, but stays on top.
    assert page.locator('section[aria-label="Playing now"] li').count() == 1


@pytest.mark.parametrize("size", list(SIZES))
def test_leaderboards_page_has_every_category(
    server: Server, new_page: PageFactory, size: str
) -> None:
    page = new_page(**SIZES[size])
    page.goto(server.url("/leaderboard"))
    page.wait_for_selector("section[data-category]")
    cats = page.eval_on_selector_all(
        "section[data-category]", "els => els.map(e => e.dataset.category)"
    )
    assert cats == ["bullet", "blitz", "rapid", "classical", "correspondence"]
    for cat in cats:  # a ranked list, who is closest to it, or that nobody played lately
        text = page.inner_text(f'section[data-category="{cat}"]')
        assert (
            "No rating has settled yet" in text
            or "Nobody has played a rated" in text
            or page.locator(f'section[data-category="{cat}"] ol li').count()
        )
    shot(page, f"leaderboard-{size}", full_page=True)
    # A filled board (the API's ranking is tested in tests/server/test_players_api.py):
    # ranks in order, names linked to the player pages and shown as text.
    board = [
        {"rank": 1, "username": "Top_1", "rating": 1912, "rd": 52, "games": 40},
        {"rank": 2, "username": "<b>x</b>", "rating": 1700, "rd": 70, "games": 12},
    ]
    page.route("**/api/leaderboard/rapid", lambda route: route.fulfill(json=board))
    page.reload()
    items = page.locator('section[data-category="rapid"] ol li')
    items.first.wait_for()
    assert items.all_inner_texts() == ["Top_1 1912 (40 games)", "<b>x</b> 1700 (12 games)"]
    assert items.first.locator("a").get_attribute("href") == "/players/Top_1"


def test_a_player_who_does_not_exist_is_shown_as_not_found(
    server: Server, new_page: PageFactory
) -> None:
    # The fixture fails the test on any uncaught error in the page: a missing
    # player is an answer shown to the visitor, not a fault of the page.
    page = new_page()
    page.goto(server.url("/players/nobody-here"))
    page.wait_for_selector("h1:text('Not found')")
    assert "no player named 'nobody-here'" in page.inner_text("[role=alert]")
    assert page.title().startswith("Not found")
    assert page.get_attribute("a:text('Back to the start page')", "href") == "/"


def play_on(black: Page, white: Page, game_id: str, start: int, plies: int) -> None:
    """Play ``plies`` more plies from ply ``start`` (each side's first legal move)."""
    board = Board()
    for ply in range(start + plies):
        if ply < start:  # the moves game() played
            move = ("11-15", "23-19")[ply]
        else:
            move = str(board.legal_moves[0])
            post(black if ply % 2 == 0 else white, f"/api/games/{game_id}/move",
                 {"move": move, "ply": ply})  # fmt: skip
        board.push(board.parse_move(move))


#: the game page's words before and after, and the player page's record, by language
SHORT_WORDS = {
    "en": ("Rated once each side has made 3 moves", "Too short to be rated", "1 rated game"),
    "pt-BR": (
        "Vale rating quando cada lado tiver feito 3 lances",
        "Curta demais para valer rating",
        "1 partida valendo rating",
    ),
}


@pytest.mark.parametrize(("size", "language"), [("phone", "en"), ("laptop", "pt-BR")])
def test_a_rated_game_too_short_to_be_rated_says_so_and_counts_in_no_record(
    short_games_server: Server, new_page: PageFactory, size: str, language: str
) -> None:
    server = short_games_server  # rates a game from its 6th ply
    before, after, one_game = SHORT_WORDS[language]
    name, rival = f"Rui_{size}", f"Sol_{size}"
    ann, bob = new_page(), new_page()
    sign_up(ann, server, name, "198.51.100.21")
    sign_up(bob, server, rival, "198.51.100.22")
    # a rated game long enough (6 plies) that Ann wins: it changes both ratings
    rated = game(ann, bob, BLITZ, rated=True)
    play_on(ann, bob, rated, 2, 4)
    post(bob, f"/api/games/{rated}/resign", {})
    blitz = "async (n) => (await (await fetch('/api/users/' + n)).json()).ratings.blitz"
    deadline = time.monotonic() + 30
    while (ann.evaluate(blitz, name) or {}).get("games") != 1:
        assert time.monotonic() < deadline, "the rated game did not change the ratings"
        ann.wait_for_timeout(200)
    # a rated game of 2 plies: its page says from when it counts, then that it did not
    short = game(ann, bob, BLITZ, rated=True)
    page = new_page(**SIZES[size], locale=language)
    page.goto(server.url(f"/play/{short}"))
    page.wait_for_selector("#rated-note:not([hidden])")
    assert page.inner_text("#rated-note").startswith(before)
    shot(page, f"short-rated-game-before-{size}-{language}")
    post(ann, f"/api/games/{short}/resign", {})
    page.wait_for_function(
        "words => document.querySelector('#rated-note').textContent.startsWith(words)",
        arg=after,
    )
    assert page.locator("#rating-change").is_hidden()
    shot(page, f"short-rated-game-after-{size}-{language}")
    # Ann's record: the one game her rating counts, not the short loss beside it
    page.goto(server.url(f"/players/{name}"))
    page.wait_for_selector('li[data-category="blitz"] .record')
    line = page.inner_text('li[data-category="blitz"]')
    assert one_game in line and "+1 =0 −0" in line, line
    assert "−1" not in line
    shot(page, f"player-record-after-short-game-{size}-{language}")
