"""Shared test set-up: make tests/reference.py (the independent move generator)
importable as ``reference`` however pytest is started."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Endgame tables a developer built in the default directory must not change the
# engine's answers in the tests (docs/EGDB.md); tests/egdb turns them on where it needs them.
os.environ["POOLCHECKERS_EGDB"] = "off"

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the browser tests last.

    Playwright's sync API keeps an event loop running in the main thread for
    as long as its session fixture lives; asyncio tests collected after it
    would fail with "cannot be called from a running event loop".
    """
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)
