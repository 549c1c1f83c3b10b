"""The pages' forms offer what the server allows, read from GET /api/rules (its
`limits`) and never copied into the JavaScript: the analysis page offers exactly as
many engine lines as the server's bound, the engine's time up to the server's longest
search, the home page the engine's levels, the account forms the lengths of names and
passwords. A server with other limits (the answer altered on its way) gets other forms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from .conftest import PageFactory, Server

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def offered_lines(page: Page) -> list[int]:
    """The numbers of engine lines the analysis page (loaded) offers."""
    page.wait_for_selector("svg.board .piece")
    lines: list[int] = page.eval_on_selector_all(
        "#engine-lines-count option", "els => els.map(e => Number(e.value))"
    )
    return lines


def alter_limits(page: Page, changes: dict[str, Any]) -> None:
    """Answer GET /api/rules with the server's answer, its limits changed by ``changes``."""

    def altered(route: Route) -> None:
        response = route.fetch()
        body = response.json()
        body["limits"].update(changes)
        route.fulfill(response=response, json=body)

    page.route("**/api/rules", altered)


def test_the_analysis_page_offers_as_many_lines_as_the_rules_say(
    server: Server, new_page: PageFactory
) -> None:
    limits = server.get_json("/api/rules")["limits"]
    page = new_page()
    page.goto(server.url("/analysis"))
    assert offered_lines(page) == list(range(1, limits["analysis_lines"] + 1))
    assert page.get_attribute("#engine-time", "max") == f"{limits['analysis_seconds']:g}"
    assert float(page.get_attribute("#review-time", "max") or "inf") <= limits["analysis_seconds"]


def test_other_limits_give_other_forms(server: Server, new_page: PageFactory) -> None:
    page = new_page()
    alter_limits(
        page,
        {
            "analysis_lines": 2,
            "analysis_seconds": 7.5,
            "level": {"minimum": 2, "maximum": 4},
            "username_length": {"minimum": 3, "maximum": 12},
            "password_length": {"minimum": 10, "maximum": 99},
        },
    )
    page.goto(server.url("/analysis"))
    assert offered_lines(page) == [1, 2]
    assert page.input_value("#engine-lines-count") == "2"  # 3 by default, at most the bound
    assert page.get_attribute("#engine-time", "max") == "7.5"
    assert page.input_value("#engine-time") == "5"

    page.goto(server.url("/"))
    page.wait_for_selector("#new-game")
    levels = page.eval_on_selector_all("#level option", "els => els.map(e => e.value)")
    assert levels == ["2", "3", "4"]
    assert page.input_value("#level") == "3"

    page.goto(server.url("/account"))
    page.wait_for_selector('form[aria-label="Sign in"]')
    username = page.locator('form[aria-label="Create an account"] input[name="username"]')
    password = page.locator('form[aria-label="Create an account"] input[name="password"]')
    # the server's bounds: the least as minlength, the most said as soon as it is
    # passed (no maxlength, which would cut a pasted name short without a word)
    assert (
        username.get_attribute("minlength") == "3" and username.get_attribute("maxlength") is None
    )
    assert (
        password.get_attribute("minlength") == "10" and password.get_attribute("maxlength") is None
    )
    assert "3 to 12 characters" in page.inner_text('form[aria-label="Create an account"]')
    username.fill("a" * 13)
    assert username.evaluate("el => el.validationMessage") == (
        "Username must be 3 to 12 characters, not 13."
    )
    password.fill("p" * 100)
    assert password.evaluate("el => el.validationMessage") == (
        "Password must be 10 to 99 characters, not 100."
    )
