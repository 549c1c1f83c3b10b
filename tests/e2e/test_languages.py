"""The site in Brazilian Portuguese and Spanish, in Chromium on a phone and at
1366x768: the browser's language chooses it, every main page shows no English left
(no message of the catalogs in English, no English word outside what is marked
``translate="no"``: names, notation), nothing is cut off or widens the page, and the
language menu at the foot of every page switches it and keeps the choice."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .conftest import PageFactory, Server

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 768}}
LANGUAGES = {"pt-BR": "pt_BR", "es": "es"}
PAGES = [
    "/",
    "/puzzles",
    "/practice",
    "/learn",
    "/rules",
    "/analysis",
    "/editor",
    "/archive",
    "/lobby",
    "/tournaments",
    "/leaderboard",
    "/account",
]
#: English words that are no Portuguese or Spanish word: one of them on a page in
#: those languages is English left behind
ENGLISH = frozenset(
    [
        "the",
        "and",
        "you",
        "your",
        "with",
        "this",
        "that",
        "from",
        "has",
        "have",
        "will",
        "was",
        "are",
        "is",
        "of",
        "to",
        "on",
        "it",
        "its",
        "game",
        "games",
        "move",
        "moves",
        "play",
        "playing",
        "player",
        "players",
        "sign",
        "new",
        "black",
        "white",
        "wins",
        "win",
        "draw",
        "loading",
        "show",
        "hide",
        "back",
        "next",
        "search",
        "settings",
        "rated",
        "board",
        "engine",
        "level",
        "start",
        "time",
        "rules",
        "lesson",
        "lessons",
        "puzzle",
        "puzzles",
        "practice",
        "learn",
        "tournament",
        "tournaments",
        "lobby",
        "leaderboard",
        "archive",
        "analysis",
        "account",
        "password",
        "username",
        "clock",
        "turn",
        "king",
        "kings",
        "man",
        "men",
        "jump",
        "step",
        "try",
        "again",
        "right",
        "wrong",
        "not",
        "yet",
        "all",
        "none",
        "any",
        "page",
        "found",
        "open",
        "close",
        "cancel",
        "accept",
        "resign",
        "offer",
        "flip",
        "copy",
        "share",
        "save",
        "load",
        "clear",
    ]
)

# The visible words of the page: text nodes and the attributes people read, outside
# what is marked translate="no", each with the element it belongs to.
VISIBLE_WORDS = """() => {
  const out = [];
  const skip = (el) => !el || el.closest('[translate="no"], script, style, noscript, #language');
  const shown = (el) => el.checkVisibility({ checkOpacity: false, checkVisibilityCSS: true });
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.replace(/\\s+/g, ' ').trim();
    const el = node.parentElement;
    if (text && !skip(el) && shown(el)) out.push(text);
  }
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder], [alt]')) {
    if (skip(el)) continue;
    for (const name of ['title', 'aria-label', 'placeholder', 'alt']) {
      const value = (el.getAttribute(name) || '').trim();
      if (value) out.push(value);
    }
  }
  out.push(document.title);
  return out;
}"""

# Elements whose words do not fit: text clipped by its box (overflow hidden, clip or
# an ellipsis), a button's words wider than the button, and the page wider than the
# window. Boxes that scroll (overflow auto) keep their words reachable.
CUT_OFF = """() => {
  const cut = [];
  const page = document.scrollingElement;
  if (page.scrollWidth > page.clientWidth + 1) cut.push(`the page: ${page.scrollWidth}px`);
  for (const el of document.querySelectorAll('body *')) {
    if (!el.checkVisibility() || !el.textContent.trim()) continue;
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) continue; // words for screen readers only
    const style = getComputedStyle(el);
    const clips = ['hidden', 'clip'].includes(style.overflowX) || style.textOverflow === 'ellipsis';
    if (clips && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) {
      const words = el.textContent.trim().slice(0, 40);
      cut.push(`${el.tagName.toLowerCase()}.${el.className}: "${words}"`);
    }
    if (el.tagName === 'BUTTON') {
      const range = document.createRange();
      range.selectNodeContents(el);
      if (range.getBoundingClientRect().width > el.getBoundingClientRect().width + 1) {
        cut.push(`button: "${el.textContent.trim().slice(0, 40)}"`);
      }
    }
  }
  return cut;
}"""


def _catalog_module() -> Any:
    """scripts/catalogs.py: the catalogs as `make catalogs` reads them."""
    spec = importlib.util.spec_from_file_location("catalogs", ROOT / "scripts" / "catalogs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _english_messages(language: str) -> list[re.Pattern[str]]:
    """Every message of the catalogs whose translation differs from its English, as a
    pattern of the whole English text (holes match anything)."""
    catalogs = _catalog_module()
    patterns = []
    for domain in catalogs.DOMAINS:
        catalog = catalogs.load(language, domain)
        assert catalog is not None
        for m in catalog:
            ids = [m.id] if isinstance(m.id, str) else list(m.id)
            texts = [m.string] if isinstance(m.string, str) else list(m.string)
            for english in ids:
                parts = re.split(r"\{\w+\}", english)
                # a message that is mostly holes ("{count}k") would match any words
                if english not in texts and re.search(r"[A-Za-z]{3}", "".join(parts)):
                    patterns.append(re.compile(".+".join(re.escape(p) for p in parts)))
    return patterns


@pytest.fixture(scope="module")
def game_and_player(server: Server) -> Iterator[tuple[list[str], str]]:
    """A game in play, a finished one (its ending in words) and a player's page."""
    games = []
    for moves in ([], ["11-15", "23-19"]):
        made = server.post_json("/api/games", {"mode": "local"})
        gid, token = made["game"]["id"], made["token"]
        for ply, move in enumerate(moves):
            server.post_json(f"/api/games/{gid}/move", {"move": move, "ply": ply, "token": token})
        if moves:
            server.post_json(f"/api/games/{gid}/resign", {"token": token})
        games.append(gid)
    name = "Tiago_Rosa"
    server.post_json("/api/account/signup", {"username": name, "password": "correct horse battery"})
    yield games, name


