"""Fixtures of the command tests."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest


@pytest.fixture
def sigint_raises() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt, as in a terminal: a process started in the
    background by a shell without job control inherits SIGINT ignored, and
    ``_thread.interrupt_main`` then does nothing (the test would wait forever)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
