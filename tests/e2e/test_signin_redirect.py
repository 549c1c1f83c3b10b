"""After signing in, the account page follows ``next`` only to a page of the site
itself: however the address is spelled (a backslash or a tab the browser rewrites, a
scheme-relative or absolute URL, a ``javascript:`` URL), another site is never opened."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

import pytest

from .conftest import PageFactory, Server

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

PASSWORD = "correct horse battery"
NAME = "Redirected"
FOREIGN = [
    "/\\evil.example/",
    "/\t/evil.example/",
    "//evil.example/",
    "https://evil.example/",
    "javascript:alert(1)",
]


def sign_in(page: Page, server: Server, next_value: str) -> None:
    page.goto(server.url("/account?next=" + quote(next_value, safe="")))
    form = page.locator('form[aria-label="Sign in"]')
    form.locator('input[name="username"]').fill(NAME)
    form.locator('input[name="password"]').fill(PASSWORD)
    form.locator('button[type="submit"]').click()


@pytest.fixture(scope="module")
def account(server: Server) -> None:
    import json
    import urllib.request

    body = json.dumps({"username": NAME, "password": PASSWORD}).encode()
    request = urllib.request.Request(
        server.url("/api/account/signup"),
        data=body,
        headers={"Content-Type": "application/json", "Origin": server.url("")},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200


@pytest.mark.parametrize("next_value", FOREIGN)
def test_sign_in_never_leads_to_another_site(
    server: Server, new_page: PageFactory, account: None, next_value: str
) -> None:
    page = new_page()
    page.on("dialog", lambda dialog: dialog.dismiss())  # javascript: must not run
    sign_in(page, server, next_value)
    page.wait_for_url(re.compile(r"/lobby$"))
    assert urlsplit(page.url).netloc == urlsplit(server.url("/")).netloc


def test_sign_in_follows_a_page_of_the_site(
    server: Server, new_page: PageFactory, account: None
) -> None:
    page = new_page()
    sign_in(page, server, f"/players/{NAME}?tab=1")
    page.wait_for_url(re.compile(rf"/players/{NAME}\?tab=1$"))
    assert urlsplit(page.url).netloc == urlsplit(server.url("/")).netloc
