"""Fixtures of the command tests."""

from __future__ import annotations

import _thread
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Protocol

import pytest


class PressCtrlC(Protocol):
    def __call__(self, ready: Callable[[], bool], settle: float = ...) -> threading.Thread: ...


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


@pytest.fixture
def press_ctrl_c(sigint_raises: None) -> Iterator[PressCtrlC]:
    """``press_ctrl_c(ready, settle=0.0)`` starts a thread that presses Ctrl-C
    ``settle`` seconds after ``ready()`` first holds (waiting at most 60 s for it):
    a fixed delay can fire before a slow start under load has reached what the
    test is about.  The threads are joined at the end."""
    threads: list[threading.Thread] = []

    def start(ready: Callable[[], bool], settle: float = 0.0) -> threading.Thread:
        def press() -> None:
            deadline = time.monotonic() + 60
            while not ready() and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(settle)
            _thread.interrupt_main()

        thread = threading.Thread(target=press)
        threads.append(thread)
        thread.start()
        return thread

    yield start
    for thread in threads:
        thread.join()
