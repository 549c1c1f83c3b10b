"""PDN as a tree in Chromium, on a phone and at 1366x768: an imported game's page shows
its comments and variations; the analysis board shows them too, steps into a
variation, grows the tree (a move off the line is a variation, the main line kept),
comments a move, makes a variation the main line, deletes one, and exports the tree as
PDN that the library reads back with every line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poolcheckers import Board
from poolcheckers.pdn import read_games

from .conftest import PageFactory, Server
from .helpers import STANDARD_FEN, click_path, move_texts, shot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 768}}
CORPUS = (Path(__file__).parents[1] / "data" / "annotated.pdn").read_text(encoding="utf-8")
CLUB = CORPUS.split("\n\n[Event ")[0] + "\n"  # the first game: comments and a variation
BLUNDER_LINE = ["9-13", "21-17", "5-9", "17-14", "9x18"]


def wait_fen(page: Page, moves: list[str]) -> None:
    board = Board(STANDARD_FEN)
    for m in moves:
        board.push_notation(m)
    page.wait_for_function("f => document.querySelector('#fen-out')?.value === f", arg=board.fen())


def exported(page: Page) -> str:
    """Export again and wait for the new text."""
    before = page.input_value("#pdn-export")
    page.click("#export-pdn")
    page.wait_for_function("t => document.querySelector('#pdn-export').value !== t", arg=before)
    return page.input_value("#pdn-export")


def notes(page: Page) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        "#move-list li.note", "els => els.map(e => e.innerText)"
    )
    return found


@pytest.mark.parametrize("size", SIZES)
def test_an_imported_games_page_shows_its_comments_and_variations(
    server: Server, new_page: PageFactory, size: str
) -> None:
    answer = server.post_json("/api/import", {"pdn": CLUB.replace("Club night", f"Club {size}")})
    (gid,) = answer["imported"]
    page = new_page(viewport=SIZES[size])
    page.goto(server.url(f"/play/{gid}"))
    page.wait_for_selector("#move-list li.note")
    shown = notes(page)
    assert shown[0] == "A club game with the coach's notes."
    assert "a quiet developing move" in shown[1]
    # a variation of a variation's first move is another variation of the move, as
    # python-chess and lichess read it
    assert "(3... 24-20 also playable 4. 15x24 28x19) (3... 25-22?!)" in shown[2]
    # the NAG of 17-14 ($1) is read as "!" on the move
    assert "17-14!" in page.eval_on_selector_all(
        "#move-list button.mv", "els => els.map(e => e.textContent)"
    )
    # nothing is cut off: the notes wrap inside the move list
    overflow = page.evaluate(
        "() => [...document.querySelectorAll('#move-list li.note')]"
        ".some(e => e.scrollWidth > e.clientWidth + 1)"
    )
    assert not overflow
    page.locator("#move-list").scroll_into_view_if_needed()  # the list, not a row it redraws
    shot(page, f"pdn-tree-game-{size}")


def test_the_analysis_board_shows_and_steps_into_a_variation(
    server: Server, new_page: PageFactory
) -> None:
    page = new_page(viewport=SIZES["laptop"])
    page.goto(server.url("/analysis"))
    page.wait_for_selector("svg.board .piece")
    page.fill("#pdn-input", CLUB)
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_selector("#move-list li.note")
    main = read_games(CLUB)[0].notations()
    assert move_texts(page) == [m for m in main]
    # 24-20, the variation instead of 17-14: its line is shown, the main line kept
    page.click('#move-list .vm:text("24-20")')
    wait_fen(page, [*main[:5], "24-20"])
    assert move_texts(page) == [*main[:5], "24-20", "15x24", "28x19"]
    page.wait_for_selector("#branch-banner:not([hidden])")
    assert "main line" in page.inner_text("#branch-banner")
    page.click("#back-to-game")
    wait_fen(page, main[:5])
    assert move_texts(page) == main
    assert page.is_hidden("#branch-banner")


@pytest.mark.parametrize("size", SIZES)
def test_the_analysis_board_edits_the_tree_and_exports_it(
    server: Server, new_page: PageFactory, size: str
) -> None:
    page = new_page(viewport=SIZES[size])
    page.goto(server.url("/analysis"))
    page.wait_for_selector("svg.board .piece")
    page.fill("#pdn-input", '[Event "Tree"]\n[Black "Ann"]\n\n' + " ".join(BLUNDER_LINE) + " *")
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 5")
    assert page.is_disabled("#delete-move") is False  # the last move is shown

    # a move off the line at ply 2 is a variation; the loaded moves stay in the tree
    page.click('#move-list button.mv[data-ply="2"]')
    wait_fen(page, BLUNDER_LINE[:2])
    page.locator("svg.board").scroll_into_view_if_needed()
    click_path(page, [11, 15])
    wait_fen(page, [*BLUNDER_LINE[:2], "11-15"])
    assert move_texts(page) == [*BLUNDER_LINE[:2], "11-15"]
    assert any("5-9" in n and "9x18" in n for n in notes(page))

    # a comment on the shown move
    page.fill("#move-comment", "keeps the man on 5 at home")
    page.locator("#move-comment").blur()
    page.wait_for_function(
        "() => [...document.querySelectorAll('#move-list .comment')]"
        ".some(e => e.textContent === 'keeps the man on 5 at home')"
    )

    # export: the library reads the main line, the variation and the comment back
    page.click("#export-pdn")
    page.wait_for_selector("#pdn-export:not([hidden])")
    [game] = read_games(page.input_value("#pdn-export"))
    assert [str(m) for m in game.moves] == BLUNDER_LINE
    [variation] = game.variations[3]
    assert [str(m) for m in variation.moves] == ["11-15"]
    assert variation.comments == {1: "keeps the man on 5 at home"}
    assert game.tags["Black"] == "Ann" and game.tags["Event"] == "Tree"

    # make the variation the main line: the export says so, the banner goes
    page.click("#promote-line")
    page.wait_for_function("() => document.querySelector('#branch-banner').hidden")
    [promoted] = read_games(exported(page))
    assert [str(m) for m in promoted.moves] == [*BLUNDER_LINE[:2], "11-15"]
    assert [str(m) for m in promoted.variations[3][0].moves] == BLUNDER_LINE[2:]
    assert promoted.result == "*"

    # delete the shown move: the line it began is gone from the tree
    page.click("#delete-move")
    wait_fen(page, BLUNDER_LINE[:2])
    [after] = read_games(exported(page))
    assert [str(m) for m in after.moves] == BLUNDER_LINE and after.variations == {}
    shot(page, f"pdn-tree-analysis-{size}")


def test_an_archive_game_opens_on_the_analysis_board_with_its_tree(
    server: Server, new_page: PageFactory
) -> None:
    (gid,) = server.post_json("/api/import", {"pdn": CLUB.replace("Club night", "Archive")})[
        "imported"
    ]
    page = new_page(viewport=SIZES["phone"])
    page.goto(server.url(f"/analysis?game={gid}"))
    page.wait_for_selector("#move-list li.note")
    assert notes(page)[0] == "A club game with the coach's notes."
    page.click("#export-pdn")
    page.wait_for_selector("#pdn-export:not([hidden])")
    [game] = read_games(page.input_value("#pdn-export"))
    [original] = read_games(CLUB)
    assert game.moves == original.moves
    assert (game.comments, game.nags) == (original.comments, original.nags)
    # the nested alternative to 24-20 comes back as a second variation of 17-14
    lines = [[str(m) for m in v.moves] for v in game.variations[6]]
    assert lines == [["24-20", "15x24", "28x19"], ["25-22"]]
    assert game.variations[6][0].comments == {1: "also playable"}
    assert game.variations[6][1].nags == {1: [6]}
