"""The account page's API tokens in Chromium, on a phone and at 1366x768: a token is
made for a program with the scopes ticked, shown once and then listed by its name
only; a program signs in with it (and a bot account shows BOT on its page); revoked,
it stops working."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from .conftest import PageFactory, Server
from .helpers import shot

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 768}}
SIGN_UP = 'form[aria-label="Create an account"]'
NEW_TOKEN = 'form[aria-label="New API token"]'
PASSWORD = "correct horse battery"


def _bot_request(server: Server, path: str, token: str, method: str = "GET") -> int:
    request = urllib.request.Request(
        server.url(path), headers={"Authorization": f"Bearer {token}"}, method=method
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@pytest.mark.parametrize("size", SIZES)
def test_a_token_is_made_shown_once_used_and_revoked(
    server: Server, new_page: PageFactory, size: str
) -> None:
    page = new_page(viewport=SIZES[size])
    page.goto(server.url("/account"))
    name = f"Robo_{size}"
    page.fill(f'{SIGN_UP} input[name="username"]', name)
    page.fill(f'{SIGN_UP} input[name="password"]', PASSWORD)
    page.click(f'{SIGN_UP} button[type="submit"]')
    page.wait_for_url("**/lobby")  # signing up goes on to the lobby
    page.goto(server.url("/account"))
    page.wait_for_selector(NEW_TOKEN)
    page.wait_for_selector('#tokens li:has-text("No tokens.")')
    page.fill(f'{NEW_TOKEN} input[name="label"]', "my engine")
    page.check(f'{NEW_TOKEN} input[value="bot:play"]')
    page.click(f'{NEW_TOKEN} button[type="submit"]')
    token = page.inner_text("#new-token")
    assert token.startswith("pct_") and len(token) == 47
    assert "shown only this once" in page.inner_text("#tokens")
    listed = page.locator("#tokens li[data-token]")
    listed.wait_for()
    assert "my engine" in listed.inner_text() and "bot:play" in listed.inner_text()
    assert token not in listed.inner_text()
    # the whole token is on screen, not cut (a phone breaks it over lines)
    box = page.locator("#new-token").bounding_box()
    assert box is not None and box["x"] + box["width"] <= SIZES[size]["width"]
    shot(page, f"api-token-{size}")

    # a program uses it: the account becomes a bot, marked on its page
    assert _bot_request(server, "/api/bot/account/upgrade", token, "POST") == 200
    page.goto(server.url(f"/players/{name}"))
    page.wait_for_selector("h1 .bot-mark")
    assert page.inner_text("h1").startswith("BOT")
    page.goto(server.url("/account"))
    page.wait_for_selector('#tokens p:has-text("This is a bot account")')

    page.click('#tokens li[data-token] button:has-text("Revoke")')
    page.wait_for_selector('#tokens li:has-text("No tokens.")')
    assert _bot_request(server, "/api/bot/account", token) == 401


def test_whom_challenges_come_from_is_chosen_on_the_account_page(
    server: Server, new_page: PageFactory
) -> None:
    """The account page's "Accept challenges from": saved when chosen, and there again
    after a reload."""
    page = new_page(viewport=SIZES["phone"])
    page.goto(server.url("/account"))
    page.fill(f'{SIGN_UP} input[name="username"]', "Picky")
    page.fill(f'{SIGN_UP} input[name="password"]', PASSWORD)
    page.click(f'{SIGN_UP} button[type="submit"]')
    page.wait_for_url("**/lobby")
    page.goto(server.url("/account"))
    choice = page.locator('#challenge-policy select[name="accept-from"]')
    page.wait_for_function(
        "() => document.querySelector('#challenge-policy select')?.value === 'everyone'"
    )
    choice.select_option("nobody")
    page.wait_for_selector('#challenge-policy p[role="status"]:has-text("Saved.")')
    shot(page, "account_challenge_policy")
    page.reload()
    page.wait_for_function(
        "() => document.querySelector('#challenge-policy select')?.value === 'nobody'"
    )
