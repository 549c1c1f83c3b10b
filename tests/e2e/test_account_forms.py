"""Sign-up and sign-in as a newcomer meets them, in Chromium on a phone and at
1366x768: the username rule is said before typing and a name too long is named, not cut;
the button waits while the server answers; a refused password is cleared; a forgotten
password is set again with the code an administrator's command prints; "sign out
everywhere" signs out the other devices and revokes every API token; and a signed-out
visitor's pages log no error to the console."""

from __future__ import annotations

import io
import urllib.error
import urllib.request
from contextlib import redirect_stdout
from typing import TYPE_CHECKING

import pytest

from poolcheckers.cli import main as poolcheckers_main

from .conftest import PageFactory, Server
from .helpers import shot

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 768}}
SIGN_UP = 'form[aria-label="Create an account"]'
SIGN_IN = 'form[aria-label="Sign in"]'
RESET = 'form[aria-label="Set a new password"]'
PASSWORD = "correct horse battery"


@pytest.mark.parametrize("size", SIZES)
def test_the_username_rule_is_said_and_a_long_name_is_named_not_cut(
    server: Server, new_page: PageFactory, size: str
) -> None:
    page = new_page(viewport=SIZES[size])
    page.goto(server.url("/account"))
    page.wait_for_selector(SIGN_UP)
    rule = page.inner_text(f"{SIGN_UP} .hint")
    assert "2 to 20 characters: letters, digits, _ and -" in rule
    name = page.locator(f'{SIGN_UP} input[name="username"]')
    name.fill("a" * 25)
    assert name.input_value() == "a" * 25  # nothing cut short
    assert "Username must be 2 to 20 characters, not 25." in page.inner_text(SIGN_UP)
    page.fill(f'{SIGN_UP} input[name="password"]', PASSWORD)
    page.click(f'{SIGN_UP} button[type="submit"]')
    # the browser holds the form back with the same words
    message = name.evaluate("el => el.validationMessage")
    assert message == "Username must be 2 to 20 characters, not 25."
    shot(page, f"signup-rule-{size}")


def test_signing_in_waits_then_clears_a_refused_password(
    server: Server, new_page: PageFactory
) -> None:
    page = new_page(viewport=SIZES["laptop"])
    page.goto(server.url("/account"))
    page.wait_for_selector(SIGN_IN)
    page.fill(f'{SIGN_IN} input[name="username"]', "nobody_here")
    page.fill(f'{SIGN_IN} input[name="password"]', "not the password")
    state = page.evaluate(
        """sel => { const form = document.querySelector(sel);
             form.requestSubmit();
             const b = form.querySelector('button[type="submit"]');
             return [b.disabled, b.textContent, form.getAttribute('aria-busy')]; }""",
        SIGN_IN,
    )
    assert state == [True, "Signing in…", "true"]
    page.wait_for_selector(f"{SIGN_IN} p.error:not(:empty)")
    assert "wrong username or password" in page.inner_text(f"{SIGN_IN} p.error")
    assert page.input_value(f'{SIGN_IN} input[name="password"]') == ""
    assert page.input_value(f'{SIGN_IN} input[name="username"]') == "nobody_here"
    assert page.is_enabled(f'{SIGN_IN} button[type="submit"]')
    assert page.inner_text(f'{SIGN_IN} button[type="submit"]') == "Sign in"


@pytest.mark.parametrize("size", SIZES)
def test_a_forgotten_password_is_set_with_the_administrators_code(
    server: Server, new_page: PageFactory, size: str
) -> None:
    name = f"Forgetful_{size}"
    server.post_json("/api/account/signup", {"username": name, "password": PASSWORD})
    database = f"sqlite:///{server.log_path.parent / 'games.sqlite3'}"
    printed = io.StringIO()
    with redirect_stdout(printed):
        assert poolcheckers_main(["reset-password", name, "--database-url", database]) == 0
    code = printed.getvalue().split(": ", 1)[1].split()[0]
    page = new_page(viewport=SIZES[size])
    page.goto(server.url("/account"))
    page.click("#forgot summary")
    page.fill(f'{RESET} input[name="username"]', name.lower())
    page.fill(f'{RESET} input[name="code"]', code)
    page.fill(f'{RESET} input[name="password"]', "a brand new secret")
    page.click(f'{RESET} button[type="submit"]')
    page.wait_for_url("**/lobby")
    page.goto(server.url("/account"))
    page.wait_for_selector(f"text=Signed in as {name}")
    shot(page, f"password-reset-{size}")


def test_a_signed_out_visitor_sees_no_console_error(server: Server, new_page: PageFactory) -> None:
    page = new_page(viewport=SIZES["phone"])
    logged: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            logged.append(f"{page.url}: {msg.text}")

    page.on("console", on_console)
    for path in ("/", "/lobby", "/archive", "/puzzles", "/rules", "/leaderboard"):
        page.goto(server.url(path))
        page.wait_for_selector("main h1, main h2")
        page.wait_for_load_state("networkidle")
    assert logged == []


@pytest.mark.parametrize("size", SIZES)
def test_sign_out_everywhere_ends_other_devices_and_revokes_every_token(
    server: Server, new_page: PageFactory, size: str
) -> None:
    name = f"Careful_{size}"
    server.post_json("/api/account/signup", {"username": name, "password": PASSWORD})
    here, there = new_page(viewport=SIZES[size]), new_page(viewport=SIZES[size])
    for page in (here, there):
        page.goto(server.url("/account"))
        page.fill(f'{SIGN_IN} input[name="username"]', name)
        page.fill(f'{SIGN_IN} input[name="password"]', PASSWORD)
        page.click(f'{SIGN_IN} button[type="submit"]')
        page.wait_for_url("**/lobby")
    here.goto(server.url("/account"))
    here.fill('form[aria-label="New API token"] input[name="label"]', "my engine")
    here.check('form[aria-label="New API token"] input[value="bot:play"]')
    here.click('form[aria-label="New API token"] button[type="submit"]')
    token = here.inner_text("#new-token")
    assert _bot_status(server, token) == 200
    # the page says what a password change does, and what the button does
    assert "revokes every API token" in here.inner_text('form[aria-label="Change the password"]')
    assert "This browser stays signed in." in here.inner_text("#everywhere")
    here.click('#everywhere button:has-text("Sign out everywhere")')
    here.wait_for_selector('#everywhere p.notice:has-text("every API token is revoked")')
    here.wait_for_selector('#tokens li:has-text("No tokens.")')
    shot(here, f"sign-out-everywhere-{size}")
    assert _bot_status(server, token) == 401
    there.goto(server.url("/account"))
    there.wait_for_selector(SIGN_IN)  # the other device is signed out
    here.reload()
    here.wait_for_selector(f"text=Signed in as {name}")  # this one is not


def _bot_status(server: Server, token: str) -> int:
    request = urllib.request.Request(
        server.url("/api/bot/account"), headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
