"""The archive as a player uses it, in Chromium on a phone and at 1366x768: "My games"
apart from everyone's, a search by player, event, result and date kept in the URL,
the day a game was played (its PDN Date), the count of the games found, and an
imported game without a result shown as unfinished, not as a draw."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .conftest import PageFactory, Server
from .helpers import new_game, shot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 768}}


def club(tag: str) -> str:
    return f"""[Event "Harlem Club {tag}"]
[Date "2026.11.14"]
[Black "Ann Smith {tag}"]
[White "Bob Jones"]
[Result "2-0"]

1. 11-15 23-19 2. 8-11 2-0

[Event "Kingston Open {tag}"]
[Date "2025.03.02"]
[Black "Desmond {tag}"]
[White "Marcus Garvey"]
[Result "*"]

1. 10-14 *
"""


def rows(page: Page, status: str) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        f"#{status}-games tr[data-game]", "els => els.map(e => e.dataset.game)"
    )
    return found


@pytest.mark.parametrize("size", SIZES)
def test_my_games_apart_and_a_search_kept_in_the_url(
    server: Server, new_page: PageFactory, size: str
) -> None:
    smith, unfinished = server.post_json("/api/import", {"pdn": club(size)})["imported"]
    page = new_page(viewport=SIZES[size])
    mine = new_game(page, server.base_url, mode="local")
    page.goto(server.url("/archive"))
    # this browser holds a seat: its archive opens on its own games, not everyone's
    page.wait_for_selector("#view-mine[aria-pressed=true]")
    page.wait_for_selector(f'#running-games tr[data-game="{mine}"]')
    assert rows(page, "running") == [mine] and rows(page, "finished") == []
    page.click("#view-all")
    page.wait_for_selector(f'#finished-games tr[data-game="{smith}"]')
    assert "view=all" in page.url
    # a search by player and event; the URL keeps it, a reload shows the same
    page.fill('#archive-filters input[name="player"]', f"desmond {size}")
    page.click('#archive-filters button[type="submit"]')
    page.wait_for_function(
        "id => [...document.querySelectorAll('#finished-games tr[data-game]')]"
        ".map(e => e.dataset.game).join() === id",
        arg=unfinished,
    )
    assert "player=desmond" in page.url
    assert page.inner_text("#finished-count") == "(1)"
    row = page.inner_text(f'#finished-games tr[data-game="{unfinished}"]')
    assert "unfinished" in row and "2025.03.02" in row  # the PDN Date, not today
    page.reload()
    page.wait_for_selector(f'#finished-games tr[data-game="{unfinished}"]')
    assert page.input_value('#archive-filters input[name="player"]') == f"desmond {size}"
    # by result and dates
    page.fill('#archive-filters input[name="player"]', "")
    page.fill('#archive-filters input[name="event"]', f"harlem club {size}")
    page.select_option('#archive-filters select[name="result"]', "2-0")
    page.fill('#archive-filters input[name="date_from"]', "2026-11-01")
    page.fill('#archive-filters input[name="date_to"]', "2026-11-30")
    page.click('#archive-filters button[type="submit"]')
    page.wait_for_function(
        "id => [...document.querySelectorAll('#finished-games tr[data-game]')]"
        ".map(e => e.dataset.game).join() === id",
        arg=smith,
    )
    assert "2026.11.14" in page.inner_text(f'#finished-games tr[data-game="{smith}"]')
    page.select_option('#archive-filters select[name="result"]', "1-1")
    page.click('#archive-filters button[type="submit"]')
    page.wait_for_selector("#finished-games td.hint:text('No game matches the search.')")
    overflow = page.evaluate(
        "() => document.scrollingElement.scrollWidth > document.scrollingElement.clientWidth"
    )
    assert not overflow
    shot(page, f"archive-search-{size}")


def test_an_unfinished_imported_game_is_not_called_a_draw(
    server: Server, new_page: PageFactory
) -> None:
    _, unfinished = server.post_json("/api/import", {"pdn": club("page")})["imported"]
    page = new_page(viewport=SIZES["laptop"])
    page.goto(server.url(f"/play/{unfinished}"))
    page.wait_for_selector("#outcome:not([hidden])")
    outcome = page.inner_text("#outcome")
    assert outcome.startswith("Unfinished") and "Draw" not in outcome
    assert page.title().startswith("Unfinished game")


SIGN_UP = """async (name) => {
  const r = await fetch('/api/account/signup', {method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({username: name, password: 'correct horse battery'})});
  if (!r.ok) throw new Error('sign-up answered ' + r.status + ': ' + await r.text());
}"""
POST = """async ([url, body]) => {
  const r = await fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'},
                              body: JSON.stringify(body)});
  const text = await r.text();
  if (!r.ok) throw new Error(url + ' answered ' + r.status + ': ' + text);
  return text ? JSON.parse(text) : null;
}"""


def signed_up(page: Page, server: Server, name: str) -> None:
    """The page's browser signs up as ``name`` (and is signed in), in any language."""
    page.goto(server.url("/"))
    page.evaluate(SIGN_UP, name)


