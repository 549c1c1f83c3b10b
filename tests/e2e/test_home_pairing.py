"""The home page as lichess's: quick pairing by a grid of clocks (a signed-out visitor
is asked to sign in first), and "Your games" with the games waiting for your move
first, your own game not under "Watch"; the lobby lists your games too. In Chromium on
a phone and at 1366x768."""

from __future__ import annotations

import re

import pytest

from .conftest import PageFactory, Server
from .helpers import shot
from .test_community import sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 768}}


def test_a_signed_out_visitor_is_asked_to_sign_in(server: Server, new_page: PageFactory) -> None:
    page = new_page(viewport=SIZES["phone"])
    page.goto(server.url("/"))
    page.click('#quick-pairing button[data-clock="3+2"]')
    page.wait_for_url(re.compile(r"/account\?next=%2F$"))


@pytest.mark.parametrize("size", SIZES)
def test_quick_pairing_and_your_games_your_turn_first(
    server: Server, new_page: PageFactory, size: str
) -> None:
    ann, bob, visitor = (new_page(viewport=SIZES[size]) for _ in range(3))
    ann_name, bob_name = f"Quick_A_{size}", f"Quick_B_{size}"
    sign_up(ann, server, ann_name)
    sign_up(bob, server, bob_name)
    clock = "10+5" if size == "phone" else "15+10"  # each run its own clock
    # Ann finds nobody waiting: her seek waits in the lobby
    ann.goto(server.url("/"))
    ann.click(f'#quick-pairing button[data-clock="{clock}"]')
    ann.wait_for_url(re.compile(r"/lobby$"))
    # Bob takes it from his home page: both are in the game
    bob.goto(server.url("/"))
    bob.click(f'#quick-pairing button[data-clock="{clock}"]')
    for page in (ann, bob):
        page.wait_for_url(re.compile(r"/play/[^/?]+$"))
        page.wait_for_selector("svg.board .piece")
    game_id = bob.url.rsplit("/", 1)[1]
    assert ann.url == bob.url
    assert "Rated ·" in bob.inner_text("#game-kind")
    # both see the game under "Your games", marked for the one to move, not under "Watch"
    state = server.get_json(f"/api/games/{game_id}")
    to_move = ann if (state["tags"]["Black"] == ann_name) == (state["turn"] == "black") else bob
    waiting = bob if to_move is ann else ann
    for page in (to_move, waiting):
        page.goto(server.url("/"))
        page.wait_for_selector(f'#my-games li[data-game="{game_id}"]')
        page.wait_for_selector("#watch[data-loaded]")
        assert page.locator(f'#watch-games li[data-game="{game_id}"]').count() == 0
    assert "your-turn" in (
        to_move.get_attribute(f'#my-games li[data-game="{game_id}"]', "class") or ""
    )
    assert "(your turn)" in to_move.inner_text("#my-games")
    assert "your-turn" not in (
        waiting.get_attribute(f'#my-games li[data-game="{game_id}"]', "class") or ""
    )
    # anyone else can watch it
    visitor.goto(server.url("/"))
    visitor.wait_for_selector(f'#watch-games li[data-game="{game_id}"]')
    # the lobby lists the player's games too
    to_move.goto(server.url("/lobby"))
    to_move.wait_for_selector(f'#my-games li[data-game="{game_id}"]')
    shot(to_move, f"lobby-your-games-{size}")
