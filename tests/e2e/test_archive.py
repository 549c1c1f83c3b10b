"""The archive page in Chromium: PDN import from a file with errors shown per
game, the games listed, replay, and PDN export of one game and of all."""

from __future__ import annotations

from pathlib import Path

import pytest

from poolcheckers import Board

from .conftest import PageFactory, Server
from .helpers import fen_pieces, move_texts, pieces, shot

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def sample_moves(count: int) -> list[str]:
    """A legal game start: the first legal move, ``count`` times."""
    board = Board()
    out = []
    for _ in range(count):
        move = board.legal_moves[0]
        out.append(board.notation(move))
        board.push(move)
    return out


def movetext(moves: list[str]) -> str:
    parts = []
    for i, m in enumerate(moves):
        if i % 2 == 0:
            parts.append(f"{i // 2 + 1}.")
        parts.append(m)
    return " ".join(parts)


def test_import_replay_and_export(server: Server, new_page: PageFactory, tmp_path: Path) -> None:
    good = sample_moves(8)
    pdn = (
        '[Event "e2e import"]\n[Black "Alice Archive"]\n[White "Bob Archive"]\n'
        '[GameType "23"]\n[Result "2-0"]\n\n'
        f"{movetext(good)} 2-0\n\n"
        '[Event "broken"]\n[Black "Carol"]\n[White "Dave"]\n[Result "*"]\n\n'
        "1. 11-15 23-19 2. 15-24 *\n"
    )
    path = tmp_path / "two-games.pdn"
    path.write_text(pdn)

    page = new_page(accept_downloads=True)
    page.goto(server.url("/archive"))
    page.wait_for_selector("#import-form")
    page.set_input_files("#import-file", str(path))
    page.click('#import-form button[type="submit"]')
    page.wait_for_selector("#import-summary")
    assert page.inner_text("#import-summary") == "Imported 1 game; 1 with errors."
    errors = page.locator("#import-errors li")
    assert errors.count() == 1
    error_text = errors.inner_text()
    assert error_text.startswith("Game 2")
    assert "line" in error_text and "15-24" in error_text
    # The imported game is named by its place in the file and its players.
    assert page.inner_text("#imported-games").startswith("Game 1 (Alice Archive – Bob Archive)")
    row = page.locator("#finished-games tr", has_text="Alice Archive")
    row.wait_for()
    assert "2-0" in row.inner_text()
    shot(page, "archive-imported", full_page=True)

    # Export one game: the PDN link of its row.
    with page.expect_download() as info:
        row.locator("a", has_text="PDN").click()
    one = Path(info.value.path()).read_text()
    assert "Alice Archive" in one and good[0] in one and good[-1] in one
    assert "Carol" not in one

    # Export everything.
    with page.expect_download() as info:
        page.click("#export-all")
    everything = Path(info.value.path()).read_text()
    assert "Alice Archive" in everything and "Bob Archive" in everything

    # Replay: the game page shows the names, the moves and the result.
    row.locator("a", has_text="Replay").click()
    page.wait_for_selector("svg.board .piece")
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length > 0")
    assert move_texts(page) == good
    assert "Alice Archive" in page.inner_text(".board-col")
    board = Board()
    for m in good:
        board.push_notation(m)
    assert pieces(page) == fen_pieces(board.fen())
    page.click("#nav-first")
    page.wait_for_selector("#view-banner:not([hidden])")
    page.wait_for_timeout(300)
    assert pieces(page) == fen_pieces(Board().fen())
    shot(page, "archive-replay")
