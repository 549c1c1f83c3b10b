"""What the browser tests do again and again: start games through the form,
click squares, read the board the page shows, save screenshots."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolcheckers import Board, Color

from .conftest import Server

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
STANDARD_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def shot(page: Page, name: str, *, full_page: bool = False) -> Path:
    """Save a screenshot as test-artifacts/screenshots/<name>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def new_game(
    page: Page,
    base_url: str,
    *,
    mode: str,
    fen: str | None = None,
    level: int | None = None,
    color: str | None = None,
    clock: tuple[float, int] | None = None,
    rules: dict[str, str] | None = None,
) -> str:
    """Fill in the home page form, start the game and return its id."""
    page.goto(base_url + "/")
    page.wait_for_selector("#new-game")
    page.check(f'input[name="mode"][value="{mode}"]')
    if level is not None:
        page.select_option("#level", str(level))
    if color is not None:
        page.select_option("#online-color" if mode == "online" else "#color", color)
    if rules:
        page.click("details.rules summary")
        for name, value in rules.items():
            selector = f'[name="{name}"]'
            if value in ("true", "false"):
                page.set_checked(selector, value == "true")
            elif page.eval_on_selector(selector, "el => el.tagName") == "SELECT":
                page.select_option(selector, value)
            else:
                page.fill(selector, value)
    if clock is not None:
        page.check('input[name="use_clock"]')
        page.fill('input[name="minutes"]', str(clock[0]))
        page.fill('input[name="increment"]', str(clock[1]))
    if fen is not None:
        page.click("details.fen summary")
        page.fill('input[name="fen"]', fen)
    page.click('#new-game button[type="submit"]')
    page.wait_for_url(re.compile(r"/play/[^/?]+$"))
    wait_board(page)
    match = re.search(r"/play/([^/?]+)$", page.url)
    assert match is not None
    return match.group(1)


def wait_board(page: Page) -> None:
    page.wait_for_selector("svg.board .piece")


def square(page: Page, s: int) -> Locator:
    return page.locator(f'svg.board rect.sq[data-square="{s}"]')


def click_square(page: Page, s: int) -> None:
    square(page, s).click()


def click_path(page: Page, path: list[int] | tuple[int, ...]) -> None:
    """Pick the piece on path[0], then click every landing square."""
    for s in path:
        click_square(page, s)


def pieces(page: Page) -> dict[int, str]:
    """The pieces the page's board shows: square -> "b", "w", "B" or "W"."""
    data: dict[str, str] = page.evaluate(
        """() => {
          const out = {};
          for (const el of document.querySelectorAll("svg.board .piece:not(.captured)")) {
            const black = el.classList.contains("black");
            const king = el.classList.contains("king");
            const letter = black ? (king ? "B" : "b") : (king ? "W" : "w");
            out[el.dataset.square] = letter;
          }
          return out;
        }"""
    )
    return {int(k): v for k, v in data.items()}


def fen_pieces(fen: str) -> dict[int, str]:
    """The pieces of a FEN, as :func:`pieces` returns them."""
    board = Board(fen)
    out: dict[int, str] = {}
    for s in range(1, 33):
        piece = board.piece_at(s)
        if piece is not None:
            out[s] = piece.symbol()
    return out


def move_texts(page: Page) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(
        "#move-list button.mv", "els => els.map(e => e.textContent.replace(/[?!]+$/, ''))"
    )
    return texts


def wait_moves(page: Page, count: int) -> list[str]:
    """Wait until the move list has ``count`` moves and return them."""
    page.wait_for_function(
        "n => document.querySelectorAll('#move-list button.mv').length >= n", arg=count
    )
    return move_texts(page)


def game_state(page: Page, server: Server, game_id: str) -> dict[str, Any]:
    state: dict[str, Any] = server.get_json(f"/api/games/{game_id}")
    return state


def forced_win_move(board: Board, winner: Color, depth: int) -> str | None:
    """A move of ``winner`` (to move) that wins within ``depth`` of its moves
    whatever the opponent replies, in the notation of the rules library."""

    def wins(b: Board, left: int) -> bool:
        out = b.outcome()
        if out is not None:
            return out.winner is winner
        if b.turn is winner:
            if left == 0:
                return False
            for m in b.legal_moves:
                b.push(m)
                ok = wins(b, left - 1)
                b.pop()
                if ok:
                    return True
            return False
        for m in b.legal_moves:
            b.push(m)
            ok = wins(b, left)
            b.pop()
            if not ok:
                return False
        return True

    for m in board.legal_moves:
        board.push(m)
        ok = wins(board, depth - 1)
        board.pop()
        if ok:
            return board.notation(m)
    return None