@pytest.mark.parametrize(("size", "language"), [("phone", "en"), ("laptop", "es")])
def test_the_search_by_event_finds_a_tournaments_games_and_imported_games(
    server: Server, new_page: PageFactory, size: str, language: str
) -> None:
    ann, bob = new_page(), new_page()
    signed_up(ann, server, f"Tia_{size}")
    signed_up(bob, server, f"Ugo_{size}")
    spec = {"name": f"APCA National {size}", "system": "round_robin",
            "clock": {"initial": 600, "increment": 5}}  # fmt: skip
    tid = ann.evaluate(POST, ["/api/tournaments", spec])["id"]
    for player in (ann, bob):
        player.evaluate(POST, [f"/api/tournaments/{tid}/join", {}])
    ann.evaluate(POST, [f"/api/tournaments/{tid}/start", {}])
    pairing = "async (t) => (await (await fetch('/api/tournaments/' + t)).json()).pairings"
    ann.wait_for_function(f"async () => ({pairing})('{tid}').then(p => p.some(x => x.game))")
    played = [p["game"] for p in ann.evaluate(pairing, tid) if p["game"]]
    pdn = f'[Event "APCA National {size}"]\n[Black "Cy"]\n[White "Dee"]\n[Result "2-0"]\n\n'
    (imported,) = server.post_json("/api/import", {"pdn": pdn + "1. 9-13 2-0\n"})["imported"]

    page = new_page(viewport=SIZES[size], locale=language)
    page.goto(server.url("/archive?view=all"))
    page.fill('#archive-filters input[name="event"]', f"apca NATIONAL {size}")
    page.click('#archive-filters button[type="submit"]')
    # the tournament's game (running) by its name, the imported game by its Event tag
    page.wait_for_selector(f'#running-games tr[data-game="{played[0]}"]')
    page.wait_for_selector(f'#finished-games tr[data-game="{imported}"]')
    assert rows(page, "running") == played and rows(page, "finished") == [imported]
    assert page.inner_text("#running-count") == page.inner_text("#finished-count") == "(1)"
    overflow = page.evaluate(
        "() => document.scrollingElement.scrollWidth > document.scrollingElement.clientWidth"
    )
    assert not overflow
    shot(page, f"archive-event-search-{size}-{language}")


ENGINE_WORDS = {"en": "Engine (level 6)", "pt-BR": "Motor (nível 6)"}


@pytest.mark.parametrize(("size", "language"), [("phone", "en"), ("laptop", "pt-BR")])
def test_my_games_name_the_engine_opponent_with_its_level(
    server: Server, new_page: PageFactory, size: str, language: str
) -> None:
    server.require_engine()
    page = new_page(viewport=SIZES[size], locale=language)
    name = f"Vi_{size}"
    signed_up(page, server, name)
    gid = new_game(page, server.base_url, mode="engine", level=6, color="black")
    page.goto(server.url("/archive"))
    page.wait_for_selector("#view-mine[aria-pressed=true]")
    row = page.locator(f'#running-games tr[data-game="{gid}"] td').first
    row.wait_for()
    # the player by their name, the engine by its level; no "?" for the side it plays
    assert row.inner_text().startswith(f"{name} – {ENGINE_WORDS[language]}")
    assert "?" not in row.inner_text()
    shot(page, f"archive-my-engine-game-{size}-{language}")
