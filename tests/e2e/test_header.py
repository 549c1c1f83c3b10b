"""The header on every page, in Chromium on a phone and at 1366x768: the leaderboard,
"Sign in" that comes back to the page, and once signed in the player's name (to their
page), Settings and Sign out; the header never widens the page."""

from __future__ import annotations

import pytest

from .conftest import PageFactory, Server

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 768}}
PAGES = ["/", "/lobby", "/archive", "/rules", "/puzzles", "/leaderboard", "/tournaments"]


@pytest.mark.parametrize("size", SIZES)
def test_sign_in_name_and_sign_out_in_the_header_of_every_page(
    server: Server, new_page: PageFactory, size: str
) -> None:
    page = new_page(viewport=SIZES[size])
    for path in PAGES:
        page.goto(server.url(path))
        page.wait_for_selector("#header-sign-in")
        assert (
            page.get_attribute("#header-sign-in", "href")
            == f"/account?next={path.replace('/', '%2F')}"
        )
        assert page.locator('.site-header nav a[href="/leaderboard"]').count() == 1
        wide = page.evaluate(
            "() => document.scrollingElement.scrollWidth > document.scrollingElement.clientWidth"
        )
        assert not wide, path
    # signing in from the header comes back to the page it was on
    page.goto(server.url("/rules"))
    page.click("#header-sign-in")
    name = f"Header_{size}"
    form = 'form[aria-label="Create an account"]'
    page.fill(f'{form} input[name="username"]', name)
    page.fill(f'{form} input[name="password"]', "correct horse battery")
    page.click(f'{form} button[type="submit"]')
    page.wait_for_url("**/rules")
    page.wait_for_selector("#header-user")
    assert page.inner_text("#header-user") == name
    assert page.get_attribute("#header-user", "href") == f"/players/{name}"
    if size == "laptop":
        assert page.is_visible("#header-settings") and page.is_visible("#header-sign-out")
        page.click("#header-sign-out")
        page.wait_for_url(server.url("/"))
        page.wait_for_selector("#header-sign-in")
    else:  # on a phone the name stays; settings and sign-out are on the account page
        assert page.is_hidden("#header-settings") and page.is_hidden("#header-sign-out")