def _settle(page: Page) -> None:
    page.wait_for_load_state("networkidle")
    page.wait_for_function("() => !document.querySelector('#app .loading')")


def _english_left(words: list[str], patterns: list[re.Pattern[str]]) -> list[str]:
    left = []
    for text in words:
        if any(p.fullmatch(text) for p in patterns):
            left.append(text)
            continue
        english = [w for w in re.findall(r"[^\W\d_]+", text) if w.lower() in ENGLISH]
        if english:
            left.append(f"{text!r} ({', '.join(english)})")
    return left


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_main_pages_have_no_english_left_and_nothing_cut_off(
    server: Server,
    new_page: PageFactory,
    game_and_player: tuple[list[str], str],
    language: str,
    size: str,
) -> None:
    patterns = _english_messages(LANGUAGES[language])
    page = new_page(viewport=SIZES[size], locale=language)
    games, player = game_and_player
    problems: list[str] = []
    for path in [*PAGES, *(f"/play/{gid}" for gid in games), f"/players/{player}"]:
        page.goto(server.url(path))
        _settle(page)
        assert page.get_attribute("html", "lang") == language
        problems += [
            f"{path}: English {w}" for w in _english_left(page.evaluate(VISIBLE_WORDS), patterns)
        ]
        problems += [f"{path}: cut off {c}" for c in page.evaluate(CUT_OFF)]
    assert not problems, "\n".join(problems)


def test_the_language_menu_switches_every_page_and_is_remembered(
    server: Server, new_page: PageFactory
) -> None:
    page = new_page(locale="en-US")
    page.goto(server.url("/rules"))
    _settle(page)
    assert page.get_attribute("html", "lang") == "en"
    with page.expect_navigation():
        page.select_option("#language", "es")
    _settle(page)
    assert page.get_attribute("html", "lang") == "es"
    page.goto(server.url("/lobby"))  # another page: the choice is kept
    assert page.get_attribute("html", "lang") == "es"
    assert page.input_value("#language") == "es"
    # signed in, the menu keeps the choice on the account: a new browser (an English
    # one) signs in and the site speaks it again
    account = {"username": "Lina_Menu", "password": "correct horse battery"}
    assert page.request.post(server.url("/api/account/signup"), data=account).ok
    page.reload()
    _settle(page)
    with page.expect_navigation():
        page.select_option("#language", "pt-BR")
    _settle(page)
    assert page.get_attribute("html", "lang") == "pt-BR"
    other = new_page(locale="en-US")
    assert other.request.post(server.url("/api/account/login"), data=account).ok
    other.goto(server.url("/"))
    assert other.get_attribute("html", "lang") == "pt-BR"
