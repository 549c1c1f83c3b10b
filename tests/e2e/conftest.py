"""Fixtures of the browser tests: the real app on a free loopback port with a
temporary SQLite database, and Debian's Chromium driven by Playwright.

The server runs as ``python -m poolcheckers.server`` in a child process (as
``make run`` does); Chromium is /usr/bin/chromium, never a downloaded browser.
Screenshots go to ``test-artifacts/screenshots/``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Server:
    """The running app: its base URL and what /api/health said."""

    base_url: str
    health: dict[str, Any]
    log_path: Path

    @property
    def engine(self) -> bool:
        return bool(self.health.get("engine"))

    def url(self, path: str) -> str:
        return self.base_url + path

    def get_json(self, path: str) -> Any:
        with urllib.request.urlopen(self.url(path), timeout=10) as resp:
            return json.loads(resp.read().decode())

    def post_json(self, path: str, body: Any) -> Any:
        data = json.dumps(body).encode()
        req = urllib.request.Request(
            self.url(path), data=data, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.loads(resp.read().decode())

    def require_engine(self) -> None:
        assert self.engine, (
            "the native engine is not available (GET /api/health says engine: false): "
            "build it with make setup"
        )


@contextmanager
def running_server(
    tmp: Path, env_changes: Mapping[str, str | None] | None = None, args: Sequence[str] = ()
) -> Iterator[Server]:
    """``python -m poolcheckers.server`` in a child process on a free port with its own
    database in ``tmp``, stopped on exit; ``env_changes`` sets (or, with None,
    removes) environment variables for that process only; ``args`` come after the
    options below (a later option wins)."""
    port = _free_port()
    log_path = tmp / "server.log"
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    for name, value in (env_changes or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    cmd = [
        sys.executable,
        "-m",
        "poolcheckers.server",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--database-url",
        f"sqlite:///{tmp / 'games.sqlite3'}",
        "--engine-move-time",
        "0.05",
        "--log-level",
        "warning",
        # every browser test signs up and in from 127.0.0.1: the per-address limits
        # (5 sign-ups an hour by default) are tested in tests/server, not here
        "--signup-limit",
        "1000",
        "--signin-limit",
        "1000",
        "--signin-burst-limit",
        "1000",
        # a rated game is rated after two plies here (the minimum and the per-pair
        # daily limit are tested in tests/server); games resigned before both sides
        # moved are aborted whatever the setting
        "--min-rated-plies",
        "2",
        "--rated-games-per-pair-per-day",
        "1000",
        # every browser test creates its games from 127.0.0.1 as well: the creation
        # limits are tested in tests/server/capacity
        "--games-per-minute",
        "10000",
        "--engine-games-per-minute",
        "10000",
        "--engine-games-at-once",
        "10000",
        *args,
    ]
    with log_path.open("w") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    health: dict[str, Any] | None = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            with urllib.request.urlopen(base + "/api/health", timeout=2) as resp:
                health = json.loads(resp.read().decode())
                break
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    if health is None:
        proc.kill()
        proc.wait(timeout=10)
        pytest.fail(f"the server did not start:\n{log_path.read_text()}")
    try:
        yield Server(base, health, log_path)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("e2e-server")) as srv:
        yield srv


@pytest.fixture(scope="session")
def short_games_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server that rates a game only from its 6th ply: the pages say when a rated
    game is too short to be rated, and count it in no player's record."""
    tmp = tmp_path_factory.mktemp("short-games-server")
    with running_server(tmp, args=("--min-rated-plies", "6")) as srv:
        yield srv


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip(
            "Chromium is not installed at /usr/bin/chromium "
            "(install Debian's: apt-get install chromium, or make system-deps)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@dataclass
class PageErrors:
    """Uncaught errors and console errors of one page (a test fails on any)."""

    messages: list[str] = field(default_factory=list)
    # Console texts a test provokes on purpose (e.g. a request it aborts).
    allowed: list[str] = field(default_factory=list)


def watch_errors(page: Page, errors: PageErrors) -> None:
    page.on("pageerror", lambda exc: errors.messages.append(f"pageerror: {exc}"))

    def on_console(msg: ConsoleMessage) -> None:
        # A refused request (4xx, e.g. an illegal move) is logged by Chromium
        # itself; the page shows those errors to the user, so they are expected.
        expected = "Failed to load resource: the server responded with a status of 4"
        if msg.type != "error" or expected in msg.text:
            return
        if any(text in msg.text for text in errors.allowed):
            return
        errors.messages.append(f"console: {msg.text}")

    page.on("console", on_console)


@pytest.fixture
def page_errors() -> PageErrors:
    """The errors of the test's pages; a test may add to ``allowed``."""
    return PageErrors()


class PageFactory(Protocol):
    """The ``new_page`` fixture."""

    def __call__(self, **options: Any) -> Page:
        """A page in a new browser context made with ``options`` (those of
        ``Browser.new_context``: viewport, is_mobile, ...)."""


@pytest.fixture
def new_page(browser: Browser, page_errors: PageErrors) -> Iterator[PageFactory]:
    """A factory of pages, each in its own browser context (own localStorage)."""
    contexts: list[BrowserContext] = []
    errors = page_errors

    def make(**options: Any) -> Page:
        opts: dict[str, Any] = {"viewport": {"width": 1200, "height": 900}}
        opts.update(options)
        ctx = browser.new_context(**opts)
        ctx.set_default_timeout(15_000)
        contexts.append(ctx)
        page = ctx.new_page()
        watch_errors(page, errors)
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors.messages, "errors in the browser:\n" + "\n".join(errors.messages)
